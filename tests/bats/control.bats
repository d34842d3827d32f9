#!/usr/bin/env bats
# Data-dependent control flow (issue 16 §3): tosa.cond_if / tosa.while_loop whose condition is
# computed at run time become readback + if / while nodes of the launch graph; tosac-run runs
# them. Numbers against the MLIR oracle (tosa-to-scf added to its pipeline) on gfx90a (MFMA),
# gfx1100 (WMMA) and gfx1030 (FMA); the manifest's control nodes checked against the schema,
# tosac-bundle verify and by hand.

bats_load_library bats-support
bats_load_library bats-assert

setup() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export TOSAC_BUILD="${TOSAC_BUILD:-build}"
  case "$TOSAC_BUILD" in /*) BUILD="$TOSAC_BUILD" ;; *) BUILD="$ROOT/$TOSAC_BUILD" ;; esac
  TOSAC="$BUILD/bin/tosac"
  RUN="$BUILD/bin/tosac-run"
  PY=/usr/bin/python3
  TARGETS=gfx90a,gfx1100,gfx1030
  cd "$BATS_TEST_TMPDIR"
  # check.py with tosa-to-scf in the oracle's pipeline (as fft_control.bats does)
  cat > check_cf.py <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import check, oracle
p = oracle.PIPELINE.replace("func.func(tosa-to-linalg-named,", "func.func(tosa-to-scf,tosa-to-linalg-named,", 1)
p = p.replace("one-shot-bufferize{bufferize-function-boundaries}",
              "one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops}", 1)
assert p != oracle.PIPELINE
oracle.PIPELINE = p
sys.exit(check.main(sys.argv[2:]))
PY
  $PY -c 'import numpy as np; np.save("t.npy", np.array(True)); np.save("f.npy", np.array(False))'
  # A branch on an input: an f16 GEMM (f32 result) or a slice + cast + tanh.
  cp "$ROOT/tests/data/control/if.mlir" if.mlir
  # A loop over a run-time count carrying a counter and a tensor; the body multiplies by %w
  # (captured from outside the loop) and branches on %p (an if nested in the loop).
  cp "$ROOT/tests/data/control/loop.mlir" loop.mlir
}

# oracle_pass GRAPH ARGS...: check.py (with control flow) passes on gfx90a, gfx1100 and gfx1030.
oracle_pass() {
  run $PY check_cf.py "$ROOT/tests/oracle" "$@" --targets=$TARGETS
  assert_success
  assert_line "ok $1 [gfx90a]: ${RESULTS:-1} results match"
  assert_line "ok $1 [gfx1100]: ${RESULTS:-1} results match"
  assert_line "ok $1 [gfx1030]: ${RESULTS:-1} results match"
  assert_line "PASSED: 1 graph(s)"
}

@test "cond_if on an input: branch taken and not taken match the oracle; the GEMM in the branch uses MFMA, WMMA, FMA" {
  # --atol 1e-4: 64-term f32 sums of f16 products, summed in another order than the oracle's
  oracle_pass if.mlir --input=@t.npy --atol 1e-4
  oracle_pass if.mlir --input=@f.npy
  "$TOSAC" if.mlir --offload-arch=$TARGETS -o if.hipfb
  run $PY -c "
import json
m = json.load(open('if.json'))
for t in m['targets']:
    L = t['launches']
    print(t['target_id'], [l['kind'] for l in L], t['order'], L[1]['condition'], L[1]['then'], L[1]['else'],
          [t['kernels'][L[i]['kernel']]['matrix_instruction'] for i in L[1]['then']])"
  assert_line --index 0 "gfx90a ['readback', 'if', 'kernel', 'kernel', 'kernel'] [0, 1] 0 [2] [3, 4] ['v_mfma_f32_32x32x8f16']"
  assert_line --index 1 "gfx1100 ['readback', 'if', 'kernel', 'kernel', 'kernel'] [0, 1] 0 [2] [3, 4] ['v_wmma_f32_16x16x16_f16']"
  assert_line --index 2 "gfx1030 ['readback', 'if', 'kernel', 'kernel', 'kernel'] [0, 1] 0 [2] [3, 4] ['fma']"
}

@test "while_loop over a run-time count: 0, 1 and 3 iterations, loop-carried tensors, an if nested in the body" {
  # --atol 1e-4: up to three chained 32-term f32 matmuls, summed in another order than the oracle's
  for n in 0 1 3; do
    $PY -c "import numpy as np; np.save('n.npy', np.array($n, np.int32))"
    RESULTS=2 oracle_pass loop.mlir --input=@n.npy --input=@t.npy --atol 1e-4
  done
  RESULTS=2 oracle_pass loop.mlir --input=@n.npy --input=@f.npy --atol 1e-4
  # the counter result says how often the body ran, and the tensor changed only when it ran
  "$TOSAC" loop.mlir --embed-ir --offload-arch=gfx1100 -o loop.hipfb
  $PY -c "import numpy as np; np.save('x.npy', np.full((1, 16, 32), 0.5, np.float32)); np.save('w.npy', np.eye(32, dtype=np.float32)[None])"
  for n in 0 1 3; do
    run "$RUN" loop.hipfb --target=gfx1100 --input=i32=$n --input=i1=1 --input=@x.npy --input=@w.npy --output=- --output=@y.npy -v
    assert_success
    assert_line "i32=$n"
    # the readback of the loop condition: n times true, once false
    [ "$(grep -c 'readback true' <<< "$output")" -eq "$(( n + n ))" ]
    [ "$(grep -c 'readback false' <<< "$output")" -eq 1 ]
    run $PY -c "
import numpy as np
y = np.load('y.npy'); v = 0.5
for _ in range($n): v = np.tanh(np.float32(v))
print(np.allclose(y, v, atol=1e-6))"
    assert_output "True"
  done
}

@test "control nodes in the manifest: lists, readbacks, carried buffers; schema, tosac-bundle verify, --emit=partitions" {
  "$TOSAC" loop.mlir --offload-arch=gfx90a -o loop.hipfb
  run "$BUILD/bin/tosac-bundle" verify loop.hipfb --manifest loop.json
  assert_success
  $PY -c "
import json, jsonschema
s = json.load(open('$ROOT/schema/manifest.schema.json'))
jsonschema.Draft202012Validator(s).validate(json.load(open('loop.json')))"
  run "$TOSAC" loop.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "  launch 0: copy b6 -> b4 after []"
  assert_line "  launch 1: copy b2 -> b5 after []"
  assert_line "  launch 2: while cond [3 4] body [5 6 7 8 11 12] after [0 1]"
  assert_line "  launch 4: readback b7 after [3]"
  assert_line "  launch 7: readback b1 after []"
  assert_line "  launch 8: if readback 7 then [9] else [10] after [6 7]"
  assert_line "  launch 11: copy b8 -> b4 after [5 8]"
  assert_line "  launch 12: copy b9 -> b5 after [11]"
  run $PY -c "
import json
t = json.load(open('loop.json'))['targets'][0]
w = t['launches'][2]
print(w['kind'], w['condition'], w['operands'], w['results'], t['order'])
print([l.get('parent') for l in t['launches']])
print(t['buffers'][4]['kind'], t['buffers'][5]['kind'], t['launches'][4]['bytes'])"
  # operands: the initial counter (a weights buffer) and tensor, then %lim, %w and %p that the
  # regions read from outside (captured, in the order the regions first read them)
  assert_line --index 0 "while 4 [6, 2, 0, 3, 1] [4, 5] [0, 1, 2]"
  assert_line --index 1 "[None, None, None, 2, 2, 2, 2, 2, 2, 8, 8, 2, 2]"
  assert_line --index 2 "output output 1"
  # verify finds a condition that is not a readback, and a region launch in two lists
  $PY -c "
import json; m = json.load(open('loop.json')); m['targets'][0]['launches'][2]['condition'] = 3
json.dump(m, open('bad1.json', 'w'))
m = json.load(open('loop.json')); m['targets'][0]['launches'][8]['else'] = [9]
json.dump(m, open('bad2.json', 'w'))"
  run "$BUILD/bin/tosac-bundle" verify loop.hipfb --manifest bad1.json
  assert_failure
  assert_output "error: manifest target gfx90a: launch 2: condition 3 is not a readback launch"
  run "$BUILD/bin/tosac-bundle" verify loop.hipfb --manifest bad2.json
  assert_failure
  assert_output "error: manifest target gfx90a: launch 9 is out of range or in two lists"
}

@test "a constant-count loop around a data-dependent if stays a loop (nested control flow), matches the oracle" {
  cp "$ROOT/tests/data/control/nest.mlir" nest.mlir
  $PY -c 'import numpy as np; np.save("v.npy", np.array([1, -2, 0.5, 3], np.float32))'
  oracle_pass nest.mlir --input=@v.npy --input=@t.npy
  oracle_pass nest.mlir --input=@v.npy --input=@f.npy
  "$TOSAC" nest.mlir --embed-ir --offload-arch=gfx90a -o nest.hipfb
  run "$RUN" nest.hipfb --target=gfx90a --input=@v.npy --input=i1=1
  assert_line "4xf32=4 -8 2 12"
  run "$RUN" nest.hipfb --target=gfx90a --input=@v.npy --input=i1=0
  assert_line "4xf32=1 -2 0.5 3"
}

@test "control flow in a --specialize graph: block arguments and results take the variant's shapes" {
  cp "$ROOT/tests/data/control/specialized_if.mlir" dl.mlir
  "$TOSAC" dl.mlir --specialize=x:0=2,3 --embed-ir --offload-arch=gfx1030 -o dl.hipfb
  for n in 2 3; do
    $PY -c "import numpy as np; np.save('x.npy', np.random.default_rng($n).uniform(-3, 3, ($n, 8)).astype(np.float32))"
    for c in 1 0; do
      "$RUN" dl.hipfb --target=gfx1030 --input=i1=$c --input=@x.npy --output=@y.npy
      # float64 references; 1e-6 absolute covers a few f32 ulps of values in (-1, 1)
      run $PY -c "
import numpy as np
x = np.load('x.npy').astype(np.float64); y = np.load('y.npy')
ref = np.tanh(x) if $c else 1 / (1 + np.exp(-x))
print(y.shape, bool(np.all(np.abs(y - ref) <= 1e-6)))"
      assert_output "($n, 8) True"
    done
  done
}

@test "a reduction expanded per target inside a loop body: the fill before the atomic kernel runs every iteration" {
  cat > red.mlir <<'M'
func.func @main(%lim: tensor<i32>, %x: tensor<2x262144xf32>) -> (tensor<2x1xf32>) {
  %zero = "tosa.const"() {values = dense<0> : tensor<i32>} : () -> tensor<i32>
  %acc0 = "tosa.const"() {values = dense<0.0> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %r:2 = tosa.while_loop (%i = %zero, %acc = %acc0) : (tensor<i32>, tensor<2x1xf32>) -> (tensor<i32>, tensor<2x1xf32>) {
    %c = tosa.greater %lim, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %acc: tensor<2x1xf32>):
    %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
    %i1 = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<2x262144xf32>) -> tensor<2x1xf32>
    %a = tosa.add %acc, %s : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
    tosa.yield %i1, %a : tensor<i32>, tensor<2x1xf32>
  }
  return %r#1 : tensor<2x1xf32>
}
M
  export TOSAC_REDUCTION_SPLIT_MIN=1024 # split the reduction (docs/partitioning.md)
  run "$TOSAC" red.mlir --offload-arch=gfx90a,gfx1030 --emit=partitions
  assert_line "  launch 2: while cond [3 4] body [5 6 7 8 9 10] after [0 1]"
  assert_line "  kernel 2 tosac_k2_reduce_sum_atomic over tensor<2x1xf32>"
  assert_line "  launch 6: fill b9 with 0x0 after []"
  assert_line "  kernel 3 tosac_k3_reduce_sum_combine over tensor<2x1xf32>"
  $PY -c "import numpy as np; np.save('n.npy', np.array(3, np.int32))"
  # --atol 1e-3: sums of 262144 inputs in chunks, in another order than the oracle's
  run $PY check_cf.py "$ROOT/tests/oracle" red.mlir --input=@n.npy --targets=gfx90a,gfx1030 --atol 1e-3
  assert_success
  assert_line "ok red.mlir [gfx90a]: 1 results match"
  assert_line "ok red.mlir [gfx1030]: 1 results match"
}
