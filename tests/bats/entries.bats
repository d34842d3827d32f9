#!/usr/bin/env bats
# entries.bats: a module of several public functions (issue 17) compiles into one bundle and one
# manifest with an `entries` table (docs/manifest.md "Entries"): tests/data/entries/module.mlir
# holds a static matmul, the same matmul with a '?' batch and a convolution, compiled for gfx90a
# (MFMA) and gfx1030 (FMA). Checked: the manifest against the schema, a kernel two entries share
# present once in the code object, each entry run in tosac-run against the oracle (|d| <= 1e-5 +
# 1e-5 |ref|, check.py's f32 rule) and in tosac-hip-run, --entry, and the exact errors.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  local b="${TOSAC_BUILD:-build}"
  case "$b" in /*) ;; *) b="$ROOT/$b" ;; esac
  export BUILD="$b" BIN="$b/bin" TOSAC_BUILD="$b"
  export W="$BATS_FILE_TMPDIR" M="$ROOT/tests/data/entries/module.mlir"
  cd "$W"
  cp "$M" module.mlir
  "$BIN/tosac" module.mlir --specialize=a:0=1,3 --offload-arch=gfx90a,gfx1030 --embed-ir -o m.hipfb
}

setup() {
  cd "$W"
  PY=/usr/bin/python3
}

# code object of TARGET from BUNDLE into FILE
unbundle() {
  clang-offload-bundler-22 -type=o -input="$1" -targets="hipv4-amdgcn-amd-amdhsa--$2" \
    -output="$3" -unbundle
}

@test "three public functions: one bundle, a manifest with entries, valid against the schema" {
  run bash -c "clang-offload-bundler-22 -type=o -list -input=m.hipfb | sort"
  assert_output "hipv4-amdgcn-amd-amdhsa--gfx1030
hipv4-amdgcn-amd-amdhsa--gfx90a
host-x86_64-unknown-linux-gnu-
openmp-amdgcn-amd-amdhsa--gfx1030
openmp-amdgcn-amd-amdhsa--gfx90a"
  run $PY - <<'PY'
import json, jsonschema, os
m = json.load(open("m.json"))
schema = json.load(open(os.environ["ROOT"] + "/schema/manifest.schema.json"))
jsonschema.Draft202012Validator(schema).validate(m)
es = m["entries"]
print("entries", [e["name"] for e in es])
print("variants", [len(e.get("variants", [])) for e in es])
# the top level repeats entries[0] (a one-entry client reads it unchanged)
print("top is entries[0]", m["entry"] == es[0]["name"] and m["inputs"] == es[0]["inputs"]
      and m["targets"] == es[0]["targets"] and "variants" not in m)
for e in es:
    t = e["targets"]
    print(e["name"], [x["target_id"] for x in t], [[k["matrix_instruction"] for k in x["kernels"]] for x in t])
# one weights file: @conv's filter after @matmul's operand (256-byte aligned)
print("constants", m["constants"]["bytes"],
      [(e["name"], [(b["offset"], b["bytes"]) for b in e["targets"][0]["buffers"] if b["kind"] == "constant"]) for e in es])
PY
  assert_success
  assert_line "entries ['matmul', 'matmul_dyn', 'conv']"
  assert_line "variants [0, 2, 0]"
  assert_line "top is entries[0] True"
  assert_line "matmul ['gfx90a', 'gfx1030'] [['v_mfma_f32_32x32x2f32'], ['fma']]"
  assert_line "conv ['gfx90a', 'gfx1030'] [['v_mfma_f32_32x32x2f32'], ['fma']]"
  assert_line "constants 24576 [('matmul', [(0, 6144)]), ('matmul_dyn', []), ('conv', [(6144, 18432)])]"
  [ "$(stat -c %s m.weights)" = 24576 ]
  run "$BIN/tosac-bundle" verify m.hipfb --manifest m.json
  assert_success
  assert_output "ok: 2 code objects, 6 kernels, manifest agrees"
}

@test "a kernel two entries share is one symbol in each code object and in both launch graphs" {
  # @matmul and @matmul_dyn's batch-1 variant are the same kernel; batch 3 and @conv are others
  run $PY - <<'PY'
import json
m = json.load(open("m.json"))
e = {x["name"]: x for x in m["entries"]}
for t in range(2):
    names = lambda g: [k["name"] for k in g["targets"][t]["kernels"]]
    launched = lambda g: [l["kernel"] for l in g["targets"][t]["launches"] if l["kind"] == "kernel"]
    v = e["matmul_dyn"]["variants"]
    print(m["targets"][t]["target_id"], names(e["matmul"]), names(v[0]), names(v[1]), names(e["conv"]),
          launched(e["matmul"]), launched(v[0]))
PY
  assert_success
  assert_line "gfx90a ['tosac_k0_matmul_add_tanh'] ['tosac_k0_matmul_add_tanh'] ['tosac_e1v1_k0_matmul_add_tanh'] ['tosac_e2_k0_conv2d_clamp'] [0] [0]"
  assert_line "gfx1030 ['tosac_k0_matmul_add_tanh'] ['tosac_k0_matmul_add_tanh'] ['tosac_e1v1_k0_matmul_add_tanh'] ['tosac_e2_k0_conv2d_clamp'] [0] [0]"
  for t in gfx90a gfx1030; do
    unbundle m.hipfb $t co.$t
    run bash -c "llvm-readelf-22 --dyn-syms co.$t | awk '\$4 == \"FUNC\" {print \$8}' | sort"
    assert_output "tosac_e1v1_k0_matmul_add_tanh
tosac_e2_k0_conv2d_clamp
tosac_k0_matmul_add_tanh"
  done
  # tosac-bundle quality reports every entry's GEMM/conv kernels, a shared one once (the first
  # table; the other families follow after an empty line)
  run bash -c "'$BIN/tosac-bundle' quality m.hipfb --manifest m.json | awk 'NF == 0 {exit} NR > 1 {print \$1, \$2}'"
  assert_success
  assert_output "gfx90a matmul:1x64x48x32:f32:a32:b48n
gfx90a conv2d:1x64x32x144:f32:a16:b144k
gfx1030 matmul:1x64x48x32:f32:a32:b48n
gfx1030 conv2d:1x64x32x144:f32:a16:b144k"
}

@test "each entry runs in tosac-run against the oracle on gfx90a and gfx1030 (check.py --entry)" {
  for e in matmul conv; do
    run $PY "$ROOT/tests/oracle/check.py" "$M" --entry=$e --tosac-arg=--specialize=a:0=1,3 \
      --targets=gfx90a,gfx1030
    assert_success
    assert_line "ok $M [gfx90a]: 1 results match"
    assert_line "ok $M [gfx1030]: 1 results match"
  done
}

@test "the dynamic entry's variants run next to the static entry: batch 1 equals @matmul, batch 3 matches numpy" {
  $PY - <<'PY'
import numpy as np
r = np.random.default_rng(7)
a = r.uniform(-1, 1, (3, 64, 32)).astype(np.float32)
b = r.uniform(-1, 1, (3, 32, 48)).astype(np.float32)
np.save("a3.npy", a); np.save("b3.npy", b); np.save("a1.npy", a[:1])
np.save("b1.npy", np.full((1, 32, 48), 0.0625, np.float32))  # @matmul's constant operand
np.save("r3.npy", np.tanh(a.astype(np.float64) @ b.astype(np.float64) + 0.5))
PY
  for t in gfx90a gfx1030; do
    "$BIN/tosac-run" m.hipfb --target=$t --entry=matmul --input=@a1.npy --output=@s.npy
    "$BIN/tosac-run" m.hipfb --target=$t --entry=@matmul_dyn --input=@a1.npy --input=@b1.npy --output=@d1.npy
    run "$BIN/tosac-run" m.hipfb --target=$t --function=matmul_dyn -v --input=@a3.npy --input=@b3.npy --output=@d3.npy
    assert_success
    assert_line "tosac-run: variant 1 of 2"
    run $PY -c "
import numpy as np
s, d1, d3, r3 = (np.load(f) for f in ('s.npy', 'd1.npy', 'd3.npy', 'r3.npy'))
print('batch1 identical', np.array_equal(s, d1))
print('batch3 within', bool((np.abs(d3 - r3) <= 1e-5 + 1e-5 * np.abs(r3)).all()), d3.shape)"
    assert_output "batch1 identical True
batch3 within True (3, 64, 48)"
  done
}

@test "tosac-hip-run (libtosac-hipemu) runs the entry --entry names and lists the names otherwise" {
  [ -x "$BIN/tosac-hip-run" ] && [ -f "$BUILD/lib/libtosac-hipemu.so" ] || skip "no HIP headers: tosac-hip-run not built"
  $PY -c "
import numpy as np
r = np.random.default_rng(3)
np.save('x.npy', r.standard_normal((1, 8, 8, 16)).astype(np.float32))
np.save('bias.npy', r.standard_normal(32).astype(np.float32))"
  local pre="$BUILD/lib/libtosac-hipemu.so"
  [ -z "${TOSAC_SAN:-}" ] || pre="$(gcc -print-file-name=libasan.so) $pre"
  run env TOSAC_HIPEMU_ARCH=gfx1030 LD_PRELOAD="$pre" "$BIN/tosac-hip-run" m.hipfb --input x.npy --input bias.npy --output y.npy
  assert_failure 1
  assert_output "tosac-hip-run: error: m.json: 3 entry functions (@matmul, @matmul_dyn, @conv): choose one with --entry NAME"
  run env TOSAC_HIPEMU_ARCH=gfx1030 LD_PRELOAD="$pre" "$BIN/tosac-hip-run" m.hipfb --entry conv --input x.npy --input bias.npy --output y.npy
  assert_success
  "$BIN/tosac-run" m.hipfb --target=gfx1030 --entry=conv --input=@x.npy --input=@bias.npy --output=@y2.npy
  run $PY -c "import numpy as np; print(np.array_equal(np.load('y.npy'), np.load('y2.npy')))"
  assert_output "True"
}

@test "--entry compiles one function: the single-entry manifest, and the bundle of a module holding only it" {
  "$BIN/tosac" module.mlir --entry=conv --offload-arch=gfx90a,gfx1030 --embed-ir -o one.hipfb
  $PY - <<'PY'
src = open("module.mlir").read()
start = src.index("  func.func @conv")
end = src.index("  func.func private")
open("conv_only.mlir", "w").write("module {\n" + src[start:end] + "}\n")
PY
  "$BIN/tosac" conv_only.mlir --offload-arch=gfx90a,gfx1030 --embed-ir -o only.hipfb
  cmp one.hipfb only.hipfb
  cmp one.weights only.weights
  run $PY -c "
import json
a, b = json.load(open('one.json')), json.load(open('only.json'))
for m in a, b:  # the ops' source locations name different files and lines
    for t in m['targets']:
        for k in t['kernels']:
            del k['ops']
print(a['entry'], 'entries' in a, a['targets'] == b['targets'], a['constants']['bytes'])"
  assert_output "conv False True 18432"
  run "$BIN/tosac-run" one.hipfb --target=gfx90a --entry=matmul --input=1x8x8x16xf32 --input=32xf32
  assert_failure
  assert_output "tosac-run: error: one.json: no function 'matmul' (the entry is 'conv')"
}

@test "clients: without --entry a manifest of several entries is refused, naming them; a wrong name likewise" {
  run "$BIN/tosac-run" m.hipfb --target=gfx90a --input=1x64x32xf32
  assert_failure
  assert_output "tosac-run: error: m.json: 3 entry functions (@matmul, @matmul_dyn, @conv): choose one with --entry NAME"
  run "$BIN/tosac-run" m.hipfb --target=gfx90a --entry=relu --input=1x64x32xf32
  assert_failure
  assert_output "tosac-run: error: m.json: no function 'relu' (the entries are @matmul, @matmul_dyn, @conv)"
  # a module of one public function still needs no --entry
  "$BIN/tosac" "$ROOT/samples/gelu.mlir" --offload-arch=gfx1030 --embed-ir -o gelu.hipfb
  run $PY -c "import json; print('entries' in json.load(open('gelu.json')))"
  assert_output "False"
}

@test "--emit: partitions per entry, canonical TOSA of every entry that mlir-opt-22 accepts" {
  run "$BIN/tosac" module.mlir --emit=partitions --specialize=a:0=1,3 --offload-arch=gfx90a
  assert_success
  run bash -c "'$BIN/tosac' module.mlir --emit=partitions --specialize=a:0=1,3 --offload-arch=gfx90a | grep -E '^(entry|variant)'"
  assert_output "entry @matmul
entry @matmul_dyn
variant 0
variant 1
entry @conv"
  "$BIN/tosac" module.mlir --emit=tosa --specialize=a:0=1,3 -o all.mlir
  run grep -c "func.func @" all.mlir
  assert_output 3
  mlir-opt-22 all.mlir > /dev/null
}

@test "--emit=host: one API per entry in one file pair; each runs on libtosac-hipemu as tosac-run does" {
  [ -f "$BUILD/lib/libtosac-hipemu.so" ] || skip "no HIP headers: libtosac-hipemu not built"
  run "$BIN/tosac" module.mlir --emit=host --specialize=a:0=1,3 --offload-arch=gfx90a,gfx1030 --embed-ir -o h_host.c
  assert_success
  run grep -E "^hipError_t [a-z_]+_load\(" h_host.h
  assert_output "hipError_t matmul_load(matmul_ctx **ctx, const void *bundle, const void *weights,
hipError_t matmul_dyn_load(matmul_dyn_ctx **ctx, const void *bundle, const void *weights,
hipError_t conv_load(conv_ctx **ctx, const void *bundle, const void *weights,"
  $PY -c "
import numpy as np
r = np.random.default_rng(5)
r.standard_normal((1, 8, 8, 16)).astype(np.float32).tofile('x.bin')
r.standard_normal(32).astype(np.float32).tofile('bias.bin')
r.uniform(-1, 1, (3, 64, 32)).astype(np.float32).tofile('a3.bin')
r.uniform(-1, 1, (3, 32, 48)).astype(np.float32).tofile('b3.bin')"
  for m in conv matmul_dyn; do
    cc -std=c17 -Wall -Wextra -Werror ${TOSAC_SAN:-} -D__HIP_PLATFORM_AMD__ -DMODEL=$m \
      -DMODEL_UPPER=$(echo $m | tr a-z A-Z) -include h_host.h "$ROOT/tests/host/run_model.c" h_host.c \
      -o $m.run -L"$BUILD/lib" -ltosac-hipemu -Wl,-rpath,"$BUILD/lib"
  done
  TOSAC_HIPEMU_ARCH=gfx1030 ./conv.run module.hipfb module.weights x.bin bias.bin -- yc.bin
  TOSAC_HIPEMU_ARCH=gfx90a ./matmul_dyn.run module.hipfb module.weights a3.bin@3x64x32 b3.bin@3x32x48 -- yd.bin
  "$BIN/tosac-run" module.hipfb --target=gfx1030 --entry=conv --input=1x8x8x16xf32=@x.bin \
    --input=32xf32=@bias.bin --output=@rc.bin
  "$BIN/tosac-run" module.hipfb --target=gfx90a --entry=matmul_dyn --input=3x64x32xf32=@a3.bin \
    --input=3x32x48xf32=@b3.bin --output=@rd.bin
  cmp yc.bin rc.bin
  cmp yd.bin rd.bin
  # --prefix heads every entry's API
  "$BIN/tosac" module.mlir --emit=host --specialize=a:0=1,3 --prefix=net --offload-arch=gfx90a -o p_host.c
  run grep -cE "^hipError_t net_(matmul|matmul_dyn|conv)_run\(" p_host.h
  assert_output 3
}

@test "errors: a duplicate function name, --entry naming a missing function or a declaration, only private functions" {
  cat > dup.mlir <<'EOF'
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
EOF
  run "$BIN/tosac" dup.mlir --syntax-only
  assert_failure 1
  assert_output "dup.mlir:4:1: error: redefinition of symbol named 'f'
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
^
dup.mlir:1:1: note: see existing symbol definition here
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
^"
  # each module is a symbol table: the same name in two modules is no redefinition, but entries
  # are chosen by name, so two public ones are refused (rocMLIR's private kernel copies pass)
  cat > nest.mlir <<'EOF'
module {
  module @a {
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    }
  }
  module @b {
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    }
  }
}
EOF
  run "$BIN/tosac" nest.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "nest.mlir:8:5: error: a second public function named '@f' (in another module): entry functions are chosen by name; make one of them private"
  sed -i '8s/func.func @f/func.func private @f/' nest.mlir
  run "$BIN/tosac" nest.mlir --syntax-only
  assert_success
  run "$BIN/tosac" "$ROOT/tests/data/migraphx/mhal_attention.mlir" --syntax-only
  assert_success
  run "$BIN/tosac" module.mlir --syntax-only --entry=relu
  assert_failure 1
  assert_output "tosac: error: no function named '@relu' in module.mlir"
  run "$BIN/tosac" module.mlir --syntax-only --entry=@external
  assert_failure 1
  assert_output "module.mlir:30:3: error: --entry @external names a declaration; it has no body to compile
  func.func private @external(tensor<2xf32>) -> tensor<2xf32>
  ^"
  cat > priv.mlir <<'EOF'
func.func private @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
EOF
  run "$BIN/tosac" priv.mlir --syntax-only
  assert_failure 1
  assert_output "tosac: error: priv.mlir has no public function with a body to compile"
  run "$BIN/tosac" priv.mlir --syntax-only --entry=g   # a private function only when asked by name
  assert_success
  # a dynamic entry among several still needs --specialize (or --entry choosing others)
  run "$BIN/tosac" module.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "module.mlir:15:36: error: dynamic dimension 0 of argument '%a' has no value; compile with --specialize=a:0=V1,V2,..."
  run "$BIN/tosac" module.mlir --syntax-only --entry=conv
  assert_success
}

@test "libtosac: entry count, names and each entry's kernels per target" {
  run "$BIN/test-lib_entries" module.mlir gfx90a,gfx1030 a:0=1,3
  assert_success
  assert_output "status 0, 3 entries
entry 0 matmul target gfx90a: tosac_k0_matmul_add_tanh(0,2,1)
entry 0 matmul target gfx1030: tosac_k0_matmul_add_tanh(0,2,1)
entry 1 matmul_dyn target gfx90a: tosac_k0_matmul_add_tanh(0,1,2)
entry 1 matmul_dyn target gfx1030: tosac_k0_matmul_add_tanh(0,1,2)
entry 2 conv target gfx90a: tosac_e2_k0_conv2d_clamp(0,3,1,2)
entry 2 conv target gfx1030: tosac_e2_k0_conv2d_clamp(0,3,1,2)
entry 0 is the top level: 1
out of range: 2 0 null"
  # the same kernels and buffer numbers as the manifest's entries (the library fills its tables
  # from the plans, not by reading the manifest back)
  "$BIN/tosac" module.mlir --offload-arch=gfx90a,gfx1030 --specialize=a:0=1,3 -o lib.hipfb
  run /usr/bin/python3 -c "
import json
m = json.load(open('lib.json'))
for e, en in enumerate(m['entries']):
    for t in en['targets']:
        ks = {k['id']: k for k in t['kernels']}
        ls = {l['id']: l for l in t['launches']}
        out = []
        for i in t['order']:
            if ls[i]['kind'] == 'kernel':
                k = ks[ls[i]['kernel']]
                out.append(k['name'] + '(' + ','.join(str(a['buffer']) for a in k['args'] if a.get('buffer') is not None) + ')')
        print('entry %d %s target %s: %s' % (e, en['name'], t['target_id'].split(':')[0], ' '.join(out)))"
  assert_success
  assert_output "$("$BIN/test-lib_entries" module.mlir gfx90a,gfx1030 a:0=1,3 | sed -n 2,7p)"
  run "$BIN/test-lib_entries" module.mlir gfx90a "" conv
  assert_success
  assert_line --index 0 "status 0, 1 entries"
  assert_line --index 1 "entry 0 conv target gfx90a: tosac_k0_conv2d_clamp(0,3,1,2)"
}
