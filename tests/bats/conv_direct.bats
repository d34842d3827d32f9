#!/usr/bin/env bats
# conv_direct.bats: depthwise_conv2d (direct kernel, kernel_conv_direct.c), conv3d and
# transpose_conv2d (implicit GEMMs, kernel_gemm.c + gemm_conv.c) on seeded random TOSA 1.0
# graphs (stride, dilation, asymmetric padding, batch, depth multiplier, out_pad incl.
# negative; weights as arguments and as tosa.const weights-file buffers) against the MLIR
# oracle on every default target, and fixed-shape graphs proving the GEMM path (matrix
# instruction in the manifest and the code object).

setup_file() {
  export ROOT="$BATS_TEST_DIRNAME/../.."
  export B="$ROOT/${TOSAC_BUILD:-build}"
  export GEN="$ROOT/tests/oracle/gen_conv_pool.py"
  export CGEN="$BATS_FILE_TMPDIR/convgen.py"
  cat > "$CGEN" <<'PY'
"""convgen.py KIND DTYPE N,SPATIAL..,IC,OC KER STRIDE DIL PAD [IZP,WZP]: one conv3d or
transpose_conv2d (KIND tconv) graph with exactly these parameters (comma lists; PAD is pad or
out_pad), weights and bias as arguments, inputs in [-2, 2] ([-8, 8] for i8)."""
import sys
kind, et = sys.argv[1], sys.argv[2]
L = lambda i: [int(x) for x in sys.argv[i].split(",")]
shape, ker, st, dil, pad = L(3), L(4), L(5), L(6), L(7)
zps = L(8) if len(sys.argv) > 8 else [0, 0]
ns = len(ker)
N, ins, IC, OC = shape[0], shape[1:1 + ns], shape[1 + ns], shape[2 + ns]
if kind == "tconv":
    outs = [(ins[d] - 1) * st[d] + pad[2 * d] + pad[2 * d + 1] + ker[d] for d in range(ns)]
else:
    outs = []
    for d in range(ns):
        span = ins[d] - 1 + pad[2 * d] + pad[2 * d + 1] - (ker[d] - 1) * dil[d]
        assert span >= 0 and span % st[d] == 0, "dim %d: span %d is not a multiple of the stride" % (d, span)
        outs.append(span // st[d] + 1)
acc, oe = ("i32", "i32") if et == "i8" else ("f32", et)
T = lambda s, e: "tensor<%sx%s>" % ("x".join(map(str, s)), e)
A = lambda v: "array<i64: %s>" % ", ".join(map(str, v))
x, w, b, y = T([N] + ins + [IC], et), T([OC] + ker + [IC], et), T([OC], oe), T([N] + outs + [OC], oe)
z = lambda v: ('"tosa.const"() <{values = dense<%s> : tensor<1x%s>}> : () -> tensor<1x%s>'
               % (v if et == "i8" else "0.0", et, et))
if kind == "tconv":
    op, attrs = "transpose_conv2d", "acc_type = %s, out_pad = %s, stride = %s" % (acc, A(pad), A(st))
else:
    op, attrs = "conv3d", "acc_type = %s, dilation = %s, pad = %s, stride = %s" % (acc, A(dil), A(pad), A(st))
r = "-8 8" if et == "i8" else "-2 2"
print("// oracle: arg 0 %s\n// oracle: arg 1 %s\n// oracle: arg 2 %s" % (r, r, r))
print("func.func @main(%%x: %s, %%w: %s, %%b: %s) -> %s {" % (x, w, b, y))
print("  %%iz = %s\n  %%wz = %s" % (z(zps[0]), z(zps[1])))
print("  %%y = tosa.%s %%x, %%w, %%b, %%iz, %%wz {%s} : (%s, %s, %s, tensor<1x%s>, tensor<1x%s>) -> %s"
      % (op, attrs, x, w, b, et, et, y))
print("  return %%y : %s\n}" % y)
PY
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
  local g="$BATS_TEST_TMPDIR/t-$1-$2${3:+-c}.mlir"
  /usr/bin/python3 "$GEN" tconv "$@" > "$g"
  tconv_check "$g" $TARGETS
}

# tconv_check GRAPH TARGETS
tconv_check() {
  local g="$1" d="${1%.mlir}.d" TARGETS="$2"
  mkdir -p "$d"
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

# ---------------------------------------------------------------- conv3d / transpose_conv2d as GEMMs

# cgraph NAME KIND DTYPE ARGS...: a fixed-shape graph from convgen.py
cgraph() {
  local name=$1
  shift
  /usr/bin/python3 "$CGEN" "$@" > "$BATS_TEST_TMPDIR/$name.mlir"
}

# mma NAME: "target kernel instruction" per kernel of the manifest for gfx90a, gfx1100 and gfx1030, then
# whether the gfx90a code object's disassembly contains v_mfma
mma() {
  local d="$BATS_TEST_TMPDIR/$1"
  "$B/bin/tosac" "$d.mlir" --offload-arch=gfx90a,gfx1100,gfx1030 -o "$d.hipfb" || return 1
  /usr/bin/python3 -c 'import json,sys
for t in json.load(open(sys.argv[1]))["targets"]:
    for k in t["kernels"]:
        print(t["processor"], k["name"], k["matrix_instruction"])' "$d.json"
  clang-offload-bundler-22 --type=o --input="$d.hipfb" --output="$d.co" --unbundle \
    --targets=hipv4-amdgcn-amd-amdhsa--gfx90a || return 1
  llvm-objdump-22 -d "$d.co" | grep -c -m1 "v_mfma_f32_16x16x16f16"
}

@test "conv3d is an implicit GEMM: MFMA on gfx90a (manifest and code object), WMMA on gfx1100, FMA on gfx1030" {
  cgraph c3 conv3d f16 2,5,7,6,3,5 3,2,3 2,1,2 1,2,1 1,1,2,1,0,1
  run mma c3
  assert_success
  assert_output "gfx90a tosac_k0_conv3d v_mfma_f32_16x16x16f16
gfx1100 tosac_k0_conv3d v_wmma_f32_16x16x16_f16
gfx1030 tosac_k0_conv3d fma
1"
}

@test "transpose_conv2d is one implicit GEMM over its stride phases: MFMA on gfx90a, WMMA on gfx1100, FMA on gfx1030" {
  cgraph tc tconv f16 2,5,6,3,4 3,4 2,3 1,1 1,0,-1,2
  run mma tc
  assert_success
  assert_output "gfx90a tosac_k0_transpose_conv2d v_mfma_f32_16x16x16f16
gfx1100 tosac_k0_transpose_conv2d v_wmma_f32_16x16x16_f16
gfx1030 tosac_k0_transpose_conv2d fma
1"
  # one kernel; 2*3 phases in the grid (work-groups), each 2 batches * ceil(12/2) * ceil(20/3)
  # = 84 rows -> one 128-row tile, 4 output channels -> one column tile
  run /usr/bin/python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["targets"][0]; print(t["kernel_count"], t["kernels"][0]["grid"])' "$BATS_TEST_TMPDIR/tc.json"
  assert_output "1 [6, 1, 1]"
}

# batch 2, sizes off the tile grid, stride 2 and dilation 2, asymmetric padding
@test "conv3d GEMM f32 matches the oracle on gfx90a, gfx1100, gfx1030" {
  cgraph c3f conv3d f32 2,5,7,6,3,5 3,2,3 2,1,2 1,2,1 1,1,2,1,0,1
  TOSAC_BUILD="$B" run /usr/bin/python3 tests/oracle/check.py "$BATS_TEST_TMPDIR/c3f.mlir" --targets=gfx90a,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "conv3d GEMM f16 (K over several K tiles) matches the oracle on gfx90a, gfx1100, gfx1030" {
  cgraph c3h conv3d f16 1,4,5,5,7,9 2,3,2 1,2,1 2,1,2 1,0,2,0,1,2
  TOSAC_BUILD="$B" run /usr/bin/python3 tests/oracle/check.py "$BATS_TEST_TMPDIR/c3h.mlir" --targets=gfx90a,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "conv3d GEMM i8 with input and weight zero points matches the oracle (FMA path)" {
  cgraph c3i conv3d i8 2,3,5,4,6,3 2,2,3 1,2,1 1,1,1 0,1,1,0,2,0 5,-7
  TOSAC_BUILD="$B" run /usr/bin/python3 tests/oracle/check.py "$BATS_TEST_TMPDIR/c3i.mlir" --targets=gfx90a,gfx1030
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# phases with different tap counts (3 taps / stride 2, 4 taps / stride 3), negative out_pad
@test "transpose_conv2d GEMM f32 and f16 match the oracle's decomposition on gfx90a, gfx1100, gfx1030" {
  cgraph tcf tconv f32 2,5,6,3,4 3,4 2,3 1,1 1,0,-1,2
  tconv_check "$BATS_TEST_TMPDIR/tcf.mlir" gfx90a,gfx1100,gfx1030
  cgraph tch tconv f16 1,4,3,5,6 4,2 3,2 1,1 0,-2,1,1
  tconv_check "$BATS_TEST_TMPDIR/tch.mlir" gfx90a,gfx1100,gfx1030
}

@test "transpose_conv2d GEMM: a phase without taps (kernel 1 < stride 2) is bias only; bf16 and i8" {
  cgraph tcz tconv bf16 2,3,4,5,3 1,3 2,2 1,1 0,1,-2,0
  tconv_check "$BATS_TEST_TMPDIR/tcz.mlir" gfx90a,gfx1030
  cgraph tci tconv i8 1,4,3,5,6 4,2 3,2 1,1 0,-2,1,1
  tconv_check "$BATS_TEST_TMPDIR/tci.mlir" gfx90a,gfx1100
}

# kernels JSON: "kernel_count name..." of the first target of a manifest
kernels_of() {
  /usr/bin/python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["targets"][0]; print(t["kernel_count"], " ".join(k["name"] for k in t["kernels"]))' "$1"
}

@test "transpose_conv2d as one GEMM per output phase (TOSAC_CONV_PHASES=1) matches the oracle's decomposition; a phase without taps and a bias keeps one kernel" {
  export TOSAC_CONV_PHASES=1
  cgraph tpf tconv f32 2,5,6,3,4 3,4 2,3 1,1 1,0,-1,2
  tconv_check "$BATS_TEST_TMPDIR/tpf.mlir" gfx90a,gfx1100,gfx1030
  run kernels_of "$BATS_TEST_TMPDIR/tpf.d/x.json"
  assert_output "6 tosac_k0_transpose_conv2d_phase0 tosac_k1_transpose_conv2d_phase1 tosac_k2_transpose_conv2d_phase2 tosac_k3_transpose_conv2d_phase3 tosac_k4_transpose_conv2d_phase4 tosac_k5_transpose_conv2d_phase5"
  cgraph tph tconv f16 1,4,3,5,6 4,2 3,2 1,1 0,-2,1,1
  tconv_check "$BATS_TEST_TMPDIR/tph.mlir" gfx90a,gfx1100,gfx1030
  # kernel 1x3, stride 2x2: phases with no tap would be bias only, so one kernel stays
  cgraph tpz tconv bf16 2,3,4,5,3 1,3 2,2 1,1 0,1,-2,0
  tconv_check "$BATS_TEST_TMPDIR/tpz.mlir" gfx90a,gfx1030
  run kernels_of "$BATS_TEST_TMPDIR/tpz.d/x.json"
  assert_output "1 tosac_k0_transpose_conv2d"
}
