#!/usr/bin/env bats
# The offload bundle: byte-identical to clang-offload-bundler-22, readable by it, loadable layout
# for HIP (header in the first 4096 bytes, 4096-aligned payloads), embedded IR entries.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  BUILD="$ROOT/${TOSAC_BUILD:-build}"
  TOSAC="$BUILD/bin/tosac"
  BUNDLER=clang-offload-bundler-22
  cd "$BATS_TEST_TMPDIR"
  cat > add.mlir <<'M'
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
M
}

# Independent reader (Python): prints "header <bytes>" then "<id> <offset> <size>" per entry,
# and with a directory argument writes each payload to <dir>/<n>.bin in file order.
read_bundle() {
  /usr/bin/python3 - "$@" <<'PY'
import struct, sys, os
d = open(sys.argv[1], 'rb').read()
assert d[:24] == b'__CLANG_OFFLOAD_BUNDLE__', 'magic'
n, = struct.unpack_from('<Q', d, 24)
p = 32
ents = []
for i in range(n):
    off, size, idl = struct.unpack_from('<QQQ', d, p)
    p += 24
    ents.append((d[p:p + idl].decode(), off, size))
    p += idl
print('header', p)
for i, (eid, off, size) in enumerate(ents):
    print(eid, off, size)
    assert off + size <= len(d), 'payload beyond the file'
    if len(sys.argv) > 2:
        open(os.path.join(sys.argv[2], '%d.bin' % i), 'wb').write(d[off:off + size])
PY
}

@test "test-bundle: bnd_build matches clang-offload-bundler-22 and bnd_parse rejects malformed input" {
  run "$BUILD/bin/test-bundle"
  assert_success
  assert_line "ok hip layout align 4096: 20008 bytes identical to clang-offload-bundler-22"
  assert_line "ok align 1: 9309 bytes identical to clang-offload-bundler-22"
  assert_line "ok embedded IR entries: 26116 bytes identical to clang-offload-bundler-22"
  assert_line "ok exact multiples: 8193 bytes identical to clang-offload-bundler-22"
  assert_line "ok align 16: 177 bytes identical to clang-offload-bundler-22"
  assert_line "ok reject count 2^64-1: bundle claims 18446744073709551615 entries; at most 4096 are accepted"
  assert_line "ok reject huge ID length: bundle entry 1: ID length 18446744073709551615 outside 1..127"
  assert_line --partial "ok reject offset+size overflow: bundle entry 1 (hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-): payload [18446744073709551608, +16) runs past the end of the file"
  assert_line "ok reject overlapping payloads: bundle entries 1 (hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-) and 2 (hipv4-amdgcn-amd-amdhsa--gfx1030) overlap"
  assert_line "ok reject duplicate IDs: duplicate bundle entry ID 'hipv4-amdgcn-amd-amdhsa--gfx90a'"
  assert_line "ok reject all 277 truncated prefixes"
  assert_line --regexp '^ok fuzz: 20000 mutated headers, [0-9]+ accepted in bounds, [0-9]+ rejected with a message$'
  assert_line --regexp '^all [0-9]+ checks passed$'
  refute_output --partial FAIL
}

@test "bundler lists exactly the host entry and each requested target" {
  run "$TOSAC" add.mlir -o out.hipfb --offload-arch=gfx90a:sramecc+:xnack-,gfx1030
  assert_success
  run bash -c "$BUNDLER -type=o -list -input=out.hipfb | sort"
  assert_success
  assert_output "$(printf '%s\n' host-x86_64-unknown-linux-gnu- \
    hipv4-amdgcn-amd-amdhsa--gfx1030 hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack- | sort)"
}

@test "header fits in the first 4096 bytes, payloads are 4096-aligned, host entry first" {
  "$TOSAC" add.mlir -o out.hipfb --offload-arch=gfx90a,gfx1030 --embed-ir
  run read_bundle out.hipfb
  assert_success
  assert_line --index 1 "host-x86_64-unknown-linux-gnu- 4096 0"
  header=$(echo "$output" | awk '/^header/ {print $2}')
  [ "$header" -le 4096 ]
  # 1 host + 2 code objects + 2 bitcode entries, every offset a multiple of 4096.
  [ "$(echo "$output" | tail -n +2 | wc -l)" -eq 5 ]
  echo "$output" | tail -n +2 | awk '{ if ($2 % 4096 != 0 || $2 == 0) exit 1 }'
}

