#!/usr/bin/env bats
# Row norms in skinny GEMMs (docs/partitioning.md "Row norms in skinny GEMMs"): a layer norm or
# RMS norm whose value only a skinny GEMM's A operand reads, and which is no graph result, is no
# kernel of its own: the GEMM recomputes the rows in a prologue. Seeded graphs
# (tests/oracle/gen_normgemv.py: 1-4 rows, K and N drawn, the norm's input an argument or a
# first skinny GEMM's residual add, the norm also a graph result, f32, f16 and bf16) against the
# MLIR oracle on gfx942 (MFMA), gfx1100 (WMMA) and gfx1030 (FMA), as machine code and as IR,
# within the generator's tolerances (absolute, on the GEMM's result and on the residual: f32
# 2e-3 and 1e-4; f16 0.25 and 2e-2, the oracle summing the norm's statistics in f16; bf16 0.5 and
# 0.125); both split-K forms; the launch counts with the fusion and with TOSAC_NO_NORM_GEMV=1;
# the GPT-2-small decode step's figures.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
  CHECK+=(--targets gfx942,gfx1100,gfx1030)
}

gen() { gen_seeded gen_normgemv.py "$1" "$2"; }

@test "a layer norm read only by a skinny GEMM is no kernel: the GEMM's prologue computes its rows" {
  # seed 1: the residual form, 2 rows of 768, N 59, f32: the first GEMM (+ bias + residual) and
  # the second with the norm in its prologue
  gen residual 1
  run "$TOSAC" residual1.mlir --offload-arch=gfx942,gfx1100,gfx1030 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 2 kernels, 2 launches, workspace [0-9]+ bytes$"
  assert_line --regexp "^target gfx1100: 2 kernels, 2 launches, workspace [0-9]+ bytes$"
  assert_line --regexp "^target gfx1030: 2 kernels, 2 launches, workspace [0-9]+ bytes$"
  refute_output --regexp "kernel [0-9]+ tosac_k[0-9]+_rownorm over"
  [ "$(echo "$output" | grep -c '^  kernel 1 tosac_k1_rownorm_matmul')" -eq 3 ]
  # the manifest: two kernels, the second the skinny kernel with its prologue priced
  run "$TOSAC" residual1.mlir --offload-arch=gfx942 -o r.hipfb
  assert_success
  run /usr/bin/python3 -c 'import json; t = json.load(open("r.json"))["targets"][0]
k = t["kernels"][1]
print(t["kernel_count"], k["family"], k["tuning"]["kernel"], k["tuning"]["norm_rows"], k["tuning"]["norm_row"], k["tuning"]["norm_reductions"])'
  assert_output "2 gemm gemv 2 768 2"
  # the switch restores the norm kernel
  TOSAC_NO_NORM_GEMV=1 run "$TOSAC" residual1.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 3 kernels, 3 launches, workspace [0-9]+ bytes$"
  assert_line "  kernel 1 tosac_k1_rownorm over tensor<1x2x768xf32>"
  # an RMS norm of an argument (seed 3: 4 rows of 768): one kernel in all
  gen arg 3
  run "$TOSAC" arg3.mlir --offload-arch=gfx942,gfx1030 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 1 kernels, 1 launches, workspace [0-9]+ bytes$"
  assert_line --regexp "^target gfx1030: 1 kernels, 1 launches, workspace [0-9]+ bytes$"
  # a tile perf-config: the GEMM takes the tile kernel, which runs the norm in its prologue only
  # where the estimate says it pays (norm_gemm.bats): not here, so the norm keeps its kernel;
  # forced (TOSAC_NORM_GEMM=1), 4 rows in a 16-row tile
  run "$TOSAC" arg3.mlir --offload-arch=gfx942 --perf-config=kernel=tile --emit=partitions
  assert_success
  assert_line "  kernel 0 tosac_k0_rownorm over tensor<1x4x768xf32>"
  assert_line "  kernel 1 tosac_k1_matmul_add over tensor<1x4x47xf32>"
  TOSAC_NORM_GEMM=1 run "$TOSAC" arg3.mlir --offload-arch=gfx942 --perf-config=kernel=tile --emit=partitions
  assert_success
  assert_line "  kernel 0 tosac_k0_rownorm_matmul over tensor<1x4x47xf32>"
  TOSAC_NORM_GEMM=1 run "${CHECK[@]}" arg3.mlir --tosac-arg=--perf-config=kernel=tile
  assert_success
}

