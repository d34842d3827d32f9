#!/usr/bin/env bats
# Large constants live in a weights file next to the bundle; small ones are folded into code.

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

@test "graphs without large constants write no weights file" {
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
