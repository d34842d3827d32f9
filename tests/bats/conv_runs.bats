#!/usr/bin/env bats
# The run gather for convolutions with few input channels (gemm_conv.c, docs/gemm.md
# "Convolution gather"): K ordered (tap row ky, kx, channel) with a pixel's channels padded to a
# power of two and each tap row's run padded to a power of two dividing the K tile, so that a
# staging slot loads one whole pixel (the stem's f32: one 12-byte buffer load) with its kx fixed
# for the whole loop. Chosen per target by the estimate (tuning.c, cg_tune_runs): the MFMA
# targets take it for ResNet's stem, the RDNA FMA path keeps the per-element gather
# (TOSAC_CONV_RUNS=1 forces it there for the oracle runs below, 0 turns it off).

bats_load_library bats-support
bats_load_library bats-assert
load lib/main_loop

setup() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  BUILD="${TOSAC_BUILD:-build}"
  case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
  TOSAC="$BUILD/bin/tosac"
  export TOSAC_BUILD="$BUILD"
  unset TOSAC_TUNING_DB TOSAC_SPLIT_K TOSAC_IM2COL TOSAC_CONV_RUNS
  cd "$BATS_TEST_TMPDIR"
}

# stem FILE TYPE N H PADS: ResNet's stem, NxHxHx3 by 64x7x7x3, stride 2, then a relu
stem() {
  local o=$(($4 / 2))
  local x="tensor<$3x$4x$4x3x$2>" w="tensor<64x7x7x3x$2>" b="tensor<64x$2>" r="tensor<$3x${o}x${o}x64x$2>"
  cat > "$1" <<EOF2
// oracle: arg 0 -2 2
// oracle: arg 1 -2 2
// oracle: arg 2 -2 2
func.func @main(%x: $x, %w: $w, %b: $b) -> $r {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1x$2>}> : () -> tensor<1x$2>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: $5>, stride = array<i64: 2, 2>} : ($x, $w, $b, tensor<1x$2>, tensor<1x$2>) -> $r
  %1 = tosa.clamp %0 {max_val = 3.0e+38 : $2, min_val = 0.0 : $2} : ($r) -> $r
  return %1 : $r
}
EOF2
}

# per target of MANIFEST: "proc: problem keys"
keys() {
  /usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
for t in m["targets"]:
    print("%s: %s" % (t["processor"], " ".join(k["tuning"].get("problem", "-") for k in t["kernels"])))' "$1"
}

# loop NAME TARGET: the main loop of NAME.hipfb's TARGET code object (lib/main_loop) as
# "mfma buffer_load_dwordx3 other_buffer_loads valu"
loop() { main_loop "$1" "$2" v_mfma buffer_load_dwordx3 buffer_load-buffer_load_dwordx3 v_-v_mfma-v_accvgpr; }

@test "the ResNet-18 stem: the run gather on the MFMA targets (one kernel, K 147 -> 224), the per-element gather on RDNA" {
  stem s.mlir f32 1 224 "3, 3, 3, 3"
  run "$TOSAC" s.mlir -o s.hipfb
  assert_success
  run keys s.json
  local runs="conv2d:1x12544x64x224:f32:a4:b4k" one="conv2d:1x12544x64x147:f32:a3:b147k"
  assert_output "gfx908: $runs
gfx90a: $runs
gfx942: $runs
gfx950: $runs
gfx1030: $one
gfx1100: $one
gfx1200: $one"
  # the manifest keeps the convolution's own K beside the padded one (tosac-bundle quality's flops)
  run /usr/bin/python3 -c '
import json, sys, jsonschema
m = json.load(open(sys.argv[1]))
assert not list(jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).iter_errors(m))
print(" ".join(str(t["kernels"][0]["tuning"].get("conv_k", "-")) for t in m["targets"]))' s.json "$ROOT/schema/manifest.schema.json"
  assert_output "147 147 147 147 - - -"
  # TOSAC_CONV_RUNS=0: the per-element gather (im2col's pair does not gain its 3.8 us launch)
  TOSAC_CONV_RUNS=0 "$TOSAC" s.mlir --offload-arch=gfx908,gfx90a -o off.hipfb
  run keys off.json
  assert_output "gfx908: $one
