#!/usr/bin/env bats
# The optimiser's folding passes (docs/optimize.md): fold-constants evaluates ops of constants at
# compile time (src/optimize/eval.c), fold-batchnorm folds per-channel affine chains into the
# weights and bias of the convolution or matmul before them. Graphs from tests/oracle/gen_bn.py
# (seeded random constants) match the MLIR oracle with the passes on and off on an MFMA, a WMMA
# and the FMA target; the oracle always runs the input graph.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run"
         --targets=gfx90a,gfx1100,gfx1030)
  GEN=(/usr/bin/python3 "$ROOT/tests/oracle/gen_bn.py")
  DATA="$ROOT/../shared/testdata"
  [ -d "$DATA" ] || DATA=/work/shared/testdata
  OFF=(--tosac-arg=-fno-fold-constants --tosac-arg=-fno-fold-batchnorm)
  cd "$BATS_TEST_TMPDIR"
}

# oracle_both KIND SEED: the graph matches the oracle with the folding passes on and off, on the
# three targets.
oracle_both() {
  "${GEN[@]}" "$1" "$2" > "$1$2.mlir"
  run "${CHECK[@]}" --seed="$2" "$1$2.mlir"
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 3
  run "${CHECK[@]}" --seed="$2" "${OFF[@]}" "$1$2.mlir"
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 3
}

# launches FILE TARGET [FLAGS...]: the kernel count --emit=partitions reports.
launches() {
  local f=$1 t=$2
  shift 2
  "$TOSAC" "$f" --offload-arch="$t" --emit=partitions "$@" -o - | sed -n 's/^target [^:]*: \([0-9]*\) kernels.*/\1/p'
}

# const_kernels MANIFEST: per target, the kernels that compute from constants only (every buffer
# they read is a constant, or they read none: small constants are inlined into the kernel), and
# the transpose kernels that read a constant ("none" when there are none).
const_kernels() {
  /usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
bad = []
for t in m["targets"]:
    kinds = {b["id"]: b["kind"] for b in t["buffers"]}
    for k in t["kernels"]:
        reads = [kinds[a["buffer"]] for a in k["args"] if a.get("buffer", -1) >= 0 and a["access"] == "read_only"]
        computes = any(o["op"] != "tosa.const" for o in k.get("ops", []))
        if computes and all(r == "constant" for r in reads):
            bad.append("%s all-constant %s" % (t["processor"], k["name"]))
        if "transpose" in k["name"] and "constant" in reads:
            bad.append("%s transpose-of-constant %s" % (t["processor"], k["name"]))
print("\n".join(bad) or "none")' "$1"
}

@test "NCHW ResNet blocks with torch-style batch norm match the oracle with folding on and off" {
  oracle_both resnet 1
  oracle_both resnet 2
}