@test "unbundled code objects are ET_DYN AMDGPU objects identical to our payloads" {
  "$TOSAC" add.mlir -o out.hipfb --offload-arch=gfx90a:sramecc+:xnack-,gfx1030
  mkdir ours
  read_bundle out.hipfb ours
  $BUNDLER -type=o -unbundle -input=out.hipfb \
    -targets=hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-,hipv4-amdgcn-amd-amdhsa--gfx1030 \
    -output=gfx90a.co -output=gfx1030.co
  cmp gfx90a.co ours/1.bin
  cmp gfx1030.co ours/2.bin
  for co in gfx90a.co gfx1030.co; do
    run llvm-readelf-22 -h "$co"
    assert_success
    assert_line --regexp '^ +Type: +DYN \(Shared object file\)$'
    assert_line --regexp '^ +Machine: +EM_AMDGPU$'
    assert_line --regexp '^ +ABI Version: +3$'
    assert_line --regexp '^ +OS/ABI: +AMDGPU - HSA$'
  done
  # The entry ID's features and the object's e_flags agree (sramecc on, xnack off = 0xe3f).
  run llvm-readelf-22 -h gfx90a.co
  assert_line --regexp '^ +Flags: +0xe3f'
  run llvm-readelf-22 -h gfx1030.co
  assert_line --regexp '^ +Flags: +0x36'
}

@test "clang-offload-bundler-22 rebuilds our bundle byte for byte from its parts" {
  "$TOSAC" add.mlir -o out.hipfb --offload-arch=gfx90a,gfx1030 --embed-ir
  mkdir ours
  read_bundle out.hipfb ours
  $BUNDLER -type=o -bundle-align=4096 \
    -targets=host-x86_64-unknown-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1030,openmp-amdgcn-amd-amdhsa--gfx90a,openmp-amdgcn-amd-amdhsa--gfx1030 \
    -input=/dev/null -input=ours/1.bin -input=ours/2.bin -input=ours/3.bin -input=ours/4.bin \
    -output=ref.hipfb
  cmp out.hipfb ref.hipfb
}

@test "--embed-ir adds openmp entries that unbundle to valid bitcode of the kernels" {
  "$TOSAC" add.mlir -o out.hipfb --offload-arch=gfx90a,gfx1030 --embed-ir
  run bash -c "$BUNDLER -type=o -list -input=out.hipfb | sort"
  assert_success
  assert_output "$(printf '%s\n' host-x86_64-unknown-linux-gnu- \
    hipv4-amdgcn-amd-amdhsa--gfx1030 hipv4-amdgcn-amd-amdhsa--gfx90a \
    openmp-amdgcn-amd-amdhsa--gfx1030 openmp-amdgcn-amd-amdhsa--gfx90a | sort)"
  $BUNDLER -type=o -unbundle -input=out.hipfb \
    -targets=openmp-amdgcn-amd-amdhsa--gfx90a,openmp-amdgcn-amd-amdhsa--gfx1030 \
    -output=gfx90a.bc -output=gfx1030.bc
  for t in gfx90a gfx1030; do
    [ "$(head -c 4 $t.bc | od -An -tx1 | tr -d ' ')" = "4243c0de" ]
    run llvm-dis-22 $t.bc -o -
    assert_success
    assert_line --regexp "^target triple = \"amdgcn-amd-amdhsa\"$"
    assert_line --regexp '^define .*amdgpu_kernel void @tosac_k0_add\('
    assert_output --partial '!{i32 1, !"amdhsa_code_object_version", i32 500}'
  done
  # Without --embed-ir the bundle carries code objects only.
  "$TOSAC" add.mlir -o plain.hipfb --offload-arch=gfx90a,gfx1030
  run bash -c "$BUNDLER -type=o -list -input=plain.hipfb | grep -c openmp"
  assert_output "0"
}

@test "same input and options give byte-identical bundles" {
  "$TOSAC" add.mlir -o a.hipfb --offload-arch=gfx90a,gfx1030 --embed-ir
  "$TOSAC" add.mlir -o b.hipfb --offload-arch=gfx90a,gfx1030 --embed-ir
  cmp a.hipfb b.hipfb
}
