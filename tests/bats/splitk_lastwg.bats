#!/usr/bin/env bats
# Split-K with the last work-group's reduction (docs/partitioning.md "Split-K GEMMs", role
# KR_FIXUP): one kernel whose work-groups write f32/i32 partials, count themselves in at a
# per-tile counter in the workspace's zeroed region, and whose last arrival per tile adds the
# partials and runs the epilogue. Forced with TOSAC_SPLIT_K_FORM=lastwg (and TOSAC_SPLIT_K=S);
# results are checked against the MLIR oracle on an MFMA (gfx90a), a WMMA (gfx1100) and the FMA
# target (gfx1030), with the IR executor and the machine-code executor (which checks
# cross-work-group writes and runs the atomics and fences), and tosac-run checks that every run
# leaves the zeroed region zero. Inputs are multiples of 1/8 (eighths): every partial sum is
# exact, so any split gives the oracle's bits.
bats_load_library bats-support
bats_load_library bats-assert

setup() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  BUILD="${TOSAC_BUILD:-build}"
  case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
  TOSAC="$BUILD/bin/tosac"
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BUILD/bin/tosac" --tosac-run "$BUILD/bin/tosac-run")
  export TOSAC_BUILD="$BUILD"
  unset TOSAC_SPLIT_K TOSAC_SPLIT_K_FORM
  cd "$BATS_TEST_TMPDIR"
}

load lib/matmul
load lib/python

# both executors: check GRAPH ARGS... on gfx90a, gfx1100, gfx1030
both() {
  for e in ir isa; do
    TOSAC_EXEC=$e TOSAC_HIPEMU_EXEC=$e run "${CHECK[@]}" --targets=gfx90a,gfx1100,gfx1030 "$@"
    assert_success
    assert_output --partial "ok $1 [gfx90a]: 1 results match"
    assert_output --partial "ok $1 [gfx1100]: 1 results match"
    assert_output --partial "ok $1 [gfx1030]: 1 results match"
  done
}

# seeded M K N for seed $1: M 17-70, K 1500-4100, N 9-90 (odd sizes: partial tiles, a short last split)
shape() {
  /usr/bin/python3 -c "
import sys, numpy as np
r = np.random.default_rng(int(sys.argv[1]))
print(int(r.integers(17, 71)), int(r.integers(1500, 4101)), int(r.integers(9, 91)))" "$1"
}

@test "the last-work-group form is one kernel: partials and counters in the workspace, counters in its zeroed region" {
  matmul s1 f32 1 32 4096 48
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=lastwg run "$TOSAC" s1.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 18688 bytes"
  assert_line "  buffer 3 workspace tensor<3x1x32x48xf32> 18432 bytes at workspace+256"
  assert_line "  buffer 4 workspace tensor<4xi32> 16 bytes at workspace+0"
  assert_line "  kernel 0 tosac_k0_matmul_splitk over tensor<1x32x48xf32>"
  assert_line "    reads b0 b1; writes b2 b3 b4"
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=lastwg run "$TOSAC" s1.mlir --offload-arch=gfx90a,gfx1100 -o s1.hipfb
  assert_success
  run /usr/bin/python3 - "$ROOT/schema/manifest.schema.json" <<'PY'
import json, sys, jsonschema
m = json.load(open('s1.json'))
assert not list(jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).iter_errors(m))
for t in m['targets']:
    k, = t['kernels']
    tu = k['tuning']
    tiles = -(-32 // tu['bm']) * -(-48 // tu['bn'])
    acc = [a['access'] for a in k['args'] if a['value_kind'] == 'global_buffer']
    print(t['processor'], t['workspace']['zeroed_bytes'], tu['split_k'], tu['split_k_form'],
          k['grid'][0] == 3 * tiles, ' '.join(acc))
PY
  assert_success
  assert_line "gfx90a 256 3 lastwg True read_only read_only write_only read_write read_write"
  assert_line "gfx1100 256 3 lastwg True read_only read_only write_only read_write read_write"
  # the combine form has no zeroed region
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run "$TOSAC" s1.mlir --offload-arch=gfx90a -o c.hipfb
  assert_success
  run /usr/bin/python3 -c "import json; t = json.load(open('c.json'))['targets'][0]; print(t['kernel_count'], t['workspace'])"
  assert_output "2 {'bytes': 18432, 'alignment': 256}"
}

