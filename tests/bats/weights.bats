#!/usr/bin/env bats
# Constants live in a weights file next to the bundle (packed, aligned); splats and single
# elements are immediates in the kernels' code.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  RUN="$ROOT/${TOSAC_BUILD:-build}/bin/tosac-run"
  cd "$BATS_TEST_TMPDIR"
  # A 1x2048 f32 constant (8 KiB, not a splat) added to the input, and returned as a result.
  /usr/bin/python3 - <<'PY'
import struct
vals = [((i * 7) % 13) - 6.0 for i in range(2048)]
hexs = ''.join(struct.pack('<f', v).hex() for v in vals).upper()
open('w.mlir', 'w').write(f'''func.func @main(%a: tensor<2x2048xf32>) -> (tensor<2x2048xf32>, tensor<1x2048xf32>) {{
  %w = "tosa.const"() <{{values = dense<"0x{hexs}"> : tensor<1x2048xf32>}}> : () -> tensor<1x2048xf32>
  %s = "tosa.const"() <{{values = dense<0.5> : tensor<1x2048xf32>}}> : () -> tensor<1x2048xf32>
  %0 = tosa.add %a, %w : (tensor<2x2048xf32>, tensor<1x2048xf32>) -> tensor<2x2048xf32>
  %1 = tosa.mul %0, %s, %shift : (tensor<2x2048xf32>, tensor<1x2048xf32>, tensor<1xi8>) -> tensor<2x2048xf32>
  return %1, %w : tensor<2x2048xf32>, tensor<1x2048xf32>
}}
'''.replace('%shift', '%sh').replace('  %0 =', '  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n  %0 ='))
PY
}

@test "a large constant goes to the weights file; a splat is folded" {
  run "$TOSAC" w.mlir --offload-arch=gfx90a,gfx1030 -o m.hipfb
  assert_success
  [ "$(stat -c %s m.weights)" = 8192 ]
  run /usr/bin/python3 -c '
import json; m = json.load(open("m.json")); c = m["constants"]
print(c["storage"], c["file"], c["bytes"])
for t in m["targets"]:
    print(t["target_id"], [(b["kind"], b["offset"], b["bytes"]) for b in t["buffers"] if b["kind"] == "constant"],
          [l["kind"] for l in t["launches"]])'
  assert_line --index 0 "weights_file m.weights 8192"
  assert_line --index 1 "gfx90a [('constant', 0, 8192)] ['kernel', 'copy']"
  assert_line --index 2 "gfx1030 [('constant', 0, 8192)] ['kernel', 'copy']"
  run /usr/bin/python3 -c '
import numpy as np, struct
w = np.fromfile("m.weights", dtype="<f4"); print(w[:4].tolist(), w.size)'
  assert_output "[-6.0, 1.0, -5.0, 2.0] 2048"
}

@test "graphs without non-splat constants write no weights file" {
  printf 'func.func @main(%%a: tensor<4xf32>) -> tensor<4xf32> {\n  %%0 = tosa.exp %%a : (tensor<4xf32>) -> tensor<4xf32>\n  return %%0 : tensor<4xf32>\n}\n' > e.mlir
  run "$TOSAC" e.mlir --offload-arch=gfx90a -o e.hipfb
  assert_success
  [ ! -e e.weights ]
  run /usr/bin/python3 -c 'import json; print(json.load(open("e.json"))["constants"])'
  assert_output "{'storage': 'folded', 'file': None, 'bytes': 0, 'alignment': 256}"
}

@test "--weights names the file; the manifest points to it relative to itself" {
  mkdir -p out w
  run "$TOSAC" w.mlir --offload-arch=gfx90a -o out/m.hipfb --weights out/params.bin
  assert_success
  run /usr/bin/python3 -c 'import json; print(json.load(open("out/m.json"))["constants"]["file"])'
  assert_output "params.bin"
  run "$TOSAC" w.mlir --offload-arch=gfx90a -o out/m.hipfb --weights w/params.bin
  assert_success
  run /usr/bin/python3 -c 'import json; print(json.load(open("out/m.json"))["constants"]["file"])'
  assert_output "$BATS_TEST_TMPDIR/w/params.bin"
}

@test "tosac-run binds weights buffers and matches the oracle, also after moving the files" {
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" w.mlir --targets gfx90a,gfx1100 \
    --tosac "$TOSAC" --tosac-run "$RUN"
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  run "$TOSAC" w.mlir --offload-arch=gfx942 --embed-ir -o m.hipfb
  assert_success
  mkdir moved && mv m.hipfb m.json m.weights moved/
  run "$RUN" moved/m.hipfb --target=gfx942 --input=2x2048xf32 --print_max_element_count=100000
  assert_success
  assert_line --index 1 --regexp '^2x2048xf32=\[-3 0.5 -2.5 1 '
}

