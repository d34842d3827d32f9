#!/usr/bin/env bats
# --emit=host for dynamic-shape variants and data-dependent control flow (issue 16; docs/host.md
# "Variants" and "Control nodes"): programs built from the generated C (tests/host/run_model.c)
# run on libtosac-hipemu and must give the same bytes as tosac-run, on gfx90a and gfx1030.
# Graphs: dynamic.bats's dynamic batch, control.bats's cond_if and while_loop.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  local b="${TOSAC_BUILD:-build}"
  case "$b" in /*) ;; *) b="$ROOT/$b" ;; esac
  export BUILD="$b" BIN="$b/bin" TOSAC_BUILD="$b"
  export W="$BATS_FILE_TMPDIR"
}

setup() {
  cd "$W"
  PY=/usr/bin/python3
}

# emu_preload: LD_PRELOAD for tosac-hip-run on libtosac-hipemu (under make asan the sanitizer
# runtime must come first among the preloaded libraries)
emu_preload() {
  if [ -n "${TOSAC_SAN:-}" ]; then
    echo "$(gcc -print-file-name=libasan.so) $BUILD/lib/libtosac-hipemu.so"
  else
    echo "$BUILD/lib/libtosac-hipemu.so"
  fi
}

# build NAME: compile NAME_host.c (prefix main) with run_model.c against libtosac-hipemu
build() {
  cc -std=c17 -Wall -Wextra -Werror ${TOSAC_SAN:-} -D__HIP_PLATFORM_AMD__ -DMODEL=main -DMODEL_UPPER=MAIN \
    -include "$1_host.h" "$ROOT/tests/host/run_model.c" "$1_host.c" -o "$1.run" \
    -L"$BUILD/lib" -ltosac-hipemu -Wl,-rpath,"$BUILD/lib"
}

# same_as_run BUNDLE ARCH SPEC... -- OUT...: tosac-run on the same inputs gives the same bytes
same_as_run() {
  local bundle=$1 arch=$2 ins=() outs=() i=0
  shift 2
  while [ "$1" != "--" ]; do ins+=("--input=$1"); shift; done
  shift
  for o in "$@"; do outs+=("--output=@ref$i.bin"); i=$((i + 1)); done
  "$BIN/tosac-run" "$bundle" --target=$arch "${ins[@]}" "${outs[@]}"
  i=0
  for o in "$@"; do cmp "$o" ref$i.bin; i=$((i + 1)); done
}

@test "a dynamic batch (--specialize=x:0=2,5) as host code: both batches equal tosac-run on gfx90a and gfx1030; another batch is refused" {
  cp "$ROOT/tests/data/dynamic/batch.mlir" g.mlir
  run "$BIN/tosac" g.mlir --specialize=x:0=2,5 --offload-arch=gfx90a,gfx1030 --embed-ir --emit=host -o g_host.c
  assert_success
  build g
  # one row per (target, variant); each variant its own launch tables
  run grep -c '^static hipError_t main_gfx\(90a\|1030\)_v[01]_run' g_host.c
  assert_output 4
  grep -q '^#define MAIN_NUM_VARIANTS 2 ' g_host.h
  for n in 2 5; do
    $PY -c "
import numpy as np
r = np.random.default_rng($n)
r.uniform(-1, 1, ($n, 16, 32)).astype(np.float32).tofile('x.bin')
r.uniform(-1, 1, ($n, 32, 16)).astype(np.float32).tofile('w.bin')
r.uniform(-1, 1, (8, 16)).astype(np.float32).tofile('b.bin')"
    for a in gfx90a gfx1030; do
      TOSAC_HIPEMU_ARCH=$a run ./g.run g.hipfb - x.bin@${n}x16x32 w.bin@${n}x32x16 b.bin -- o0.bin o1.bin
      assert_success
      [ "$(stat -c %s o0.bin)" -eq $((n * 16 * 16 * 4)) ]
      same_as_run g.hipfb $a ${n}x16x32xf32=@x.bin ${n}x32x16xf32=@w.bin 8x16xf32=@b.bin -- o0.bin o1.bin
    done
  done
  run ./g.run g.hipfb - x.bin@3x16x32 w.bin@3x32x16 b.bin -- o0.bin o1.bin
  assert_failure 1
  assert_line "run_model: select: main was compiled for other input shapes: got (3x16x32xf32, 3x32x16xf32, 8x16xf32); the variants take (2x16x32xf32, 2x32x16xf32, 8x16xf32) or (5x16x32xf32, 5x32x16xf32, 8x16xf32) (hipErrorInvalidValue)"
}

@test "cond_if as host code: a readback, then the chosen branch; taken and not taken equal tosac-run on gfx90a and gfx1030" {
  cp "$ROOT/tests/data/control/if.mlir" if.mlir
  "$BIN/tosac" if.mlir --offload-arch=gfx90a,gfx1030 --embed-ir --emit=host -o if_host.c 2>/dev/null
  build if
  run sed -n '/^static hipError_t main_gfx90a_p0/,/^}/p' if_host.c
  assert_line "  MAIN_TRY(main_readback(c, s, 0, 0, 1)); /* condition of node 0 */"
  run sed -n '/^static hipError_t main_gfx90a_p1/,/^}/p' if_host.c
  assert_line "  if (main_is_true(c, 0, 1)) { /* readback node 0 */"
  assert_line "  } else {"
  $PY -c "
