#!/usr/bin/env bats
# Bad sizes (issue 17): element counts and byte sizes that overflow, buffers beyond what a
# target addresses, grids over the dispatch limit, deep nesting, huge constants and many ops:
# each is a diagnostic naming the op or type, or a compile in bounded memory; never a crash.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  cd "$BATS_TEST_TMPDIR"
}

# unary.mlir: %0 = OP %a over tensor<SHAPE x TYPE>
unary() {
  cat > "$1.mlir" <<EOF
func.func @main(%a: tensor<$2>) -> tensor<$2> {
  %0 = tosa.abs %a : (tensor<$2>) -> tensor<$2>
  return %0 : tensor<$2>
}
EOF
}

# ops.mlir: a chain of N alternating tosa.abs / tosa.floor over tensor<4xf32>
chain() {
  /usr/bin/python3 - "$1" <<'PY'
import sys
with open('ops.mlir', 'w') as f:
    f.write('func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n')
    prev = '%a'
    for i in range(int(sys.argv[1])):
        f.write(f'  %{i} = tosa.{"abs" if i % 2 == 0 else "floor"} {prev} : (tensor<4xf32>) -> tensor<4xf32>\n')
        prev = f'%{i}'
    f.write(f'  return {prev} : tensor<4xf32>\n}}\n')
PY
}

@test "an element count that overflows 64 bits is an error at the type" {
  unary ov 4294967296x4294967296x16xf32
  run "$TOSAC" ov.mlir --offload-arch=gfx90a -o ov.hipfb
  assert_failure 1
  assert_line --index 0 "ov.mlir:1:21: error: tensor type tensor<4294967296x4294967296x16xf32> has too many elements (the product of its dimensions overflows)"
  [ ! -e ov.hipfb ]
}

@test "a byte size over 2^40 (more than any target addresses) is an error at the type" {
  unary big 2305843009213693952xf32
  run "$TOSAC" big.mlir --offload-arch=gfx90a -o big.hipfb
  assert_failure 1
  assert_line --index 0 "big.mlir:1:21: error: tensor type tensor<2305843009213693952xf32> is too large (more than 2^40 bytes)"
}

@test "a kernel over 2^32 work-items in one grid dimension is an error naming the op" {
  unary grid 68719476736xf32
  run "$TOSAC" grid.mlir --offload-arch=gfx90a -o grid.hipfb
  assert_failure 1
  assert_line --index 0 "grid.mlir:2:8: error: 'tosa.abs' needs 17179869184 work-items in x (67108864 work-groups of 256); an AMDGPU dispatch holds at most 4294967295 per dimension"
  [ ! -e grid.hipfb ]
  # 32 GiB still fits one dispatch: it compiles
  unary fits 8589934592xf32
  run "$TOSAC" fits.mlir --offload-arch=gfx90a -o fits.hipfb
  assert_success
  run grep -m1 '"global"' fits.json
  assert_output --partial '"global": [2147483648, 1, 1]'
}

@test "100,000-deep attribute lists and regions are errors, not stack overflows" {
  /usr/bin/python3 - <<'PY'
n = 100000
open('list.mlir', 'w').write('func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = tosa.abs %a {x = '
    + '[' * n + '1' + ']' * n + '} : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n')
def nest(d):
    s = 'func.func @main(%a: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {\n'
    s += ''.join(f'%r{i} = tosa.cond_if %p : tensor<i1> -> tensor<4xf32> {{\n' for i in range(d))
    for i in reversed(range(d)):
        s += f'  tosa.yield {f"%r{i + 1}" if i < d - 1 else "%a"} : tensor<4xf32>\n}} else {{\n  tosa.yield %a : tensor<4xf32>\n}}\n'
    return s + '  return %r0 : tensor<4xf32>\n}\n'
open('regions.mlir', 'w').write(nest(n))
open('regions64.mlir', 'w').write(nest(64))
open('angle.mlir', 'w').write('func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = tosa.abs %a {x = #foo'
    + '<' * n + '>' * n + '} : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n')
PY
  run "$TOSAC" list.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "list.mlir:2:281: error: attribute lists nest more than 256 deep"
  run "$TOSAC" regions.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "regions.mlir:66:54: error: regions nest more than 64 deep"
  # 64 deep is accepted and compiles: 64 nested data-dependent ifs become control nodes
  run "$TOSAC" regions64.mlir --offload-arch=gfx90a -o r.hipfb
  assert_success
  run /usr/bin/python3 -c "import json; t = json.load(open('r.json'))['targets'][0]; print(sum(l['kind'] == 'if' for l in t['launches']))"
  assert_output 64
  # an unknown attribute's raw text is skipped without recursion
  run "$TOSAC" angle.mlir --syntax-only
  assert_success
}