@test "a missing or truncated weights file is a clear error" {
  run "$TOSAC" w.mlir --offload-arch=gfx90a --embed-ir -o m.hipfb
  assert_success
  mv m.weights gone.weights
  run "$RUN" m.hipfb --input=2x2048xf32
  assert_failure 1
  assert_output "tosac-run: error: cannot read 'm.weights': No such file or directory (the weights file the manifest names)"
  head -c 100 gone.weights > m.weights
  run "$RUN" m.hipfb --input=2x2048xf32
  assert_failure 1
  assert_output "tosac-run: error: m.weights has 100 bytes; the manifest says 8192 (manifest m.json)"
}

@test "small constants that are not splats live in the weights file and match the oracle" {
  # a 16-float bias, an 8-float f16 scale, an i8 table and a 3-float column vector read by
  # elementwise ops and a GEMM epilogue: every one a weights buffer, packed (16-byte steps), the
  # splat and the one-element shift immediates
  /usr/bin/python3 - <<'PY'
import struct, random
random.seed(7)
f32 = lambda n: "".join(struct.pack("<f", random.uniform(-2, 2)).hex() for _ in range(n)).upper()
f16 = lambda n: "".join(struct.pack("<e", random.uniform(0.5, 1.5)).hex() for _ in range(n)).upper()
tab = "".join("%02X" % (random.randrange(256)) for _ in range(256))
open("small.mlir", "w").write(f'''// oracle: arg 0 -2.0 2.0
// oracle: arg 1 -2.0 2.0
// oracle: arg 2 -100 100
// oracle: arg 3 -2.0 2.0
func.func @main(%x: tensor<3x16xf32>, %w: tensor<1x16x16xf32>, %q: tensor<4x8xi8>, %x3: tensor<1x3x16xf32>) -> (tensor<3x16xf32>, tensor<1x3x16xf32>, tensor<4x8xf16>, tensor<4x8xi8>) {{
  %b = "tosa.const"() <{{values = dense<"0x{f32(16)}"> : tensor<1x16xf32>}}> : () -> tensor<1x16xf32>
  %c = "tosa.const"() <{{values = dense<"0x{f32(3)}"> : tensor<3x1xf32>}}> : () -> tensor<3x1xf32>
  %s = "tosa.const"() <{{values = dense<"0x{f16(8)}"> : tensor<1x8xf16>}}> : () -> tensor<1x8xf16>
  %t = "tosa.const"() <{{values = dense<"0x{tab}"> : tensor<256xi8>}}> : () -> tensor<256xi8>
  %h = "tosa.const"() <{{values = dense<0.5> : tensor<1x16xf32>}}> : () -> tensor<1x16xf32>
  %sh = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %b3 = "tosa.const"() <{{values = dense<"0x{f32(16)}"> : tensor<1x1x16xf32>}}> : () -> tensor<1x1x16xf32>
  %0 = tosa.add %x, %b : (tensor<3x16xf32>, tensor<1x16xf32>) -> tensor<3x16xf32>
  %1 = tosa.mul %0, %c, %sh : (tensor<3x16xf32>, tensor<3x1xf32>, tensor<1xi8>) -> tensor<3x16xf32>
  %2 = tosa.sub %1, %h : (tensor<3x16xf32>, tensor<1x16xf32>) -> tensor<3x16xf32>
  %m = tosa.matmul %x3, %w, %z, %z : (tensor<1x3x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x16xf32>
  %mb = tosa.add %m, %b3 : (tensor<1x3x16xf32>, tensor<1x1x16xf32>) -> tensor<1x3x16xf32>
  %qf = tosa.cast %q : (tensor<4x8xi8>) -> tensor<4x8xf16>
  %3 = tosa.mul %qf, %s, %sh : (tensor<4x8xf16>, tensor<1x8xf16>, tensor<1xi8>) -> tensor<4x8xf16>
  %4 = tosa.table %q, %t : (tensor<4x8xi8>, tensor<256xi8>) -> tensor<4x8xi8>
  return %2, %mb, %3, %4 : tensor<3x16xf32>, tensor<1x3x16xf32>, tensor<4x8xf16>, tensor<4x8xi8>
}}
''')
PY
  run "$TOSAC" small.mlir --offload-arch=gfx90a -o s.hipfb
  assert_success
  run /usr/bin/python3 -c '
import json; m = json.load(open("s.json")); print(m["constants"]["storage"], m["constants"]["bytes"])
print(sorted((b["offset"], b["bytes"], b["element_type"]) for b in m["targets"][0]["buffers"] if b["kind"] == "constant"))'
  assert_line --index 0 "weights_file 512"
  assert_line --index 1 "[(0, 256, 'i8'), (256, 64, 'f32'), (320, 64, 'f32'), (384, 12, 'f32'), (400, 16, 'f16')]"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" small.mlir --targets gfx90a,gfx1100,gfx1030 \
    --tosac "$TOSAC" --tosac-run "$RUN"
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}
