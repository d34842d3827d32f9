#!/usr/bin/env bats
# Real models (/work/shared/testdata): every one compiles for the seven default targets; the
# BERT and ResNet-50 pieces and a reduced-resolution ResNet-18 run in tosac-run and match the
# MLIR oracle. Old-syntax graphs reach the oracle as TOSA 1.0 printed by `tosac --emit=tosa -O0`
# (the input graph, not the optimised one).

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  DATA=/work/shared/testdata
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run")
  ALL=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200
  cd "$BATS_TEST_TMPDIR"
}

# model.mlir -> model.o.mlir: TOSA 1.0 text with the oracle's input ranges ([-1, 1]) and an
# absolute tolerance for the result: long f32 dot products (K = 384 .. 4608) may be summed in
# another order than the oracle's, which moves a result by a few ulp of the partial sums.
to_oracle() {
  local name=$1 err=$2
  "$TOSAC" "$DATA/$name.mlir" --emit=tosa -O0 -o "$name.tosa.mlir" || return 1
  { for k in 0 1 2 3 4 5; do echo "// oracle: arg $k -1 1"; done
    echo "// oracle: result 0 err $err"
    cat "$name.tosa.mlir"; } > "$name.o.mlir"
}

kernel_counts() {
  /usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
print(" ".join("%d/%d" % (t["kernel_count"], t["workspace"]["bytes"]) for t in m["targets"]))' "$1"
}

@test "every model compiles for all seven targets" {
  for f in rocmlir_bert_part_0 rocmlir_bert_part_37 rocmlir_bert_part_48 rocmlir_resnet50_blk \
           rocmlir_resnet50_part_0 rocmlir_resnet18; do
    run "$TOSAC" "$DATA/$f.mlir" --offload-arch=$ALL -o $f.hipfb
    assert_success
    run /usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["targets"]))' $f.json
    assert_output 7
  done
  # ResNet-18: fusion, views, operand views, recomputation and index-map transposes
  # (docs/partitioning.md); on CDNA the tile heuristic (codegen/tuning.c) splits the K of 9-16
  # convolutions, each reduced by its last work-group (no combine kernel; the partials and the
  # arrival counters in the workspace; the 1x512 by 512x1000 classifier is a skinny GEMM with
  # four base blocks per lane, not split: docs/gemm.md); the 3-channel stem is one kernel
  # everywhere (the run gather on CDNA, conv_runs.bats: no im2col pass and matrix in the
  # workspace any more); on RDNA the RDNA estimate splits 12 (gfx1030), 11 (gfx1100) and 4
  # (gfx1200) convolutions. The graph optimiser (docs/optimize.md) folds the
  # 20 rsqrt(var + eps) and 18 weight transposes into constants, and the layout pass cancels the
  # transposes between convolutions, so every batch norm and ReLU becomes a convolution epilogue
  # (without the optimiser each convolution writes its NCHW result through the transpose after
  # it); the
  # input's transpose and the three exact-geometry slices are operand views of
  # their convolutions and the classifier's bias add is the matmul's epilogue
  run kernel_counts rocmlir_resnet18.json
  assert_output "23/4015104 23/4016128 23/6425344 23/4016384 23/4014592 23/4014848 23/4014336"
}

@test "views and fusion: BERT parts are one kernel each (plus the pooler's tanh), ResNet-18 halves" {
  # fusion, not split-K: the 12-row projections are skinny GEMMs that split K on CDNA (docs/gemm.md)
  export TOSAC_SPLIT_K=0
  run "$TOSAC" "$DATA/rocmlir_bert_part_37.mlir" --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  assert_line "  kernel 0 tosac_k0_matmul_add_add over tensor<1x12x384xf32>"
  run "$TOSAC" "$DATA/rocmlir_bert_part_0.mlir" --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  run "$TOSAC" "$DATA/rocmlir_resnet50_blk.mlir" --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 2 kernels, 2 launches, workspace 262144 bytes"
  TOSAC_NO_FUSION=1 run "$TOSAC" "$DATA/rocmlir_bert_part_37.mlir" --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 5 kernels, 5 launches, workspace 626688 bytes"
  # fusion on the input graph (-O0: no graph optimiser)
  run "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --offload-arch=gfx1100 --emit=partitions -O0
  assert_line --index 0 "target gfx1100: 68 kernels, 68 launches, workspace 6422528 bytes"
  TOSAC_NO_FUSION=1 run "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --offload-arch=gfx1100 --emit=partitions -O0
  assert_line --index 0 "target gfx1100: 257 kernels, 257 launches, workspace 9838592 bytes"
  # and on the optimised one (constants folded, transposes cancelled: docs/optimize.md)
  run "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --offload-arch=gfx1100 --emit=partitions
  assert_line "target gfx1100: 23 kernels, 23 launches, workspace 4014080 bytes"
}

@test "BERT parts 0, 37 and 48 match the oracle on all seven targets" {
  for p in 0 37 48; do
    to_oracle rocmlir_bert_part_$p 1e-4
  done
  run "${CHECK[@]}" rocmlir_bert_part_0.o.mlir rocmlir_bert_part_37.o.mlir rocmlir_bert_part_48.o.mlir
  assert_success
  assert_output --partial "PASSED: 3 graph(s)"
  assert_equal "$(echo "$output" | grep -c '^ok ')" 21
}

@test "the ResNet-50 block matches the oracle on all seven targets" {
  to_oracle rocmlir_resnet50_blk 2e-4
  run "${CHECK[@]}" rocmlir_resnet50_blk.o.mlir
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 7
}

@test "the ResNet-50 stem (batch 2, 200x200) matches the oracle on gfx90a and gfx1100" {
  to_oracle rocmlir_resnet50_part_0 1e-4
  run "${CHECK[@]}" rocmlir_resnet50_part_0.o.mlir --targets gfx90a,gfx1100
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# The full 224x224 ResNet-18 takes minutes in the emulator (one 3x3 conv of layer3 alone takes
# 4.5 s), so the run uses a copy derived at 64x64: every spatial size is mapped
# (224 -> 64, 112 -> 32, 56 -> 16, 55 -> 15, 28 -> 8, 27 -> 7, 14 -> 4, 13 -> 3, 7 -> 2) and the
# final 7x7 average pool becomes 2x2; weights, channels and op sequence are unchanged.
@test "ResNet-18 at 64x64 runs on a wave64 and a wave32 target and matches the oracle" {
  "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --emit=tosa -O0 -o r18.tosa.mlir
  /usr/bin/python3 "$ROOT/tests/oracle/resnet18_64.py" r18.tosa.mlir > r18_64.mlir
  run mlir-opt-22 r18_64.mlir -o /dev/null
  assert_success
  run grep -c 'tensor<1x3x64x64xf32>' r18_64.mlir
  assert_output 2
  run "${CHECK[@]}" r18_64.mlir --targets gfx90a,gfx1100
  assert_success
  assert_line --partial "ok r18_64.mlir [gfx90a]: 1 results match"
  assert_line --partial "ok r18_64.mlir [gfx1100]: 1 results match"
}
