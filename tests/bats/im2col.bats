#!/usr/bin/env bats
# im2col + GEMM (partition/im2col.c, codegen/kernel_im2col.c, docs/gemm.md "im2col"): a
# convolution whose per-element gather dominates (ResNet's 3-channel 7x7 stem) becomes an im2col
# pass writing the [M + OC][Kpad] workspace matrix and a plain GEMM over it, where the tuning
# layer's estimate (codegen/tuning.c, cg_tune_im2col) says the pair is faster: gfx90a, gfx942,
# gfx950 for the stem; gfx908 (lower bandwidth) and RDNA keep the implicit GEMM. TOSAC_IM2COL=1
# forces the pair wherever it can be built (seeded random small-channel shapes against the
# oracle on an MFMA, a WMMA and the FMA target), 0 turns it off.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
}

# stem FILE TYPE: ResNet's stem, 1x224x224x3 by 64x7x7x3, stride 2, pad 3, then a relu
stem() {
  local x="tensor<1x224x224x3x$2>" w="tensor<64x7x7x3x$2>" b="tensor<64x$2>" r="tensor<1x112x112x64x$2>"
  cat > "$1" <<EOF2
func.func @main(%x: $x, %w: $w, %b: $b) -> $r {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1x$2>}> : () -> tensor<1x$2>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 3, 3, 3, 3>, stride = array<i64: 2, 2>} : ($x, $w, $b, tensor<1x$2>, tensor<1x$2>) -> $r
  %1 = tosa.clamp %0 {max_val = 3.0e+38 : $2, min_val = 0.0 : $2} : ($r) -> $r
  return %1 : $r
}
EOF2
}

# per target of MANIFEST: "proc: kernel names (tuning.problem) workspace bytes"
kernels() {
  /usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
for t in m["targets"]:
    ks = " ".join("%s(%s)" % (k["name"], k["tuning"].get("problem", "-")) for k in t["kernels"])
    print("%s: %s %d" % (t["processor"], ks, t["workspace"]["bytes"]))' "$1"
}

@test "the ResNet-18 stem: one kernel (the run gather on the MFMA targets) by the estimate; TOSAC_IM2COL=1 makes the pair" {
  stem s.mlir f32
  run "$TOSAC" s.mlir -o s.hipfb
  assert_success
  run kernels s.json
  local pair="tosac_k0_conv2d_clamp_im2col(conv2d:1x12544x64x147:f32:a3:b147k) tosac_k1_conv2d_clamp_cols(im2col:1x12544x64x160:f32:a160:b160k) 8069120"
  local one="tosac_k0_conv2d_clamp(conv2d:1x12544x64x147:f32:a3:b147k) 0"
  local runs="tosac_k0_conv2d_clamp(conv2d:1x12544x64x224:f32:a4:b4k) 0"
  # the run gather (conv_runs.bats) beats the pair by the estimate on gfx90a, gfx942, gfx950,
  # which took the pair against the per-element gather (docs/decisions.md
  # #the-run-gather-for-few-input-channels)
  assert_output "gfx908: $runs
gfx90a: $runs
gfx942: $runs
gfx950: $runs
gfx1030: $one
gfx1100: $one
gfx1200: $one"
  TOSAC_IM2COL=1 run "$TOSAC" s.mlir --offload-arch=gfx908,gfx90a -o s.hipfb
  assert_success
  run kernels s.json
  assert_output "gfx908: $pair
gfx90a: $pair"
  # the workspace matrix: (12544 patches + 64 weight rows) x 160 (147 padded to 64 bytes) f32
  run /usr/bin/python3 -c '
import json, sys, jsonschema
m = json.load(open(sys.argv[1]))
assert not list(jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).iter_errors(m))
t = m["targets"][1]
k = t["kernels"][0]
print(k["tuning"]["kernel"], k["tuning"]["kpad"], k["grid"], k["block"], k["matrix_instruction"])
print([b["bytes"] for b in t["buffers"] if b["kind"] == "workspace"])' s.json "$ROOT/schema/manifest.schema.json"
  assert_line --index 0 "im2col 160 [1970, 1, 1] [256, 1, 1] None"
  assert_line --index 1 "[8069120]"
  TOSAC_IM2COL=1 run "$TOSAC" s.mlir --offload-arch=gfx942 --emit=partitions
  assert_line --index 0 "target gfx942: 2 kernels, 2 launches, workspace 8069120 bytes"
  assert_line "  buffer 4 workspace tensor<12608x160xf32> 8069120 bytes at workspace+0"
  assert_line "    reads b0 b1; writes b4"
  assert_line "    reads b4 b2; writes b3"
  assert_line "  launch 1: kernel 1 after [0]"
  TOSAC_IM2COL=0 TOSAC_CONV_RUNS=0 run "$TOSAC" s.mlir --offload-arch=gfx90a -o off.hipfb
  assert_success
  run kernels off.json
  assert_output "gfx90a: $one"
}

