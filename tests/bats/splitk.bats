#!/usr/bin/env bats
# Split-K GEMMs (partition/splitk.c: GEMM over S chunks of K into a workspace + combine kernel)
# and output initialisation (--init=memset|kernel). Oracle inputs are multiples of 1/8, so every
# partial sum is exact in f32 and any split or summation order must give the oracle's bits.
# The suite is about the combine kernel: it forces that form (TOSAC_SPLIT_K_FORM=combine); the
# estimate's own choice (the last work-group's reduction where the client keeps a zeroed
# workspace) is splitk_form.bats', the one-kernel form splitk_lastwg.bats'.
bats_load_library bats-support
bats_load_library bats-assert

setup() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  BUILD="${TOSAC_BUILD:-build}"
  case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
  TOSAC="$BUILD/bin/tosac"
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py")
  export TOSAC_BUILD="$BUILD"
  unset TOSAC_SPLIT_K TOSAC_REDUCTION_SPLIT_MIN
  export TOSAC_SPLIT_K_FORM=combine
  cd "$BATS_TEST_TMPDIR"
}

load lib/matmul
@test "a 64x64x65536 f32 matmul uses split-K: GEMM + combine, S per target from the cost model" {
  # every target: the split with the smallest estimate for its tile (codegen/tuning.c: the MFMA
  # and the RDNA estimate; docs/partitioning.md)
  matmul big f32 1 64 65536 64
  run "$TOSAC" big.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "target gfx90a: 2 kernels, 2 launches, workspace 425984 bytes"
  assert_line "  buffer 3 workspace tensor<26x1x64x64xf32> 425984 bytes at workspace+0"
  assert_line "  kernel 0 tosac_k0_matmul_splitk over tensor<1x64x64xf32>"
  assert_line "  kernel 1 tosac_k1_matmul_combine over tensor<1x64x64xf32>"
  assert_line "    reads b0 b1; writes b3"
  assert_line "    reads b3; writes b2"
  assert_line "  launch 1: kernel 1 after [0]"
  # every default target splits; S follows docs/partitioning.md from the tile in the manifest
  run "$TOSAC" big.mlir -o big.hipfb
  assert_success
  run /usr/bin/python3 - "$ROOT/schema/manifest.schema.json" <<'PY'
import json, sys, jsonschema
m = json.load(open('big.json'))
assert not list(jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).iter_errors(m))
for t in m['targets']:
    g, c = t['kernels']
    tu = g['tuning']
    tiles = -(-64 // tu['bm']) * -(-64 // tu['bn'])
    nk = 65536 // tu['bk']
    s = tu['split_k']  # the estimate's (MFMA and RDNA): 4 K tiles per split at least
    assert 2 <= s <= 128 and nk // s >= 4, (t['processor'], tu)
    assert s == c['tuning']['split_k'], (t['processor'], tu, s)
    assert g['grid'] == [tiles * s, 1, 1] and c['grid'] == [16, 1, 1], (g['grid'], c['grid'])
    assert t['workspace']['bytes'] == s * 64 * 64 * 4
    deps = [(l['kind'], l['kernel'], l['deps']) for l in t['launches']]
    assert deps == [('kernel', 0, []), ('kernel', 1, [0])], deps
    print(t['processor'], t['kernel_count'], s)
PY
  assert_success
  assert_line "gfx90a 2 26"
  # RDNA by its estimate too (64x32x16 FMA tiles: 4096 K tiles; the CU-share rule gave 40 on
  # gfx1030, 48 on gfx1100, 32 on gfx1200; gfx1030's 32, not 21, since the combine's launch is
  # the target table's 3.8 us instead of an assumed 1 us)
  assert_line "gfx1030 2 32"
  assert_line "gfx1100 2 40"
  assert_line "gfx1200 2 27"
  assert_equal "${#lines[@]}" 7
}

@test "GEMMs that fill the GPU or have a short K stay one kernel; TOSAC_SPLIT_K disables or forces" {
  matmul wide f32 1 1024 256 1024
  matmul shortk f32 1 64 64 64
  matmul big f32 1 64 65536 64
  for g in wide shortk; do
    run "$TOSAC" $g.mlir --offload-arch=gfx90a,gfx1030 --emit=partitions
    assert_success
    assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
    assert_line "target gfx1030: 1 kernels, 1 launches, workspace 0 bytes"
  done
  TOSAC_SPLIT_K=0 run "$TOSAC" big.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  matmul mid f32 1 32 4096 48
  TOSAC_SPLIT_K=7 run "$TOSAC" mid.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  buffer 3 workspace tensor<7x1x32x48xf32> 43008 bytes at workspace+0"
  # whole K tiles per split: 256 / bk 32 (the heuristic's 64x64x32 tile, 128-byte K tiles,
  # docs/gemm.md) = 8 tiles as 2 + 2 + 2 + 2, so 4 splits for 7 asked
  TOSAC_SPLIT_K=7 run "$TOSAC" wide.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  buffer 3 workspace tensor<4x1x1024x1024xf32> 16777216 bytes at workspace+0"
  # forced beyond the K tiles (64 / bk 4 = 16): one tile per split
  TOSAC_SPLIT_K=100 run "$TOSAC" shortk.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  buffer 3 workspace tensor<16x1x64x64xf32> 262144 bytes at workspace+0"
}

