#!/usr/bin/env bats
# conv_direct.bats: depthwise_conv2d, conv3d and transpose_conv2d (kernel_conv_direct.c) on
# seeded random TOSA 1.0 graphs (stride, dilation, asymmetric padding, batch, depth multiplier,
# out_pad incl. negative; weights as arguments and as tosa.const weights-file buffers) against
# the MLIR oracle on every default target.

setup_file() {
  export ROOT="$BATS_TEST_DIRNAME/../.."
  export B="$ROOT/${TOSAC_BUILD:-build}"
  export GEN="$ROOT/tests/oracle/gen_conv_pool.py"
}

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  cd "$ROOT"
}

TARGETS=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200

# oracle KIND DTYPE SEED [const]: generate, then check.py on every target
oracle() {
  local g="$BATS_TEST_TMPDIR/$1-$2-$3${4:+-c}.mlir"
  /usr/bin/python3 "$GEN" "$@" > "$g"
  TOSAC_BUILD="$B" run /usr/bin/python3 tests/oracle/check.py "$g" --targets=$TARGETS
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# The oracle cannot lower tosa.transpose_conv2d: it runs mlir-opt's own decomposition of the
# graph (conv2d + reshape/transpose/pad) on the same inputs; check.py --expected compares.
tconv_oracle() {
  local g="$BATS_TEST_TMPDIR/t-$1-$2${3:+-c}.mlir" d="$BATS_TEST_TMPDIR/t-$1-$2${3:+-c}"
  mkdir -p "$d"
  /usr/bin/python3 "$GEN" tconv "$@" > "$g"
  mlir-opt-22 --tosa-optional-decompositions "$g" > "$d/dec.mlir"
  /usr/bin/python3 - "$g" "$d" <<'PY'
import sys, numpy as np
sys.path.insert(0, "tests/oracle")
import oracle, check
text = open(sys.argv[1]).read()
_, args, _ = oracle.signature(text, None)
ranges, _ = check.annotations(text)
for k, a in enumerate(check.make_inputs(args, ranges, 1)):
    np.save("%s/in%d.npy" % (sys.argv[2], k), a)
PY
  local ins=$(ls "$d"/in*.npy | sed 's/^/--input=@/')
  run "$B/bin/tosac" "$g" --embed-ir --offload-arch=$TARGETS -o "$d/x.hipfb"
  assert_success
  for t in ${TARGETS//,/ }; do
    run "$B/bin/tosac-run" "$d/x.hipfb" --target=$t $ins --output=@"$d/out-$t.npy"
    assert_success
    run /usr/bin/python3 tests/oracle/check.py "$d/dec.mlir" $ins --expected=@"$d/out-$t.npy"
    assert_success
    assert_output --partial "1 results match"
  done
}

@test "depthwise_conv2d f32, weights as arguments and as constants" {
  oracle dw f32 1
  oracle dw f32 2 const
}

@test "depthwise_conv2d f16 (acc f16 or f32) and bf16" {
  oracle dw f16 1 const
  oracle dw bf16 1
}

@test "depthwise_conv2d i8 with zero points, i32 result" {
  oracle dw i8 1 const
  oracle dw i8 2
}

@test "conv3d f32, f16, bf16, i8" {
  oracle conv3d f32 1
  oracle conv3d f16 2 const
  oracle conv3d bf16 1 const
  oracle conv3d i8 1
}

@test "transpose_conv2d f32, f16, bf16, i8 against the oracle's decomposition" {
  tconv_oracle f32 1
  tconv_oracle f16 2 const
  tconv_oracle bf16 2
  tconv_oracle i8 1 const
}

@test "depthwise conv + bias add + clamp is one kernel per target and matches the oracle" {
  local g="$BATS_TEST_TMPDIR/dwclamp.mlir"
  /usr/bin/python3 "$GEN" dwclamp f32 2 const > "$g"
  run "$B/bin/tosac" "$g" --offload-arch=gfx90a,gfx1100 -o "$BATS_TEST_TMPDIR/dwc.hipfb"
  assert_success
  run /usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print([t["kernel_count"] for t in m["targets"]])' "$BATS_TEST_TMPDIR/dwc.json"
  assert_output "[1, 1]"
  oracle dwclamp f32 2 const
  oracle dwclamp i8 1
}

@test "transpose_conv2d: a hand-checked 1-D case (stride 2, out_pad 1 left, -1 right)" {
  # input [1,2] (1x1x2x1), weight [1,10,100] (1x1x3x1): out[x] = sum in[i]*w[x - 1 - 2i]
  cat > "$BATS_TEST_TMPDIR/t.mlir" <<'MLIR'
func.func @main(%x: tensor<1x1x2x1xf32>) -> tensor<1x1x5x1xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0], [10.0], [100.0]]]]> : tensor<1x1x3x1xf32>}> : () -> tensor<1x1x3x1xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.transpose_conv2d %x, %w, %b, %z, %z {acc_type = f32, out_pad = array<i64: 0, 0, 1, -1>, stride = array<i64: 1, 2>} : (tensor<1x1x2x1xf32>, tensor<1x1x3x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x5x1xf32>
  return %y : tensor<1x1x5x1xf32>
}
MLIR
  /usr/bin/python3 -c 'import numpy as np; np.save("'"$BATS_TEST_TMPDIR"'/x.npy", np.array([1, 2], np.float32).reshape(1, 1, 2, 1))'
  run "$B/bin/tosac" "$BATS_TEST_TMPDIR/t.mlir" --embed-ir --offload-arch=gfx942 -o "$BATS_TEST_TMPDIR/t.hipfb"
  assert_success
  run "$B/bin/tosac-run" "$BATS_TEST_TMPDIR/t.hipfb" --target=gfx942 --input=@"$BATS_TEST_TMPDIR/x.npy" --output=@"$BATS_TEST_TMPDIR/y.npy"
  assert_success
  run /usr/bin/python3 -c 'import numpy as np; print(np.load("'"$BATS_TEST_TMPDIR"'/y.npy").ravel().tolist())'
  # x=0: pad; x=1: 1*1; x=2: 1*10; x=3: 1*100 + 2*1; x=4: 2*10 (x=5 would be 2*100, cut by -1)
  assert_output "[0.5, 1.5, 10.5, 102.5, 20.5]"
}
