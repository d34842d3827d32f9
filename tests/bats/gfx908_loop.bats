#!/usr/bin/env bats
# gfx908's MFMA main loop (docs/gemm.md "Main loop"): wave tiles whose accumulators leave half of
# the separate AGPR budget free run the software-pipelined loop (two K tiles, two LDS buffers, two
# barriers per iteration), larger ones keep the single-tile loop (gemm_mma_pipelined); its code,
# registers and llvm-mca share, and the oracle on random shapes, edges, convolutions and types.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
}

load lib/matmul
load lib/main_loop

oracle() {
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$1.mlir" --targets=gfx908 "${@:2}"
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# loop NAME: the main loop of NAME.hipfb's gfx908 code object (lib/main_loop) as
# "mfma barriers buffer_loads accvgpr_copies"
loop() { main_loop "$1" gfx908 v_mfma s_barrier buffer_load v_accvgpr; }

@test "gfx908: 32x32 waves run the pipelined loop (2 barriers, 2 K tiles of MFMAs, buffer loads), no spills, 2 waves/SIMD, >= 80 % matrix pipe" {
  # BERT-base's projection 512x768x768 f16: 64x128 tiles of 32x32 waves (16 AGPRs), 64-element K
  # tiles: 8 32x32x8 MFMAs per K tile, 16 per iteration, one barrier and 3 16-byte buffer loads
  # per thread and K tile
  matmul proj f16 1 512 768 768
  run "$TOSAC" proj.mlir --offload-arch=gfx908 -o proj.hipfb
  assert_success
  run loop proj
  assert_success
  assert_output "16 2 6 0"
  run "$BUNDLE" quality proj.hipfb
  assert_success
  run /usr/bin/python3 - "$output" <<'PY'
import sys
f = sys.argv[1].splitlines()[1].split()
tile, agpr, ws, spill, model, share = f[3], int(f[6]), int(f[8]), int(f[9]), f[12], float(f[13])
assert tile == "64x128x64/32x32" and agpr <= 64 and ws >= 2 and spill == 0, f
assert model == "mca" and share >= 80, f
print(share)
PY
  assert_success
  # the 256x256 tile's 128x64 waves fill the 128 AGPRs of a wave: the single-tile loop (one
  # barrier, 16 MFMAs of one K tile of 16), no spills (named: gfx908's default for large squares
  # is now 128x128 tiles of 64x64 waves, heuristic.bats)
  matmul big f16 1 2048 2048 2048
  run "$TOSAC" big.mlir --offload-arch=gfx908 --perf-config=bm=256,bn=256,bk=16,wm=128,wn=64 -o big.hipfb
  assert_success
  run loop big
  assert_success
  assert_output "16 1 2 0"
  run "$BUNDLE" quality big.hipfb --no-mca
  assert_success
  assert_line --regexp '^gfx908 +matmul:1x2048x2048x2048:f16:a2048:b2048n +f16 +256x256x16/128x64 .* 128 +128 +49152 +2 +0 '
}

@test "gfx908: a 3x3 convolution's 16x32 waves pipelined without accumulator copies, 128-byte K tiles, >= 80 % matrix pipe" {
  cat > c3.mlir <<'EOF'
func.func @main(%x: tensor<1x7x7x512xf32>, %w: tensor<512x3x3x512xf32>, %b: tensor<512xf32>) -> tensor<1x7x7x512xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x7x7x512xf32>, tensor<512x3x3x512xf32>, tensor<512xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x7x7x512xf32>
  return %0 : tensor<1x7x7x512xf32>
}
EOF
  run "$TOSAC" c3.mlir --offload-arch=gfx908 -o c3.hipfb
  assert_success
  # 64x64x32/16x32: 2 x 8 16x16x4 MFMAs per K tile of 32 f32, two tiles per iteration
  run loop c3
  assert_success
  assert_output "32 2 4 0"
  run "$BUNDLE" quality c3.hipfb
  assert_success
  assert_line --regexp '^gfx908 +conv2d:1x49x512x4608:f32:a512:b4608k +f32 +64x64x32/16x32/s7 '
  run /usr/bin/python3 - "$output" <<'PY'
import sys
f = [l.split() for l in sys.argv[1].splitlines()[1:] if "conv2d" in l][0]
assert int(f[8]) >= 2 and int(f[9]) == 0 and f[12] == "mca" and float(f[13]) >= 80, f
PY
  assert_success
}

@test "gfx908 pipelined loop against the oracle: 1 to 5 K tiles, masked edges, batches, seeded random shapes" {
  # 64-element f16 K tiles (128 bytes) or 32 (64 bytes): odd tile counts start with a zero tile
  matmul k1 f16 1 70 32 66
  oracle k1
  matmul k3 f16 2 130 96 129
  oracle k3
  matmul k5 bf16 1 33 160 200
  oracle k5
  matmul i8a i8 1 100 200 75
  oracle i8a
  matmul f32a f32 2 90 130 70
  oracle f32a
  # shapes drawn once from random.Random(908) in [1, 300] (M, N) and [1, 400] (K)
  local shapes="232,261,31 69,114,160 128,388,253"
  local i=0
  for s in $shapes; do
    IFS=, read -r m k n <<< "$s"
    matmul r$i f16 1 "$m" "$k" "$n"
    # up to 388 products summed in f32 in the MFMAs' k order, not the oracle's: a few results
    # near 0 differ by ~3e-5, beyond the relative tolerance; 1e-4 absolute covers the order
    oracle r$i --atol 1e-4
    i=$((i + 1))
  done
}