gfx90a: $one"
}

@test "gfx908 stem loop: one 12-byte buffer load per pixel, no single-element loads, >= 80 % matrix pipe by llvm-mca" {
  stem s.mlir f32 1 224 "3, 3, 3, 3"
  "$TOSAC" s.mlir --offload-arch=gfx908 -o s.hipfb
  # 64x64x32 tiles of 32x32 waves, two K tiles per iteration: 2 x 16 MFMAs 32x32x2; per thread
  # and K tile 2 A pixels and 2 B pixels (2048 + 2048 elements / 4 per pixel / 256 threads)
  run loop s gfx908
  assert_success
  read -r mfma x3 other valu <<< "$output"
  [ "$mfma" -eq 32 ]
  [ "$x3" -eq 8 ]
  [ "$other" -eq 0 ]
  [ "$valu" -le 40 ] # 33 today; the per-element gather's loop had 114 VALU per 16 MFMAs
  TOSAC_CONV_RUNS=0 "$TOSAC" s.mlir --offload-arch=gfx908 -o old.hipfb
  run loop old gfx908
  read -r mfma x3 other valu <<< "$output"
  [ "$x3" -eq 0 ]
  [ "$other" -ge 24 ]
  run "$BUILD/bin/tosac-bundle" quality s.hipfb
  assert_success
  run /usr/bin/python3 -c '
import sys
row = [l.split() for l in sys.stdin if l.startswith("gfx908")][0]
share, roof = float(row[row.index("mca") + 1]), int(row[row.index("mca") + 3].rstrip("%"))
print("share", share, "roofline", roof)
# the roofline counts the 147-element K of the convolution (conv_k), not the padded 224 (70 %)
sys.exit(0 if share >= 80 and roof < 60 else 1)' <<< "$output"
  assert_success
}

