#!/usr/bin/env python3
"""A seeded random mxfp4 GEMM graph in the migraphx dialect, as MIGraphX's GPU target writes it:
f4E2M1FN operands A [B, M, K] and B [B, K, N], f8E8M0FNU scales with one value per block of 32
along K ([B, M, K/32, 1] and [B, K/32, 1, N]), each broadcast to its operand's shape, and a
scaled quant_dot. Its reference is mgx_ref.py's case mlir_mxfp4_rand.

With --bt, B is a [B, N, K] weight read transposed (packed along K, so N may be odd), its scales
[B, N, K/32, 1] broadcast and transposed with it (case mlir_mxfp4_rand_bt); --kblocks=MAX draws
K/32 from 1..MAX (default 4); --shape=B,M,N,KBLOCKS fixes the shape instead of drawing it.

    mgx_gen_mxfp4.py SEED [--bt] [--kblocks=MAX] [--shape=B,M,N,KBLOCKS] > graph.mlir"""
import random
import sys


def shaped(dims, et):
    strides = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    return "<%sx%s, %s>" % ("x".join(map(str, dims)), et, "x".join(map(str, strides)))


def main(seed, bt=False, kmax=4, shape=None):
    r = random.Random(seed)
    b, m, n, kb = shape or (r.randint(1, 3), r.randint(1, 40), r.randint(1, 40), r.randint(1, kmax))
    k = 32 * kb
    if not bt:
        n += n % 2  # B's fp4 values pack two per byte along N
    A, B = [b, m, k], [b, k, n]
    SA, SB = [b, m, kb, 1], [b, kb, 1, n]
    sa_full = "<%sx%s, %s>" % ("x".join(map(str, [b, m, kb, 32])), "f8E8M0FNU",
                                "x".join(map(str, [m * kb, kb, 1, 0])))
    sb_full = "<%sx%s, %s>" % ("x".join(map(str, [b, kb, 32, n])), "f8E8M0FNU",
                                "x".join(map(str, [kb * n, n, 0, 1])))
    name = "mlir_mxfp4_rand_bt" if bt else "mlir_mxfp4_rand"
    print(f"// seed {seed}: B={b} M={m} N={n} K={k}{' (B transposed)' if bt else ''}")
    if bt:
        BT, SBT = [b, n, k], [b, n, kb, 1]
        sbt_full = "<%sx%s, %s>" % ("x".join(map(str, [b, n, kb, 32])), "f8E8M0FNU",
                                     "x".join(map(str, [n * kb, kb, 1, 0])))
        tr = "<%sx%s, %s>" % ("x".join(map(str, B)), "%s", "x".join(map(str, [n * k, 1, k])))
        print(f"func.func @{name}(%a: !migraphx.shaped{shaped(A, 'f4E2M1FN')}, "
              f"%b: !migraphx.shaped{shaped(BT, 'f4E2M1FN')}, %sa: !migraphx.shaped{shaped(SA, 'f8E8M0FNU')}, "
              f"%sb: !migraphx.shaped{shaped(SBT, 'f8E8M0FNU')}) -> !migraphx.shaped{shaped([b, m, n], 'f32')} {{")
        print(f"  %0 = migraphx.multibroadcast %sa {{out_dyn_dims = [], out_lens = [{b}, {m}, {kb}, 32]}} : "
              f"{shaped(SA, 'f8E8M0FNU')} -> {sa_full}")
        print(f"  %1 = migraphx.reshape %0 {{dims = [{b}, {m}, {k}]}} : {sa_full} -> {shaped(A, 'f8E8M0FNU')}")
        print(f"  %2 = migraphx.multibroadcast %sb {{out_dyn_dims = [], out_lens = [{b}, {n}, {kb}, 32]}} : "
              f"{shaped(SBT, 'f8E8M0FNU')} -> {sbt_full}")
        print(f"  %3 = migraphx.reshape %2 {{dims = [{b}, {n}, {k}]}} : {sbt_full} -> {shaped(BT, 'f8E8M0FNU')}")
        print(f"  %4 = migraphx.transpose %3 {{permutation = [0, 2, 1]}} : {shaped(BT, 'f8E8M0FNU')} -> "
              f"{tr % 'f8E8M0FNU'}")
        print(f"  %5 = migraphx.transpose %b {{permutation = [0, 2, 1]}} : {shaped(BT, 'f4E2M1FN')} -> "
              f"{tr % 'f4E2M1FN'}")
        print(f"  %6 = migraphx.quant_dot %a scaled by %1, %5 scaled by %4 : {shaped(A, 'f4E2M1FN')} scaled by "
              f"!migraphx.shaped{shaped(A, 'f8E8M0FNU')}, {tr % 'f4E2M1FN'} scaled by "
              f"!migraphx.shaped{tr % 'f8E8M0FNU'} -> {shaped([b, m, n], 'f32')}")
        print(f"  return %6 : !migraphx.shaped{shaped([b, m, n], 'f32')}")
        print("}")
        return
    print(f"func.func @{name}(%a: !migraphx.shaped{shaped(A, 'f4E2M1FN')}, "
          f"%b: !migraphx.shaped{shaped(B, 'f4E2M1FN')}, %sa: !migraphx.shaped{shaped(SA, 'f8E8M0FNU')}, "
          f"%sb: !migraphx.shaped{shaped(SB, 'f8E8M0FNU')}) -> !migraphx.shaped{shaped([b, m, n], 'f32')} {{")
    print(f"  %0 = migraphx.multibroadcast %sa {{out_dyn_dims = [], out_lens = [{b}, {m}, {kb}, 32]}} : "
          f"{shaped(SA, 'f8E8M0FNU')} -> {sa_full}")
    print(f"  %1 = migraphx.reshape %0 {{dims = [{b}, {m}, {k}]}} : {sa_full} -> {shaped(A, 'f8E8M0FNU')}")
    print(f"  %2 = migraphx.multibroadcast %sb {{out_dyn_dims = [], out_lens = [{b}, {kb}, 32, {n}]}} : "
          f"{shaped(SB, 'f8E8M0FNU')} -> {sb_full}")
    print(f"  %3 = migraphx.reshape %2 {{dims = [{b}, {k}, {n}]}} : {sb_full} -> {shaped(B, 'f8E8M0FNU')}")
    print(f"  %4 = migraphx.quant_dot %a scaled by %1, %b scaled by %3 : {shaped(A, 'f4E2M1FN')} scaled by "
          f"!migraphx.shaped{shaped(A, 'f8E8M0FNU')}, {shaped(B, 'f4E2M1FN')} scaled by "
          f"!migraphx.shaped{shaped(B, 'f8E8M0FNU')} -> {shaped([b, m, n], 'f32')}")
    print(f"  return %4 : !migraphx.shaped{shaped([b, m, n], 'f32')}")
    print("}")


if __name__ == "__main__":
    kmax = next((int(a.split("=")[1]) for a in sys.argv[2:] if a.startswith("--kblocks=")), 4)
    shape = next((tuple(map(int, a.split("=")[1].split(","))) for a in sys.argv[2:] if a.startswith("--shape=")), None)
    main(int(sys.argv[1]), "--bt" in sys.argv[2:], kmax, shape)
