#!/usr/bin/python3
"""parse_bench.py: frontend speed on a generated graph with ~100 MB of hex weights and 10,000
ops. Usage: parse_bench.py TOSAC [WORKDIR]. Prints hex MB/s, ops/s and peak RSS (from
/usr/bin/time or getrusage) of `tosac --syntax-only`."""
import os, resource, subprocess, sys, time

tosac = sys.argv[1]
work = sys.argv[2] if len(sys.argv) > 2 else "/tmp"
path = os.path.join(work, "parse_bench.mlir")
NCONST, ROWS, COLS, NOPS = 100, 256, 1024, 10000  # 100 x 1 MiB f32 constants
T = "tensor<%dx%dxf32>" % (ROWS, COLS)
if not os.path.exists(path):
    row = os.urandom(COLS * 4).hex().upper()
    with open(path, "w") as f:
        f.write("func.func @main(%%x: %s) -> %s {\n" % (T, T))
        for c in range(NCONST):
            f.write('  %%c%d = "tosa.const"() <{values = dense<"0x' % c)
            for _ in range(ROWS):
                f.write(row)
            f.write('"> : %s}> : () -> %s\n' % (T, T))
        prev = "%x"
        for i in range(NOPS - NCONST):
            f.write("  %%%d = tosa.add %s, %%c%d : (%s, %s) -> %s\n" % (i, prev, i % NCONST, T, T, T))
            prev = "%%%d" % i
        f.write("  return %s : %s\n}\n" % (prev, T))
hex_mb = NCONST * ROWS * COLS * 4 * 2 / 1e6
const_mb = NCONST * ROWS * COLS * 4 / 1e6
best = None
for _ in range(3):
    t0 = time.perf_counter()
    subprocess.run([tosac, "--syntax-only", path], check=True)
    dt = time.perf_counter() - t0
    best = dt if best is None or dt < best else best
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("file %.1f MB, hex %.1f MB (constant bytes %.1f MB), %d ops" % (os.path.getsize(path) / 1e6, hex_mb, const_mb, NOPS))
print("best of 3: %.3f s  ->  %.0f MB/s of hex, %.0f ops/s" % (best, hex_mb / best, NOPS / best))
print("peak RSS %.1f MB = %.2fx the constant bytes" % (peak, peak / const_mb))