@test "a ResNet block folds to its convolutions: weights transposed at compile time, batch norm in the weights" {
  "${GEN[@]}" resnet 1 > r.mlir
  # the folding passes alone (the layout pass also cancels the block's transposes: 39 -> 11 ops)
  run "$TOSAC" r.mlir --offload-arch=gfx90a --emit=partitions -fno-propagate-layout -o -
  assert_success
  assert_line "# optimize: 39 ops -> 13, constant bytes 4936 -> 4672"
  assert_line "# fold-constants: 6:11: folded tosa.transpose of constants into a constant tensor<8x3x3x8xf32>"
  assert_line "# fold-constants: 18:12: folded tosa.rsqrt of constants into a constant tensor<8x1x1xf32>"
  assert_line "# fold-batchnorm: 8:11: folded 4 per-channel ops after tosa.conv2d into its weights and bias"
  assert_line "# fold-batchnorm: 30:12: folded 4 per-channel ops after tosa.conv2d into its weights and bias"
  assert_equal "$(echo "$output" | grep -c '^# fold-batchnorm')" 2
  for t in gfx90a gfx1100 gfx1030; do
    # with the layout pass the block's transposes cancel too: 3 launches (the input's transpose
    # is an operand view of the first convolution, the result's an output view of the last)
    assert_equal "$(launches r.mlir $t)" 3
    assert_equal "$(launches r.mlir $t -fno-propagate-layout)" 4
    assert_equal "$(launches r.mlir $t -fno-fold-batchnorm -fno-propagate-layout)" 4
    assert_equal "$(launches r.mlir $t -fno-fold-constants -fno-fold-batchnorm -fno-propagate-layout)" 6
  done
  # without folding the rsqrt of the variance and the weight transposes are kernels
  run "$TOSAC" r.mlir --offload-arch=gfx90a --emit=partitions -fno-fold-constants -fno-propagate-layout -o -
  assert_line --regexp "^  kernel [0-9]+ tosac_k[0-9]+_add_rsqrt over tensor<8x1x1xf32>$"
  refute_line --partial "# fold-"
  "$TOSAC" r.mlir --offload-arch=gfx90a,gfx1100,gfx1030 -o r.hipfb
  run const_kernels r.json
  assert_output none
  "$TOSAC" r.mlir --offload-arch=gfx90a -fno-fold-constants -fno-propagate-layout -o off.hipfb
  # the two batch norms' rsqrt(var + eps) (one kernel's code, launched twice); the weights'
  # transposes of constants are operand views, read by the convolutions through strides
  run const_kernels off.json
  assert_output "gfx90a all-constant tosac_k1_add_rsqrt
gfx90a all-constant tosac_k1_add_rsqrt"
}

@test "--emit=tosa prints the optimised graph, valid for mlir-opt-22; -O0 prints the input graph" {
  "${GEN[@]}" resnet 3 > r.mlir
  "$TOSAC" r.mlir --emit=tosa -o opt.mlir
  run mlir-opt-22 opt.mlir -o /dev/null
  assert_success
  run grep -c "tosa.conv2d" opt.mlir
  assert_output 2
  run grep -cE "tosa\.(rsqrt|sub|mul)" opt.mlir
  assert_output 0
  "$TOSAC" r.mlir --emit=tosa -O0 -o o0.mlir
  run mlir-opt-22 o0.mlir -o /dev/null
  assert_success
  run grep -c "tosa.rsqrt" o0.mlir
  assert_output 2
  "$TOSAC" r.mlir --emit=tosa -fno-fold-batchnorm -o nobn.mlir
  run grep -c "tosa.rsqrt" nobn.mlir
  assert_output 0
  run grep -c "tosa.sub" nobn.mlir
  assert_output 2
  # the optimised graph is the same function: the oracle gives the same results for both
  run "${CHECK[@]}" --seed=3 opt.mlir
  assert_success
}

@test "TF-style NHWC conv2d and depthwise_conv2d chains fold, and match the oracle on and off" {
  oracle_both nhwc 4
  "${GEN[@]}" nhwc 4 > n.mlir
  run "$TOSAC" n.mlir --offload-arch=gfx1030 --emit=partitions -o -
  assert_line "# fold-batchnorm: 7:11: folded 2 per-channel ops after tosa.conv2d into its weights and bias"
  assert_line "# fold-batchnorm: 15:12: folded 3 per-channel ops after tosa.depthwise_conv2d into its weights and bias"
  assert_line "target gfx1030: 2 kernels, 2 launches, workspace 4096 bytes"
}

@test "a matmul's per-column scale folds into its constant weights" {
  oracle_both matmul 5
  "${GEN[@]}" matmul 5 > m.mlir
  run "$TOSAC" m.mlir --offload-arch=gfx90a --emit=partitions -o -
  assert_line "# fold-batchnorm: 6:11: folded 2 per-channel ops after tosa.matmul into its weights"
  # the shift stays as one add in the matmul's epilogue
  "$TOSAC" m.mlir --emit=tosa -o m.opt.mlir
  run grep -c "tosa.add" m.opt.mlir
  assert_output 1
  run grep -c "tosa.mul" m.opt.mlir
  assert_output 0
}