@test "split-K f32 matmul matches the oracle on MFMA (gfx90a) and FMA (gfx1030)" {
  matmul s1 f32 1 32 4096 48
  eighths a.npy float32 5 1 32 4096
  eighths b.npy float32 6 1 4096 48
  export TOSAC_SPLIT_K=3
  run "$TOSAC" s1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  buffer 3 workspace tensor<3x1x32x48xf32> 18432 bytes at workspace+0"
  run "${CHECK[@]}" s1.mlir --targets=gfx90a,gfx1030 --input=@a.npy --input=@b.npy
  assert_success
  assert_output --partial "ok s1.mlir [gfx90a]: 1 results match"
  assert_output --partial "ok s1.mlir [gfx1030]: 1 results match"
}

@test "split-K f16 matmul, batch 2, K not a multiple of the split, fused bias + relu + cast" {
  cat > s2.mlir <<'EOF'
func.func @main(%a: tensor<2x20x1000xf16>, %b: tensor<2x1000x24xf16>, %bias: tensor<1x1x24xf32>) -> tensor<2x20x24xf16> {
  %az = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %bz = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %r = tosa.matmul %a, %b, %az, %bz : (tensor<2x20x1000xf16>, tensor<2x1000x24xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x20x24xf32>
  %s = tosa.add %r, %bias : (tensor<2x20x24xf32>, tensor<1x1x24xf32>) -> tensor<2x20x24xf32>
  %c = tosa.clamp %s {min_val = 0.0 : f32, max_val = 60000.0 : f32} : (tensor<2x20x24xf32>) -> tensor<2x20x24xf32>
  %h = tosa.cast %c : (tensor<2x20x24xf32>) -> tensor<2x20x24xf16>
  return %h : tensor<2x20x24xf16>
}
EOF
  eighths a.npy float16 7 2 20 1000
  eighths b.npy float16 8 2 1000 24
  eighths c.npy float32 9 1 1 24
  export TOSAC_SPLIT_K=5
  run "$TOSAC" s2.mlir --offload-arch=gfx942 --emit=partitions
  assert_line "  buffer 4 workspace tensor<5x2x20x24xf32> 19200 bytes at workspace+0"
  assert_line "  kernel 1 tosac_k1_matmul_add_clamp_combine over tensor<2x20x24xf32>"
  assert_line "    reads b4 b2; writes b3"
  run "${CHECK[@]}" s2.mlir --targets=gfx942,gfx1030 --input=@a.npy --input=@b.npy --input=@c.npy
  assert_success
  assert_output --partial "ok s2.mlir [gfx942]: 1 results match"
  assert_output --partial "ok s2.mlir [gfx1030]: 1 results match"
}

@test "split-K conv2d (bias operand + clamp in the combine) and i8 matmul (i32 partials)" {
  cat > cv.mlir <<'EOF'
func.func @main(%x: tensor<1x6x6x64xf32>, %w: tensor<8x3x3x64xf32>, %bias: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %iz = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %wz = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.conv2d %x, %w, %bias, %iz, %wz {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x64xf32>, tensor<8x3x3x64xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x8xf32>
  %c = tosa.clamp %r {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %c : tensor<1x4x4x8xf32>
}
EOF
  eighths x.npy float32 10 1 6 6 64
  eighths w.npy float32 11 8 3 3 64
  eighths c.npy float32 12 8
  matmul mi8 i8 1 9 700 13
  export TOSAC_SPLIT_K=4
  run "$TOSAC" cv.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  buffer 4 workspace tensor<4x1x4x4x8xf32> 2048 bytes at workspace+0"
  run "${CHECK[@]}" cv.mlir --targets=gfx90a,gfx1030 --input=@x.npy --input=@w.npy --input=@c.npy
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  # the skinny kernel's sliced form reads K in blocks of 256 here: 3 K tiles cap the forced 4
  # (the wide form, TOSAC_GEMV_FORM=wide, blocks of 8, keeps 4)
  run "$TOSAC" mi8.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  buffer 3 workspace tensor<3x1x9x13xi32> 1404 bytes at workspace+0"
  TOSAC_GEMV_FORM=wide run "$TOSAC" mi8.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  buffer 3 workspace tensor<4x1x9x13xi32> 1872 bytes at workspace+0"
  run "${CHECK[@]}" mi8.mlir --targets=gfx90a,gfx1100
  assert_success
  assert_output --partial "ok mi8.mlir [gfx90a]: 1 results match"
  assert_output --partial "ok mi8.mlir [gfx1100]: 1 results match"
  TOSAC_GEMV_FORM=wide run "${CHECK[@]}" mi8.mlir --targets=gfx90a
  assert_success
  assert_output --partial "ok mi8.mlir [gfx90a]: 1 results match"
}

# initialisers BUNDLE_JSON: per target, for every buffer an atomic kernel accumulates into, the
# nodes that initialise it (fill nodes or init kernels) and whether one of them precedes every
# accumulating kernel through deps.
initialisers() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
for t in json.load(open(sys.argv[1]))['targets']:
    ks, ls = t['kernels'], t['launches']
    def writes(l):
        if l['kind'] == 'fill':
            return {l['buffer']}
        if l['kind'] == 'kernel':
            return {a['buffer'] for a in ks[l['kernel']]['args'] if a.get('access') in ('write_only', 'read_write')}
        return set()
    def anc(i, seen=None):
        seen = set() if seen is None else seen
        for d in ls[i]['deps']:
            if d not in seen:
                seen.add(d); anc(d, seen)
        return seen
    out = []
    for l in ls:
        if l['kind'] != 'kernel' or not ks[l['kernel']]['name'].endswith('_atomic'):
            continue
        buf = [a['buffer'] for a in ks[l['kernel']]['args'] if a.get('access') == 'read_write'][0]
        inits = [x['id'] for x in ls if buf in writes(x) and x['id'] != l['id']]
        kinds = ','.join('fill-node' if ls[i]['kind'] == 'fill' else 'init-kernel:' + ks[ls[i]['kernel']]['family']
                         for i in inits)
        out.append('b%d:%d:%s:%s' % (buf, len(inits), kinds, all(i in anc(l['id']) for i in inits)))
    print(t['processor'], t['kernel_count'], sum(l['kind'] == 'fill' for l in ls), ' '.join(out))
PY
}

@test "--init=kernel: init kernels replace fill nodes, once per accumulated buffer, oracle match" {
  cat > big.mlir <<'EOF'
func.func @main(%a: tensor<4194304xf32>, %b: tensor<2x300000xi32>) -> (tensor<1xf32>, tensor<2x1xi32>) {
  %0 = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<4194304xf32>) -> tensor<1xf32>
  %1 = tosa.reduce_max %b {axis = 1 : i32} : (tensor<2x300000xi32>) -> tensor<2x1xi32>
  return %0, %1 : tensor<1xf32>, tensor<2x1xi32>
}
EOF
  export TOSAC_REDUCTION_SPLIT_MIN=4096
  run "$TOSAC" big.mlir --offload-arch=gfx90a,gfx1030 -o mem.hipfb
  assert_success
  run initialisers mem.json
  assert_line "gfx90a 2 2 b2:1:fill-node:True b3:1:fill-node:True"
  assert_line "gfx1030 3 1 b3:1:fill-node:True"
  run "$TOSAC" big.mlir --offload-arch=gfx90a,gfx1030 --init=kernel -o ker.hipfb
  assert_success
  run initialisers ker.json
  assert_line "gfx90a 4 0 b2:1:init-kernel:fill:True b3:1:init-kernel:fill:True"
  assert_line "gfx1030 4 0 b3:1:init-kernel:fill:True"
  run /usr/bin/python3 -c "
import json
t = json.load(open('ker.json'))['targets'][0]
for k in t['kernels']:
    print(k['name'], k['family'], k['grid'], [a['buffer'] for a in k['args'] if a['buffer'] is not None])"
  assert_output "tosac_k0_reduce_sum_init fill [1, 1, 1] [2]
tosac_k1_reduce_sum_atomic reduction [208, 1, 1] [0, 2]
tosac_k2_reduce_max_init fill [1, 1, 1] [3]
tosac_k3_reduce_max_atomic reduction [208, 1, 1] [1, 3]"
  run "$TOSAC" big.mlir --offload-arch=gfx90a --init=kernel --emit=partitions
  assert_line "  launch 1: kernel 1 after [0]"
  /usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng(3)
np.save('r0.npy', (r.integers(-8, 9, 4194304) / 8).astype(np.float32))
np.save('r1.npy', r.integers(-100000, 100000, (2, 300000)).astype(np.int32))"
  printf '#!/bin/sh\nexec "%s" "$@" --init=kernel\n' "$TOSAC" > tosac-init
  chmod +x tosac-init
  run "${CHECK[@]}" big.mlir --targets=gfx90a --tosac="$PWD/tosac-init" --input=@r0.npy --input=@r1.npy
  assert_success
  assert_output --partial "ok big.mlir [gfx90a]: 2 results match"
}

@test "--init takes memset or kernel" {
  matmul m f32 1 4 4 4
  run "$TOSAC" m.mlir --init=zero
  assert_failure 2
  assert_output --partial "tosac: error: unknown --init mode 'zero' (use memset or kernel)"
  run "$TOSAC" --help
  assert_output --partial "--init=memset|kernel"
}
