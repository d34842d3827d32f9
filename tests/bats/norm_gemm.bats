#!/usr/bin/env bats
# Row norms in tile GEMMs (docs/partitioning.md "Row norms in tile GEMMs", docs/gemm.md "Row-norm
# prologue"): a layer norm or RMS norm whose value a tile GEMM (M > 16) reads as A is no kernel
# of its own: each work-group of the GEMM computes its M tile's rows into LDS in a prologue, and
# the first N block's work-groups store the value for the kernels that read it later (a residual
# add, a graph result). Seeded graphs (tests/oracle/gen_normgemm.py: 17-300 rows with partial
# tiles, K 64-1024, the norm's input an argument or a GEMM's residual add, the norm read again by
# a later GEMM's residual add or returned, three grouped GEMMs of constant weights, f32, f16 and
# bf16) against the MLIR oracle on gfx942 (MFMA), gfx1100 (WMMA) and gfx1030 (FMA), as machine
# code and as IR, within the generator's tolerances (absolute: the first GEMM's result f32 2e-3,
# f16 0.25, bf16 0.5, the oracle summing the norm's statistics in f16; the later GEMM with the
# residual add of the norm 4e-3, 0.5 and 1.0; the returned norm 1e-4, 0.1 and 0.2), with
# TOSAC_NORM_GEMM=1 (the fusion wherever the rows fit, not only where the estimate says it pays:
# every graph then has a fused kernel on every target); the launch counts with the estimate's
# choice, forced, and with TOSAC_NO_NORM_GEMM=1; a BERT-base layer's launches.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
  CHECK+=(--targets gfx942,gfx1100,gfx1030)
}

gen() { gen_seeded gen_normgemm.py "$1" "$2"; }

@test "a layer norm read by a tile GEMM and a later residual add runs in the GEMM's prologue" {
  # seed 2: the residual form, 55 rows of 640, N 93, f16: the first GEMM (+ bias + residual),
  # the second with the norm in its prologue, the third adding the norm to its result
  # (gfx1030's FMA tile with the rows resident is estimated slower than a norm kernel and its
  # launch: there the norm keeps its kernel unless forced)
  gen residual 2
  run "$TOSAC" residual2.mlir --offload-arch=gfx942,gfx1100,gfx1030 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 3 kernels, 3 launches, workspace [0-9]+ bytes$"
  assert_line --regexp "^target gfx1100: 3 kernels, 3 launches, workspace [0-9]+ bytes$"
  assert_line --regexp "^target gfx1030: 4 kernels, 4 launches, workspace [0-9]+ bytes$"
  [ "$(echo "$output" | grep -c '^  kernel 1 tosac_k1_rownorm_matmul over tensor<1x55x93xf16>')" -eq 2 ]
  TOSAC_NORM_GEMM=1 run "$TOSAC" residual2.mlir --offload-arch=gfx942,gfx1100,gfx1030 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx1030: 3 kernels, 3 launches, workspace [0-9]+ bytes$"
  refute_output --regexp "kernel [0-9]+ tosac_k[0-9]+_rownorm over"
  [ "$(echo "$output" | grep -c '^  kernel 1 tosac_k1_rownorm_matmul over tensor<1x55x93xf16>')" -eq 3 ]
  # the fused kernel writes the norm (b.. of 55x640) besides its result; the third kernel reads it
  run "$TOSAC" residual2.mlir --offload-arch=gfx942 -o r.hipfb
  assert_success
  run /usr/bin/python3 -c 'import json; t = json.load(open("r.json"))["targets"][0]
k = t["kernels"][1]; u = k["tuning"]
print(t["kernel_count"], k["family"], u.get("kernel", "tile"), u["problem"], u["norm_rows"], u["norm_row"], u["norm_reductions"], "split_k" in u)'
  assert_output "3 gemm tile matmul:1x55x93x640:f16:a640:b93n:normA 16 640 2 False"
  # the switch restores the norm kernel; TOSAC_NO_NORM_GEMV=1 is the skinny form's alone
  TOSAC_NO_NORM_GEMM=1 run "$TOSAC" residual2.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 4 kernels, 4 launches, workspace [0-9]+ bytes$"
  assert_line "  kernel 1 tosac_k1_rownorm over tensor<1x55x640xf16>"
  TOSAC_NO_NORM_GEMV=1 run "$TOSAC" residual2.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 3 kernels, 3 launches, workspace [0-9]+ bytes$"
}

@test "a norm returned as a result, or read by grouped GEMMs, runs in the prologue; rows that do not fit keep the kernel" {
  # seed 7: the norm of an argument, 288 rows of 120, returned too (gfx1030: forced)
  gen output 7
  run "$TOSAC" output7.mlir --offload-arch=gfx942,gfx1030 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 1 kernels, 1 launches, workspace 0 bytes$"
  assert_line --regexp "^target gfx1030: 2 kernels, 2 launches, workspace 0 bytes$"
  TOSAC_NORM_GEMM=1 run "$TOSAC" output7.mlir --offload-arch=gfx1030 --emit=partitions
  assert_line --regexp "^target gfx1030: 1 kernels, 1 launches, workspace 0 bytes$"
  # seed 3: three GEMMs of constant weights reading the norm (201 rows of 216, an RMS norm, N
  # 10): three prologues cost more than the norm kernel by the estimate; forced, one kernel
  gen group 3
  run "$TOSAC" group3.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  assert_line "  kernel 1 tosac_k1_rownorm over tensor<1x201x216xf32>"
  TOSAC_NORM_GEMM=1 run "$TOSAC" group3.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 3 kernels, 3 launches, workspace [0-9]+ bytes$"
  assert_line "  kernel 1 tosac_k1_rownorm_matmul_group3 over tensor<1x201x10xf32>"
  # seed 1: 1008 f32 elements per row: 32 rows are 126 KiB, more than gfx942's LDS
  gen residual 1
  run "$TOSAC" residual1.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  assert_line "  kernel 1 tosac_k1_rownorm over tensor<1x225x1008xf32>"
}

