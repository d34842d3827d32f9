#!/usr/bin/env bats
# libtosac-hipemu (docs/host.md): the HIP runtime API on tosac-run's emulator. tosac-hip-run (the
# reference HIP client, linked against Debian's libamdhip64) runs through it with LD_PRELOAD and
# its outputs are checked against the oracle; tests/host/api_check.c checks error reporting,
# kernelParams and the stream order through the HIP API alone.

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
  TOSAC_SPLIT_K=3 "$BIN/tosac" s1.mlir --embed-ir --offload-arch=gfx90a,gfx1030 -o s1.hipfb
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

@test "a bare code object, a bundle without IR, an unknown or missing target: clear errors" {
  clang-offload-bundler-22 -type=o -unbundle -targets=hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack- \
    -input=add.hipfb -output=add.co
  run ./api bare add.co
  assert_failure 1
  assert_output "hipModuleLoadData: hipErrorInvalidImage: hipModuleLoadData got a bare code object; libtosac-hipemu runs the kernel IR that tosac --embed-ir stores in the bundle next to it: pass the whole .hipfb"
  "$BIN/tosac" add.mlir --offload-arch=gfx90a -o noir.hipfb
  run ./api params noir.hipfb
  assert_failure 1
  assert_output "hipModuleLoadData: hipErrorInvalidImage: the bundle has no kernel IR for gfx90a (entry openmp-amdgcn-amd-amdhsa--gfx90a): compile with tosac --embed-ir to run it on libtosac-hipemu"
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
