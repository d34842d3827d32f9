#!/usr/bin/env bats
# The dual-B GEMM (docs/partitioning.md "Dual-B GEMMs", docs/gemm.md "Dual-B tiles"): two
# matmuls of one A whose results one epilogue combines (GPT's silu(gate) * up) are one kernel,
# each tile multiplying its A tile by both B tiles; seeded gated projections
# (tests/oracle/gen_gateup.py) and GPT blocks match the MLIR oracle on MFMA (gfx90a, gfx942),
# WMMA (gfx1100) and FMA (gfx1030) targets, in machine code and IR execution.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
  BIN="$BUILD/bin"
  GU=(/usr/bin/python3 "$ROOT/tests/oracle/gen_gateup.py")
  GEN=(/usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py")
  THREE=gfx90a,gfx1100,gfx1030
}

# the dual kernel of target $2 in manifest $1: its problem key, B operands, written buffers
dual_kernel() {
  /usr/bin/python3 -c '
import json, sys
t = [t for t in json.load(open(sys.argv[1]))["targets"] if t["processor"] == sys.argv[2]][0]
for k in t["kernels"]:
    if k["name"].endswith("_matmul_dual"):
        print(k["tuning"]["problem"], k["tuning"]["b_operands"],
              sum(a["access"] == "write_only" for a in k["args"]), t["kernel_count"])' "$1" "$2"
}

@test "gated projections, odd shapes, f32/f16/bf16, biases, either order, gate stored or not: one kernel matching the oracle" {
  "${GU[@]}" --m=37 --k=45 --n=71 --bias --seed=3 > a.mlir
  "${GU[@]}" --m=53 --k=67 --n=39 --dtype=f16 --order=up --combine=sub --seed=4 > b.mlir
  "${GU[@]}" --m=29 --k=96 --n=50 --dtype=bf16 --bias --combine=gelu --gate-out --seed=5 > c.mlir
  "${GU[@]}" --m=41 --k=33 --n=47 --dtype=f16 --weights=args --combine=mul --seed=6 > d.mlir
  "${GU[@]}" --batch=2 --m=131 --k=203 --n=93 --dtype=f16 --bias --order=up --seed=7 > e.mlir
  for f in a b c d e; do
    run "$TOSAC" $f.mlir --offload-arch=gfx90a --emit=partitions
    assert_line --regexp "^target gfx90a: 1 kernels, 1 launches"
    assert_line --regexp "^  kernel 0 tosac_k0_matmul_dual over "
  done
  "$TOSAC" c.mlir --offload-arch=gfx90a,gfx1100,gfx1030 -o c.hipfb
  "$TOSAC" e.mlir --offload-arch=gfx90a,gfx1100,gfx1030 -o e.hipfb
  # the gate's result is stored only where the graph returns it
  run dual_kernel c.json gfx1100
  assert_output "matmul:1x29x50x96:bf16:a96:b50n:dual 2 2 1"
  run dual_kernel e.json gfx1030
  assert_output "matmul:2x131x93x203:f16:a203:b93n:dual 2 1 1"
  run "${CHECK[@]}" a.mlir b.mlir c.mlir d.mlir e.mlir --targets=$THREE,gfx942
  assert_success
  assert_output --partial "PASSED: 5 graph(s)"
  TOSAC_EXEC=ir run "${CHECK[@]}" a.mlir b.mlir c.mlir d.mlir e.mlir --targets=$THREE,gfx942
  assert_success
  assert_output --partial "PASSED: 5 graph(s)"
}

@test "the dual-B tile holds two accumulator sets and two B tiles: the wave tile halves where one set filled the budget" {
  # weights as arguments: a 4096x4096x512 compile without 8 MiB of constants (compile only)
  "${GU[@]}" --m=4096 --k=512 --n=4096 --dtype=f16 --weights=args --seed=8 > big.mlir
  "$TOSAC" big.mlir --offload-arch=gfx90a,gfx1100,gfx1030 -o big.hipfb
  TOSAC_DUAL_GEMM=0 "$TOSAC" big.mlir --offload-arch=gfx90a,gfx1100,gfx1030 -o two.hipfb
  tiles='
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    k = t["kernels"][0]; u = k["tuning"]; r = k["registers"]
    print(t["processor"], "%dx%dx%d/%dx%d" % (u["bm"], u["bn"], u["bk"], u["wm"], u["wn"]), u["mma"],
          k["lds_bytes"], r["vgpr_spills"])'
  run /usr/bin/python3 -c "$tiles" two.json
  assert_line "gfx90a 256x256x16/128x64 32x32x8 49152 0"
  assert_line "gfx1100 256x128x32/64x64 16x16x16 61440 0"
  assert_line "gfx1030 128x64x32/64x32 64x32x8 30720 0"
  # one GEMM's 128 (gfx90a) and 64 accumulators per lane hold both sets; the FMA micro-tile
  # 8x8 -> 8x4; LDS: A and both B tiles, double-buffered; no spills
  run /usr/bin/python3 -c "$tiles" big.json
  assert_line "gfx90a 256x128x16/128x32 32x32x8 49152 0"
  assert_line "gfx1100 128x128x32/64x32 16x16x16 61440 0"
  assert_line "gfx1030 128x64x32/64x16 64x16x8 40960 0"
}