@test "seeded row norms feeding tile GEMMs match the oracle (machine code)" {
  for s in 2 4 5 7 8; do gen residual $s; done
  for s in 2 3 7; do gen arg $s; done
  for s in 2 5 7; do gen output $s; done
  for s in 3 5 6 8; do gen group $s; done
  export TOSAC_NORM_GEMM=1
  run "${CHECK[@]}" residual2.mlir residual4.mlir residual5.mlir residual7.mlir residual8.mlir arg2.mlir \
    arg3.mlir arg7.mlir output2.mlir output5.mlir output7.mlir group3.mlir group5.mlir group6.mlir group8.mlir
  assert_success
  assert_output --partial "PASSED: 15 graph(s)"
}

@test "seeded row norms feeding tile GEMMs match the oracle (IR)" {
  gen residual 2
  gen residual 5
  gen arg 3
  gen output 7
  gen group 6
  TOSAC_NORM_GEMM=1 TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir run "${CHECK[@]}" residual2.mlir residual5.mlir arg3.mlir output7.mlir group6.mlir
  assert_success
  assert_output --partial "PASSED: 5 graph(s)"
}

@test "BERT-base layers: the two layer norms per layer run in the FFN-up and the next Q/K/V GEMMs" {
  # two layers, sequence 128, f16, constant weights (grouped Q/K/V): 7 launches per layer
  # without the fusion; by the estimate both norms run in the GEMMs on gfx942 and gfx1100 (each
  # wave's prologue rows load in one go; gfx1030's FMA tiles take none), forced on gfx1030 too:
  # 5 per layer. The last layer's norm is the graph's result and no GEMM reads it, so it keeps
  # its kernel
  /usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" bert --layers=2 --seq=128 --hidden=768 --heads=12 \
    --dtype=f16 --seed=11 > bert.mlir
  run "$TOSAC" bert.mlir --offload-arch=gfx942,gfx1100,gfx1030 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 11 kernels, 11 launches, workspace [0-9]+ bytes$"
  assert_line --regexp "^target gfx1100: 11 kernels, 11 launches, workspace [0-9]+ bytes$"
  assert_line --regexp "^target gfx1030: 14 kernels, 14 launches, workspace [0-9]+ bytes$"
  [ "$(echo "$output" | grep -c '^  kernel 3 tosac_k3_rownorm_matmul over tensor<1x128x3072xf32>')" -eq 2 ]
  [ "$(echo "$output" | grep -c '^  kernel 5 tosac_k5_rownorm_matmul_group3 ')" -eq 2 ]
  TOSAC_NORM_GEMM=1 run "$TOSAC" bert.mlir --offload-arch=gfx942,gfx1100,gfx1030 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 11 kernels, 11 launches, workspace [0-9]+ bytes$"
  assert_line --regexp "^target gfx1030: 11 kernels, 11 launches, workspace [0-9]+ bytes$"
  [ "$(echo "$output" | grep -c '^  kernel 5 tosac_k5_rownorm_matmul_group3 ')" -eq 3 ]
  [ "$(echo "$output" | grep -c '_rownorm over')" -eq 3 ]
  TOSAC_NO_NORM_GEMM=1 run "$TOSAC" bert.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 14 kernels, 14 launches, workspace [0-9]+ bytes$"
}

@test "small BERTs with their norms in the GEMMs' prologues match the oracle; with attention fusion off the softmax too" {
  # 130 tokens, hidden 128, f16, two layers: both norms of layer 1 and the first of layer 2 in
  # the FFN-up and grouped Q/K/V GEMMs; 77 tokens, hidden 64, masked: with attention fusion off
  # each head's softmax runs in the prologue of the P V product (a batched matmul)
  /usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" bert --layers=2 --seq=130 --hidden=128 --heads=2 \
    --dtype=f16 --seed=4 > b16.mlir
  /usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" bert --layers=1 --seq=77 --hidden=64 --heads=4 --mask \
    --seed=3 > b77.mlir
  export TOSAC_NORM_GEMM=1
  run "$TOSAC" b16.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  assert_line "  kernel 5 tosac_k5_rownorm_matmul_group3 over tensor<1x130x128xf32>"
  run "${CHECK[@]}" b16.mlir b77.mlir
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
  TOSAC_NO_ATTENTION_FUSION=1 run "$TOSAC" b77.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  assert_line "  kernel 5 tosac_k5_rownorm_matmul over tensor<4x77x16xf32>"
  TOSAC_NO_ATTENTION_FUSION=1 TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir run "${CHECK[@]}" b77.mlir
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "an f32 BERT-base layer on gfx950: the first norm's rows of 768 f32 fit beside the FFN-up tile in 160 KiB" {
  /usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" bert --seq=128 --hidden=768 --heads=12 --seed=11 > base.mlir
  run "$TOSAC" base.mlir --offload-arch=gfx950,gfx942 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx950: 6 kernels, 6 launches, workspace [0-9]+ bytes$"
  assert_line --regexp "^target gfx942: 7 kernels, 7 launches, workspace [0-9]+ bytes$"
  assert_line "  kernel 3 tosac_k3_rownorm_matmul over tensor<1x128x3072xf32>"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" --targets gfx950 base.mlir
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}