import numpy as np
r = np.random.default_rng(1)
np.array(True).tofile('t.bin'); np.array(False).tofile('f.bin')
r.standard_normal((1, 32, 64)).astype(np.float16).tofile('x.bin')
r.standard_normal((1, 64, 32)).astype(np.float16).tofile('w.bin')"
  for a in gfx90a gfx1030; do
    for c in 1 0; do
      f=$([ $c = 1 ] && echo t.bin || echo f.bin)
      TOSAC_HIPEMU_ARCH=$a run ./if.run if.hipfb - $f x.bin w.bin -- o$c.bin
      assert_success
      same_as_run if.hipfb $a i1=$c 1x32x64xf16=@x.bin 1x64x32xf16=@w.bin -- o$c.bin
    done
    run cmp -s o0.bin o1.bin # the two branches differ
    assert_failure
  done
}

@test "while_loop as host code: 0, 1 and 3 iterations with an if in the body equal tosac-run on gfx90a and gfx1030, also on 2 streams" {
  cp "$ROOT/tests/data/control/loop.mlir" loop.mlir
  "$BIN/tosac" loop.mlir --offload-arch=gfx90a,gfx1030 --embed-ir --emit=host -o loop_host.c 2>/dev/null
  build loop
  "$BIN/tosac" loop.mlir --offload-arch=gfx90a,gfx1030 --embed-ir --emit=host --host-streams=2 -o loop2_host.c 2>/dev/null
  build loop2
  # the loop: the cond region's launches, the readback, break, the body (with its if)
  run sed -n '/^static hipError_t main_gfx90a_p2/,/^}/p' loop_host.c
  assert_line "  for (;;) {"
  assert_line "    if (!main_is_true(c, 0, 1)) /* readback node 4 */"
  assert_line "      break;"
  assert_line "    if (main_is_true(c, 8, 1)) { /* readback node 7 */"
  $PY -c "
import numpy as np
r = np.random.default_rng(2)
np.array(True).tofile('t.bin'); np.array(False).tofile('f.bin')
r.uniform(-1, 1, (1, 16, 32)).astype(np.float32).tofile('x.bin')
(r.uniform(-1, 1, (1, 32, 32)) / 4).astype(np.float32).tofile('w.bin')
for n in (0, 1, 3): np.array(n, np.int32).tofile('n%d.bin' % n)"
  for a in gfx90a gfx1030; do
    for n in 0 1 3; do
      for c in 1 0; do
        f=$([ $c = 1 ] && echo t.bin || echo f.bin)
        TOSAC_HIPEMU_ARCH=$a run ./loop.run loop.hipfb loop.weights n$n.bin $f x.bin w.bin -- i.bin y$n$c.bin
        assert_success
        [ "$(od -An -i i.bin | tr -d ' ')" = $n ] # the counter: how often the body ran
        same_as_run loop.hipfb $a i32=$n i1=$c 1x16x32xf32=@x.bin 1x32x32xf32=@w.bin -- i.bin y$n$c.bin
        TOSAC_HIPEMU_ARCH=$a TOSAC_HIPEMU_ORDER=oldest run ./loop2.run loop.hipfb loop.weights n$n.bin $f x.bin w.bin -- i2.bin y2.bin
        assert_success
        cmp y$n$c.bin y2.bin
      done
    done
    cmp y01.bin y00.bin             # zero iterations: the initial value, whatever the branch
    run cmp -s y31.bin y30.bin      # three: tanh vs sigmoid in the body
    assert_failure
    run cmp -s y31.bin y01.bin
    assert_failure
  done
}