@test "ResNet-18's own stem (1x224x224, pad 3, 2, 3, 2) by the run gather matches the oracle on gfx908, gfx90a, gfx942, gfx950" {
  stem s.mlir f32 1 224 "3, 2, 3, 2"
  "$TOSAC" s.mlir --offload-arch=gfx908,gfx90a,gfx942,gfx950 -o s.hipfb
  run keys s.json
  assert_output "gfx908: conv2d:1x12544x64x224:f32:a4:b4k
gfx90a: conv2d:1x12544x64x224:f32:a4:b4k
gfx942: conv2d:1x12544x64x224:f32:a4:b4k
gfx950: conv2d:1x12544x64x224:f32:a4:b4k"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" s.mlir --targets=gfx908,gfx90a,gfx942,gfx950 --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "the stem at 2x64x64 with asymmetric padding matches the oracle: gfx908, gfx90a without im2col; gfx1030, gfx1100 forced" {
  stem s64.mlir f32 2 64 "3, 2, 3, 2"
  # at 2048 rows the estimate keeps the per-element gather on gfx908 and gfx90a (32
  # work-groups direct; im2col + GEMM does not gain the second launch's 3.8 us)
  "$TOSAC" s64.mlir --offload-arch=gfx908,gfx90a -o s64.hipfb
  run keys s64.json
  assert_output "gfx908: conv2d:1x2048x64x147:f32:a3:b147k
gfx90a: conv2d:1x2048x64x147:f32:a3:b147k"
  # without it, the per-element gather by the estimate; forced here (its 32 work-groups)
  export TOSAC_IM2COL=0 TOSAC_CONV_RUNS=1
  "$TOSAC" s64.mlir --offload-arch=gfx908,gfx90a -o s64.hipfb
  run keys s64.json
  assert_output "gfx908: conv2d:1x2048x64x224:f32:a4:b4k
gfx90a: conv2d:1x2048x64x224:f32:a4:b4k"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" s64.mlir --targets=gfx908,gfx90a --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  TOSAC_CONV_RUNS=1 "$TOSAC" s64.mlir --offload-arch=gfx1030,gfx1100 -o f.hipfb
  run keys f.json
  assert_output "gfx1030: conv2d:1x2048x64x224:f32:a4:b4k
gfx1100: conv2d:1x2048x64x224:f32:a4:b4k"
  TOSAC_CONV_RUNS=1 run /usr/bin/python3 "$ROOT/tests/oracle/check.py" s64.mlir --targets=gfx1030,gfx1100 --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# sweep DTYPE ATOL SEED...: seeded run-gather shapes of gen_conv_gemm.py (1-4 channels, kernels
# 3-7, stride 1-2, asymmetric padding, batch 2), the run gather forced, on gfx908, gfx90a,
# gfx1030 and gfx1100 (WMMA for 16-bit and i8, the FMA path for f32)
sweep() {
  local dt=$1 atol=$2
  shift 2
  for s in "$@"; do
    /usr/bin/python3 "$ROOT/tests/oracle/gen_conv_gemm.py" "$dt" "$s" runs > g$s.mlir
    head -1 g$s.mlir
    TOSAC_CONV_RUNS=1 "$TOSAC" g$s.mlir --offload-arch=gfx90a -o g$s.hipfb
    # the run gather's problem: B staged by pixels too (b<icp>k), not as whole weight rows
    run grep -cE '"problem": "conv2d:[0-9x]+:'"$dt"':a([124]):b\1k"' g$s.json
    assert_output 1
    TOSAC_CONV_RUNS=1 run /usr/bin/python3 "$ROOT/tests/oracle/check.py" g$s.mlir --targets=gfx908,gfx90a,gfx1030,gfx1100 --atol "$atol"
    assert_success
    assert_output --partial "PASSED: 1 graph(s)"
  done
}

@test "random run-gather conv2d f32 shapes (1-3 channels, kernels 3-7, stride 1-2, padding, batch 2) match the oracle" {
  sweep f32 1e-4 2 3 4 5 6 7
}

@test "random run-gather conv2d f16, bf16, i8 shapes and the f16 stem (6-byte pixels) match the oracle" {
  sweep f16 1e-2 1 2 3
  sweep bf16 3e-2 1 2
  sweep i8 0 1 2 3
  stem h.mlir f16 2 32 "3, 2, 2, 3"
  TOSAC_CONV_RUNS=1 run /usr/bin/python3 "$ROOT/tests/oracle/check.py" h.mlir --targets=gfx908,gfx90a,gfx1030,gfx1100 --atol 3e-2
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "run gather edges against the oracle: tap-row masks of 64 bits and a K tail (bk 128 over K' 28), split-K" {
  # 7x3 over 1 channel: runs of 4, K' = 28; a 128-element K tile spans 39 tap rows (64-bit masks,
  # rows past 7 read zeros), 64 ends K' inside a tile; split-K 3 starts its chunks mid-K
  local x="tensor<2x21x19x1xf32>" w="tensor<24x7x3x1xf32>" b="tensor<24xf32>" r="tensor<2x11x10x24xf32>"
  cat > k73.mlir <<EOF2
// oracle: arg 0 -2 2
// oracle: arg 1 -2 2
// oracle: arg 2 -2 2
func.func @main(%x: $x, %w: $w, %b: $b) -> $r {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 3, 3, 1, 1>, stride = array<i64: 2, 2>} : ($x, $w, $b, tensor<1xf32>, tensor<1xf32>) -> $r
  return %0 : $r
}
EOF2
  export TOSAC_CONV_RUNS=1
  for cfg in bm=16,bn=16,bk=128,wm=16,wn=16 bm=32,bn=32,bk=64,wm=32,wn=32; do
    "$TOSAC" k73.mlir --offload-arch=gfx908 --perf-config=$cfg -o k.hipfb
    run keys k.json
    assert_output "gfx908: conv2d:1x220x24x28:f32:a1:b1k"
    run /usr/bin/python3 "$ROOT/tests/oracle/check.py" k73.mlir --targets=gfx908,gfx90a --atol 1e-4 --tosac-arg=--perf-config=$cfg
    assert_success
    assert_output --partial "PASSED: 1 graph(s)"
  done
  stem s64.mlir f32 2 64 "3, 2, 3, 2"
  TOSAC_IM2COL=0 TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine "$TOSAC" s64.mlir --offload-arch=gfx90a -o sk.hipfb
  run grep -c '"name": "tosac_k[01]_conv2d_clamp_\(splitk\|combine\)"' sk.json
  assert_output 2
  TOSAC_IM2COL=0 TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run /usr/bin/python3 "$ROOT/tests/oracle/check.py" s64.mlir --targets=gfx908,gfx90a --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "a 3x3 kernel over 3 channels keeps the per-element gather (K would grow 27 -> 48); zero points too" {
  local x="tensor<1x32x32x3xf32>" w="tensor<16x3x3x3xf32>" b="tensor<16xf32>" r="tensor<1x32x32x16xf32>"
  cat > k3.mlir <<EOF2
func.func @main(%x: $x, %w: $w, %b: $b) -> $r {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : ($x, $w, $b, tensor<1xf32>, tensor<1xf32>) -> $r
  return %0 : $r
}
EOF2
  TOSAC_CONV_RUNS=1 "$TOSAC" k3.mlir --offload-arch=gfx908 -o k3.hipfb
  run keys k3.json
  assert_output "gfx908: conv2d:1x1024x16x27:f32:a3:b27k"
  local xi="tensor<1x16x16x3xi8>" wi="tensor<8x7x7x3xi8>" bi="tensor<8xi32>" ri="tensor<1x8x8x8xi32>"
  cat > zp.mlir <<EOF2
func.func @main(%x: $xi, %w: $wi, %b: $bi) -> $ri {
  %iz = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w, %b, %iz, %wz {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 3, 3, 3, 3>, stride = array<i64: 2, 2>} : ($xi, $wi, $bi, tensor<1xi8>, tensor<1xi8>) -> $ri
  return %0 : $ri
}
EOF2
  TOSAC_CONV_RUNS=1 "$TOSAC" zp.mlir --offload-arch=gfx908 -o zp.hipfb
  run keys zp.json
  assert_output "gfx908: conv2d:1x64x8x147:i8:a3:b147k:zp"
}

@test "a --perf-config the run gather cannot take (K tile of half a tap row) is a file:line:col error and writes nothing" {
  # the stem's tap row is 32 elements (7 pixels of 4): bk 16 would split a row across K tiles
  stem s.mlir f32 1 32 "3, 2, 3, 2"
  TOSAC_IM2COL=0 TOSAC_CONV_RUNS=1 run "$TOSAC" s.mlir --offload-arch=gfx908 \
    --perf-config=bm=64,bn=64,bk=16,wm=32,wn=32 -o s.hipfb
  assert_failure 1
  assert_line --index 0 "s.mlir:6:8: error: --perf-config: bm=64,bn=64,bk=16,wm=32,wn=32 is infeasible on gfx908: the convolution's run gather needs bk a multiple of its tap row and va, vb one pixel"
  [ ! -e s.hipfb ] && [ ! -e s.json ]
  # bk 32, one tap row per K tile, compiles
  TOSAC_IM2COL=0 TOSAC_CONV_RUNS=1 run "$TOSAC" s.mlir --offload-arch=gfx908 \
    --perf-config=bm=64,bn=64,bk=32,wm=32,wn=32 -o s.hipfb
  assert_success
  run keys s.json
  assert_output "gfx908: conv2d:1x256x64x224:f32:a4:b4k"
}
