#!/usr/bin/env bats
# libtosac-hipemu (docs/host.md): the HIP runtime API on tosac-run's emulator. tosac-hip-run (the
# reference HIP client, linked against Debian's libamdhip64) runs through it with LD_PRELOAD and
# its outputs are checked against the oracle (control nodes: against tosac-run, bit for bit);
# tests/host/api_check.c checks error reporting, kernelParams and the stream order through the
# HIP API alone.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  local b="${TOSAC_BUILD:-build}"
  case "$b" in /*) ;; *) b="$ROOT/$b" ;; esac
  export BUILD="$b" BIN="$b/bin" EMU="$b/lib/libtosac-hipemu.so"
  export TOSAC_BUILD="$b"
  export W="$BATS_FILE_TMPDIR"
  cd "$W"
  cat > add.mlir <<'EOF'
func.func @main(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = tosa.add %a, %b : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
EOF
  "$BIN/tosac" add.mlir --embed-ir --offload-arch=gfx90a,gfx1030 -o add.hipfb
  # TOSAC_SAN: the sanitizer flags libtosac-hipemu was built with (make asan sets it)
  cc -std=c17 -Wall -Wextra -Werror ${TOSAC_SAN:-} -D__HIP_PLATFORM_AMD__ \
    "$ROOT/tests/host/api_check.c" -o api -L"$BUILD/lib" -ltosac-hipemu -Wl,-rpath,"$BUILD/lib"
}

setup() {
  cd "$W"
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py")
}

# hiprun ARCH ARGS...: tosac-hip-run on the emulated ARCH (under make asan, the sanitizer runtime
# must still come first among the preloaded libraries)
hiprun() {
  local pre="$EMU"
  [ -z "${TOSAC_SAN:-}" ] || pre="$(gcc -print-file-name=libasan.so) $EMU"
  TOSAC_HIPEMU_ARCH=$1 LD_PRELOAD="$pre" "$BIN/tosac-hip-run" "${@:2}"
}

# manifest_shape M.json: the first input's dimensions
manifest_shape() {
  /usr/bin/python3 -c "import json, sys; print(*json.load(open(sys.argv[1]))['inputs'][0]['shape'])" "$1"
}

# manifest_dtype M.json: the first input's numpy dtype
manifest_dtype() {
  /usr/bin/python3 -c "import json, sys; print({'f32': 'float32', 'f16': 'float16'}[json.load(open(sys.argv[1]))['inputs'][0]['element_type']])" "$1"
}

# rand FILE DTYPE SEED DIMS...: random normal values as .npy
rand() {
  /usr/bin/python3 -c "
import sys, numpy as np
r = np.random.default_rng(int(sys.argv[3]))
np.save(sys.argv[1], r.standard_normal([int(d) for d in sys.argv[4:]]).astype(sys.argv[2]))" "$@"
}

@test "the library exports the HIP API it implements; the same test program links against libamdhip64" {
  run bash -c "nm -D --defined-only '$EMU' | awk '{print \$3}' | grep -v '^hip' | grep -v '^TOSAC' | grep -v '^$'"
  assert_output ""
  run bash -c "nm -D --defined-only '$EMU' | awk '{print \$3}' | grep -c '^hip'"
  [ "$output" -ge 50 ]
  cc -std=c17 -Wall -Wextra -Werror -D__HIP_PLATFORM_AMD__ "$ROOT/tests/host/api_check.c" \
    -o api.amdhip64 -lamdhip64
  run bash -c "ldd api.amdhip64 | grep -c libamdhip64"
  assert_output 1
}

@test "tosac-hip-run runs the samples through libtosac-hipemu on gfx90a and gfx1030 (oracle)" {
  for s in gelu gelu_tanh swish; do
    "$BIN/tosac" "$ROOT/samples/$s.mlir" --embed-ir --offload-arch=gfx90a,gfx1030 -o $s.hipfb
    rand $s.in.npy $(manifest_dtype $s.json) 7 $(manifest_shape $s.json)
    for t in gfx90a gfx1030; do
      run hiprun $t $s.hipfb --input $s.in.npy --output $s.$t.npy --streams 1
      assert_success
      assert_line --regexp "^tosac-hip-run: device 0 $t(:sramecc\+:xnack-)?: target $t\$"
      assert_line --regexp '^kernel tosac_k0_[a-z_]+: [0-9]+\.[0-9]{3} ms$'
      run "${CHECK[@]}" "$ROOT/samples/$s.mlir" --input=@$s.in.npy --expected=@$s.$t.npy
      assert_success
      assert_output --partial "PASSED"
    done
  done
}

@test "tosac-hip-run runs bundles without IR as machine code through libtosac-hipemu on gfx90a, gfx1030, gfx1100 (oracle)" {
  for s in gelu swish; do
    "$BIN/tosac" "$ROOT/samples/$s.mlir" --offload-arch=gfx90a,gfx1030,gfx1100 -o $s.isa.hipfb
    rand $s.in.npy $(manifest_dtype $s.isa.json) 7 $(manifest_shape $s.isa.json)
    for t in gfx90a gfx1030 gfx1100; do
      run hiprun $t $s.isa.hipfb --input $s.in.npy --output $s.$t.isa.npy --streams 1
      assert_success
      run "${CHECK[@]}" "$ROOT/samples/$s.mlir" --input=@$s.in.npy --expected=@$s.$t.isa.npy
      assert_success
      assert_output --partial "PASSED"
    done
  done
  # a matmul: MFMA, WMMA and the dot path as machine code
  cat > mm.mlir <<'EOF'
func.func @main(%a: tensor<1x48x40xf16>, %b: tensor<1x40x56xf16>) -> tensor<1x48x56xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %r = tosa.matmul %a, %b, %z, %z : (tensor<1x48x40xf16>, tensor<1x40x56xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x48x56xf32>
  return %r : tensor<1x48x56xf32>
}
EOF
  "$BIN/tosac" mm.mlir --offload-arch=gfx90a,gfx1030,gfx1100 -o mm.hipfb
  rand ma.npy float16 3 1 48 40
  rand mb.npy float16 4 1 40 56
  for t in gfx90a gfx1030 gfx1100; do
    run hiprun $t mm.hipfb --input ma.npy --input mb.npy --output mm.$t.npy --streams 1
    assert_success
    run "${CHECK[@]}" mm.mlir --input=@ma.npy --input=@mb.npy --expected=@mm.$t.npy
    assert_success
    assert_output --partial "1 results match"
  done
}

@test "a graph with constants in the weights file, a copy node, 2 streams (oracle)" {
  /usr/bin/python3 "$ROOT/tests/host/weights_graph.py" w.mlir
  "$BIN/tosac" w.mlir --embed-ir --offload-arch=gfx90a -o w.hipfb
  [ -f w.weights ]
  run /usr/bin/python3 -c "import json; print([l['kind'] for l in json.load(open('w.json'))['targets'][0]['launches']])"
  assert_output "['kernel', 'copy']"
  rand a.npy float32 3 2 2048
  run hiprun gfx90a w.hipfb --input a.npy --output r0.npy --output r1.npy --streams 2
  assert_success
  run "${CHECK[@]}" w.mlir --input=@a.npy --expected=@r0.npy --expected=@r1.npy
  assert_success
  assert_output --partial "2 results match"
}

@test "a reduction expanded differently per target: one bundle, gfx90a (fill + atomic) and gfx1030" {
  cat > big.mlir <<'EOF'
func.func @main(%a: tensor<4194304xf32>) -> tensor<1xf32> {
  %0 = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<4194304xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
EOF
  "$BIN/tosac" big.mlir --embed-ir --offload-arch=gfx90a,gfx1030 -o big.hipfb
  run /usr/bin/python3 -c "
import json
for t in json.load(open('big.json'))['targets']:
    print(t['processor'], t['kernel_count'], ','.join(l['kind'] for l in t['launches']))"
  assert_line "gfx90a 1 fill,kernel"
  assert_line "gfx1030 2 kernel,kernel"
  /usr/bin/python3 -c "
import numpy as np
np.save('x.npy', (np.random.default_rng(1).integers(-8, 9, 4194304) / 8).astype(np.float32))"
  for t in gfx90a gfx1030; do
    run hiprun $t big.hipfb --input x.npy --output big.$t.npy
    assert_success
    run "${CHECK[@]}" big.mlir --input=@x.npy --expected=@big.$t.npy
    assert_success
  done
}

@test "split-K GEMM + combine through libtosac-hipemu (oracle), gfx90a and gfx1030" {
  cat > s1.mlir <<'EOF'
func.func @main(%a: tensor<1x32x4096xf32>, %b: tensor<1x4096x48xf32>) -> tensor<1x32x48xf32> {
  %az = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %bz = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.matmul %a, %b, %az, %bz : (tensor<1x32x4096xf32>, tensor<1x4096x48xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x48xf32>
  return %r : tensor<1x32x48xf32>
}
EOF
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine "$BIN/tosac" s1.mlir --embed-ir --offload-arch=gfx90a,gfx1030 -o s1.hipfb
  run /usr/bin/python3 -c "
import json
print([t['kernels'][0]['tuning']['split_k'] for t in json.load(open('s1.json'))['targets']])"
  assert_output "[3, 3]"
  /usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng(5)
np.save('a.npy', (r.integers(-16, 17, [1, 32, 4096]) / 8).astype(np.float32))
np.save('b.npy', (r.integers(-16, 17, [1, 4096, 48]) / 8).astype(np.float32))"
  for t in gfx90a gfx1030; do
    run hiprun $t s1.hipfb --input a.npy --input b.npy --output s1.$t.npy
    assert_success
    run "${CHECK[@]}" s1.mlir --input=@a.npy --input=@b.npy --expected=@s1.$t.npy
    assert_success
  done
}

@test "an out-of-bounds access is a HIP error at the next synchronisation, not a crash" {
  run ./api oob add.hipfb
  assert_failure 1
  assert_line --index 0 "launch: hipSuccess: no error"
  assert_line --index 1 --regexp '^hipDeviceSynchronize: hipErrorIllegalAddress: kernel tosac_k0_add, work-group \(0,0,0\), wave 0, instruction at 0x[0-9a-f]+ \(global_load_dwordx4\): lane 1 loads 16 bytes at 0x[0-9a-f]+, outside every buffer of the launch$'
  # the kernel IR reports the same access in its own terms
  TOSAC_HIPEMU_EXEC=ir run ./api oob add.hipfb
  assert_failure 1
  assert_line --index 1 --regexp '^hipDeviceSynchronize: hipErrorIllegalAddress: kernel tosac_k0_add: work-item \(1,0,0\) of work-group \(0,0,0\): global load of 16 bytes at 0x[0-9a-f]+ is outside every bound buffer$'
}

@test "kernelParams launches; queued work on a newer stream runs first unless it waits" {
  run ./api params add.hipfb
  assert_success
  assert_line "out[0] = 0.5, out[1023] = 1023.5"
  run ./api order add.hipfb
  assert_success
  assert_line "without a wait: d[5] bits 0xffffffff"
  assert_line "with a wait: d[5] = 5.5"
  # oldest stream first: the missing wait goes unnoticed in this direction
  TOSAC_HIPEMU_ORDER=oldest run ./api order add.hipfb
  assert_success
  assert_line "without a wait: d[5] bits 0x40b00000"
  assert_line "with a wait: d[5] = 5.5"
}

@test "a bare code object and a bundle without IR run as machine code; TOSAC_HIPEMU_EXEC=ir without IR, an unknown or missing target: clear errors" {
  clang-offload-bundler-22 -type=o -unbundle -targets=hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack- \
    -input=add.hipfb -output=add.co
  run ./api params add.co
  assert_success
  assert_output "out[0] = 0.5, out[1023] = 1023.5
kernelParams launch: hipSuccess: no error"
  "$BIN/tosac" add.mlir --offload-arch=gfx90a,gfx1030 -o noir.hipfb
  for t in gfx90a gfx1030; do
    TOSAC_HIPEMU_ARCH=$t run ./api params noir.hipfb
    assert_success
    assert_line "out[0] = 0.5, out[1023] = 1023.5"
  done
  TOSAC_HIPEMU_EXEC=ir run ./api params noir.hipfb
  assert_failure 1
  assert_output "hipModuleLoadData: hipErrorInvalidImage: the bundle has no kernel IR for gfx90a (entry openmp-amdgcn-amd-amdhsa--gfx90a): compile with tosac --embed-ir to run it with TOSAC_HIPEMU_EXEC=ir"
  # a code object of another target is refused by the machine-code loader
  TOSAC_HIPEMU_ARCH=gfx1030 run ./api bare add.co
  assert_failure 1
  assert_output "hipModuleLoadData: hipErrorInvalidImage: cannot load the code object for gfx1030: the code object is for EF_AMDGPU_MACH 0x3f, not gfx1030 (0x36)"
  TOSAC_HIPEMU_ARCH=gfx1100 run ./api params add.hipfb
  assert_failure 1
  assert_output "hipModuleLoadData: hipErrorNoBinaryForGpu: the bundle has no code object for gfx1100"
  # a code object that fixes xnack- does not run on an xnack+ device; one that leaves it open does
  "$BIN/tosac" add.mlir --embed-ir --offload-arch=gfx90a:xnack- -o xk.hipfb
  TOSAC_HIPEMU_ARCH=gfx90a:sramecc+:xnack+ run ./api params xk.hipfb
  assert_output "hipModuleLoadData: hipErrorNoBinaryForGpu: the bundle has no code object for gfx90a:sramecc+:xnack+"
  TOSAC_HIPEMU_ARCH=gfx90a:sramecc+:xnack+ run ./api params add.hipfb
  assert_success
  TOSAC_HIPEMU_ARCH=gfx9999 run ./api params add.hipfb
  assert_failure 1
  assert_output "hipModuleLoadData: hipErrorNoDevice: TOSAC_HIPEMU_ARCH=gfx9999 is not a target tosac knows (tosac --print-targets)"
}

@test "tosac-hip-run through libtosac-hipemu reads a compressed bundle (it decompresses it)" {
  "$BIN/tosac" add.mlir --embed-ir --offload-arch=gfx90a --compress=v3 -o addz.hipfb
  /usr/bin/python3 -c "
import numpy as np
np.save('p.npy', np.arange(1024, dtype=np.float32)); np.save('q.npy', np.full(1024, 0.25, np.float32))"
  run hiprun gfx90a addz.hipfb --input p.npy --input q.npy --output z.npy
  assert_success
  run /usr/bin/python3 -c "import numpy as np; z = np.load('z.npy'); print(z[0], z[1023])"
  assert_output "0.25 1023.25"
}

# hip_vs_run ARCH BUNDLE STREAMS NOUT IN...: tosac-hip-run's NOUT outputs (h<i>.npy) are
# bitwise those of tosac-run (r<i>.npy) on the same inputs; tosac-hip-run's output is kept in
# $output for the caller's assertions.
hip_vs_run() {
  local a=$1 b=$2 s=$3 n=$4 hout=() rin=() rout=() i
  shift 4
  for ((i = 0; i < n; i++)); do hout+=(--output h$i.npy); rout+=(--output=@r$i.npy); done
  for i in "$@"; do rin+=(--input=@$i); done
  "$BIN/tosac-run" $b --target=$a "${rin[@]}" "${rout[@]}"
  run hiprun $a $b $(printf -- '--input %s ' "$@") "${hout[@]}" --streams $s
  assert_success
  for ((i = 0; i < n; i++)); do cmp h$i.npy r$i.npy; done
}

@test "tosac-hip-run runs control nodes: cond_if both ways, while_loop 0, 1 and 3 times with an if nested in the body (equal to tosac-run, 1 and 2 streams)" {
  cp "$ROOT/tests/data/control/if.mlir" "$ROOT/tests/data/control/loop.mlir" .
  "$BIN/tosac" if.mlir --embed-ir --offload-arch=gfx90a,gfx1030 -o if.hipfb
  "$BIN/tosac" loop.mlir --embed-ir --offload-arch=gfx90a,gfx1100 -o loop.hipfb
  /usr/bin/python3 -c "
import numpy as np
np.save('t.npy', np.array(True)); np.save('f.npy', np.array(False))
for n in (0, 1, 3): np.save('n%d.npy' % n, np.array(n, np.int32))
np.save('lx.npy', np.full((1, 16, 32), 0.5, np.float32)); np.save('lw.npy', np.eye(32, dtype=np.float32)[None])"
  rand ix.npy float16 3 1 32 64
  rand iw.npy float16 4 1 64 32
  rand wr.npy float32 5 1 32 32
  for a in gfx90a gfx1030; do
    for s in 1 2; do
      # the branch taken is the one whose kernels ran (and were timed): the GEMM, or slice + tanh
      hip_vs_run $a if.hipfb $s 1 t.npy ix.npy iw.npy
      assert_line --regexp '^kernel tosac_k0_matmul: '
      [ "$(grep -c '^kernel ' <<< "$output")" -eq 1 ]
      hip_vs_run $a if.hipfb $s 1 f.npy ix.npy iw.npy
      assert_line --regexp '^kernel tosac_k1_slice: '
      assert_line --regexp '^kernel tosac_k2_cast_tanh: '
      [ "$(grep -c '^kernel ' <<< "$output")" -eq 2 ]
    done
  done
  for a in gfx90a gfx1100; do
    for n in 0 1 3; do
      for p in t f; do
        hip_vs_run $a loop.hipfb $((n % 2 + 1)) 2 n$n.npy $p.npy lx.npy wr.npy
      done
      # by hand: w = I, so the body applies tanh n times; the counter result is n
      hip_vs_run $a loop.hipfb 2 2 n$n.npy t.npy lx.npy lw.npy
      run /usr/bin/python3 -c "
import numpy as np
y = np.load('h1.npy'); v = np.float32(0.5)
for _ in range($n): v = np.tanh(v)
print(int(np.load('h0.npy')), bool(np.allclose(y, v, rtol=0, atol=1e-6)))"
      assert_output "$n True"
    done
  done
}

@test "tosac-hip-run: a constant-count loop around a data-dependent if, and a 300-iteration loop (control nodes, by hand)" {
  cp "$ROOT/tests/data/control/nest.mlir" nest.mlir
  cp "$ROOT/tests/data/control/big_loop.mlir" big.mlir
  "$BIN/tosac" nest.mlir --embed-ir --offload-arch=gfx90a -o nest.hipfb
  "$BIN/tosac" big.mlir --embed-ir --offload-arch=gfx1030 -o big.hipfb
  /usr/bin/python3 -c "
import numpy as np
np.save('t.npy', np.array(True)); np.save('f.npy', np.array(False))
np.save('v.npy', np.array([1, -2, 0.5, 3], np.float32)); np.save('b.npy', np.arange(1, 11, dtype=np.int32))"
  for p in t f; do
    run hiprun gfx90a nest.hipfb --input v.npy --input $p.npy --output y$p.npy --streams 2
    assert_success
  done
  run hiprun gfx1030 big.hipfb --input b.npy --output yb.npy
  assert_success
  # doubled twice when %p holds, unchanged otherwise; doubled 300 times wraps every i32 to 0
  run /usr/bin/python3 -c "
import numpy as np
print(np.load('yt.npy').tolist(), np.load('yf.npy').tolist(), np.load('yb.npy').tolist())"
  assert_output "[4.0, -8.0, 2.0, 12.0] [1.0, -2.0, 0.5, 3.0] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"
}

@test "tosac-hip-run refuses malformed control nodes with the manifest's error" {
  cp "$ROOT/tests/data/control/loop.mlir" .
  "$BIN/tosac" loop.mlir --embed-ir --offload-arch=gfx90a -o loop.hipfb
  /usr/bin/python3 -c "
import numpy as np
np.save('n1.npy', np.array(1, np.int32)); np.save('t.npy', np.array(True))
np.save('lx.npy', np.zeros((1, 16, 32), np.float32)); np.save('lw.npy', np.zeros((1, 32, 32), np.float32))"
  # launch 2: while cond [3 4] body [5 6 7 8 11 12]; launch 8: if readback 7 then [9] else [10]
  /usr/bin/python3 - <<'PY'
import json
def bad(name, edit):
    m = json.load(open('loop.json')); edit(m['targets'][0]['launches'], m['targets'][0])
    json.dump(m, open(name + '.json', 'w'))
bad('range', lambda L, t: L[8].update({'then': [13]}))
bad('twice', lambda L, t: L[8].update({'else': [9]}))
bad('none', lambda L, t: L[2].update({'body': [5, 6, 7, 8, 11]}))
bad('cond', lambda L, t: L[2].update({'condition': 3}))
bad('last', lambda L, t: L[2].update({'cond': [4, 3]}))
bad('order', lambda L, t: t.update({'order': [0, 1, 2, 9]}))
bad('deps', lambda L, t: L[9].update({'deps': [10]}))
bad('topo', lambda L, t: L[2].update({'body': [5, 6, 7, 8, 12, 11]}))
bad('kind', lambda L, t: L[8].update({'then': 9}))
PY
  for c in range twice none cond last order deps topo kind; do
    run hiprun gfx90a loop.hipfb --manifest $c.json --input n1.npy --input t.npy --input lx.npy --input lw.npy
    assert_failure 1
    printf '%s\n' "$output" >> errs
  done
  run cat errs
  assert_output - <<'E'
tosac-hip-run: error: range.json: target gfx90a: launch 8's then lists launch 13, which is out of range (13 launches)
tosac-hip-run: error: twice.json: target gfx90a: launch 9 is in two lists (launch 8's then and launch 8's else)
tosac-hip-run: error: none.json: target gfx90a: launch 12 is in no list (order or a region of an if / while)
tosac-hip-run: error: cond.json: target gfx90a: launch 2: condition 3 is not a readback launch
tosac-hip-run: error: last.json: target gfx90a: launch 2: condition 4 is not the last launch of its cond list
tosac-hip-run: error: order.json: target gfx90a: launch 9 is in two lists (order and launch 8's then)
tosac-hip-run: error: deps.json: target gfx90a: launch 9 depends on launch 10, which is not in its list (launch 8's then)
tosac-hip-run: error: topo.json: target gfx90a: launch 2's body is not a topological order of its launches
tosac-hip-run: error: kind.json: target gfx90a: launch 8 is malformed
E
}

@test "TOSAC_MAX_ITERATIONS stops a while loop that runs longer, in tosac-run and tosac-hip-run alike" {
  cp "$ROOT/tests/data/control/loop.mlir" .
  "$BIN/tosac" loop.mlir --embed-ir --offload-arch=gfx90a -o cap.hipfb
  /usr/bin/python3 -c "
import numpy as np
np.save('n5.npy', np.array(5, np.int32)); np.save('t.npy', np.array(True))
np.save('lx.npy', np.zeros((1, 16, 32), np.float32)); np.save('lw.npy', np.zeros((1, 32, 32), np.float32))"
  local in=(--input n5.npy --input t.npy --input lx.npy --input lw.npy)
  # the loop runs 5 times: a limit of 5 lets it finish, 4 stops it with no output written
  TOSAC_MAX_ITERATIONS=5 hiprun gfx90a cap.hipfb "${in[@]}" --output c5.npy --output y5.npy
  run /usr/bin/python3 -c "import numpy as np; print(np.load('c5.npy'))"
  assert_output "5"
  TOSAC_MAX_ITERATIONS=4 run hiprun gfx90a cap.hipfb "${in[@]}" --output c4.npy --output y4.npy
  assert_failure 1
  assert_line "tosac-hip-run: error: launch 2: while loop still running after 4 iterations"
  [ ! -e c4.npy ] && [ ! -e y4.npy ]
  TOSAC_MAX_ITERATIONS=4 run "$BIN/tosac-run" cap.hipfb --input=@n5.npy --input=@t.npy \
    --input=@lx.npy --input=@lw.npy --output=@c4.npy --output=
  assert_failure 1
  assert_output "tosac-run: error: launch 2: while loop still running after 4 iterations"
  [ ! -e c4.npy ]
  TOSAC_MAX_ITERATIONS=0 run "$BIN/tosac-run" cap.hipfb --input=@n5.npy --input=@t.npy \
    --input=@lx.npy --input=@lw.npy
  assert_failure 1
  assert_output "tosac-run: error: TOSAC_MAX_ITERATIONS: '0' is not a positive count"
  TOSAC_MAX_ITERATIONS=4x run hiprun gfx90a cap.hipfb "${in[@]}"
  assert_failure 1
  assert_line "tosac-hip-run: error: TOSAC_MAX_ITERATIONS: '4x' is not a positive count"
}
