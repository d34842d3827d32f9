#!/usr/bin/env bats
# The tosac command line: options, exit codes, output files, determinism, partitioning.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  cd "$BATS_TEST_TMPDIR"
  cat > add.mlir <<'M'
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
M
}

@test "--help prints usage and exits 0" {
  run "$TOSAC" --help
  assert_success
  assert_line --index 0 "usage: tosac [options] <input.mlir | ->"
  assert_output --partial "--offload-arch=ID[,ID]"
}

@test "--version prints the version" {
  run "$TOSAC" --version
  assert_success
  assert_output "tosac 0.1.0 (LLVM 22)"
}

@test "--print-targets lists the seven default targets" {
  run "$TOSAC" --print-targets
  assert_success
  for t in gfx908 gfx90a gfx942 gfx950 gfx1030 gfx1100 gfx1200; do
    assert_line --regexp "^$t .* yes$"
  done
}

@test "no input is a usage error (exit 2)" {
  run "$TOSAC"
  assert_failure 2
  assert_line --index 0 "tosac: error: no input file"
}

@test "an unknown option is a usage error (exit 2)" {
  run "$TOSAC" --frobnicate add.mlir
  assert_failure 2
  assert_line --index 0 "tosac: error: unknown option '--frobnicate'"
}

@test "an unknown target is a usage error naming the known ones, and writes nothing" {
  run "$TOSAC" add.mlir --offload-arch=gfx90a,gfx999 -o out.hipfb
  assert_failure 2
  assert_line --index 0 --partial "tosac: error: unknown target 'gfx999'"
  assert_line --index 0 --partial "gfx1100"
  [ ! -e out.hipfb ] && [ ! -e out.json ]
}

@test "an unreadable input is an error (exit 1)" {
  run "$TOSAC" missing.mlir
  assert_failure 1
  assert_output "tosac: error: cannot read 'missing.mlir': No such file or directory"
}

@test "a bad -O level and a bad --emit are usage errors" {
  run "$TOSAC" -O7 add.mlir
  assert_failure 2
  assert_line --index 0 "tosac: error: invalid optimisation level '-O7' (use -O0 to -O3)"
  run "$TOSAC" --emit=pdf add.mlir
  assert_failure 2
  assert_line --index 0 --regexp "^tosac: error: unknown --emit kind 'pdf' \(use bundle, llvm, asm, .*partitions.* or .*\)$"
}

@test "default outputs are named after the input, next to the bundle for the manifest" {
  run "$TOSAC" add.mlir --offload-arch=gfx90a
  assert_success
  assert_output ""
  [ -s add.hipfb ] && [ -s add.json ]
  mkdir -p sub
  run "$TOSAC" add.mlir --offload-arch=gfx90a -o sub/model.hipfb
  assert_success
  [ -s sub/model.hipfb ] && [ -s sub/model.json ]
}

@test "input from standard input" {
  run bash -c "'$TOSAC' - --offload-arch=gfx1030 -o s.hipfb < add.mlir"
  assert_success
  [ -s s.hipfb ] && [ -s s.json ]
}

@test "a failed compile leaves no output and does not touch an existing one" {
  echo "previous" > bad.hipfb
  echo "previous" > bad.json
  printf 'func.func @main(%%a: tensor<2xf32>) -> tensor<2xf32> {\n  %%0 = tosa.bogus %%a : (tensor<2xf32>) -> tensor<2xf32>\n  return %%0 : tensor<2xf32>\n}\n' > bad.mlir
  run "$TOSAC" bad.mlir -o bad.hipfb
  assert_failure 1
  [ "$(cat bad.hipfb)" = previous ] && [ "$(cat bad.json)" = previous ]
  [ -z "$(ls | grep tmp)" ]
}

@test "two runs give byte-identical bundle and manifest" {
  run "$TOSAC" add.mlir -o one.hipfb --embed-ir
  assert_success
  run "$TOSAC" add.mlir -o two.hipfb --embed-ir --manifest one2.json
  assert_success
  cmp one.hipfb two.hipfb
  sed 's/two.hipfb/one.hipfb/' one2.json | cmp - one.json
}

