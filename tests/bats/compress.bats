#!/usr/bin/env bats
# --compress[=v2|v3]: CCOB bundles that clang-offload-bundler-22 reads back to the uncompressed
# bundle's entries, and that every tosac reader accepts (bnd_parse decompresses them).

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  export T="$BATS_FILE_TMPDIR"
  export IDS=hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-,hipv4-amdgcn-amd-amdhsa--gfx1100
  cat > "$T/mul.mlir" <<'EOF'
func.func @main(%a: tensor<4x5xf32>, %b: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %s : (tensor<4x5xf32>, tensor<4x5xf32>, tensor<1xi8>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
EOF
  cd "$T"
  local arch=--offload-arch=gfx90a:sramecc+:xnack-,gfx1100
  "$BIN/tosac" mul.mlir $arch --embed-ir -o plain.hipfb
  "$BIN/tosac" mul.mlir $arch --embed-ir --compress -o v2.hipfb
  "$BIN/tosac" mul.mlir $arch --embed-ir --compress=v3 -o v3.hipfb
}

# CCOB header fields (AMDGPU.md 1.3) as "version method total uncompressed hash".
header() {
  /usr/bin/python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
assert d[:4] == b'CCOB', d[:4]
ver, method = struct.unpack_from('<HH', d, 4)
if ver == 2: total, size, h = struct.unpack_from('<IIQ', d, 8)
else: total, size, h = struct.unpack_from('<QQQ', d, 8)
print(ver, method, total, size, hex(h))
EOF
}

@test "--compress writes CCOB version 2 with zstd; sizes and MD5 hash as the bundler computes" {
  cd "$T"
  read ver method total size hash < <(header v2.hipfb)
  [ "$ver" = 2 ] && [ "$method" = 1 ]
  [ "$total" = "$(stat -c %s v2.hipfb)" ]
  [ "$size" = "$(stat -c %s plain.hipfb)" ]
  want=$(/usr/bin/python3 -c "import hashlib,struct; print(hex(struct.unpack('<Q', hashlib.md5(open('plain.hipfb','rb').read()).digest()[:8])[0]))")
  [ "$hash" = "$want" ]
  [ "$total" -lt "$size" ]
  run env OFFLOAD_BUNDLER_VERBOSE=1 clang-offload-bundler-22 -type=o -unbundle -targets=$IDS \
    -input=v2.hipfb -output=c90.co -output=c11.co
  assert_success
  assert_output --partial "Hashes match: Yes"
}

@test "--compress=v3 writes CCOB version 3 (u64 sizes)" {
  cd "$T"
  read ver method total size hash < <(header v3.hipfb)
  [ "$ver" = 3 ] && [ "$method" = 1 ]
  [ "$total" = "$(stat -c %s v3.hipfb)" ]
  [ "$size" = "$(stat -c %s plain.hipfb)" ]
}

@test "clang-offload-bundler-22 -list and -unbundle read both versions back to the plain entries" {
  cd "$T"
  want=$(clang-offload-bundler-22 -type=o -list -input=plain.hipfb | sort)
  clang-offload-bundler-22 -type=o -unbundle -targets=$IDS -input=plain.hipfb -output=p90.co -output=p11.co
  for v in v2 v3; do
    [ "$(clang-offload-bundler-22 -type=o -list -input=$v.hipfb | sort)" = "$want" ]
    clang-offload-bundler-22 -type=o -unbundle -targets=$IDS -input=$v.hipfb -output=$v.90.co -output=$v.11.co
    cmp $v.90.co p90.co
    cmp $v.11.co p11.co
  done
  [ "$(wc -l <<<"$want")" -eq 5 ]
}

@test "the decompressed bundle is the uncompressed bundle byte for byte" {
  command -v zstd >/dev/null || skip "the zstd command is not installed"
  cd "$T"
  tail -c +25 v2.hipfb | zstd -dq -o v2.plain
  cmp v2.plain plain.hipfb
  tail -c +33 v3.hipfb | zstd -dq -o v3.plain
  cmp v3.plain plain.hipfb
}

@test "compressed output is deterministic" {
  cd "$T"
  "$BIN/tosac" mul.mlir --offload-arch=gfx90a:sramecc+:xnack-,gfx1100 --embed-ir --compress -o again.hipfb
  cmp again.hipfb v2.hipfb
}

@test "--compress=v4 is a usage error" {
  run "$BIN/tosac" "$T/mul.mlir" --compress=v4 -o "$T/x.hipfb"
  assert_failure 2
  assert_line --index 0 "tosac: error: invalid --compress version 'v4' (use v2 or v3)"
  [ ! -e "$T/x.hipfb" ]
}

@test "tosac-bundle reads compressed bundles: list, extract, verify" {
  cd "$T"
  run "$BIN/tosac-bundle" list v2.hipfb
  assert_success
  assert_line --index 0 "compressed: CCOB version 2, zstd, $(stat -c %s v2.hipfb) bytes -> $(stat -c %s plain.hipfb) bytes"
  [ "$(tail -n +2 <<<"$output")" = "$("$BIN/tosac-bundle" list plain.hipfb)" ]
  "$BIN/tosac-bundle" extract v3.hipfb hipv4-amdgcn-amd-amdhsa--gfx1100 -o e11.co
  cmp e11.co p11.co
  run "$BIN/tosac-bundle" verify v3.hipfb --manifest v3.json
  assert_success
  assert_output "ok: 2 code objects, 2 kernels, manifest agrees"
}

@test "tosac-run runs a compressed bundle with the same results" {
  cd "$T"
  a="4x5xf32=$(seq -s ' ' 1 20)"; b="4x5xf32=$(seq -s ' ' 0.5 0.5 10)"
  run "$BIN/tosac-run" v2.hipfb --target=gfx1100 --input="$a" --input="$b"
  assert_success
  compressed=$output
  run "$BIN/tosac-run" plain.hipfb --target=gfx1100 --input="$a" --input="$b"
  [ "$output" = "$compressed" ]
  assert_output --partial "4x5xf32=[0.5 2 4.5 8 12.5][18 24.5 32 40.5 50][60.5 72 84.5 98 112.5][128 144.5 162 180.5 200]"
}

@test "corrupted compressed bundles: clear errors; a wrong hash is accepted but fails verify" {
  cd "$T"
  head -c 200 v2.hipfb > cut.hipfb
  for cmd in list info verify; do
    run "$BIN/tosac-bundle" $cmd cut.hipfb
    assert_failure 1
    assert_output "tosac-bundle: error: cut.hipfb: compressed (CCOB) bundle: header claims $(stat -c %s v2.hipfb) bytes, but the file has 200 (header 24)"
  done
  run "$BIN/tosac-run" cut.hipfb --manifest v2.json --target=gfx1100
  assert_failure 1
  assert_output --partial "compressed (CCOB) bundle: header claims"
  cp v2.hipfb frame.hipfb
  printf '\377\377\377\377' | dd of=frame.hipfb bs=1 seek=40 conv=notrunc status=none
  run "$BIN/tosac-bundle" list frame.hipfb
  assert_failure 1
  assert_output --regexp "^tosac-bundle: error: frame.hipfb: compressed \\(CCOB\\) bundle: zstd data is corrupt or does not give $(stat -c %s plain.hipfb) bytes \(.*\)$"
  cp v2.hipfb hash.hipfb
  printf 'X' | dd of=hash.hipfb bs=1 seek=16 conv=notrunc status=none
  run "$BIN/tosac-bundle" list hash.hipfb
  assert_success
  run "$BIN/tosac-bundle" verify hash.hipfb
  assert_failure 1
  assert_output --regexp '^error: compressed bundle hash 0x[0-9a-f]{16} does not match its contents \(0x[0-9a-f]{16}\)$'
}