@test "tosac-bundle quality: the im2col pass is memory-bound, the GEMM's main loop >= 80 % by llvm-mca" {
  stem s.mlir f32
  TOSAC_IM2COL=1 "$TOSAC" s.mlir --offload-arch=gfx90a,gfx942 -o s.hipfb
  run "$BUILD/bin/tosac-bundle" quality s.hipfb --mca-timeout 20
  assert_success
  assert_line --regexp '^gfx942 +conv2d:1x12544x64x147:f32:a3:b147k +f32 +im2col 12608x160 +- .* im2col +- +[0-9.]+ +[0-9]+% mem +100% -$'
  # the GEMM over the matrix: llvm-mca's matrix-pipe share of its main loop
  for t in gfx90a gfx942; do
    share=$(echo "$output" | awk -v t=$t '$1 == t && $2 ~ /^im2col:/ && $(NF-6) == "mca" { print int($(NF-5)) }')
    echo "$t: $share"
    [ "${share:-0}" -ge 80 ]
  done
}

# sweep DTYPE ATOL SEED... [conv3d]: seeded small-channel (3, 5) shapes of gen_conv_gemm.py,
# forced through im2col, on gfx90a, gfx1100, gfx1030
sweep() {
  local dt=$1 atol=$2 kind=""
  shift 2
  [ "${!#}" = conv3d ] && kind=conv3d && set -- "${@:1:$#-1}"
  for s in "$@"; do
    /usr/bin/python3 "$ROOT/tests/oracle/gen_conv_gemm.py" "$dt" "$s" $kind > g$s.mlir
    head -1 g$s.mlir
    TOSAC_IM2COL=1 "$TOSAC" g$s.mlir --offload-arch=gfx90a -o g$s.hipfb
    run grep -c '"name": "tosac_k[01]_conv[23]d_\(im2col\|cols\)"' g$s.json
    assert_output 2
    TOSAC_IM2COL=1 run /usr/bin/python3 "$ROOT/tests/oracle/check.py" g$s.mlir --targets=gfx90a,gfx1100,gfx1030 --atol "$atol"
    assert_success
    assert_output --partial "PASSED: 1 graph(s)"
  done
}

@test "random small-channel conv2d f32 shapes (padding, stride, dilation, batch 2) through im2col match the oracle" {
  sweep f32 1e-4 23 33 49
}

@test "random small-channel conv2d f16, bf16, i8 and conv3d shapes through im2col match the oracle" {
  sweep f16 1e-3 5 11 22
  sweep bf16 1e-3 2
  sweep i8 0 24
  sweep f32 1e-4 11 conv3d
}

@test "the stem at 2x64x64: one kernel by the estimate (its launch outweighs the gather); through im2col it matches the oracle and tosac-tune tunes its GEMM" {
  local x="tensor<2x64x64x3xf32>" w="tensor<64x7x7x3xf32>" b="tensor<64xf32>" r="tensor<2x32x32x64xf32>"
  cat > s64.mlir <<EOF2
// oracle: arg 0 -2 2
// oracle: arg 1 -2 2
// oracle: arg 2 -2 2
func.func @main(%x: $x, %w: $w, %b: $b) -> $r {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 3, 2, 3, 2>, stride = array<i64: 2, 2>} : ($x, $w, $b, tensor<1xf32>, tensor<1xf32>) -> $r
  return %0 : $r
}
EOF2
  # the pass and the GEMM over its matrix gain less than the second launch costs (launch_ns,
  # 3.8 us, as every choice prices a launch): one kernel
  "$TOSAC" s64.mlir --offload-arch=gfx90a,gfx942 -o one.hipfb
  run kernels one.json
  assert_line --index 0 "gfx90a: tosac_k0_conv2d(conv2d:1x2048x64x147:f32:a3:b147k) 0"
  export TOSAC_IM2COL=1
  "$TOSAC" s64.mlir --offload-arch=gfx90a,gfx942 -o s64.hipfb
  run kernels s64.json
  assert_line --index 0 --partial "gfx90a: tosac_k0_conv2d_im2col(conv2d:1x2048x64x147:f32:a3:b147k) tosac_k1_conv2d_cols"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" s64.mlir --targets=gfx90a,gfx942 --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  # tosac-tune tunes the GEMM over the matrix; its entry sets that kernel's tile, not the choice
  run "$BUILD/bin/tosac-tune" s64.mlir --offload-arch=gfx90a -o tune.tsv
  assert_success
  run cut -f1,2 tune.tsv
  assert_output "gfx90a	im2col:1x2048x64x160:f32:a160:b160k"
  "$TOSAC" s64.mlir --offload-arch=gfx90a --tuning-db=tune.tsv -o db.hipfb
  run kernels db.json
  assert_output --partial "tosac_k0_conv2d_im2col(conv2d:1x2048x64x147:f32:a3:b147k) tosac_k1_conv2d_cols"
  run grep -c '"source": "db"' db.json
  assert_output 1
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" s64.mlir --targets=gfx90a --atol 1e-4 --tosac-arg=--tuning-db=tune.tsv
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}
