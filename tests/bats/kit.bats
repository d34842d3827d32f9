#!/usr/bin/env bats
# Build and deployment kit: --time-report, the progress line, tosac-bundle (list, extract, info,
# verify on good and corrupted bundles), every reader on malformed input, tosac-hip-run (host
# logic, -Werror build, exit 77 without a GPU), make install, man pages.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  export KIT="$BATS_FILE_TMPDIR"
  export ID90=hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-
  export ID11=hipv4-amdgcn-amd-amdhsa--gfx1100
  cat > "$KIT/add.mlir" <<'EOF'
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
EOF
  cd "$KIT"
  "$BIN/tosac" add.mlir -o add.hipfb --offload-arch=gfx90a:sramecc+:xnack-,gfx1100 --embed-ir \
    --time-report 2> time.txt
  clang-offload-bundler-22 -type=o -unbundle -targets=$ID90,$ID11 -input=add.hipfb \
    -output=ref90.co -output=ref11.co
}

# Byte offset of the first NUL-terminated occurrence of $2 inside bundle entry $3 of file $1.
symbol_offset() {
  /usr/bin/python3 - "$@" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
n = struct.unpack_from('<Q', d, 24)[0]; p = 32; ents = []
for _ in range(n):
    off, size, l = struct.unpack_from('<QQQ', d, p); ents.append((off, size)); p += 24 + l
off, size = ents[int(sys.argv[3])]
print(off + d[off:off + size].index(sys.argv[2].encode() + b'\0'))
EOF
}

