#!/usr/bin/env bats
# Dynamic shapes (issue 16 §2): --specialize compiles one variant per value of a '?' dimension
# into one bundle; tied dimensions follow; kernels the variants share are compiled once; the
# manifest's variants table; tosac-run picks the variant from the input shapes; exact errors.

bats_load_library bats-support
bats_load_library bats-assert

setup() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export TOSAC_BUILD="${TOSAC_BUILD:-build}"
  case "$TOSAC_BUILD" in /*) BUILD="$TOSAC_BUILD" ;; *) BUILD="$ROOT/$TOSAC_BUILD" ;; esac
  TOSAC="$BUILD/bin/tosac"
  RUN="$BUILD/bin/tosac-run"
  PY=/usr/bin/python3
  ORACLE="$ROOT/tests/oracle/oracle.py"
  cd "$BATS_TEST_TMPDIR"
  # A dynamic batch: %x's dimension 0 is specialised, %w's is tied to it by tosa.matmul's batch
  # rule, the result's by the add. The reduction over %b does not depend on the batch: its
  # kernel is the one both variants share.
  cp "$ROOT/tests/data/dynamic/batch.mlir" g.mlir
}

# inputs N SEED: x.npy, w.npy (batch N), b.npy
inputs() {
  $PY -c "
import numpy as np, sys
r = np.random.default_rng($2)
np.save('x.npy', r.uniform(-1, 1, ($1, 16, 32)).astype(np.float32))
np.save('w.npy', r.uniform(-1, 1, ($1, 32, 16)).astype(np.float32))
np.save('b.npy', r.uniform(-1, 1, (8, 16)).astype(np.float32))"
}

# The reference: the graph with '?' written as N, through the MLIR oracle.
reference() {
  sed "s/?x/$1x/g" g.mlir > static.mlir
  $PY "$ORACLE" static.mlir --input=@x.npy --input=@w.npy --input=@b.npy --output=@r0.npy --output=@r1.npy
}

# Results o0.npy/o1.npy against r0.npy/r1.npy: |d| <= 1e-5 + 1e-5 |ref| (check.py's f32 rule);
# prints the result shapes.
compare() {
  $PY -c "
import numpy as np
for i in range(2):
    o, r = np.load('o%d.npy' % i), np.load('r%d.npy' % i)
    assert o.shape == r.shape, (o.shape, r.shape)
    assert np.all(np.abs(o - r) <= 1e-5 + 1e-5 * np.abs(r)), np.max(np.abs(o - r))
print(np.load('o0.npy').shape, np.load('o1.npy').shape)"
}

@test "a dynamic batch compiled for batches 2 and 5 runs at both on MFMA, WMMA and FMA targets and matches the oracle" {
  run "$TOSAC" g.mlir --specialize=x:0=2,5 --offload-arch=gfx90a,gfx1100,gfx1030 --embed-ir -o g.hipfb
  assert_success
  for n in 2 5; do
    inputs $n $n
    reference $n
    for t in gfx90a gfx1100 gfx1030; do
      run "$RUN" g.hipfb --target=$t --input=@x.npy --input=@w.npy --input=@b.npy --output=@o0.npy --output=@o1.npy -v
      assert_success
      assert_line "tosac-run: variant $(( n == 2 ? 0 : 1 )) of 2"
      run compare
      assert_success
      assert_output "($n, 16, 16) (1, 16)"
    done
  done
  # the argument can be named by its index too: the same bundle byte for byte
  "$TOSAC" g.mlir --specialize=0:0=2,5 --offload-arch=gfx90a,gfx1100,gfx1030 --embed-ir -o g2.hipfb
  cmp g.hipfb g2.hipfb
}

@test "the manifest's variants: shapes, tied dimensions, per-target launch graphs; shared kernels compiled once" {
  "$TOSAC" g.mlir --specialize=x:0=2,5 --offload-arch=gfx90a,gfx1030 -o g.hipfb
  run $PY -c "
import json
m = json.load(open('g.json'))
print([i['shape'] for i in m['inputs']])
for v in m['variants']:
    print(v['id'], [(d['input'], d['dim'], d['value']) for d in v['dims']], [i['shape'] for i in v['inputs']], [o['shape'] for o in v['outputs']])
for t in range(2):
    names = [[k['name'] for k in v['targets'][t]['kernels']] for v in m['variants']]
    print(m['targets'][t]['target_id'], names, len(set(names[0]) | set(names[1])))"
  assert_success
  assert_line --index 0 "[[2, 16, 32], [2, 32, 16], [8, 16]]"
  assert_line --index 1 "0 [(0, 0, 2), (1, 0, 2)] [[2, 16, 32], [2, 32, 16], [8, 16]] [[2, 16, 16], [1, 16]]"
  assert_line --index 2 "1 [(0, 0, 5), (1, 0, 5)] [[5, 16, 32], [5, 32, 16], [8, 16]] [[5, 16, 16], [1, 16]]"
  assert_line --index 3 "gfx90a [['tosac_k0_reduce_sum', 'tosac_k1_matmul_add_tanh'], ['tosac_k0_reduce_sum', 'tosac_v1_k1_matmul_add_tanh']] 3"
  assert_line --index 4 "gfx1030 [['tosac_k0_reduce_sum', 'tosac_k1_matmul_add_tanh'], ['tosac_k0_reduce_sum', 'tosac_v1_k1_matmul_add_tanh']] 3"
  # each code object holds 3 kernels (2 + 2, one shared), counted by their descriptor symbols
  clang-offload-bundler-22 -type=o -input=g.hipfb -unbundle \
    -targets=hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1030 -output=a.co -output=b.co
  for co in a.co b.co; do
    run bash -c "llvm-readelf-22 --dyn-symbols $co | grep -c '\.kd$'"
    assert_output "3"
  done
  run "$BUILD/bin/tosac-bundle" verify g.hipfb --manifest g.json
  assert_success
  assert_output "ok: 2 code objects, 6 kernels, manifest agrees"
  # the schema accepts it
  $PY -c "
import json, jsonschema
s = json.load(open('$ROOT/schema/manifest.schema.json'))
jsonschema.Draft202012Validator(s).validate(json.load(open('g.json')))"
  # verify catches a variant whose dims disagree with its shapes
  $PY -c "
import json; m = json.load(open('g.json')); m['variants'][1]['dims'][1]['value'] = 4
json.dump(m, open('bad.json', 'w'))"
  run "$BUILD/bin/tosac-bundle" verify g.hipfb --manifest bad.json
  assert_failure
  assert_output "error: manifest: variants[1].dims: input 1 dimension 0 is not 4"
}

@test "tosac-run refuses input shapes no variant takes, naming the ones it supports" {
  "$TOSAC" g.mlir --specialize=x:0=2,5 --offload-arch=gfx90a --embed-ir -o g.hipfb
  inputs 3 1
  run "$RUN" g.hipfb --target=gfx90a --input=@x.npy --input=@w.npy --input=@b.npy
  assert_failure 1
  assert_output "tosac-run: error: main was compiled for other input shapes: got (3x16x32xf32, 3x32x16xf32, 8x16xf32); the variants take (2x16x32xf32, 2x32x16xf32, 8x16xf32) or (5x16x32xf32, 5x32x16xf32, 8x16xf32)"
}

@test "--specialize usage errors are exact and exit 2" {
  bad() {
    run "$TOSAC" g.mlir "$@"
    assert_failure 2
    assert_line --index 1 "try 'tosac --help' for more information"
  }
  bad --specialize=x0=2
  assert_line --index 0 "tosac: error: invalid --specialize 'x0=2' (use ARG:DIM=V1,V2,..., e.g. x:0=1,8)"
  bad --specialize=x:0=
  assert_line --index 0 "tosac: error: invalid --specialize 'x:0=' (use ARG:DIM=V1,V2,..., e.g. x:0=1,8)"
  bad --specialize=:0=2
  assert_line --index 0 "tosac: error: invalid --specialize ':0=2' (use ARG:DIM=V1,V2,..., e.g. x:0=1,8)"
  bad --specialize=x:a=2
  assert_line --index 0 "tosac: error: invalid dimension in --specialize 'x:a=2' (use an index from 0 to 7)"
  bad --specialize=x:9=2
  assert_line --index 0 "tosac: error: invalid dimension in --specialize 'x:9=2' (use an index from 0 to 7)"
  for v in 0 -1 2.5 1,,2 3x; do
    bad --specialize=x:0=$v
    assert_line --index 0 "tosac: error: invalid value in --specialize 'x:0=$v' (values are integers from 1 to 2^31)"
  done
  bad --specialize=x:0=2,2
  assert_line --index 0 "tosac: error: --specialize gives variants 0 and 1 the same values"
  bad --specialize=x:0=2 --specialize=x:0=3
  assert_line --index 0 "tosac: error: --specialize 'x:0=3' names a dimension given before"
  bad --specialize=x:0=2,5 --specialize=w:0=2
  assert_line --index 0 "tosac: error: --specialize 'w:0=2' lists 1 value, but the first --specialize lists 2 (variant i takes the i-th value of each)"
}

@test "--specialize errors against the graph, and a '?' left without a value, at file:line:col; no output written" {
  touch -d '2020-01-01' g.hipfb g.json
  err() {
    run "$TOSAC" g.mlir --offload-arch=gfx90a "$@"
    assert_failure 1
  }
  err --specialize=q:0=2
  assert_line --index 0 "g.mlir:1:11: error: --specialize=q:0: @main has no argument 'q' (arguments: %x, %w, %b)"
  assert_line --index 2 "          ^"
  err --specialize=x:1=4
  assert_line --index 0 "g.mlir:1:17: error: --specialize=x:1: dimension 1 of argument '%x' (tensor<?x16x32xf32>) is static; only '?' dimensions take values"
  err --specialize=x:5=2
  assert_line --index 0 "g.mlir:1:17: error: --specialize=x:5: argument '%x' (tensor<?x16x32xf32>) has no dimension 5"
  # specialising two tied dimensions differently: the shape rule that ties them says so
  err --specialize=x:0=2 --specialize=w:0=3
  assert_line --index 0 "g.mlir:3:24: error: 'tosa.matmul' shapes tensor<2x16x32xf32> and tensor<3x32x16xf32> do not multiply (need [N,H,C] x [N,C,W])"
  err
  assert_line --index 0 "g.mlir:1:28: error: dynamic dimension 0 of argument '%x' has no value; compile with --specialize=x:0=V1,V2,..."
  assert_line --index 2 "                           ^"
  assert_line --index 3 "g.mlir:3:8: note: first used here by 'tosa.matmul'"
  # a '?' that no op ties to anything
  cat > u.mlir <<'M'
func.func @main(%a: tensor<4xf32>, %u: tensor<2x?xi8>) -> tensor<4xf32> {
  %0 = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
M
  run "$TOSAC" u.mlir --offload-arch=gfx90a
  assert_failure 1
  assert_line --index 0 "u.mlir:1:49: error: dynamic dimension 1 of argument '%u' has no value; compile with --specialize=u:1=V1,V2,..."
  # a '?' result of an op whose verifier infers no shape
  cat > f.mlir <<'M'
func.func @main(%re: tensor<1x4x4xf32>, %im: tensor<1x4x4xf32>) -> (tensor<1x4x4xf32>, tensor<1x4x4xf32>) {
  %0, %1 = tosa.fft2d %re, %im {inverse = false} : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> (tensor<1x?x4xf32>, tensor<1x4x4xf32>)
  return %0, %1 : tensor<1x4x4xf32>, tensor<1x4x4xf32>
}
M
  run "$TOSAC" f.mlir --offload-arch=gfx90a
  assert_failure 1
  assert_line --index 0 "f.mlir:2:12: error: 'tosa.fft2d' result 0: dimension 1 ('?') cannot be inferred (tosac infers '?' result dimensions of ops with a shape rule only)"
  [ "$(stat -c %Y g.hipfb)" = "$(date -d 2020-01-01 +%s)" ]
  [ "$(stat -c %Y g.json)" = "$(date -d 2020-01-01 +%s)" ]
}