@test "an op holds at most 4096 attributes: 4096 compile, the 4097th is an error at its name" {
  /usr/bin/python3 - <<'PY'
for n in (4096, 4097):
    attrs = ', '.join(f'a{i} = {i} : i32' for i in range(n))
    open(f'attrs{n}.mlir', 'w').write('func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = tosa.abs %a {'
        + attrs + '} : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n')
PY
  run "$TOSAC" attrs4096.mlir --offload-arch=gfx90a -o a.hipfb
  assert_success
  run "$TOSAC" attrs4097.mlir --offload-arch=gfx90a -o b.hipfb
  assert_failure 1
  assert_line --index 0 "attrs4097.mlir:2:79721: error: an operation has at most 4096 attributes"
  [ ! -e b.hipfb ]
}

@test "source locations: 8 bytes through a registry of source files; op 48 and value 32 bytes" {
  run "$ROOT/${TOSAC_BUILD:-build}/bin/test-srcloc"
  assert_success
  assert_output "srcloc: all checks passed"
}

@test "value names: decimals kept as numbers, other spellings (007, past 2^31 - 2, arg0) read back exactly" {
  run "$ROOT/${TOSAC_BUILD:-build}/bin/test-names"
  assert_success
  assert_output "names: all checks passed"
  # %7 and %007, %01 and %1 are different values; the manifest names the arguments as written
  cat > names.mlir <<'EOF'
func.func @main(%7: tensor<4xf32>, %007: tensor<4xf32>, %2147483646: tensor<4xf32>, %2147483647: tensor<4xf32>) -> tensor<4xf32> {
  %01 = tosa.add %7, %007 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.sub %2147483646, %2147483647 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tosa.maximum %01, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
EOF
  run "$TOSAC" names.mlir --emit=tosa
  assert_success
  assert_line --index 2 '    %0 = "tosa.add"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>'
  assert_line --index 3 '    %1 = "tosa.sub"(%arg2, %arg3) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>'
  assert_line --index 4 '    %2 = "tosa.maximum"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>'
  run "$TOSAC" names.mlir --offload-arch=gfx90a -o names.hipfb
  assert_success
  run /usr/bin/python3 -c 'import json; print(*[i["name"] for i in json.load(open("names.json"))["inputs"]])'
  assert_output "7 007 2147483646 2147483647"
  # diagnostics quote the names as written
  cat > odd.mlir <<'EOF'
func.func @main(%2147483647: tensor<2xi1>, %4294967296: !tosa.shape<2>, %x: tensor<1xi1>) -> tensor<2xi1> {
  %0 = tosa.abs %2147483647 : (tensor<2xi1>) -> tensor<2xi1>
  %1 = tosa.pad %0, %4294967296, %x : (tensor<2xi1>, !tosa.shape<2>, tensor<1xi1>) -> tensor<2xi1>
  return %1 : tensor<2xi1>
}
EOF
  run "$TOSAC" odd.mlir --emit=partitions
  assert_failure
  assert_line --index 0 "odd.mlir:2:17: error: 'tosa.abs' does not support element type i1 (operand 0, '%2147483647'); expected i32, f16, bf16, f32"
  assert_line --index 3 "odd.mlir:3:21: error: the padding operand of 'tosa.pad' must be a constant (tosa.const or tosa.const_shape), but '%4294967296' is a function argument"
  # the parser keeps small decimals in a table by number, sparse ones hashed: both find redefinitions
  cat > redef.mlir <<'EOF'
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %99999999 = tosa.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  %3 = tosa.abs %99999999 : (tensor<4xf32>) -> tensor<4xf32>
  %99999999 = tosa.abs %3 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = tosa.abs %3 : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
EOF
  run "$TOSAC" redef.mlir --syntax-only
  assert_failure
  assert_line --index 0 "redef.mlir:4:3: error: redefinition of value '%99999999'"
  assert_line --index 3 "redef.mlir:2:3: note: previous definition is here"
  assert_line --index 6 "redef.mlir:5:3: error: redefinition of value '%3'"
  assert_line --index 9 "redef.mlir:3:3: note: previous definition is here"
}

@test "a 2 GiB splat constant compiles in bounded memory; as matmul weights it streams to the file" {
  cat > c.mlir <<'EOF'
func.func @main(%a: tensor<536870912xf32>) -> tensor<536870912xf32> {
  %c = "tosa.const"() <{values = dense<1.5> : tensor<536870912xf32>}> : () -> tensor<536870912xf32>
  %0 = tosa.add %a, %c : (tensor<536870912xf32>, tensor<536870912xf32>) -> tensor<536870912xf32>
  return %0 : tensor<536870912xf32>
}
EOF
  run /usr/bin/time -f "%M" "$TOSAC" c.mlir --offload-arch=gfx90a -o c.hipfb
  assert_success
  [ "${lines[-1]}" -lt 300000 ] # KB: far below the constant's 2 GiB
  [ ! -e c.weights ]            # a splat is folded into the kernel
  # a 256 MiB splat matmul operand goes to the weights file, written in 64 KiB pieces
  cat > w.mlir <<'EOF'
func.func @main(%a: tensor<1x16x8192xf32>) -> tensor<1x16x8192xf32> {
  %c = "tosa.const"() <{values = dense<0.5> : tensor<1x8192x8192xf32>}> : () -> tensor<1x8192x8192xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %c, %zp, %zp : (tensor<1x16x8192xf32>, tensor<1x8192x8192xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x8192xf32>
  return %0 : tensor<1x16x8192xf32>
}
EOF
  run /usr/bin/time -f "%M" "$TOSAC" w.mlir --offload-arch=gfx90a -o w.hipfb
  assert_success
  [ "${lines[-1]}" -lt 300000 ]
  [ "$(stat -c %s w.weights)" = 268435456 ]
  run grep -c "\"weights\": \"sha256:$(sha256sum w.weights | cut -d' ' -f1)\"" w.json
  assert_output 1
}

@test "a chain of 100,000 ops compiles: fused kernels of at most 256 ops sharing their code" {
  chain 100000
  run /usr/bin/time -f "%e %M" "$TOSAC" ops.mlir --offload-arch=gfx90a -o ops.hipfb
  assert_success
  echo "# 100,000 ops (6 MB): ${lines[-1]} (s, KB)" >&3
  big=${lines[-1]#* }
  # Peak RSS per op above an empty graph's (the shared libraries): 341 bytes with 32-byte
  # values (names as numbers) and 48-byte ops, 361 with 40-byte values and per-query fusion
  # marks, 373 with 8-byte locations, the packed op and a fixed mmap threshold, 425 before, 590
  # before types were interned (docs/bench.md, memory_bench.sh).
  if [ -z "${TOSAC_SAN:-}" ]; then # sanitizers add shadow memory to every allocation
    printf 'func.func @main(%%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %%a : tensor<4xf32>\n}\n' > empty.mlir
    run /usr/bin/time -f "%M" "$TOSAC" empty.mlir --offload-arch=gfx90a -o empty.hipfb
    assert_success
    per_op=$(( (big - ${lines[-1]}) * 1024 / 100000 ))
    echo "# peak RSS above the empty graph's: $per_op bytes per op" >&3
    [ "$per_op" -lt 365 ]
  fi
  run /usr/bin/python3 -c '
import json; t = json.load(open("ops.json"))["targets"][0]
print(t["kernel_count"], t["distinct_kernels"], max(len(k["ops"]) for k in t["kernels"]))'
  assert_output "391 3 256"
}

@test "a chain of 1,000,000 ops compiles within twice its input above a one-op compile's peak" {
  [ -z "${TOSAC_SAN:-}" ] || skip "sanitizers add shadow memory to every allocation"
  chain 1000000
  unary one 4xf32
  # The constant is a one-op compile's peak: the shared libraries and the code pages of LLVM's
  # code generation, which an empty graph never touches (82 MB against 67 MB).
  run /usr/bin/time -f "%M" "$TOSAC" one.mlir --offload-arch=gfx90a -j 2 -o one.hipfb
  assert_success
  one=${lines[-1]}
  run /usr/bin/time -f "%M" "$TOSAC" ops.mlir --offload-arch=gfx90a -j 2 -o ops.hipfb
  assert_success
  big=${lines[-1]}
  input_kb=$(( $(stat -c %s ops.mlir) / 1024 ))
  echo "# 1,000,000 ops ($input_kb KiB): peak $big KiB, one op $one KiB:" \
    "$(( (big - one) * 100 / input_kb )) / 100 of the input above it" >&3
  # 1.90 (docs/decisions.md#memory-of-large-graphs); 2.03 before the list was released
  [ $(( big - one )) -lt $(( 2 * input_kb )) ]
}

@test "diagnostics of a large file show their lines after the text's pages were dropped" {
  # the lexer drops pages behind it every 4 MB and the driver all of them after parsing:
  # a note about line 2 of a 6 MB file, and an error found after parsing, read them again
  /usr/bin/python3 - <<'PY'
big = 'tensor<68719476736xf32>'
chain = ''.join(f'  %{i} = tosa.abs {"%b" if i == 0 else f"%{i - 1}"} : (tensor<4xf32>) -> tensor<4xf32>\n'
                for i in range(100000))
open('redef.mlir', 'w').write('func.func @main(%b: tensor<4xf32>) -> tensor<4xf32> {\n' + chain
    + '  %0 = tosa.abs %99999 : (tensor<4xf32>) -> tensor<4xf32>\n  return %99999 : tensor<4xf32>\n}\n')
open('grid.mlir', 'w').write(f'func.func @main(%a: {big}, %b: tensor<4xf32>) -> ({big}, tensor<4xf32>) {{\n'
    + f'  %g = tosa.abs %a : ({big}) -> {big}\n' + chain + f'  return %g, %99999 : {big}, tensor<4xf32>\n}}\n')
PY
  run "$TOSAC" redef.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "redef.mlir:100002:3: error: redefinition of value '%0'"
  assert_line --index 3 "redef.mlir:2:3: note: previous definition is here"
  assert_line --index 4 "  %0 = tosa.abs %b : (tensor<4xf32>) -> tensor<4xf32>"
  run "$TOSAC" grid.mlir --offload-arch=gfx90a -o grid.hipfb
  assert_failure 1
  assert_line --index 0 "grid.mlir:2:8: error: 'tosa.abs' needs 17179869184 work-items in x (67108864 work-groups of 256); an AMDGPU dispatch holds at most 4294967295 per dimension"
  assert_line --index 1 "  %g = tosa.abs %a : (tensor<68719476736xf32>) -> tensor<68719476736xf32>"
  assert_line --index 2 "       ^"
  [ ! -e grid.hipfb ]
}