@test "a chain of elementwise ops is one kernel; two independent chains are two" {
  cat > chain.mlir <<'M'
func.func @main(%a: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %0 = tosa.add %a, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %1 = tosa.exp %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = tosa.sigmoid %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
M
  run "$TOSAC" chain.mlir --offload-arch=gfx90a -o chain.hipfb
  assert_success
  run /usr/bin/python3 -c 'import json,sys; m=json.load(open("chain.json")); t=m["targets"][0]; print(t["kernel_count"], len(t["launches"]), [o["op"] for o in t["kernels"][0]["ops"]])'
  assert_output "1 1 ['tosa.add', 'tosa.exp', 'tosa.sigmoid']"
  cat > two.mlir <<'M'
func.func @main(%a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = tosa.exp %a : (tensor<16xf32>) -> tensor<16xf32>
  %1 = tosa.abs %0 : (tensor<16xf32>) -> tensor<16xf32>
  %2 = tosa.tanh %b : (tensor<16xf32>) -> tensor<16xf32>
  return %1, %2 : tensor<16xf32>, tensor<16xf32>
}
M
  run "$TOSAC" two.mlir --offload-arch=gfx1100 -o two.hipfb
  assert_success
  run /usr/bin/python3 -c 'import json; t=json.load(open("two.json"))["targets"][0]; print(t["kernel_count"], [l["deps"] for l in t["launches"]])'
  assert_output "2 [[], []]"
}

# Changed with the recomputation rule of docs/partitioning.md (issue 6): a cheap producer
# broadcast into one larger consumer is recomputed there; a materialised one (here because it
# is also a result) still starts a kernel that the consumer depends on.
@test "a cheap broadcast producer is recomputed in its consumer; a materialised one is a kernel of its own" {
  cat > bc.mlir <<'M'
func.func @main(%a: tensor<1x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tosa.exp %a : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %1 = tosa.add %0, %b : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
M
  run "$TOSAC" bc.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  assert_line "  kernel 0 tosac_k0_exp_add over tensor<4x8xf32>"
  sed -i 's/return %1 : tensor<4x8xf32>/return %1, %0 : tensor<4x8xf32>, tensor<1x8xf32>/; s/-> tensor<4x8xf32> {/-> (tensor<4x8xf32>, tensor<1x8xf32>) {/' bc.mlir
  run "$TOSAC" bc.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "target gfx90a: 2 kernels, 2 launches, workspace 0 bytes"
  assert_line "  launch 1: kernel 1 after [0]"
}

@test "-v reports the stages" {
  run "$TOSAC" add.mlir --offload-arch=gfx90a -v -o v.hipfb
  assert_success
  assert_output --regexp "tosac: parse and verify +[0-9.]+ ms"
  assert_output --regexp "tosac: codegen gfx90a +[0-9.]+ ms"
  assert_output --partial "tosac: wrote v.hipfb"
}

@test "-j 1 and -j 2 give byte-identical outputs" {
  run "$TOSAC" add.mlir -j 1 -o j1.hipfb --manifest j.json
  assert_success
  cp j.json j1.json
  run "$TOSAC" add.mlir -j 2 -o j1.hipfb --manifest j.json
  assert_success
  cmp j.json j1.json
  run "$TOSAC" add.mlir -j 0
  assert_failure 2
  assert_line --index 0 "tosac: error: invalid job count '-j 0' (use 1 to 256)"
}

@test "-MD writes a depfile; -MF and -MT choose its name and target" {
  run "$TOSAC" add.mlir --offload-arch=gfx90a -o m.hipfb -MD
  assert_success
  assert_equal "$(cat m.d)" "m.hipfb m.json: add.mlir"
  run "$TOSAC" add.mlir --offload-arch=gfx90a -o m.hipfb -MF deps/x.d -MT model
  assert_failure 1
  mkdir deps
  run "$TOSAC" add.mlir --offload-arch=gfx90a -o m.hipfb -MF deps/x.d -MT model
  assert_success
  assert_equal "$(cat deps/x.d)" "model: add.mlir"
}

@test "a Makefile rebuilds the bundle only when the graph changes" {
  printf 'TOSAC := %s\nm.hipfb: add.mlir\n\t$(TOSAC) add.mlir --offload-arch=gfx1030 -o m.hipfb -MD\n-include m.d\n' "$TOSAC" > Makefile
  run make -s
  assert_success
  run make
  assert_output --partial "is up to date"
  sleep 1; touch add.mlir
  run make
  assert_output --partial "$TOSAC add.mlir"
}

@test "--emit=dot draws kernels as clusters with their ops and dependencies" {
  # %0 is also a result, so it is materialised by a kernel of its own (not recomputed).
  cat > bc.mlir <<'M'
func.func @main(%a: tensor<1x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<1x8xf32>) {
  %0 = tosa.exp %a : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %1 = tosa.add %0, %b : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1, %0 : tensor<4x8xf32>, tensor<1x8xf32>
}
M
  run "$TOSAC" bc.mlir --offload-arch=gfx1100 --emit=dot
  assert_success
  assert_line --index 0 'digraph "gfx1100" {'
  assert_line '  subgraph cluster_k0 {'
  assert_line '    label="kernel 1: tosac_k1_add";'
  # nodes are named per kernel (an op expanded into several kernels appears in each)
  assert_line '    k0_op0 [label="tosa.exp\ntensor<1x8xf32>"];'
  assert_line '  k0_op0 -> k1_op1;'
  assert_line '  arg1 -> k1_op1;'
  assert_line '  k0_op0 -> k1_op1 [style=dashed, color=gray, constraint=false];'
  assert_line '  k1_op1 -> res0;'
  assert_line '  k0_op0 -> res1;'
}

@test "ops whose results are never used get no kernel" {
  cat > dead.mlir <<'M'
func.func @main(%a: tensor<9xf32>, %b: tensor<9xf32>) -> tensor<9xf32> {
  %0 = tosa.exp %a : (tensor<9xf32>) -> tensor<9xf32>
  %1 = tosa.abs %b : (tensor<9xf32>) -> tensor<9xf32>
  return %1 : tensor<9xf32>
}
M
  run "$TOSAC" dead.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  assert_line "  kernel 0 tosac_k0_abs over tensor<9xf32>"
}

@test "identical kernels are generated once and launched twice, and still compute right" {
  cat > twin.mlir <<'M'
func.func @main(%a: tensor<3x33xf32>, %b: tensor<3x33xf32>) -> (tensor<3x33xf32>, tensor<3x33xf32>) {
  %0 = tosa.exp %a : (tensor<3x33xf32>) -> tensor<3x33xf32>
  %1 = tosa.tanh %0 : (tensor<3x33xf32>) -> tensor<3x33xf32>
  %2 = tosa.exp %b : (tensor<3x33xf32>) -> tensor<3x33xf32>
  %3 = tosa.tanh %2 : (tensor<3x33xf32>) -> tensor<3x33xf32>
  return %1, %3 : tensor<3x33xf32>, tensor<3x33xf32>
}
M
  run "$TOSAC" twin.mlir --offload-arch=gfx90a,gfx1100 --embed-ir -o twin.hipfb
  assert_success
  run /usr/bin/python3 -c '
import json
for t in json.load(open("twin.json"))["targets"]:
    ks = t["kernels"]
    print(t["kernel_count"], t["distinct_kernels"], ks[0]["name"] == ks[1]["name"],
          [[a["buffer"] for a in k["args"] if a["buffer"] is not None] for k in ks])'
  assert_line --index 0 "2 1 True [[0, 2], [1, 3]]"
  assert_line --index 1 "2 1 True [[0, 2], [1, 3]]"
  run llvm-readelf-22 --notes <(clang-offload-bundler-22 -type=o -unbundle -targets=hipv4-amdgcn-amd-amdhsa--gfx90a -input=twin.hipfb -output=/dev/stdout)
  assert_equal "$(echo "$output" | grep -c '\.name: *tosac_k0')" 1
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" twin.mlir --targets gfx90a,gfx1100 --tosac "$TOSAC" \
    --tosac-run "$ROOT/${TOSAC_BUILD:-build}/bin/tosac-run"
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "every fuzz seed (all of upstream's TOSA op tests) compiles or fails with a diagnostic, never crashes" {
  crashes=0
  for f in "$ROOT"/tests/fuzz/seeds/parser/*.mlir; do
    rc=0
    "$TOSAC" "$f" --offload-arch=gfx942 -o s.hipfb >/dev/null 2>err.txt || rc=$?
    if [ $rc -gt 2 ] || { [ $rc -ne 0 ] && ! grep -q 'error: ' err.txt; }; then
      echo "exit $rc on $f"; crashes=$((crashes + 1))
    fi
  done
  [ "$crashes" -eq 0 ]
}

@test "writing to a device (-o /dev/null) writes in place and leaves the device alone" {
  run "$TOSAC" add.mlir --offload-arch=gfx90a --emit=partitions -o /dev/null
  assert_success
  [ -c /dev/null ]
  run "$TOSAC" add.mlir --offload-arch=gfx90a -o /dev/null --manifest m.json
  assert_success
  [ -c /dev/null ] && [ -s m.json ]
}

@test "writing through a symlink replaces its target, never the link (/dev/stdout redirected to a file)" {
  mkdir out
  ln -s out/real.hipfb link.hipfb
  run "$TOSAC" add.mlir --offload-arch=gfx90a -o link.hipfb --manifest m.json
  assert_success
  [ -L link.hipfb ] && [ -s out/real.hipfb ]
  run clang-offload-bundler-22 -list -type=o -input=out/real.hipfb
  assert_line "hipv4-amdgcn-amd-amdhsa--gfx90a"
  # stdout redirected to a file: /dev/stdout -> /proc/self/fd/1 -> that file
  "$TOSAC" add.mlir --offload-arch=gfx90a -o /dev/stdout --manifest m2.json > viastdout.hipfb
  [ -L /dev/stdout ]
  cmp viastdout.hipfb out/real.hipfb
}