@test "a norm that is also a graph result keeps its kernel; so does one read by more than the GEMM's A" {
  gen output 1
  run "$TOSAC" output1.mlir --offload-arch=gfx942,gfx1030 --emit=partitions
  assert_success
  assert_line --regexp "^target gfx942: 3 kernels, 3 launches, workspace [0-9]+ bytes$"
  [ "$(echo "$output" | grep -c '_rownorm over')" -eq 2 ]
  refute_output --partial "rownorm_matmul"
  run "${CHECK[@]}" output1.mlir
  assert_success
  # BERT-style: the norm is the next block's residual too (16 tokens: skinny GEMMs)
  /usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" bert --layers=1 --seq=16 --hidden=64 --heads=2 > bert.mlir
  run "$TOSAC" bert.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  refute_output --partial "rownorm_matmul"
}

@test "seeded row norms feeding skinny GEMMs match the oracle (machine code)" {
  for s in 1 2 3 4 5 6 7 8; do gen residual $s; done
  for s in 1 2 3 4; do gen arg $s; done
  for s in 2 3 5; do gen output $s; done
  run "${CHECK[@]}" residual1.mlir residual2.mlir residual3.mlir residual4.mlir residual5.mlir \
    residual6.mlir residual7.mlir residual8.mlir arg1.mlir arg2.mlir arg3.mlir arg4.mlir output2.mlir output3.mlir \
    output5.mlir
  assert_success
  assert_output --partial "PASSED: 15 graph(s)"
}

@test "seeded row norms feeding skinny GEMMs match the oracle (IR)" {
  for s in 1 2 3 5; do gen residual $s; done
  for s in 1 4; do gen arg $s; done
  gen output 3
  TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir run "${CHECK[@]}" residual1.mlir residual2.mlir residual3.mlir \
    residual5.mlir arg1.mlir arg4.mlir output3.mlir
  assert_success
  assert_output --partial "PASSED: 7 graph(s)"
}

@test "split over K, the prologue runs in the partial kernel (combine) or the one kernel (last work-group)" {
  gen residual 1
  gen residual 2
  gen arg 3
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run "$TOSAC" residual1.mlir --offload-arch=gfx942 --emit=partitions
  assert_success
  # the partial kernel reads the norm's input (b9) and gamma, beta and B; the combine the
  # partials and the bias
  assert_line --regexp "^  kernel 2 tosac_k2_rownorm_matmul_splitk over tensor<1x2x59xf32>$"
  assert_line --regexp "^  kernel 3 tosac_k3_rownorm_matmul_combine over tensor<1x2x59xf32>$"
  assert_line "    reads b11 b7; writes b8"
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run "${CHECK[@]}" residual1.mlir residual2.mlir arg3.mlir
  assert_success
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=lastwg TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir run "${CHECK[@]}" residual1.mlir \
    residual2.mlir arg3.mlir
  assert_success
}

@test "GPT-2-small decode step on gfx942: the 25 layer norms run in the GEMVs' prologues, 61 launches" {
  /usr/bin/python3 "$ROOT/tests/bench/gen_model.py" gpt2 --layers 12 --kv 1024 --vocab 50257 --dtype f16 > gpt2.mlir
  run "$TOSAC" gpt2.mlir --offload-arch=gfx942 -o gpt2.hipfb
  assert_success
  run "$BUNDLE" quality gpt2.hipfb --no-mca --model
  assert_success
  # every launch charged the dependent launch gap (3.8 us); the kernels alone beside it
  assert_line "model gfx942: 61 launches, estimated 304.9 us, roofline 53.9 us: 18% of the roofline (5.65x)"
  assert_line "kernels gfx942: estimated 73.1 us: 74% of the roofline (1.36x), launch gaps 231.8 us"
  refute_line --regexp '^  rownorm '
  assert_line --regexp '^  gemm +49 '
  TOSAC_NO_NORM_GEMV=1 run "$TOSAC" gpt2.mlir --offload-arch=gfx942 -o off.hipfb
  assert_success
  run "$BUNDLE" quality off.hipfb --no-mca --model
  assert_success
  assert_line "model gfx942: 86 launches, estimated 417.4 us, roofline 54.0 us: 13% of the roofline (7.73x)"
  assert_line "kernels gfx942: estimated 90.6 us: 60% of the roofline (1.68x), launch gaps 326.8 us"
  assert_line --regexp '^  rownorm +25 '
}
