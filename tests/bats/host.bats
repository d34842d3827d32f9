#!/usr/bin/env bats
# tosac --emit=host (docs/host.md): the launch graph as C17 host code over the HIP module API.
# The generated code is compiled with cc -std=c17 -Wall -Wextra -Werror against Debian's HIP 5.2
# headers, linked against libamdhip64 (link step only: no GPU here) and against
# libtosac-hipemu, and run by tests/host/run_model.c; results must equal tosac-run's bytes.

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
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py")
}

# build NAME PREFIX [LIB]: compile NAME_host.c with run_model.c into NAME.run (libtosac-hipemu,
# or LIB, e.g. amdhip64)
build() {
  local lib=${3:-tosac-hipemu} upper
  upper=$(echo "$2" | tr a-z A-Z)
  # TOSAC_SAN: the sanitizer flags libtosac-hipemu was built with (make asan sets it)
  cc -std=c17 -Wall -Wextra -Werror ${TOSAC_SAN:-} -D__HIP_PLATFORM_AMD__ -DMODEL="$2" -DMODEL_UPPER="$upper" \
    -include "$1_host.h" "$ROOT/tests/host/run_model.c" "$1_host.c" -o "$1.${3:-run}" \
    -L"$BUILD/lib" -l"$lib" -Wl,-rpath,"$BUILD/lib"
}