flip_byte() { # file offset: replace the byte with 'X'
  printf 'X' | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

@test "--time-report: driver stages and one row of codegen stages per target" {
  run cat "$KIT/time.txt"
  assert_line --index 0 "tosac: time report (ms, wall clock)"
  assert_line --index 1 --regexp '^  stage +ms$'
  assert_line --index 2 --regexp '^  parse and verify +[0-9]+\.[0-9]{2}$'
  assert_line --index 3 --regexp '^  optimise graph +[0-9]+\.[0-9]{2}$'
  assert_line --index 4 --regexp '^  partition +[0-9]+\.[0-9]{2}$'
  assert_line --index 5 --regexp '^  codegen \(all targets\) +[0-9]+\.[0-9]{2}$'
  assert_line --index 6 --regexp '^  bundle and manifest +[0-9]+\.[0-9]{2}$'
  assert_line --index 7 --regexp '^  total +[0-9]+\.[0-9]{2}$'
  assert_line --index 8 --regexp '^  target +IR build +optimise +codegen +link +metadata +total$'
  assert_line --index 9 --regexp '^  gfx90a:sramecc\+:xnack- +([0-9]+\.[0-9]{2} +){5}[0-9]+\.[0-9]{2}$'
  assert_line --index 10 --regexp '^  gfx1100 +([0-9]+\.[0-9]{2} +){5}[0-9]+\.[0-9]{2}$'
  [ "${#lines[@]}" -eq 11 ]
  # the per-target total is the sum of its columns (within rounding)
  /usr/bin/python3 - "$KIT/time.txt" <<'EOF'
import sys
for line in open(sys.argv[1]).read().splitlines()[9:]:
    v = [float(x) for x in line.split()[1:]]
    assert abs(sum(v[:5]) - v[5]) < 0.03, line
EOF
}

@test "--time-report with --syntax-only: only the parse stage" {
  run "$BIN/tosac" "$KIT/add.mlir" --syntax-only --time-report
  assert_success
  assert_line --index 2 --regexp '^  parse and verify +[0-9]+\.[0-9]{2}$'
  assert_line --index 3 --regexp '^  total +[0-9]+\.[0-9]{2}$'
  [ "${#lines[@]}" -eq 4 ]
}

@test "progress line: never when stderr is not a terminal, [k/n] on a terminal" {
  cd "$KIT"
  "$BIN/tosac" add.mlir -o p.hipfb --offload-arch=gfx90a,gfx1100 2> err.txt
  [ ! -s err.txt ]
  run script -qec "'$BIN/tosac' add.mlir -o p.hipfb --offload-arch=gfx90a,gfx1100 -j1" /dev/null
  assert_success
  assert_output --partial "[1/2] gfx90a ..."
  assert_output --partial "[2/2] gfx1100 ..."
}

@test "tosac-bundle list: entries, offsets and sizes as the bundler sees them" {
  run "$BIN/tosac-bundle" list "$KIT/add.hipfb"
  assert_success
  s90=$(stat -c %s "$KIT/ref90.co"); s11=$(stat -c %s "$KIT/ref11.co")
  assert_line --index 0 "entry     offset       size  id"
  assert_line --index 1 "0           4096          0  host-x86_64-unknown-linux-gnu-"
  assert_line --index 2 "$(printf '%-5d %10d %10d  %s' 1 4096 "$s90" "$ID90")"
  assert_line --index 3 --regexp "^2 +[0-9]+ +$s11  hipv4-amdgcn-amd-amdhsa--gfx1100\$"
  assert_line --index 4 --regexp "^3 +[0-9]+ +[0-9]+  openmp-amdgcn-amd-amdhsa--gfx90a:sramecc\+:xnack-\$"
  assert_line --index 5 --regexp "^4 +[0-9]+ +[0-9]+  openmp-amdgcn-amd-amdhsa--gfx1100\$"
  [ "${#lines[@]}" -eq 6 ]
}

@test "tosac-bundle extract: by ID and by number, identical to clang-offload-bundler -unbundle" {
  cd "$KIT"
  "$BIN/tosac-bundle" extract add.hipfb "$ID90" -o x90.co
  "$BIN/tosac-bundle" extract add.hipfb 2 -o x11.co
  cmp x90.co ref90.co
  cmp x11.co ref11.co
  "$BIN/tosac-bundle" extract add.hipfb 3 -o ir.bc
  run llvm-dis-22 ir.bc -o -
  assert_success
  assert_output --partial "define amdgpu_kernel void @tosac_k0_add"
  run "$BIN/tosac-bundle" extract add.hipfb hipv4-amdgcn-amd-amdhsa--gfx942 -o y.co
  assert_failure 1
  assert_output "tosac-bundle: error: add.hipfb has no entry 'hipv4-amdgcn-amd-amdhsa--gfx942' (see 'tosac-bundle list')"
  [ ! -e y.co ]
  run "$BIN/tosac-bundle" extract add.hipfb 1
  assert_failure 2
  assert_output --partial "tosac-bundle: error: extract needs ENTRY and -o OUT"
}

@test "tosac-bundle info: per target and kernel, the same numbers as the manifest" {
  run "$BIN/tosac-bundle" info "$KIT/add.hipfb"
  assert_success
  assert_line --index 0 --regexp '^target gfx90a:sramecc\+:xnack-: code object [0-9]+ bytes, e_flags 0xe3f \(mach 0x3f, xnack off, sramecc on\), abi_version 3 \(code object v5\), 1 kernel$'
  assert_line --index 2 --regexp '^target gfx1100: code object [0-9]+ bytes, e_flags 0x41 \(mach 0x41, xnack unsupported, sramecc unsupported\), abi_version 3 \(code object v5\), 1 kernel$'
  want=$(/usr/bin/python3 - "$KIT/add.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
for t in m['targets']:
    k = t['kernels'][0]; r = k['registers']
    print(f"  kernel {k['name']}: sgpr {r['sgpr']}, vgpr {r['vgpr']}, agpr {r['agpr']}, "
          f"spills {r['sgpr_spills']}/{r['vgpr_spills']}, lds {k['lds_bytes']}, private {k['private_bytes']}, "
          f"kernarg {k['kernarg_size']} (align {k['kernarg_align']}, {len(k['args'])} args), "
          f"wave {t['wavefront_size']}, max_flat_workgroup_size {k['max_flat_workgroup_size']}")
EOF
)
  assert_line --index 1 "$(sed -n 1p <<<"$want")"
  assert_line --index 3 "$(sed -n 2p <<<"$want")"
  assert_line --index 4 --regexp '^target gfx90a:sramecc\+:xnack-: kernel IR, [0-9]+ bytes of LLVM bitcode$'
}

@test "tosac-bundle verify: a good bundle and its manifest agree" {
  run "$BIN/tosac-bundle" verify "$KIT/add.hipfb" --manifest "$KIT/add.json"
  assert_success
  assert_output "ok: 2 code objects, 2 kernels, manifest agrees"
  run "$BIN/tosac-bundle" verify "$KIT/add.hipfb"
  assert_output "ok: 2 code objects, 2 kernels"
}

@test "tosac-bundle verify: a flipped byte in the kernel symbol" {
  cp "$KIT/add.hipfb" "$KIT/badsym.hipfb"
  flip_byte "$KIT/badsym.hipfb" "$(symbol_offset "$KIT/add.hipfb" tosac_k0_add 1)"
  run "$BIN/tosac-bundle" verify "$KIT/badsym.hipfb" --manifest "$KIT/add.json"
  assert_failure 1
  assert_line --index 0 "error: $ID90: kernel descriptor tosac_k0_add.kd has no kernel symbol tosac_k0_add"
  assert_line --index 1 --regexp "^error: the bundle does not belong to this manifest: its digest is sha256:[0-9a-f]{16}\.\.\., the manifest records sha256:[0-9a-f]{16}\.\.\. \(outputs of another compile\?\)$"
  assert_line --index 2 "error: $ID90: kernel symbol 'tosac_k0_add' named by the manifest is missing"
  [ "${#lines[@]}" -eq 3 ]
}

@test "tosac-bundle verify: a flipped byte in the kernel descriptor symbol" {
  cp "$KIT/add.hipfb" "$KIT/badkd.hipfb"
  flip_byte "$KIT/badkd.hipfb" "$(symbol_offset "$KIT/add.hipfb" tosac_k0_add.kd 2)"
  run "$BIN/tosac-bundle" verify "$KIT/badkd.hipfb" --manifest "$KIT/add.json"
  assert_failure 1
  assert_line "error: $ID11: kernel descriptor Xosac_k0_add.kd has no kernel symbol Xosac_k0_add"
  assert_line "error: $ID11: kernel Xosac_k0_add: kernel 'Xosac_k0_add' missing from the AMDGPU metadata note"
  assert_line "error: $ID11: kernel descriptor symbol 'tosac_k0_add.kd' named by the manifest is missing"
}

@test "tosac-bundle verify: an entry ID whose features disagree with e_flags" {
  # xnack- -> xnack+ in the header's ID (same length, payloads untouched)
  /usr/bin/python3 -c "
import sys; d = open('$KIT/add.hipfb','rb').read()
open('$KIT/badid.hipfb','wb').write(d.replace(b'gfx90a:sramecc+:xnack-', b'gfx90a:sramecc+:xnack+', 1))"
  run "$BIN/tosac-bundle" verify "$KIT/badid.hipfb"
  assert_failure 1
  assert_line --index 0 "error: hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+: e_flags 0xe3f do not match the entry ID (expected 0xf3f: mach 0x3f, xnack on, sramecc on)"
  assert_line "error: openmp-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-: no code object entry hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack- for this IR"
}

@test "tosac-bundle verify: manifest kernarg size and argument layout must match the metadata" {
  /usr/bin/python3 - "$KIT/add.json" "$KIT/bad.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
k = m['targets'][1]['kernels'][0]
k['kernarg_size'] += 8
k['args'][1]['offset'] += 4
json.dump(m, open(sys.argv[2], 'w'))
EOF
  size=$(/usr/bin/python3 -c "import json; print(json.load(open('$KIT/add.json'))['targets'][1]['kernels'][0]['kernarg_size'])")
  run "$BIN/tosac-bundle" verify "$KIT/add.hipfb" --manifest "$KIT/bad.json"
  assert_failure 1
  assert_line --index 0 "error: $ID11: kernel tosac_k0_add: manifest kernarg_size differs from the metadata ($size)"
  assert_line --index 1 "error: $ID11: kernel tosac_k0_add: argument 1 differs: metadata has offset 8 size 8 global_buffer"
  [ "${#lines[@]}" -eq 2 ]
}

@test "malformed bundles: every reader reports a clear error and exits 1" {
  cd "$KIT"
  head -c 5000 add.hipfb > trunc.hipfb
  head -c 3000 /dev/urandom | tr '\0_' 'xy' > garbage.hipfb
  trunc_msg="bundle entry 1 ($ID90): payload [4096, +$(stat -c %s ref90.co)) runs past the end of the file (5000 bytes)"
  garbage_msg="not an offload bundle: missing magic '__CLANG_OFFLOAD_BUNDLE__'"
  for f in trunc garbage; do
    [ $f = trunc ] && msg=$trunc_msg || msg=$garbage_msg
    for cmd in list info verify; do
      run "$BIN/tosac-bundle" $cmd $f.hipfb
      assert_failure 1
      assert_output "tosac-bundle: error: $f.hipfb: $msg"
    done
    run "$BIN/tosac-bundle" extract $f.hipfb 1 -o out.co
    assert_failure 1
    assert_output "tosac-bundle: error: $f.hipfb: $msg"
    run "$BIN/tosac-run" $f.hipfb --manifest add.json --target=gfx1100 --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=1 2 3 4 5 6"
    assert_failure 1
    assert_output "tosac-run: error: $f.hipfb: $msg"
  done
  : > empty.hipfb
  run "$BIN/tosac-bundle" list empty.hipfb
  assert_failure 1
  assert_output "tosac-bundle: error: empty.hipfb: not an offload bundle: 0 bytes, shorter than the 32-byte header"
}

@test "fuzz loop: random mutations of a bundle never crash the readers" {
  run "$BIN/test-bundle_tool" "$KIT/add.hipfb" "$KIT/add.json" 3000
  assert_success
  assert_output --regexp '^fuzz: 3000 mutants, [0-9]+ opened, [0-9]+ still verified clean; 0 failures$'
}

@test "tosac-hip-run host logic: entry selection, kernargs, fills, DAG scheduling, .npy" {
  run "$BIN/test-hip_host" "$KIT/add.json"
  assert_success
  assert_output --regexp '^hip_host: [0-9]+ checks, 0 failures$'
}

@test "tosac-hip-run builds with -Wall -Wextra -Werror and exits 77 without a GPU" {
  cd "$ROOT"
  # TOSAC_SAN: the sanitizer flags the library was built with (make asan sets it).
  gcc -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -D__HIP_PLATFORM_AMD__ -Isrc ${TOSAC_SAN:-} \
    tools/tosac-hip-run/main.c tools/tosac-hip-run/host.c "${TOSAC_BUILD:-build}/libtosac.a" \
    -o "$KIT/hip-run" -lamdhip64 -lcjson -lzstd -lz -lmd -lcrypto -lm
  cd "$KIT"
  /usr/bin/python3 -c "
import numpy as np
np.save('a.npy', np.arange(6, dtype=np.float32).reshape(2, 3)); np.save('b.npy', np.ones((2, 3), np.float32))
np.save('wrong.npy', np.ones((3, 2), np.float32))"
  # The error paths exit without freeing (the OS reclaims a failed CLI's memory): no leak report.
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  run ./hip-run add.hipfb --input a.npy
  assert_failure 1
  assert_output "tosac-hip-run: error: the graph takes 2 inputs, 1 given"
  run ./hip-run add.hipfb --input a.npy --input wrong.npy
  assert_failure 1
  assert_output "tosac-hip-run: error: wrong.npy: holds <f4 of rank 2; the manifest expects f32 (<f4) of rank 2"
  head -c 5000 add.hipfb > trunc.hipfb
  run ./hip-run trunc.hipfb --manifest add.json --input a.npy --input b.npy
  assert_failure 1
  assert_output --partial "tosac-hip-run: error: trunc.hipfb: bundle entry 1"
  [ -e /dev/kfd ] && skip "a GPU is present: the no-GPU exit is not testable here"
  run ./hip-run add.hipfb --input a.npy --input b.npy --output c.npy
  [ "$status" -eq 77 ]
  assert_output --regexp '^tosac-hip-run: no usable HIP device \(.*\); nothing was run$'
  [ ! -e c.npy ]
}

@test "make install PREFIX=...: binaries, man pages and schema" {
  cd "$ROOT"
  prefix="$KIT/prefix"
  run make --no-print-directory BUILD="${TOSAC_BUILD:-build}" PREFIX="$prefix" install
  assert_success
  for b in tosac tosac-run tosac-bundle; do [ -x "$prefix/bin/$b" ]; done
  for m in tosac tosac-run tosac-bundle tosac-tune; do [ -f "$prefix/share/man/man1/$m.1" ]; done
  [ ! -f "${TOSAC_BUILD:-build}/lib/libtosac-hipemu.so" ] || [ -f "$prefix/lib/libtosac-hipemu.so" ]
  cmp schema/manifest.schema.json "$prefix/share/tosac/manifest.schema.json"
  run "$prefix/bin/tosac" --version
  assert_output --regexp '^tosac [0-9]+\.[0-9]+\.[0-9]+ \(LLVM 22\)$'
  run "$prefix/bin/tosac-bundle" verify "$KIT/add.hipfb" --manifest "$KIT/add.json"
  assert_success
}

@test "man pages render without groff warnings and document every option" {
  cd "$ROOT"
  for m in tosac tosac-run tosac-bundle tosac-tune; do
    run groff -man -Tutf8 -ww -z "docs/$m.1"
    assert_success
    assert_output ""
  done
  # every option `tosac --help` lists, and the long-standing ones by name in case --help loses one
  local opts
  opts=$("$BIN/tosac" --help | grep -oE '^  (-[A-Za-z]+|--[a-z-]+)' | sort -u)
  [ "$(echo "$opts" | wc -l)" -ge 15 ]
  for opt in $opts --time-report --compress --offload-arch --embed-ir --code-object-version -MD -MF -MT --emit; do
    groff -man -Tascii -P-cbou docs/tosac.1 2>/dev/null | grep -q -- "$opt" || { echo "tosac.1 lacks $opt"; false; }
  done
  run bash -c "groff -man -Tascii -P-cbou docs/tosac-bundle.1 | grep -c verify"
  [ "$output" -ge 2 ]
}