@test "seeded random matmuls with bias + relu in the epilogue match the oracle, split in the last work-group (ir and isa)" {
  export TOSAC_SPLIT_K_FORM=lastwg
  for seed in 11 12; do
    read -r M K N < <(shape $seed)
    cat > r$seed.mlir <<EOF
func.func @main(%a: tensor<1x${M}x${K}xf32>, %b: tensor<1x${K}x${N}xf32>, %bias: tensor<1x1x${N}xf32>) -> tensor<1x${M}x${N}xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.matmul %a, %b, %z, %z : (tensor<1x${M}x${K}xf32>, tensor<1x${K}x${N}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x${M}x${N}xf32>
  %s = tosa.add %r, %bias : (tensor<1x${M}x${N}xf32>, tensor<1x1x${N}xf32>) -> tensor<1x${M}x${N}xf32>
  %c = tosa.clamp %s {min_val = 0.0 : f32, max_val = 3.4e38 : f32} : (tensor<1x${M}x${N}xf32>) -> tensor<1x${M}x${N}xf32>
  return %c : tensor<1x${M}x${N}xf32>
}
EOF
    eighths a.npy float32 $seed 1 $M $K
    eighths b.npy float32 $((seed + 50)) 1 $K $N
    eighths c.npy float32 $((seed + 90)) 1 1 $N
    export TOSAC_SPLIT_K=$((2 + seed % 5))
    run "$TOSAC" r$seed.mlir --offload-arch=gfx90a,gfx1100,gfx1030 --emit=partitions
    assert_success
    assert_line "  kernel 0 tosac_k0_matmul_add_clamp_splitk over tensor<1x${M}x${N}xf32>"
    assert_line --regexp "^target gfx90a: 1 kernels, 1 launches, "
    both r$seed.mlir --input=@a.npy --input=@b.npy --input=@c.npy
  done
}

