#!/usr/bin/env bats
# Code generation: the code objects in the bundle against the manifest (metadata note, ELF
# header, target-ID features), vectorised loads, code object versions, target-ID errors.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  cd "$BATS_TEST_TMPDIR"
  # 4099 x 64 f32 elements with a broadcast row, a constant and a tail: two outputs.
  cat > ew.mlir <<'M'
func.func @main(%a: tensor<4099x64xf32>, %b: tensor<1x64xf32>) -> (tensor<4099x64xf32>, tensor<4099x64xi8>) {
  %c = "tosa.const"() <{values = dense<2.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.add %a, %b : (tensor<4099x64xf32>, tensor<1x64xf32>) -> tensor<4099x64xf32>
  %1 = tosa.mul %0, %c, %s : (tensor<4099x64xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4099x64xf32>
  %2 = tosa.tanh %1 : (tensor<4099x64xf32>) -> tensor<4099x64xf32>
  %3 = tosa.cast %2 : (tensor<4099x64xf32>) -> tensor<4099x64xi8>
  return %2, %3 : tensor<4099x64xf32>, tensor<4099x64xi8>
}
M
}

# check_against_manifest BUNDLE MANIFEST TARGET_ID: unbundle the target's code object and compare
# its metadata note and ELF header with the manifest's target entry.
check_against_manifest() {
  clang-offload-bundler-22 -type=o -unbundle -input="$1" \
    -targets="hipv4-amdgcn-amd-amdhsa--$3" -output=co.elf
  llvm-readelf-22 --notes co.elf > notes.txt
  llvm-readelf-22 -h co.elf > header.txt
  /usr/bin/python3 - "$2" "$3" <<'PY'
import json, re, sys, yaml
manifest = json.load(open(sys.argv[1]))
tid = sys.argv[2]
target = [t for t in manifest["targets"] if t["target_id"] == tid][0]
text = open("notes.txt").read()
doc = yaml.safe_load(text[text.index("---"):text.index("\n...")])
note = {k[".name"]: k for k in doc["amdhsa.kernels"]}
assert target["kernel_count"] == len(manifest_k := target["kernels"]) == len(note), (len(note), target["kernel_count"])
for k in manifest_k:
    n = note[k["name"]]
    pairs = [(k["symbol"], n[".symbol"]), (k["kernarg_size"], n[".kernarg_segment_size"]),
             (k["kernarg_align"], n[".kernarg_segment_align"]),
             (k["lds_bytes"], n[".group_segment_fixed_size"]),
             (k["private_bytes"], n[".private_segment_fixed_size"]),
             (k["max_flat_workgroup_size"], n[".max_flat_workgroup_size"]),
             (k["registers"]["sgpr"], n[".sgpr_count"]), (k["registers"]["vgpr"], n[".vgpr_count"]),
             (k["registers"]["agpr"], n.get(".agpr_count", 0)),
             (k["registers"]["sgpr_spills"], n[".sgpr_spill_count"]),
             (k["registers"]["vgpr_spills"], n[".vgpr_spill_count"]),
             (target["wavefront_size"], n[".wavefront_size"]),
             (len(k["args"]), len(n[".args"]))]
    for a, b in zip(k["args"], n[".args"]):
        pairs += [(a["offset"], b[".offset"]), (a["size"], b[".size"]), (a["value_kind"], b[".value_kind"])]
    for got, want in pairs:
        assert got == want, (k["name"], got, want)
    assert k["block"] == [256, 1, 1] and k["tuning"]["block_size"] == 256
hdr = open("header.txt").read()
flags = int(re.search(r"Flags:\s+(0x[0-9a-f]+)", hdr).group(1), 16)
abi = int(re.search(r"ABI Version:\s+(\d+)", hdr).group(1))
assert int(target["e_flags"], 16) == flags, (target["e_flags"], hex(flags))
assert target["abi_version"] == abi, (target["abi_version"], abi)
print("ok", tid, hex(flags), abi, len(note))
PY
}

@test "every default target: the manifest equals the metadata note and ELF header" {
  run "$TOSAC" ew.mlir -o ew.hipfb
  assert_success
  for t in gfx908 gfx90a gfx942 gfx950 gfx1030 gfx1100 gfx1200; do
    run check_against_manifest ew.hipfb ew.json "$t"
    assert_success
    assert_output --regexp "^ok $t 0x[0-9a-f]+ 3 [1-9][0-9]*$"
  done
}

@test "gfx90a:sramecc+:xnack- gives e_flags 0xe3f and EI_ABIVERSION 3 (code object v5)" {
  run "$TOSAC" ew.mlir -o ew.hipfb --offload-arch=gfx90a:sramecc+:xnack-
  assert_success
  run check_against_manifest ew.hipfb ew.json gfx90a:sramecc+:xnack-
  assert_success
  assert_output --regexp "^ok gfx90a:sramecc\+:xnack- 0xe3f 3 [1-9][0-9]*$"
  run /usr/bin/python3 -c 'import json; t = json.load(open("ew.json"))["targets"][0]; print(t["e_flags"], t["abi_version"], t["wavefront_size"], t["lds_limit"])'
  assert_output "0xe3f 3 64 65536"
}

@test "target-ID features map to e_flags; RDNA objects carry none" {
  "$TOSAC" ew.mlir -o f.hipfb --offload-arch=gfx90a,gfx90a:xnack+,gfx942:sramecc-,gfx950,gfx1030,gfx1100,gfx1200
  run /usr/bin/python3 -c 'import json; print(" ".join(t["target_id"] + "=" + t["e_flags"] for t in json.load(open("f.json"))["targets"]))'
  assert_output "gfx90a=0x53f gfx90a:xnack+=0x73f gfx942:sramecc-=0x94c gfx950=0x54f gfx1030=0x36 gfx1100=0x41 gfx1200=0x48"
}

@test "the elementwise kernel uses 128-bit global loads and stores (gfx90a, gfx1100)" {
  run "$TOSAC" ew.mlir -o ew90a.s --emit=asm --offload-arch=gfx90a
  assert_success
  run grep -c global_load_dwordx4 ew90a.s
  assert_success
  [ "$output" -ge 1 ]
  run grep -c global_store_dwordx4 ew90a.s
  [ "$output" -ge 1 ]
  run "$TOSAC" ew.mlir -o ew1100.s --emit=asm --offload-arch=gfx1100
  assert_success
  run grep -c global_load_b128 ew1100.s
  [ "$output" -ge 1 ]
}

@test "--emit=llvm: amdgpu_kernel, noalias buffers, launch bounds, code object version 500" {
  run "$TOSAC" ew.mlir -o ew.ll --emit=llvm --offload-arch=gfx942
  assert_success
  assert grep -q 'define amdgpu_kernel void @tosac_k0_' ew.ll
  assert grep -q 'ptr addrspace(1) noalias noundef readonly captures(none) %in0' ew.ll
  assert grep -q 'ptr addrspace(1) noalias noundef writeonly captures(none) %out0' ew.ll
  assert grep -q '"amdgpu-flat-work-group-size"="1,256"' ew.ll
  assert grep -q '!{i32 1, !"amdhsa_code_object_version", i32 500}' ew.ll
  # no libm calls survive: the backend could not link them
  run grep -E '^declare .*@(tanhf?|expf?|erff?)\(' ew.ll
  assert_failure
}

@test "--code-object-version selects EI_ABIVERSION 2, 3, 4" {
  for v in 4 5 6; do
    run "$TOSAC" ew.mlir -o v$v.hipfb --offload-arch=gfx1100 --code-object-version=$v
    assert_success
    run /usr/bin/python3 -c "import json; print(json.load(open('v$v.json'))['targets'][0]['abi_version'])"
    assert_output "$((v - 2))"
  done
}

@test "unknown target lists the known ones" {
  run "$TOSAC" ew.mlir -o x.hipfb --offload-arch=gfx999
  assert_failure 2
  assert_line --index 0 "tosac: error: unknown target 'gfx999'; known targets: gfx908, gfx90a, gfx942, gfx950, gfx1030, gfx1100, gfx1200"
}

@test "target-ID feature errors: unknown, duplicated, absent on the processor" {
  run "$TOSAC" ew.mlir -o x.hipfb --offload-arch=gfx90a:ecc+
  assert_failure 2
  assert_line --index 0 "tosac: error: unknown target feature 'ecc+' in 'gfx90a:ecc+' (expected sramecc+, sramecc-, xnack+ or xnack-)"
  run "$TOSAC" ew.mlir -o x.hipfb --offload-arch=gfx90a:xnack+:xnack-
  assert_failure 2
  assert_line --index 0 "tosac: error: target feature 'xnack' given twice in 'gfx90a:xnack+:xnack-'"
  run "$TOSAC" ew.mlir -o x.hipfb --offload-arch=gfx1100:xnack+
  assert_failure 2
  assert_line --index 0 "tosac: error: target 'gfx1100' has no 'xnack' feature"
}

@test "feature order does not matter: the canonical ID lists features alphabetically" {
  run "$TOSAC" ew.mlir -o o.hipfb --offload-arch=gfx90a:xnack-:sramecc+
  assert_success
  run /usr/bin/python3 -c 'import json; t = json.load(open("o.json"))["targets"][0]; print(t["target_id"], t["bundle_entry_id"])'
  assert_output "gfx90a:sramecc+:xnack- hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
}
