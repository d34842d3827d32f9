#!/usr/bin/env python3
"""Compare a tosac-run result with an exact (float64) sum of products within f32 summation's error
bound (mgx_ref.py --sum-bound): |got - exact| <= bound elementwise, NaN where exact is NaN.

    sum_check.py GOT.npy EXACT.npy BOUND.npy

Prints "ok N elements, max |d| / bound R" (exit 0) or the first mismatches (exit 1)."""
import sys

import numpy as np


def main(got_path, exact_path, bound_path):
    got = np.load(got_path).astype(np.float64).reshape(-1)
    exact = np.load(exact_path).reshape(-1)
    bound = np.load(bound_path).reshape(-1)
    if got.shape != exact.shape:
        print("MISMATCH: %d elements, expected %d" % (got.size, exact.size))
        return 1
    nan = np.isnan(exact)
    d = np.where(nan, 0.0, np.abs(got - exact))
    bad = np.where((nan & ~np.isnan(got)) | (~nan & ~(d <= bound)))[0]
    for i in bad[:5]:
        print("  at %d: got %.9g, exact %.9g, |d| %.3g > bound %.3g" % (i, got[i], exact[i], d[i], bound[i]))
    if bad.size:
        print("MISMATCH: %d of %d elements" % (bad.size, got.size))
        return 1
    ratio = np.max(np.where(bound > 0, d / np.where(bound > 0, bound, 1), 0)) if got.size else 0
    print("ok %d elements, max |d| / bound %.3g" % (got.size, ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