@test "a fully_connected layer (pre-2023 form) folds a scale and a k - y chain into weights and bias" {
  /usr/bin/python3 - > fc.mlir <<'PY'
import numpy as np
r = np.random.default_rng(12)
def c(a): return 'dense<"0x%s">' % np.asarray(a, "<f4").tobytes().hex().upper()
w = r.uniform(-0.5, 0.5, (7, 20)); b = r.uniform(-0.2, 0.2, 7)
s = r.uniform(0.5, 2, (1, 7)); t = r.uniform(-1, 1, (1, 7))
print("""func.func @main(%%x: tensor<3x20xf32>) -> tensor<3x7xf32> {
  %%w = "tosa.const"() {value = %s : tensor<7x20xf32>} : () -> tensor<7x20xf32>
  %%b = "tosa.const"() {value = %s : tensor<7xf32>} : () -> tensor<7xf32>
  %%s = "tosa.const"() {value = %s : tensor<1x7xf32>} : () -> tensor<1x7xf32>
  %%t = "tosa.const"() {value = %s : tensor<1x7xf32>} : () -> tensor<1x7xf32>
  %%0 = "tosa.fully_connected"(%%x, %%w, %%b) : (tensor<3x20xf32>, tensor<7x20xf32>, tensor<7xf32>) -> tensor<3x7xf32>
  %%1 = "tosa.mul"(%%0, %%s) {shift = 0 : i32} : (tensor<3x7xf32>, tensor<1x7xf32>) -> tensor<3x7xf32>
  %%2 = "tosa.sub"(%%t, %%1) : (tensor<1x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32>
  return %%2 : tensor<3x7xf32>
}""" % (c(w), c(b), c(s), c(t)))
PY
  run "$TOSAC" fc.mlir --offload-arch=gfx90a --emit=partitions -o -
  assert_line "# fold-batchnorm: 6:8: folded 2 per-channel ops after tosa.fully_connected into its weights and bias"
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  # the oracle runs the -O0 graph tosac prints in TOSA 1.0
  run "${CHECK[@]}" --oracle-via-tosac fc.mlir
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 3
  run "${CHECK[@]}" --oracle-via-tosac "${OFF[@]}" fc.mlir
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 3
}

@test "shared constants: a weight read by two convolutions, a mean read by two chains, a returned conv" {
  oracle_both shared 6
  "${GEN[@]}" shared 6 > s.mlir
  run "$TOSAC" s.mlir --offload-arch=gfx90a --emit=partitions -o -
  # only the first chain folds: the second conv's result is also a graph result
  assert_equal "$(echo "$output" | grep -c '^# fold-batchnorm')" 1
  assert_line "# fold-batchnorm: 9:11: folded 4 per-channel ops after tosa.conv2d into its weights and bias"
  "$TOSAC" s.mlir --emit=tosa -o s.opt.mlir
  run grep -c "tosa.conv2d" s.opt.mlir
  assert_output 2
  run grep -c "tosa.sub" s.opt.mlir
  assert_output 1
}

@test "an integer batch-norm chain is not folded and matches the oracle" {
  oracle_both int 7
  "${GEN[@]}" int 7 > i.mlir
  run "$TOSAC" i.mlir --offload-arch=gfx90a --emit=partitions -o -
  refute_line --partial "# fold-batchnorm"
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  "$TOSAC" i.mlir --emit=tosa -o i.opt.mlir
  run grep -cE "tosa\.(sub|mul|add)" i.opt.mlir
  assert_output 3
}

