#!/usr/bin/env python3
"""A seeded random mxfp4 GEMM graph in the migraphx dialect, as MIGraphX's GPU target writes it:
f4E2M1FN operands A [B, M, K] and B [B, K, N], f8E8M0FNU scales with one value per block of 32
along K ([B, M, K/32, 1] and [B, K/32, 1, N]), each broadcast to its operand's shape, and a
scaled quant_dot. Its reference is mgx_ref.py's case mlir_mxfp4_rand.

    mgx_gen_mxfp4.py SEED > graph.mlir"""
import random
import sys


def shaped(dims, et):
    strides = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    return "<%sx%s, %s>" % ("x".join(map(str, dims)), et, "x".join(map(str, strides)))


def main(seed):
    r = random.Random(seed)
    b, m, n, kb = r.randint(1, 3), r.randint(1, 40), r.randint(1, 40), r.randint(1, 4)
    k = 32 * kb
    n += n % 2  # B's fp4 values pack two per byte along N
    A, B = [b, m, k], [b, k, n]
    SA, SB = [b, m, kb, 1], [b, kb, 1, n]
    sa_full = "<%sx%s, %s>" % ("x".join(map(str, [b, m, kb, 32])), "f8E8M0FNU",
                                "x".join(map(str, [m * kb, kb, 1, 0])))
    sb_full = "<%sx%s, %s>" % ("x".join(map(str, [b, kb, 32, n])), "f8E8M0FNU",
                                "x".join(map(str, [kb * n, n, 0, 1])))
    print(f"// seed {seed}: B={b} M={m} N={n} K={k}")
    print(f"func.func @mlir_mxfp4_rand(%a: !migraphx.shaped{shaped(A, 'f4E2M1FN')}, "
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
    main(int(sys.argv[1]))
