#!/usr/bin/env bats
# The last ops of issue 8: tosa.fft2d / tosa.rfft2d kernels (direct DFT, docs/kernels-fft.md)
# checked against the MLIR oracle and float64 numpy.fft on every default target, and compile-time
# control flow: constant tosa.cond_if inlined, tosa.while_loop unrolled, anything else rejected
# with the documented error at file:line:col.

bats_load_library bats-support
bats_load_library bats-assert

setup() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export TOSAC_BUILD="${TOSAC_BUILD:-build}"
  case "$TOSAC_BUILD" in /*) BUILD="$TOSAC_BUILD" ;; *) BUILD="$ROOT/$TOSAC_BUILD" ;; esac
  TOSAC="$BUILD/bin/tosac"
  RUN="$BUILD/bin/tosac-run"
  PY=/usr/bin/python3
  CHECK="$ROOT/tests/oracle/check.py"
  cd "$BATS_TEST_TMPDIR"
  # check.py with the oracle's pipeline extended by tosa-to-scf (cond_if -> scf.if, while_loop ->
  # scf.while; loops need allow-return-allocs-from-loops to bufferize), so control flow has an
  # independent reference too.
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
}

# A graph with one fft2d and one rfft2d of seeded random sizes (powers of two). Per-result
# tolerance `// oracle: result K err E` (added by check.py): E = 2^-21 * H * W * 4, since both
# implementations sum H*W f32 products of inputs in [-4, 4] (measured: tosac is within 3.5e-5
# of float64 numpy at 16x32, the oracle within 1.3e-4; E there is 9.8e-4, while a wrong twiddle
# or sign is off by O(|result|) ~ 10).
gen_fft() {
  $PY - "$1" <<'PY'
import random, sys
seed = int(sys.argv[1])
r = random.Random(seed)
N = r.choice([1, 2, 3]); H = r.choice([1, 2, 4, 8, 16]); W = r.choice([1, 2, 4, 8, 16, 32])
inv = r.choice(["true", "false"])
H2 = r.choice([1, 2, 4, 8, 16]); W2 = r.choice([1, 2, 4, 8, 16, 32]); Wo = W2 // 2 + 1
t = lambda n, h, w: "tensor<%dx%dx%dxf32>" % (n, h, w)
a, b, c = t(N, H, W), t(N, H2, W2), t(N, H2, Wo)
e1, e2 = 2.0 ** -21 * H * W * 4, 2.0 ** -21 * H2 * W2 * 4
print(f"""// seed {seed}: fft2d {N}x{H}x{W} inverse={inv}, rfft2d {N}x{H2}x{W2}
// oracle: result 0 err {e1:.3g}
// oracle: result 1 err {e1:.3g}
// oracle: result 2 err {e2:.3g}
// oracle: result 3 err {e2:.3g}
func.func @main(%re: {a}, %im: {a}, %x: {b}) -> ({a}, {a}, {c}, {c}) {{
  %0, %1 = tosa.fft2d %re, %im {{inverse = {inv}}} : ({a}, {a}) -> ({a}, {a})
  %2, %3 = tosa.rfft2d %x : ({b}) -> ({c}, {c})
  return %0, %1, %2, %3 : {a}, {a}, {c}, {c}
}}""")
PY
}

@test "fft2d/rfft2d: seeded random sizes, forward and inverse, match the MLIR oracle on every default target" {
  local graphs=() seed
  for seed in ${TOSAC_FFT_SEEDS:-1 3 5 8}; do
    gen_fft "$seed" > "fft$seed.mlir"
    graphs+=("fft$seed.mlir")
  done
  grep -q "inverse=true" "${graphs[@]}"
  grep -q "inverse=false" "${graphs[@]}"
  # between elementwise kernels, only the imaginary result used
  cat > chain.mlir <<'M'
// oracle: result 0 err 2e-4
func.func @main(%re: tensor<2x4x8xf32>, %im: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %t = tosa.add %re, %re : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %0, %1 = tosa.fft2d %t, %im {inverse = false} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>)
  %2 = tosa.abs %1 : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %2 : tensor<2x4x8xf32>
}
M
  run $PY "$CHECK" "${graphs[@]}" chain.mlir "$ROOT"/tests/fuzz/seeds/parser/llvm_test_{fft2d_with_local_bound,rfft2d_with_local_bound,rfft2d_width1}.mlir
  assert_success
  assert_line "PASSED: 8 graph(s)"
  assert_line "ok chain.mlir [gfx942]: 1 results match"
  assert_line "ok fft1.mlir [gfx1200]: 4 results match"
  assert_line "ok fft3.mlir [gfx908]: 4 results match"
  refute_line --partial MISMATCH
}

@test "fft2d/rfft2d: the harness fails on a corrupted reference" {
  gen_fft 5 > f.mlir
  run $PY "$CHECK" f.mlir --targets=gfx90a --corrupt
  assert_failure 1
  assert_line --partial "MISMATCH f.mlir [gfx90a] result 0"
}

@test "fft2d inverse and rfft2d equal float64 numpy.fft within 2^-23*H*W*max|x| (gfx942, gfx1100)" {
  cat > f.mlir <<'M'
func.func @main(%re: tensor<2x8x16xf32>, %im: tensor<2x8x16xf32>, %x: tensor<3x16x8xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<3x16x5xf32>, tensor<3x16x5xf32>) {
  %0, %1 = tosa.fft2d %re, %im {inverse = true, local_bound = true} : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>)
  %2, %3 = tosa.rfft2d %x {local_bound = false} : (tensor<3x16x8xf32>) -> (tensor<3x16x5xf32>, tensor<3x16x5xf32>)
  return %0, %1, %2, %3 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<3x16x5xf32>, tensor<3x16x5xf32>
}
M
  $PY - <<'PY'
import numpy as np
r = np.random.default_rng(7)
np.save("re.npy", r.uniform(-4, 4, (2, 8, 16)).astype(np.float32))
np.save("im.npy", r.uniform(-4, 4, (2, 8, 16)).astype(np.float32))
np.save("x.npy", r.uniform(-4, 4, (3, 16, 8)).astype(np.float32))
PY
  run "$TOSAC" f.mlir --embed-ir --offload-arch=gfx942,gfx1100 -o f.hipfb
  assert_success
  grep -q '"family": "fft"' f.json
  for t in gfx942 gfx1100; do
    run "$RUN" f.hipfb --target=$t --input=@re.npy --input=@im.npy --input=@x.npy \
      --output=@$t-0.npy --output=@$t-1.npy --output=@$t-2.npy --output=@$t-3.npy
    assert_success
  done
  run $PY - <<'PY'
import numpy as np
re, im, x = (np.load(n + ".npy").astype(np.float64) for n in ("re", "im", "x"))
# TOSA's inverse fft2d is not normalised: numpy's ifft2 times H*W.
inv = np.fft.ifft2(re + 1j * im) * (8 * 16)
fwd = np.fft.rfft2(x)
refs = [(inv.real, 8 * 16), (inv.imag, 8 * 16), (fwd.real, 16 * 8), (fwd.imag, 16 * 8)]
for t in ("gfx942", "gfx1100"):
    for k, (ref, hw) in enumerate(refs):
        got = np.load("%s-%d.npy" % (t, k))
        tol = 2.0 ** -23 * hw * 4
        err = np.abs(got - ref).max()
        print("%s result %d: max err %.2e tol %.2e %s" % (t, k, err, tol, "ok" if err <= tol else "BAD"))
PY
  assert_success
  refute_line --partial BAD
  assert_line --partial "gfx1100 result 3: max err"
}

@test "fft2d/rfft2d hand-computed: impulse and constant inputs give exact spectra" {
  cat > h.mlir <<'M'
func.func @main(%re: tensor<1x2x4xf32>, %im: tensor<1x2x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>) {
  %0, %1 = tosa.fft2d %re, %im {inverse = false} : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  %2, %3 = tosa.rfft2d %re : (tensor<1x2x4xf32>) -> (tensor<1x2x3xf32>, tensor<1x2x3xf32>)
  return %0, %1, %2, %3 : tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>
}
M
  # re = impulse at (y=0, x=1), im = 1 everywhere: X[ky,kx] = exp(-2*pi*i*kx/4) + 8*[ky=kx=0]
  $PY -c 'import numpy as np; a = np.zeros((1, 2, 4), np.float32); a[0, 0, 1] = 1; np.save("re.npy", a); np.save("im.npy", np.ones((1, 2, 4), np.float32))'
  "$TOSAC" h.mlir --embed-ir --offload-arch=gfx1030 -o h.hipfb
  run "$RUN" h.hipfb --target=gfx1030 --input=@re.npy --input=@im.npy --output=@0.npy --output=@1.npy --output=@2.npy --output=@3.npy
  assert_success
  run $PY -c 'import numpy as np; print(*[" ".join("%g" % v for v in np.load("%d.npy" % k).ravel()) for k in range(4)], sep="\n")'
  assert_line --index 0 "1 0 -1 0 1 0 -1 0"
  assert_line --index 1 "8 -1 0 1 0 -1 0 1"
  assert_line --index 2 "1 0 -1 1 0 -1"
  assert_line --index 3 "0 -1 0 0 -1 0"
}

@test "fft2d: a non-f32 transform is rejected at the op's location" {
  cat > e.mlir <<'M'
func.func @main(%re: tensor<1x4x4xf16>, %im: tensor<1x4x4xf16>) -> tensor<1x4x4xf16> {
  %0, %1 = tosa.fft2d %re, %im {inverse = false} : (tensor<1x4x4xf16>, tensor<1x4x4xf16>) -> (tensor<1x4x4xf16>, tensor<1x4x4xf16>)
  return %0 : tensor<1x4x4xf16>
}
M
  run "$TOSAC" e.mlir --offload-arch=gfx90a -o e.hipfb
  assert_failure 1
  assert_line --index 0 "e.mlir:2:12: error: tosa.fft2d: the input must be a rank-3 f32 tensor [N,H,W]"
}

@test "cond_if with a constant condition: the taken branch is inlined (true and false), matches the oracle" {
  for c in true false; do
    cat > if_$c.mlir <<M
func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = "tosa.const"() <{values = dense<$c> : tensor<i1>}> : () -> tensor<i1>
  %0 = tosa.cond_if %c (%a = %arg0, %b = %arg1) : tensor<i1> (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>):
    %1 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    tosa.yield %1 : tensor<2x3xf32>
  } else {
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>):
    %1 = tosa.sub %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    tosa.yield %1 : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}
M
  done
  run "$TOSAC" --emit=tosa if_true.mlir
  assert_success
  assert_line '    %0 = "tosa.add"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>'
  refute_line --partial cond_if
  run "$TOSAC" --emit=tosa if_false.mlir
  assert_line '    %0 = "tosa.sub"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>'
  run $PY check_cf.py "$ROOT/tests/oracle" if_true.mlir if_false.mlir
  assert_success
  assert_line "PASSED: 2 graph(s)"
  assert_line "ok if_false.mlir [gfx950]: 1 results match"
  # by hand: 1.5 - 0.25 in the false branch
  $PY -c 'import numpy as np; np.save("a.npy", np.full((2, 3), 1.5, np.float32)); np.save("b.npy", np.full((2, 3), 0.25, np.float32))'
  "$TOSAC" if_false.mlir --embed-ir --offload-arch=gfx908 -o f.hipfb
  "$RUN" f.hipfb --target=gfx908 --input=@a.npy --input=@b.npy --output=@r.npy
  run $PY -c 'import numpy as np; print(np.load("r.npy").ravel().tolist())'
  assert_output "[1.25, 1.25, 1.25, 1.25, 1.25, 1.25]"
}

@test "while_loop with a constant trip count is unrolled (nested constant cond_if folded per iteration)" {
  cat > w.mlir <<'M'
func.func @main(%arg0: tensor<10xi32>, %f: tensor<4xf32>) -> (tensor<i32>, tensor<10xi32>, tensor<4xf32>) {
  %0 = "tosa.const"() {values = dense<0> : tensor<i32>} : () -> tensor<i32>
  %lim = "tosa.const"() {values = dense<5> : tensor<i32>} : () -> tensor<i32>
  %1:4 = tosa.while_loop (%i = %0, %x = %arg0, %y = %f, %n = %0) : (tensor<i32>, tensor<10xi32>, tensor<4xf32>, tensor<i32>) -> (tensor<i32>, tensor<10xi32>, tensor<4xf32>, tensor<i32>) {
    %2 = tosa.greater_equal %i, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = tosa.logical_not %2 : (tensor<i1>) -> tensor<i1>
    tosa.yield %3 : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %x: tensor<10xi32>, %y: tensor<4xf32>, %n: tensor<i32>):
    %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
    %two = "tosa.const"() {values = dense<2> : tensor<i32>} : () -> tensor<i32>
    %i1 = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = tosa.const_shape {values = dense<[1]> : tensor<1xindex>} : () -> !tosa.shape<1>
    %r = tosa.reshape %i1, %s : (tensor<i32>, !tosa.shape<1>) -> tensor<1xi32>
    %x1 = tosa.add %x, %r : (tensor<10xi32>, tensor<1xi32>) -> tensor<10xi32>
    %isodd = tosa.bitwise_and %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %c = tosa.equal %isodd, %one : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %y1 = tosa.cond_if %c (%a = %y) : tensor<i1> (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %m = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      tosa.yield %m : tensor<4xf32>
    } else {
    ^bb0(%a: tensor<4xf32>):
      %m = tosa.negate %a, %z, %z : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
      tosa.yield %m : tensor<4xf32>
    }
    %n1 = tosa.add %n, %two : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %i1, %x1, %y1, %n1 : tensor<i32>, tensor<10xi32>, tensor<4xf32>, tensor<i32>
  }
  return %1#3, %1#1, %1#2 : tensor<i32>, tensor<10xi32>, tensor<4xf32>
}
M
  sed -i 's|^func.func @main(%arg0: tensor<10xi32>, %f: tensor<4xf32>) -> (tensor<i32>, tensor<10xi32>, tensor<4xf32>) {|&\n  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>|' w.mlir
  run "$TOSAC" --emit=tosa w.mlir
  assert_success
  refute_line --partial while_loop
  refute_line --partial cond_if
  # 5 iterations: 5 adds on %x, 2 doublings (odd i) and 3 negations (even i) of %y
  assert_equal "$(grep -c '"tosa.add".*-> tensor<10xi32>' <<< "$output")" 5
  assert_equal "$(grep -c '"tosa.negate"' <<< "$output")" 3
  assert_line --partial '<{values = dense<10> : tensor<i32>}>'
  run $PY check_cf.py "$ROOT/tests/oracle" w.mlir
  assert_success
  assert_line "PASSED: 1 graph(s)"
  assert_line "ok w.mlir [gfx1200]: 3 results match"
  # by hand: x + (1+2+3+4+5), y * (-1)^3 * 2^2, n = 2*5
  $PY -c 'import numpy as np; np.save("x.npy", np.arange(10, dtype=np.int32)); np.save("f.npy", np.array([1, -2, 0.5, 3], np.float32))'
  "$TOSAC" w.mlir --embed-ir --offload-arch=gfx90a -o w.hipfb
  "$RUN" w.hipfb --target=gfx90a --input=@x.npy --input=@f.npy --output=@n.npy --output=@xo.npy --output=@yo.npy
  run $PY -c 'import numpy as np; print(int(np.load("n.npy")), np.load("xo.npy").tolist(), np.load("yo.npy").tolist())'
  assert_output "10 [15, 16, 17, 18, 19, 20, 21, 22, 23, 24] [-4.0, 8.0, -2.0, -12.0]"
}

@test "control flow on data compiles to control nodes (cond_if, while_loop, a loop over the unroll bound); --emit=tosa still prints it" {
  cp "$ROOT/tests/fuzz/seeds/parser/llvm_test_cond_if.mlir" c.mlir
  run "$TOSAC" c.mlir --offload-arch=gfx90a -o c.hipfb
  assert_success
  run $PY -c 'import json; print([l["kind"] for l in json.load(open("c.json"))["targets"][0]["launches"]][:2])'
  assert_output "['readback', 'if']"
  run "$TOSAC" --emit=tosa c.mlir
  assert_success
  assert_line '    %0 = "tosa.cond_if"(%arg2) ({'
  # a loop over the unroll bound (300 iterations) stays a loop: x doubled 300 times wraps to 0
  cp "$ROOT/tests/data/control/big_loop.mlir" big.mlir
  "$TOSAC" big.mlir --embed-ir --offload-arch=gfx1030 -o big.hipfb
  run $PY -c 'import json; print(sum(l["kind"] == "while" for l in json.load(open("big.json"))["targets"][0]["launches"]))'
  assert_output "1"
  run "$RUN" big.hipfb --target=gfx1030 --input="10xi32=1 2 3 4 5 6 7 8 9 10"
  assert_success
  assert_line "10xi32=0 0 0 0 0 0 0 0 0 0"
}