# rand FILE SEED DIMS...: random normal f32 values, raw (RAND_TYPE=f16: f16)
rand() {
  /usr/bin/python3 -c "
import sys, numpy as np
r = np.random.default_rng(int(sys.argv[2]))
t = {'f32': np.float32, 'f16': np.float16}['${RAND_TYPE:-f32}']
r.standard_normal([int(d) for d in sys.argv[3:]]).astype(t).tofile(sys.argv[1])" "$@"
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

@test "--emit=host writes the C file, its header, bundle and manifest, and prints the cc line" {
  run "$BIN/tosac" "$ROOT/samples/gelu.mlir" --emit=host --embed-ir --offload-arch=gfx90a,gfx1030 \
    -o gelu_host.c
  assert_success
  assert_output "tosac: wrote gelu_host.c, gelu_host.h, gelu.hipfb, gelu.json
tosac: build with: cc -std=c17 -Wall -D__HIP_PLATFORM_AMD__ -c gelu_host.c -o gelu_host.o
tosac: and link your program with gelu_host.o -lamdhip64 (or -ltosac-hipemu to run on the CPU emulator)"
  [ -s gelu_host.c ] && [ -s gelu_host.h ] && [ -s gelu.hipfb ] && [ -s gelu.json ]
  # the API is named after the entry function; one table set per target
  run grep -E '^(hipError_t |const char \*|void )main_' gelu_host.h
  assert_output "hipError_t main_load(main_ctx **ctx, const void *bundle, const void *weights,
hipError_t main_run(main_ctx *ctx, hipStream_t stream, const void *const inputs[],
hipError_t main_select(main_ctx *ctx, const int64_t *const shapes[]);
const char *main_error(const main_ctx *ctx);
const char *main_target_id(const main_ctx *ctx);
void main_unload(main_ctx *ctx);"
  run grep -c '^static hipError_t main_gfx\(90a\|1030\)_run' gelu_host.c
  assert_output 2
  # the printed command line compiles it, warnings as errors, no C++
  cc -std=c17 -Wall -Wextra -Werror -D__HIP_PLATFORM_AMD__ -c gelu_host.c -o gelu_host.o
  # without -o the C file is named after the input
  run "$BIN/tosac" "$ROOT/samples/swish.mlir" --emit=host --offload-arch=gfx90a
  assert_success
  assert_line --index 0 "tosac: wrote swish_host.c, swish_host.h, swish.hipfb, swish.json"
}

@test "the same program links against libamdhip64 (ROCm's HIP) and libtosac-hipemu" {
  "$BIN/tosac" "$ROOT/samples/gelu.mlir" --emit=host --embed-ir --offload-arch=gfx90a,gfx1030 \
    --prefix=gelu -o gelu_host.c 2>/dev/null
  build gelu gelu amdhip64
  build gelu gelu
  [ -x gelu.amdhip64 ] && [ -x gelu.run ]
  run bash -c "ldd gelu.amdhip64 | grep -c libamdhip64; ldd gelu.run | grep -c libtosac-hipemu"
  assert_output "1
1"
}

@test "samples through the host code on libtosac-hipemu equal tosac-run, gfx90a and gfx1030" {
  for s in gelu gelu_tanh swish; do
    "$BIN/tosac" "$ROOT/samples/$s.mlir" --emit=host --embed-ir --offload-arch=gfx90a,gfx1030 \
      --prefix=m -o ${s}_host.c 2>/dev/null
    build $s m
    shape=$(/usr/bin/python3 -c "import json; print(*json.load(open('$s.json'))['inputs'][0]['shape'])")
    type=$(/usr/bin/python3 -c "import json; print(json.load(open('$s.json'))['inputs'][0]['element_type'])")
    RAND_TYPE=$type rand $s.in 4 $shape
    spec="$(echo $shape | tr ' ' x)x$type=@$s.in"
    for t in gfx90a gfx1030; do
      TOSAC_HIPEMU_ARCH=$t run ./$s.run $s.hipfb - $s.in -- $s.$t.out
      assert_success
      assert_output "run_model: target $t"
      same_as_run $s.hipfb $t "$spec" -- $s.$t.out
    done
  done
}

@test "weights file + copy node: oracle-exact; a missing weights file is an error, not a crash" {
  /usr/bin/python3 "$ROOT/tests/host/weights_graph.py" w.mlir
  run "$BIN/tosac" w.mlir --emit=host --embed-ir --offload-arch=gfx90a --prefix=w -o w_host.c
  assert_line --index 0 "tosac: wrote w_host.c, w_host.h, w.hipfb, w.json, w.weights"
  grep -q '^#define W_WEIGHTS_BYTES 8192ll' w_host.h
  grep -q 'W_TRY(w_copy(c, s, 2, 3, 8192));' w_host.c # output 1 (buffer 2) from the constant (3)
  build w w
  rand a.in 2 2 2048
  run ./w.run w.hipfb w.weights a.in -- r0.out r1.out
  assert_success
  /usr/bin/python3 -c "
import numpy as np
np.save('a.npy', np.fromfile('a.in', np.float32).reshape(2, 2048))
np.save('r0.npy', np.fromfile('r0.out', np.float32).reshape(2, 2048))
np.save('r1.npy', np.fromfile('r1.out', np.float32).reshape(1, 2048))"
  run "${CHECK[@]}" w.mlir --input=@a.npy --expected=@r0.npy --expected=@r1.npy
  assert_success
  assert_output --partial "2 results match"
  run ./w.run w.hipfb - a.in -- r0.out r1.out
  assert_failure 1
  assert_output "run_model: load: the weights file must hold 8192 bytes, 0 given (hipErrorInvalidValue)"
}

@test "one partition function per op: fill + atomic on gfx90a, partial + combine on gfx1030" {
  cat > big.mlir <<'EOF'
func.func @main(%a: tensor<4194304xf32>) -> tensor<1xf32> {
  %0 = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<4194304xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
EOF
  "$BIN/tosac" big.mlir --emit=host --embed-ir --offload-arch=gfx90a,gfx1030 --prefix=big \
    -o big_host.c 2>/dev/null
  run sed -n '/^\/\* p0: /,/^}/p' big_host.c
  assert_output "/* p0: tosa.reduce_sum at big.mlir:2:8; 2 launches */
static hipError_t big_gfx90a_p0(big_ctx *c, hipStream_t s) {
  BIG_TRY(big_fill8(c, s, 1, 0, 4, 0x0u));
  BIG_TRY(big_launch(c, s, 0)); /* tosac_k0_reduce_sum_atomic */
  return hipSuccess;
}
/* p0: tosa.reduce_sum at big.mlir:2:8; 2 launches */
static hipError_t big_gfx1030_p0(big_ctx *c, hipStream_t s) {
  BIG_TRY(big_launch(c, s, 0)); /* tosac_k0_reduce_sum_partial */
  BIG_TRY(big_launch(c, s, 1)); /* tosac_k1_reduce_sum_combine */
  return hipSuccess;
}"
  build big big
  /usr/bin/python3 -c "
import numpy as np
(np.random.default_rng(1).integers(-8, 9, 4194304) / 8).astype(np.float32).tofile('x.in')"
  for t in gfx90a gfx1030; do
    TOSAC_HIPEMU_ARCH=$t run ./big.run big.hipfb - x.in -- big.$t.out
    assert_success
    same_as_run big.hipfb $t "4194304xf32=@x.in" -- big.$t.out
  done
  # multiples of 1/8: every summation order gives the exact sum
  run /usr/bin/python3 -c "
import numpy as np
x = np.fromfile('x.in', np.float32).astype(np.float64).sum()
print(all(np.fromfile('big.%s.out' % t, np.float32)[0] == x for t in ('gfx90a', 'gfx1030')))"
  assert_output "True"
}

@test "split-K GEMM: GEMM + combine in one partition, equal to tosac-run" {
  cat > s1.mlir <<'EOF'
func.func @main(%a: tensor<1x32x4096xf32>, %b: tensor<1x4096x48xf32>) -> tensor<1x32x48xf32> {
  %az = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %bz = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.matmul %a, %b, %az, %bz : (tensor<1x32x4096xf32>, tensor<1x4096x48xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x48xf32>
  return %r : tensor<1x32x48xf32>
}
EOF
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine "$BIN/tosac" s1.mlir --emit=host --embed-ir --offload-arch=gfx90a,gfx1030 \
    --prefix=s1 -o s1_host.c 2>/dev/null
  run grep -A3 '^static hipError_t s1_gfx90a_p0' s1_host.c
  assert_line --index 1 --regexp '^  S1_TRY\(s1_launch\(c, s, 0\)\); /\* tosac_k0_matmul'
  assert_line --index 2 --regexp '^  S1_TRY\(s1_launch\(c, s, 1\)\); /\* tosac_k1_matmul'
  build s1 s1
  rand a.in 5 1 32 4096
  rand b.in 6 1 4096 48
  for t in gfx90a gfx1030; do
    TOSAC_HIPEMU_ARCH=$t run ./s1.run s1.hipfb - a.in b.in -- s1.$t.out
    assert_success
    same_as_run s1.hipfb $t "1x32x4096xf32=@a.in" "1x4096x48xf32=@b.in" -- s1.$t.out
  done
}

@test "--host-streams=2: independent partitions on two streams joined by events, same bytes" {
  cat > two.mlir <<'EOF'
func.func @main(%a: tensor<64x4096xf32>, %b: tensor<64x4096xf32>) -> tensor<64x1xf32> {
  %0 = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<64x4096xf32>) -> tensor<64x1xf32>
  %1 = tosa.reduce_max %b {axis = 1 : i32} : (tensor<64x4096xf32>) -> tensor<64x1xf32>
  %2 = tosa.add %0, %1 : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
  return %2 : tensor<64x1xf32>
}
EOF
  rand a.in 8 64 4096
  rand b.in 9 64 4096
  for n in 1 2; do
    "$BIN/tosac" two.mlir --emit=host --embed-ir --offload-arch=gfx90a --prefix=two \
      --host-streams=$n -o two${n}_host.c 2>/dev/null
    build two$n two
    run ./two$n.run two.hipfb - a.in b.in -- out$n
    assert_success
  done
  cmp out1 out2
  TOSAC_HIPEMU_ORDER=oldest run ./two2.run two.hipfb - a.in b.in -- out2o
  assert_success
  cmp out1 out2o
  same_as_run two.hipfb gfx90a "64x4096xf32=@a.in" "64x4096xf32=@b.in" -- out2
  # one stream: no events; two: the second branch waits for the caller's stream, the add for it
  run grep -c 'two_wait\|two_record' two1_host.c
  assert_output 2 # the helper definitions only
  run sed -n '/^static hipError_t two_gfx90a_run/,/^}/p' two2_host.c
  assert_line "  TWO_TRY(two_wait(c, st[1], 3));"
  assert_line --regexp '^  TWO_TRY\(two_gfx90a_p1\(c, st\[1\]\)\);$'
  assert_line --regexp '^  TWO_TRY\(two_wait\(c, st\[0\], 1\)\);$'
}

@test "usage errors: --prefix, --host-streams; a device the model was not compiled for" {
  run "$BIN/tosac" "$ROOT/samples/gelu.mlir" --emit=host --prefix=9lives
  assert_failure 2
  assert_line --index 0 "tosac: error: invalid --prefix '9lives' (a C identifier of at most 40 characters)"
  run "$BIN/tosac" "$ROOT/samples/gelu.mlir" --emit=host --host-streams=0
  assert_failure 2
  assert_line --index 0 "tosac: error: invalid --host-streams '0' (use 1 to 16)"
  run "$BIN/tosac" "$ROOT/samples/gelu.mlir" --emit=host -o gelu.h
  assert_failure 2
  assert_line --index 0 "tosac: error: --emit=host writes a .c file and a .h file of the same stem: -o must name the .c file, not 'gelu.h'"
  assert_line --index 1 "try 'tosac --help' for more information"
  [ ! -e gelu.h ]
  mkdir so && cd so
  run "$BIN/tosac" "$ROOT/samples/gelu.mlir" --emit=host --syntax-only
  assert_success
  assert_output ""
  [ -z "$(ls)" ]
  cd ..
  run "$BIN/tosac" "$ROOT/samples/gelu.mlir" --emit=hots
  assert_failure 2
  assert_line --index 0 "tosac: error: unknown --emit kind 'hots' (use bundle, llvm, asm, partitions, dot, tosa or host)"
  "$BIN/tosac" "$ROOT/samples/gelu.mlir" --emit=host --embed-ir --offload-arch=gfx90a,gfx1030 \
    --prefix=g -o g_host.c 2>/dev/null
  build g g
  rand g.in 1 1 128 768
  TOSAC_HIPEMU_ARCH=gfx1100 run ./g.run gelu.hipfb - g.in -- g.out
  assert_failure 1
  assert_output "run_model: load: device 0 (gfx1100) runs none of this model's targets (gfx90a, gfx1030); compile with --offload-arch for it (hipErrorNoBinaryForGpu)"
}

@test "ResNet-18 (at 64x64) as host code on 2 streams, gfx90a, matches the oracle" {
  # The 224x224 network takes about 10 s of CPU per run: make bench runs it (docs/bench.md).
  "$BIN/tosac" /work/shared/testdata/rocmlir_resnet18.mlir --emit=tosa -O0 -o r18.tosa.mlir
  /usr/bin/python3 "$ROOT/tests/oracle/resnet18_64.py" r18.tosa.mlir > r18_64.mlir
  # -fno-fold-constants: the batch norms' rsqrt kernels are the independent work the second
  # stream runs (folded, the network is one chain of kernels; the weight transposes are read in
  # place by the convolutions): 7 cross-stream waits
  "$BIN/tosac" r18_64.mlir --emit=host --embed-ir --offload-arch=gfx90a --prefix=r18 \
    --host-streams=2 -fno-fold-constants -o r18_64_host.c 2>/dev/null
  run grep -c 'r18_wait(c, st\[' r18_64_host.c
  [ "$output" -ge 6 ]
  build r18_64 r18
  /usr/bin/python3 -c "
import numpy as np
x = np.random.default_rng(3).uniform(-1, 1, (1, 3, 64, 64)).astype(np.float32)
np.save('r18_x.npy', x); x.tofile('r18_x.bin')"
  run ./r18_64.run r18_64.hipfb r18_64.weights r18_x.bin -- r18_y.bin
  assert_success
  /usr/bin/python3 -c "
import numpy as np
np.save('r18_y.npy', np.fromfile('r18_y.bin', np.float32).reshape(1, 1000))"
  run "${CHECK[@]}" r18_64.mlir --input=@r18_x.npy --expected=@r18_y.npy
  assert_success
  assert_output --partial "1 results match"
}

@test "a graph without kernels (its result is its input: one copy) loads no code and runs" {
  cat > ident.mlir <<'EOF2'
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
EOF2
  "$BIN/tosac" ident.mlir --emit=host --embed-ir --offload-arch=gfx90a --prefix=id \
    --host-streams=2 -o ident_host.c 2>/dev/null
  run grep -c 'ID_TRY(id_copy(c, s, 1, 0, 16));' ident_host.c
  assert_output 1
  build ident id
  /usr/bin/python3 -c "import struct; open('i.bin', 'wb').write(struct.pack('<4f', 1, 2, 3, 4.5))"
  run ./ident.run ident.hipfb - i.bin -- o.bin
  assert_success
  cmp i.bin o.bin
}

# digest PATH: the manifest's spelling of a file's SHA-256, cut as the load's message cuts it
short_digest() { echo "sha256:$(sha256sum "$1" | cut -c1-16)..."; }

@test "the load refuses a bundle or weights file of another compile, naming it and both digests" {
  /usr/bin/python3 "$ROOT/tests/host/weights_graph.py" w.mlir
  "$BIN/tosac" w.mlir --emit=host --embed-ir --offload-arch=gfx90a --prefix=w -o w_host.c 2>/dev/null
  [ "$(grep '^#define W_BUNDLE_DIGEST' w_host.c)" = "#define W_BUNDLE_DIGEST \"sha256:$(sha256sum w.hipfb | cut -c1-64)\"" ]
  build w w
  rand a.in 2 2 2048
  cp w.hipfb w.good.hipfb && cp w.weights w.good.weights
  # a compile of another graph (add becomes sub) with the same bundle name
  sed 's/tosa.add/tosa.sub/' w.mlir > w2.mlir
  mkdir other && "$BIN/tosac" w2.mlir --embed-ir --offload-arch=gfx90a -o other/w.hipfb
  run ./w.run other/w.hipfb w.weights a.in -- d0.out d1.out
  assert_failure 1
  assert_output "run_model: load: the bundle is not the w.hipfb this code was generated with: its digest is $(short_digest other/w.hipfb), expected $(short_digest w.good.hipfb) (outputs of another compile?) (hipErrorInvalidImage)"
  [ ! -e d0.out ]
  # another weights file of the right size
  /usr/bin/python3 -c "
import numpy as np
np.arange(2048, dtype=np.float32).tofile('w.other.weights')"
  run ./w.run w.hipfb w.other.weights a.in -- d0.out d1.out
  assert_failure 1
  assert_output "run_model: load: the weights file is not the w.weights this code was generated with: its digest is $(short_digest w.other.weights), expected $(short_digest w.good.weights) (outputs of another compile?) (hipErrorInvalidValue)"
  # not a bundle at all; then the matching pair runs
  run ./w.run w.weights w.weights a.in -- d0.out d1.out
  assert_failure 1
  assert_output "run_model: load: the bundle is not a clang offload bundle (no __CLANG_OFFLOAD_BUNDLE__ or CCOB header) (hipErrorInvalidImage)"
  run ./w.run w.hipfb w.weights a.in -- d0.out d1.out
  assert_success
  cmp d1.out w.weights
  # a compressed bundle of this compile is accepted (its size comes from the CCOB header)
  "$BIN/tosac" w.mlir --emit=host --embed-ir --compress=v3 --offload-arch=gfx90a --prefix=w -o w_host.c 2>/dev/null
  build w w
  run ./w.run w.hipfb w.weights a.in -- d0.out d1.out
  assert_success
  run ./w.run w.good.hipfb w.weights a.in -- d0.out d1.out
  assert_failure 1
  assert_output --partial "run_model: load: the bundle is not the w.hipfb this code was generated with: its digest is $(short_digest w.good.hipfb), expected $(short_digest w.hipfb)"
}