@test "conv2d with bias, residual add and ReLU in the last work-group's epilogue matches the oracle (ir and isa)" {
  cat > res.mlir <<'EOF'
func.func @main(%x: tensor<1x7x7x64xf32>, %w: tensor<24x3x3x64xf32>, %bias: tensor<24xf32>, %skip: tensor<1x7x7x24xf32>) -> tensor<1x7x7x24xf32> {
  %iz = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.conv2d %x, %w, %bias, %iz, %iz {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x7x7x64xf32>, tensor<24x3x3x64xf32>, tensor<24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x7x7x24xf32>
  %s = tosa.add %r, %skip : (tensor<1x7x7x24xf32>, tensor<1x7x7x24xf32>) -> tensor<1x7x7x24xf32>
  %c = tosa.clamp %s {min_val = 0.0 : f32, max_val = 3.4e38 : f32} : (tensor<1x7x7x24xf32>) -> tensor<1x7x7x24xf32>
  return %c : tensor<1x7x7x24xf32>
}
EOF
  eighths x.npy float32 21 1 7 7 64
  eighths w.npy float32 22 24 3 3 64
  eighths c.npy float32 23 24
  eighths s.npy float32 24 1 7 7 24
  export TOSAC_SPLIT_K=4 TOSAC_SPLIT_K_FORM=lastwg
  run "$TOSAC" res.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "  kernel 0 tosac_k0_conv2d_add_clamp_splitk over tensor<1x7x7x24xf32>"
  assert_line "    reads b0 b1 b2 b3; writes b4 b5 b6"
  both res.mlir --input=@x.npy --input=@w.npy --input=@c.npy --input=@s.npy
}

@test "an NCHW convolution stores its transposed result from the last work-group (output view; ir and isa)" {
  export TOSAC_SPLIT_K=2 TOSAC_SPLIT_K_FORM=lastwg
  for seed in 1 2; do
    /usr/bin/python3 "$ROOT/tests/oracle/gen_nchw_conv.py" conv $seed > v$seed.mlir
    run "$TOSAC" v$seed.mlir --offload-arch=gfx90a --emit=partitions
    assert_success
    assert_line --regexp "^  kernel 0 tosac_k0_conv2d_splitk over "
    assert_line "    tosa.transpose at v$seed.mlir:11:9"
    both v$seed.mlir
  done
}

@test "i8 matmul (i32 partials) in the last work-group matches the oracle; TOSAC_SPLIT_K=0 still keeps one plain kernel" {
  matmul mi8 i8 1 33 700 13
  export TOSAC_SPLIT_K=4 TOSAC_SPLIT_K_FORM=lastwg
  run "$TOSAC" mi8.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  buffer 3 workspace tensor<4x1x33x13xi32> 6864 bytes at workspace+256"
  both mi8.mlir
  TOSAC_SPLIT_K=0 run "$TOSAC" mi8.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
}

@test "tosac-hip-run and the --emit=host code (libtosac-hipemu, whose fresh memory is 0xff) zero the counters once and equal tosac-run" {
  [ -x "$BUILD/bin/tosac-hip-run" ] && [ -f "$BUILD/lib/libtosac-hipemu.so" ] || skip "no HIP headers: tosac-hip-run not built"
  matmul s1 f32 1 32 4096 48
  eighths a.npy float32 5 1 32 4096
  eighths b.npy float32 6 1 4096 48
  export TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=lastwg
  "$TOSAC" s1.mlir --offload-arch=gfx1030 --embed-ir -o s1.hipfb
  "$BUILD/bin/tosac-run" s1.hipfb --target=gfx1030 --input=@a.npy --input=@b.npy --output=@ref.npy
  local pre="$BUILD/lib/libtosac-hipemu.so"
  [ -z "${TOSAC_SAN:-}" ] || pre="$(gcc -print-file-name=libasan.so) $pre"
  run env TOSAC_HIPEMU_ARCH=gfx1030 LD_PRELOAD="$pre" "$BUILD/bin/tosac-hip-run" s1.hipfb --input a.npy --input b.npy --output y.npy
  assert_success
  run /usr/bin/python3 -c "import numpy as np; print(np.array_equal(np.load('y.npy'), np.load('ref.npy')))"
  assert_output "True"
  # the generated host code, run twice on one context: the second run finds the counters zero
  "$TOSAC" s1.mlir --emit=host --embed-ir --offload-arch=gfx1030 --prefix=m -o s1_host.c 2>/dev/null
  cc -std=c17 -Wall -Wextra -Werror ${TOSAC_SAN:-} -D__HIP_PLATFORM_AMD__ -DMODEL=m -DMODEL_UPPER=M \
    -include s1_host.h "$ROOT/tests/host/run_model.c" s1_host.c -o s1.run \
    -L"$BUILD/lib" -ltosac-hipemu -Wl,-rpath,"$BUILD/lib"
  /usr/bin/python3 -c "import numpy as np; np.load('a.npy').tofile('a.bin'); np.load('b.npy').tofile('b.bin')"
  RUN_MODEL_RUNS=2 TOSAC_HIPEMU_ARCH=gfx1030 run ./s1.run s1.hipfb - a.bin b.bin -- y.bin
  assert_success
  run /usr/bin/python3 -c "import numpy as np; print(np.array_equal(np.fromfile('y.bin', np.float32).reshape(1, 32, 48), np.load('ref.npy')))"
  assert_output "True"
}

@test "libtosac without a zeroed workspace (tosac_options_set_zeroed_workspace 0, as libtosac-miir compiles) keeps the combine kernel" {
  matmul s1 f32 1 32 4096 48
  export TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=lastwg
  run py - "$ROOT/python" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tosac
src = open('s1.mlir').read()
for opt in ({}, {'zeroed_workspace': True}, {'zeroed_workspace': False}):
    t = tosac.compile(src, ['gfx90a'], **opt).manifest['targets'][0]
    print(opt.get('zeroed_workspace'), t['kernel_count'], t['workspace'].get('zeroed_bytes', 0),
          [k['name'] for k in t['kernels']])
PY
  assert_success
  assert_line "None 1 256 ['tosac_k0_matmul_splitk']"
  assert_line "True 1 256 ['tosac_k0_matmul_splitk']"
  assert_line "False 2 0 ['tosac_k0_matmul_splitk', 'tosac_k1_matmul_combine']"
}

@test "libtosac without workspace expansions (tosac_options_set_workspace_expansions 0) splits no K, not even in the last work-group" {
  matmul s1 f32 1 32 4096 48
  export TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=lastwg
  run py - "$ROOT/python" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tosac
src = open('s1.mlir').read()
for zeroed in (True, False):
    t = tosac.compile(src, ['gfx90a'], workspace_expansions=False,
                      zeroed_workspace=zeroed).manifest['targets'][0]
    print(zeroed, t['kernel_count'], t['workspace']['bytes'], [k['name'] for k in t['kernels']])
PY
  assert_success
  assert_line "True 1 0 ['tosac_k0_matmul']"
  assert_line "False 1 0 ['tosac_k0_matmul']"
}