@test "GPT blocks: 7 kernels per block (gate and up one dual-B GEMM), 8 with TOSAC_DUAL_GEMM=0 and the norms' own kernels; oracle f32, f16, bf16" {
  "${GEN[@]}" gpt --layers=2 --seq=37 --hidden=64 --heads=2 --seed=12 > g32.mlir
  "${GEN[@]}" gpt --seq=45 --hidden=64 --heads=2 --dtype=f16 --seed=13 > g16.mlir
  "${GEN[@]}" gpt --seq=33 --dtype=bf16 --seed=14 > gbf.mlir
  run "$TOSAC" g32.mlir --offload-arch=gfx90a --emit=partitions
  assert_line --regexp "^target gfx90a: 14 kernels, 14 launches"
  assert_equal "$(echo "$output" | grep -c '^  kernel .*_matmul_dual over tensor<1x37x256xf32>')" 2
  TOSAC_DUAL_GEMM=0 TOSAC_NO_NORM_GEMM=1 run "$TOSAC" g32.mlir --offload-arch=gfx90a --emit=partitions
  assert_line --regexp "^target gfx90a: 16 kernels, 16 launches"
  refute_output --partial "_dual"
  # without the dual-B GEMM the MLP's RMS norm runs in the gate GEMM's prologue (a tile GEMM), the
  # up GEMM reading the value it stores
  TOSAC_DUAL_GEMM=0 run "$TOSAC" g32.mlir --offload-arch=gfx90a --emit=partitions
  assert_line --regexp "^target gfx90a: 14 kernels, 14 launches"
  assert_equal "$(echo "$output" | grep -c '^  kernel .*_rownorm_matmul over tensor<1x37x256xf32>')" 2
  refute_output --partial "_dual"
  TOSAC_NO_GEMM_GROUPING=1 TOSAC_NO_NORM_GEMM=1 run "$TOSAC" g32.mlir --offload-arch=gfx90a --emit=partitions
  assert_line --regexp "^target gfx90a: 20 kernels, 20 launches"
  refute_output --partial "_dual"
  TOSAC_NO_GEMM_GROUPING=1 run "$TOSAC" g32.mlir --offload-arch=gfx90a --emit=partitions
  assert_line --regexp "^target gfx90a: 16 kernels, 16 launches"
  run "${CHECK[@]}" g32.mlir g16.mlir gbf.mlir --targets=$THREE,gfx942
  assert_success
  assert_output --partial "PASSED: 3 graph(s)"
  TOSAC_EXEC=ir run "${CHECK[@]}" g32.mlir g16.mlir gbf.mlir --targets=$THREE
  assert_success
  assert_output --partial "PASSED: 3 graph(s)"
  TOSAC_DUAL_GEMM=0 run "${CHECK[@]}" g32.mlir g16.mlir --targets=gfx1100,gfx942
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
}

@test "M <= 16 (decode) keeps the two skinny kernels; TOSAC_DUAL_GEMM=1 makes the dual tile kernel there too, still exact" {
  "${GU[@]}" --m=1 --k=96 --n=200 --dtype=f16 --bias --seed=9 > dec.mlir
  run "$TOSAC" dec.mlir --offload-arch=gfx942 --emit=partitions
  assert_line --regexp "^target gfx942: 2 kernels, 2 launches"
  refute_output --partial "_dual"
  TOSAC_DUAL_GEMM=1 run "$TOSAC" dec.mlir --offload-arch=gfx942 --emit=partitions
  assert_line --regexp "^target gfx942: 1 kernels, 1 launches"
  assert_output --partial "_matmul_dual"
  TOSAC_DUAL_GEMM=1 run "${CHECK[@]}" dec.mlir --targets=$THREE
  assert_success
  TOSAC_DUAL_GEMM=1 TOSAC_EXEC=ir run "${CHECK[@]}" dec.mlir --targets=$THREE
  assert_success
}

@test "tosac-bundle quality --model: the dual-B kernel's flops are both GEMMs', its bytes A, both B and the product" {
  "${GU[@]}" --m=4096 --k=512 --n=4096 --dtype=f16 --weights=args --seed=8 > big.mlir
  "$TOSAC" big.mlir --offload-arch=gfx942 -o one.hipfb
  TOSAC_DUAL_GEMM=0 "$TOSAC" big.mlir --offload-arch=gfx942 -o two.hipfb
  run "$BIN/tosac-bundle" quality one.hipfb --model --no-mca
  assert_success
  assert_output --partial "matmul:1x4096x4096x512:f16:a512:b4096n:dual"
  # roofline: 2 x 2 x 4096 x 4096 x 512 flops at gfx942's f16 peak (one GEMM's alone would be
  # 13.1 us); the two kernels' adds the gate's 32 MiB written and read back
  assert_line --regexp "^model gfx942: 1 launches, estimated [0-9.]+ us, roofline 26.3 us"
  run "$BIN/tosac-bundle" quality two.hipfb --model --no-mca
  assert_line --regexp "^model gfx942: 2 launches, estimated [0-9.]+ us, roofline 27.4 us"
}