@test "a fold past the size bound does not happen: the broadcast stays in the kernel" {
  oracle_both bound 8
  "${GEN[@]}" bound 8 > b.mlir
  run "$TOSAC" b.mlir --offload-arch=gfx90a --emit=partitions -o -
  assert_line "# optimize: 4 ops -> 4, constant bytes 2048 -> 2048"
  assert_line "# fold-constants: 5:11: kept tosa.add: its result of 65536 elements expands the 512 constant elements it reads"
  assert_equal "$(echo "$output" | grep -c 'kept tosa.add')" 1
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
}

@test "the evaluator's f16/bf16 rounding matches the oracle's result of the unfolded chain" {
  # exp, mul, add, rsqrt in f16, casts through f32 to bf16, sub and reduce_sum in bf16, tile,
  # transpose, reverse, slice, pad, concat: all folded (one kernel adds the input), each op
  # rounded to its type once, as the oracle rounds it
  oracle_both half 9
  oracle_both half 10
  "${GEN[@]}" half 9 > h.mlir
  run "$TOSAC" h.mlir --offload-arch=gfx1100 --emit=partitions -o -
  assert_line "# optimize: 21 ops -> 2, constant bytes 108 -> 48"
  assert_line "# fold-constants: 14:12: folded tosa.reduce_sum of constants into a constant tensor<1x6xbf16>"
  assert_line "target gfx1100: 1 kernels, 1 launches, workspace 0 bytes"
}

@test "integer ops on constants fold exactly: rescale, table, negate, shifts, clz, intdiv, mul" {
  oracle_both intconst 11
  "${GEN[@]}" intconst 11 > ic.mlir
  run "$TOSAC" ic.mlir --offload-arch=gfx90a --emit=partitions -o -
  assert_line "# fold-constants: 8:11: folded tosa.rescale of constants into a constant tensor<4x8xi8>"
  assert_line "# fold-constants: 10:11: folded tosa.table of constants into a constant tensor<4x8xi8>"
  assert_line "# fold-constants: 19:12: folded tosa.intdiv of constants into a constant tensor<4x8xi32>"
  assert_equal "$(echo "$output" | grep -c '^# fold-constants: .* folded')" 8
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
}

@test "ResNet-18 and the ResNet-50 stem: launch counts with folding, no constant work left for run time" {
  [ -d "$DATA" ] || skip "no ../shared/testdata"
  local all=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200
  counts() {
    "$TOSAC" "$DATA/$1.mlir" --offload-arch=$all --emit=partitions "${@:2}" -o - |
      sed -n 's/^target [^:]*: \([0-9]*\) kernels.*/\1/p' | tr '\n' ' '
  }
  # folding alone: the 20 add_rsqrt kernels of the batch norms' variance and the 18 transposes
  # of constant weights are gone; with the layout pass too, the transposes between convolutions
  # (the input's transpose and the exact-geometry slices are operand views of their
  # convolutions, docs/partitioning.md, and the classifier's bias add a matmul epilogue)
  assert_equal "$(counts rocmlir_resnet18)" "23 23 23 23 23 23 23 "
  # (split-K reduced in the last work-group: no combine kernels; without the layout pass every
  # convolution writes its NCHW result through the transpose after it, an output view)
  assert_equal "$(counts rocmlir_resnet18 -fno-propagate-layout)" "46 46 46 46 46 46 46 "
  assert_equal "$(counts rocmlir_resnet18 -fno-fold-constants -fno-fold-batchnorm -fno-propagate-layout)" "67 67 67 67 67 67 67 "
  run "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --offload-arch=gfx90a --emit=partitions -o -
  assert_equal "$(echo "$output" | grep -c '^# fold-batchnorm: .* folded 4 per-channel ops after tosa.conv2d')" 20
  # the stem's weights and batch-norm parameters are function arguments: nothing to fold; the
  # convolution reads the argument input and weights through strides
  assert_equal "$(counts rocmlir_resnet50_part_0)" "2 2 2 2 2 2 2 "
  "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --offload-arch=gfx90a,gfx1100,gfx1030 -o r18.hipfb
  run const_kernels r18.json
  assert_output none
}