@test "gfx908 pipelined loop against the oracle: conv2d with padding and stride (implicit GEMM gather)" {
  cat > conv.mlir <<'M'
// oracle: arg 0 -2 2
// oracle: arg 1 -2 2
// oracle: arg 2 -2 2
func.func @main(%x: tensor<2x13x11x40xf16>, %w: tensor<72x3x3x40xf16>, %b: tensor<72xf16>) -> tensor<2x7x6x72xf16> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x13x11x40xf16>, tensor<72x3x3x40xf16>, tensor<72xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x7x6x72xf16>
  return %0 : tensor<2x7x6x72xf16>
}
M
  # the loop is the pipelined one here too (2 barriers) with 2 waves; the default is one wave
  # (no barrier), as in the one-wave tests below
  local two=bm=128,bn=16,bk=32,wm=64,wn=16,mma=16
  run "$TOSAC" conv.mlir --offload-arch=gfx908 --perf-config=$two -o conv.hipfb
  assert_success
  run loop conv
  assert_success
  assert_output --regexp '^[0-9]+ 2 [0-9]+ 0$'
  # K = 360 products in f32 in another order than the oracle's (see gemm_loop.bats)
  oracle conv --atol 1e-4 --tosac-arg=--perf-config=$two
  oracle conv --atol 1e-4
}

@test "gfx908: one-wave work-groups have no s_barrier (ResNet-18's 1x1 196x256x128: >= 80 % matrix pipe); gfx90a keeps several waves" {
  # gfx908's s_barrier waits for every outstanding load (target table: barrier_drains_memory);
  # LLVM turns the barrier of a work-group of one wave into a wave barrier, so the heuristic
  # may pick one-wave tiles there (tuning.c): 16x16 tiles, 8 16x16x4 MFMAs per 32-element K tile
  cat > c1.mlir <<'M'
func.func @main(%x: tensor<1x14x14x128xf32>, %w: tensor<256x1x1x128xf32>, %b: tensor<256xf32>) -> tensor<1x14x14x256xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x14x14x128xf32>, tensor<256x1x1x128xf32>, tensor<256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x14x14x256xf32>
  return %0 : tensor<1x14x14x256xf32>
}
M
  run "$TOSAC" c1.mlir --offload-arch=gfx908,gfx90a -o c1.hipfb
  assert_success
  run loop c1
  assert_success
  assert_output "16 0 8 0"
  run "$BUNDLE" quality c1.hipfb
  assert_success
  assert_line --regexp '^gfx908 +conv2d:1x196x256x128:f32:a128:b128k +f32 +16x16x32/16x16 '
  run /usr/bin/python3 - "$output" <<'PY'
import sys
rows = {l.split()[0]: l.split() for l in sys.argv[1].splitlines()[1:]}
f = rows["gfx908"]
assert f[12] == "mca" and float(f[13]) >= 80 and int(f[9]) == 0, f
# gfx90a's barrier keeps loads in flight: no one-wave candidates, its tile has several waves
bm, bn, _, wm, wn = [int(x) for x in rows["gfx90a"][3].replace("/", "x").split("x")[:5]]
assert (bm // wm) * (bn // wn) >= 2, rows["gfx90a"]
PY
  assert_success
}

@test "one-wave work-groups against the oracle: gfx908 (MFMA), gfx1100 (WMMA), gfx1030 (FMA)" {
  local one16=--tosac-arg=--perf-config=bm=16,bn=16,bk=32,wm=16,wn=16,mma=16
  # shapes drawn once from random.Random(9081) in [1, 200] (M, N) and [1, 300] (K): masked edges,
  # odd K tile counts
  local shapes="126,298,74 30,47,59 92,269,21"
  local i=0
  for s in $shapes; do
    IFS=, read -r m k n <<< "$s"
    matmul w$i f16 1 "$m" "$k" "$n"
    oracle w$i --atol 1e-4 "$one16"
    i=$((i + 1))
  done
  matmul w32 f32 2 40 70 50
  oracle w32 --atol 1e-4 --tosac-arg=--perf-config=bm=32,bn=32,bk=16,wm=32,wn=32,mma=16
  # a strided, padded convolution's gather in one wave, f32 on gfx908 and gfx1030 (FMA), f16 on
  # gfx1100 (WMMA)
  for t in f32 f16; do
    cat > conv$t.mlir <<M
// oracle: arg 0 -2 2
// oracle: arg 1 -2 2
// oracle: arg 2 -2 2
func.func @main(%x: tensor<1x9x9x24x$t>, %w: tensor<40x3x3x24x$t>, %b: tensor<40x$t>) -> tensor<1x5x5x40x$t> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1x$t>}> : () -> tensor<1x$t>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x9x9x24x$t>, tensor<40x3x3x24x$t>, tensor<40x$t>, tensor<1x$t>, tensor<1x$t>) -> tensor<1x5x5x40x$t>
  return %0 : tensor<1x5x5x40x$t>
}
M
  done
  oracle convf32 --atol 1e-4 "$one16"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" convf16.mlir --targets=gfx1100 "$one16"
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" convf32.mlir --targets=gfx1030 --atol 1e-4 \
    --tosac-arg=--perf-config=bm=32,bn=32,bk=32,wm=32,wn=32
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  # the tiles are the one-wave ones asked for
  "$TOSAC" convf32.mlir --offload-arch=gfx1030 --perf-config=bm=32,bn=32,bk=32,wm=32,wn=32 \
    --manifest=m.json -o m.hipfb
  run grep -c '"waves": 1,' m.json
  assert_output "1"
}
