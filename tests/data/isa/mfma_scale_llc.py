# The words mfma_scale_llc.ll's kernel stores (tests/bats/isa.bats), computed from the confirmed
# layout of gfx950's block-scaled 16x16x128 MFMA with fp4 A and B (docs/emulator.md): lane l
# holds row (column) l % 16 and K = 32 * (l / 16) + 0..31, two per byte, low nibble first; D
# register r of lane l is D[4 * (l / 16) + r][l % 16].
import struct, sys
E2M1 = [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6]
def nib(words):
    bs = b''.join(struct.pack('<I', w) for w in words)
    return [E2M1[(bs[n // 2] >> 4 * (n % 2)) & 15] for n in range(32)]
A = [[0.0] * 128 for _ in range(16)]; B = [[0.0] * 16 for _ in range(128)]
for l in range(64):
    q, rc = l // 16, l % 16
    a = nib(range(8 * l, 8 * l + 4)); b = nib(range(8 * l + 4, 8 * l + 8))
    sa, sb = 2.0 ** (120 + l % 8 - 127), 2.0 ** (-(l // 16))
    for n in range(32):
        A[rc][32 * q + n] = a[n] * sa; B[32 * q + n][rc] = b[n] * sb
for l in range(64):
    for r in range(4):
        i, j = 4 * (l // 16) + r, l % 16
        d = 1.0 + sum(A[i][k] * B[k][j] for k in range(128))
        print("out[%d] = %d" % (4 * l + r, struct.unpack('<I', struct.pack('<f', d))[0]))
