"""dec8_ref.py TARGET ORACLE_DIR: the words the dec8 kernel of cvt8.s / cvt8_gfx1200.s stores
(out[0..511]), one 'out[i] = W' line each: lane i's codes 4i .. 4i + 3 decoded by the oracle's
table as fp8 (out[8i + k]) and bf8 (out[8i + 4 + k]), the target's encodings (FNUZ on gfx942,
OCP elsewhere), as f32 bits; a NaN code gives the quiet NaN 0x7fc00000 (with the code's sign in
OCP)."""
import sys
import numpy as np

sys.path.insert(0, sys.argv[2])
import oracle  # noqa: E402

fnuz = sys.argv[1] == "gfx942"
codes = np.arange(256)
tables = []
for elem in (("f8E4M3FNUZ", "f8E5M2FNUZ") if fnuz else ("f8E4M3FN", "f8E5M2")):
    v = oracle.f8_decode(codes, elem).astype(np.float32)
    bits = v.view(np.uint32).copy()
    nan = np.isnan(v)
    bits[nan] = 0x7FC00000 | (0 if fnuz else 1) * ((codes[nan] & 0x80).astype(np.uint32) << 24)
    tables.append(bits)
for i in range(64):
    for k in range(8):
        print("out[%d] = %d" % (8 * i + k, tables[k // 4][(4 * i + k % 4) & 0xFF]))
