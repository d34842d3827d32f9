#!/usr/bin/env bats
# libtosac (docs/library.md): the exported symbols and soname, the installed header and
# pkg-config file, the C example against the installed library (same kernels as the manifest),
# the API's options, results and diagnostics, and several threads compiling at once.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export BUILD="$ROOT/${TOSAC_BUILD:-build}"
  export BIN="$BUILD/bin"
  export W="$BATS_FILE_TMPDIR"
  cd "$W"
  cat > bad.mlir <<'EOF2'
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.bogus %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
EOF2
  # a GEMM with a long K (split-K on every target: one kernel, reduced by its last work-group;
  # two with the combine form, which the tests that list several kernels force) and a reduction
  cat > mm.mlir <<'EOF2'
func.func @main(%a: tensor<1x64x8192xf32>, %b: tensor<1x8192x64xf32>) -> tensor<1x64x64xf32> {
  %za = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zb = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %za, %zb : (tensor<1x64x8192xf32>, tensor<1x8192x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  return %0 : tensor<1x64x64xf32>
}
EOF2
}

@test "libtosac.so exports only the tosac_* API, with a versioned soname" {
  run bash -c "nm -D --defined-only '$BUILD/lib/libtosac.so' | awk '{print \$NF}' | grep -v '^tosac_' | sort -u"
  assert_success
  assert_output "TOSAC_0"
  run bash -c "nm -D --defined-only '$BUILD/lib/libtosac.so' | grep -c ' T tosac_'"
  [ "$output" -ge 40 ]
  run bash -c "llvm-readelf-22 -d '$BUILD/lib/libtosac.so' | grep SONAME"
  assert_output --partial "Library soname: [libtosac.so.0]"
  # the driver is a client of the shared library
  run bash -c "llvm-readelf-22 -d '$BIN/tosac' | grep NEEDED"
  assert_output --partial "Shared library: [libtosac.so.0]"
  # every function the header declares is exported
  for f in $(grep -o 'tosac_[a-z_]*(' "$ROOT/include/tosac/tosac.h" | tr -d '(' | sort -u); do
    nm -D --defined-only "$BUILD/lib/libtosac.so" | grep -Eq " T $f(@@TOSAC_0)?$" || { echo "missing $f"; false; }
  done
}

@test "make install: header, library and tosac.pc; the C example builds with pkg-config and lists the manifest's kernels" {
  export TOSAC_SPLIT_K_FORM=combine # split-K GEMM + combine: two kernels per target to list
  cd "$ROOT"
  prefix="$W/prefix"
  run make --no-print-directory BUILD="${TOSAC_BUILD:-build}" PREFIX="$prefix" install
  assert_success
  [ -f "$prefix/include/tosac/tosac.h" ]
  [ -L "$prefix/lib/libtosac.so" ] && [ -L "$prefix/lib/libtosac.so.0" ]
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  run pkg-config --modversion tosac
  assert_output "$("$BIN/tosac" --version | awk '{print $2}')"
  cd "$W"
  cc -std=c17 -Wall -Wextra -Werror $TOSAC_SAN "$ROOT/samples/library/list_kernels.c" \
    $(pkg-config --cflags --libs tosac) -o list_kernels
  run ./list_kernels mm.mlir gfx90a,gfx1030
  assert_success
  echo "$output" > listed.txt
  # the same kernels, in the same order, with the same launch fields as the manifest says
  "$prefix/bin/tosac" mm.mlir --offload-arch=gfx90a,gfx1030 -o mm.hipfb
  /usr/bin/python3 - <<'PY'
import json
m = json.load(open("mm.json"))
want = []
for t in m["targets"]:
    ks = {k["id"]: k for k in t["kernels"]}
    ls = {l["id"]: l for l in t["launches"]}
    seq = [ks[ls[i]["kernel"]] for i in t["order"] if ls[i]["kind"] == "kernel"]
    want.append("target %s: %d kernels, code object" % (t["target_id"], len(seq)))
    for k in seq:
        args = "".join(" %s@%d" % (a["value_kind"], a["offset"]) for a in k["args"])
        want.append("  %s grid %s block %s lds %d kernarg %d:%s" % (k["symbol"],
            "x".join(map(str, k["grid"])), "x".join(map(str, k["block"])), k["lds_bytes"],
            k["kernarg_size"], args))
got = [l if not l.startswith("target") else l[:l.index(" code object") + 12]
       for l in open("listed.txt").read().splitlines()]
assert got == want, (got, want)
assert sum(1 for l in got if l.startswith("  ")) >= 4  # split-K: GEMM + combine per target
PY
}

@test "API: refused options keep their message, buffer and file compiles agree, diagnostics as records" {
  cd "$W"
  mkdir -p out
  run "$BIN/test-lib_api" "$ROOT/samples/gelu.mlir" bad.mlir
  assert_success
  assert_line "bad target: 2 unknown target 'gfx9999'; known targets: gfx908, gfx90a, gfx942, gfx950, gfx1030, gfx1100, gfx1200"
  assert_line "bad level: 2 invalid optimisation level '-O7' (use -O0 to -O3)"
  assert_line "bad jobs: 2 invalid job count '-j 0' (use 1 to 256)"
  assert_line "bad workspace expansions: 2 invalid workspace expansions setting '2' (use 0 or 1)"
  assert_line "file status 0, buffer status 0, bundles equal 1, manifests equal 1"
  assert_line "paths out/model.hipfb out/model.json"
  assert_line "targets 1, first gfx90a, code object present"
  assert_line "kernel out of range: 2"
  assert_line "write: 0"
  assert_line "streamed write: 0"
  assert_line "streamed manifest equals the text: 1 (over 1000 bytes)"
  assert_line "partitions text starts target gfx90a:"
  assert_line "bad status 1, 1 diagnostics"
  assert_line "diag bad.mlir 2 8 error: unknown operation 'tosa.bogus'"
  assert_line "bad write: 2 the compile failed; nothing to write"
  assert_line "bad bundle absent"
  assert_line "missing status 3: cannot read 'no/such.mlir': No such file or directory"
  # tosac_result_write wrote the bundle and manifest under the names the options gave
  clang-offload-bundler-22 -type=o -list -input=out/model.hipfb | grep -qx 'hipv4-amdgcn-amd-amdhsa--gfx90a'
  run /usr/bin/python3 -c "import json; print(json.load(open('out/model.json'))['bundle'])"
  assert_output "out/model.hipfb"
}

@test "four threads compile different graphs at once: every result equals the single-threaded one" {
  cd "$W"
  TOSAC_SPLIT_K_FORM=combine run "$BIN/test-lib_stress" 4 3 "$ROOT/samples/gelu.mlir" "$ROOT/samples/swish.mlir" mm.mlir bad.mlir
  assert_success
  assert_line --partial "mm.mlir: status 0, 2 kernels on gfx90a"
  assert_line --partial "bad.mlir: status 1, 0 kernels on -, 0 bundle bytes, 1 diagnostics"
  assert_line "ok 48 compiles"
}