@test "control flow in a --specialize graph as host code: variant by shape, branch by condition" {
  cp "$ROOT/tests/data/control/specialized_if.mlir" dl.mlir
  "$BIN/tosac" dl.mlir --specialize=x:0=2,3 --embed-ir --offload-arch=gfx90a,gfx1030 --emit=host -o dl_host.c 2>/dev/null
  build dl
  $PY -c "import numpy as np; np.array(True).tofile('t.bin'); np.array(False).tofile('f.bin')"
  for n in 2 3; do
    $PY -c "import numpy as np; np.random.default_rng($n).uniform(-3, 3, ($n, 8)).astype(np.float32).tofile('x.bin')"
    for a in gfx90a gfx1030; do
      for c in 1 0; do
        f=$([ $c = 1 ] && echo t.bin || echo f.bin)
        TOSAC_HIPEMU_ARCH=$a run ./dl.run dl.hipfb - $f x.bin@${n}x8 -- y.bin
        assert_success
        [ "$(stat -c %s y.bin)" -eq $((n * 32)) ]
        same_as_run dl.hipfb $a i1=$c ${n}x8xf32=@x.bin -- y.bin
      done
    done
  done
  run ./dl.run dl.hipfb - t.bin x.bin@4x8 -- y.bin
  assert_failure 1
  assert_line "run_model: select: main was compiled for other input shapes: got (i1, 4x8xf32); the variants take (i1, 2x8xf32) or (i1, 3x8xf32) (hipErrorInvalidValue)"
}

@test "tosac-hip-run on libtosac-hipemu picks the variant by the .npy shapes: batches 2 and 5 equal tosac-run" {
  cat > v.mlir <<'M'
func.func @main(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s = tosa.add %x, %y : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %t = tosa.tanh %s : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %t : tensor<?x8xf32>
}
M
  "$BIN/tosac" v.mlir --specialize=x:0=2,5 --offload-arch=gfx90a,gfx1030 --embed-ir -o v.hipfb
  for n in 2 5; do
    $PY -c "
import numpy as np
r = np.random.default_rng($n)
np.save('x.npy', r.uniform(-2, 2, ($n, 8)).astype(np.float32)); np.save('y.npy', r.uniform(-2, 2, ($n, 8)).astype(np.float32))"
    for a in gfx90a gfx1030; do
      TOSAC_HIPEMU_ARCH=$a LD_PRELOAD="$(emu_preload)" run "$BIN/tosac-hip-run" v.hipfb --input x.npy --input y.npy --output h.npy
      assert_success
      "$BIN/tosac-run" v.hipfb --target=$a --input=@x.npy --input=@y.npy --output=@r.npy
      cmp h.npy r.npy
      run $PY -c "import numpy as np; print(np.load('h.npy').shape)"
      assert_output "($n, 8)"
    done
  done
  # control nodes: tosac-hip-run runs the branch the readback picks (more in hipemu.bats)
  cat > c.mlir <<'M'
func.func @main(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.cond_if %p (%a = %x) : tensor<i1> (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %t = tosa.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %t : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    tosa.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
M
  "$BIN/tosac" c.mlir --offload-arch=gfx90a --embed-ir -o c.hipfb
  $PY -c "import numpy as np; np.save('x4.npy', np.array([-1, 0, 0.5, 2], np.float32))"
  for c in 1 0; do
    $PY -c "import numpy as np; np.save('p.npy', np.array($c == 1))"
    LD_PRELOAD="$(emu_preload)" run "$BIN/tosac-hip-run" c.hipfb --input p.npy --input x4.npy --output h.npy
    assert_success
    "$BIN/tosac-run" c.hipfb --input=@p.npy --input=@x4.npy --output=@r.npy
    cmp h.npy r.npy
    run $PY -c "import numpy as np; x = np.load('x4.npy'); print(bool(np.allclose(np.load('h.npy'), np.tanh(x) if $c else x, rtol=0, atol=1e-6)))"
    assert_output "True"
  done
}
