#!/usr/bin/env bats
# Large constants: the source is mapped, long hex literals are decoded once and their text is
# released behind the lexer; diagnostics still show the right source line; stdin and pipes
# keep the read path; the weights file is written straight from the decoded constants.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  cd "$BATS_TEST_TMPDIR"
}

# gen FILE NBYTES [ERRLINE]: a graph adding an NBYTES f32 constant (random, hex, mixed-case
# digits) to its argument; with ERRLINE, that line is inserted after the constant. Writes the
# constant's bytes to FILE.bin.
gen() {
  /usr/bin/python3 - "$@" <<'PY'
import os, random, sys
path, nbytes = sys.argv[1], int(sys.argv[2])
err = sys.argv[3] if len(sys.argv) > 3 else None
random.seed(nbytes)
data = random.randbytes(nbytes)
open(path + ".bin", "wb").write(data)
hexs = data.hex()
hexs = hexs[: len(hexs) // 2].upper() + hexs[len(hexs) // 2 :]  # both digit cases
T = "tensor<%dxf32>" % (nbytes // 4)
with open(path, "w") as f:
    f.write("func.func @main(%%x: %s) -> %s {\n" % (T, T))
    f.write('  %%c = "tosa.const"() <{values = dense<"0x%s"> : %s}> : () -> %s\n' % (hexs, T, T))
    if err:
        f.write(err + "\n")
    f.write("  %%0 = tosa.add %%x, %%c : (%s, %s) -> %s\n" % (T, T, T))
    f.write("  return %%0 : %s\n}\n" % T)
PY
}

@test "a diagnostic after a 12 MB hex constant shows its source line and caret" {
  gen big.mlir 12582912 '  %1 = tosa.negate %nope : (tensor<3145728xf32>) -> tensor<3145728xf32>'
  run "$TOSAC" --syntax-only big.mlir
  assert_failure 1
  assert_line --index 0 "big.mlir:3:20: error: use of undefined value '%nope'"
  assert_line --index 1 '  %1 = tosa.negate %nope : (tensor<3145728xf32>) -> tensor<3145728xf32>'
  assert_equal "$(sed -n 3p <<< "$output")" "                   ^"
  # The same from a pipe (read into memory, nothing released): same diagnostic.
  run bash -c "cat big.mlir | '$TOSAC' --syntax-only -"
  assert_failure 1
  assert_line --index 0 "<stdin>:3:20: error: use of undefined value '%nope'"
  assert_equal "$(sed -n 3p <<< "$output")" "                   ^"
}

@test "a long hex constant decodes to its exact bytes (file and pipe)" {
  gen c.mlir 1048576
  "$TOSAC" --emit=tosa c.mlir -o c.out.mlir
  cat c.mlir | "$TOSAC" --emit=tosa - -o p.out.mlir
  run /usr/bin/python3 -c '
import re, sys
want = open("c.mlir.bin", "rb").read().hex().upper()
for f in ("c.out.mlir", "p.out.mlir"):
    h = re.search(r"dense<\"0x([0-9A-F]+)\">", open(f).read()).group(1)
    print(f, len(h) // 2, h == want)'
  assert_output "c.out.mlir 1048576 True
p.out.mlir 1048576 True"
}

@test "an invalid digit deep inside a long hex literal is reported at its column" {
  gen bad.mlir 262144
  /usr/bin/python3 -c '
s = open("bad.mlir").read(); i = s.index("0x") + 2 + 300001
open("bad.mlir", "w").write(s[:i] + "G" + s[i + 1:])'
  run "$TOSAC" --syntax-only bad.mlir
  assert_failure 1
  # The literal's quote is at column 40 ("0x at 41-42): digit 300001 is at 40 + 3 + 300001.
  assert_line --index 0 "bad.mlir:2:300044: error: invalid hexadecimal digit 'G' in dense literal"
}

@test "peak memory: the hex text is not held; about the constant bytes above a one-op graph" {
  # Sanitizer builds (make asan sets TOSAC_SAN) add shadow memory to every allocation.
  [ -z "${TOSAC_SAN:-}" ] || skip "peak memory is not meaningful under sanitizers"
  gen big.mlir 33554432
  gen small.mlir 16
  peak() { /usr/bin/time -f %M "$TOSAC" --syntax-only "$1" 2>&1 >/dev/null | tail -1; }
  small=$(peak small.mlir)
  big=$(peak big.mlir)
  # 32 MiB of constant bytes from 64 MiB of hex: holding the text would add 64 MiB.
  run /usr/bin/python3 -c "d = ($big - $small) / 32768; print('ok' if d < 1.25 else 'peak %d KiB above %d KiB = %.2fx the constant' % ($big - $small, $small, d))"
  assert_output ok
}

@test "a file that ends exactly on a page boundary, and an empty file" {
  /usr/bin/python3 -c 'open("page.mlir", "w").write("//" + "x" * 4092 + "\n0")'
  [ "$(stat -c %s page.mlir)" = 4096 ]
  run "$TOSAC" --syntax-only page.mlir
  assert_failure 1
  assert_line --index 0 "page.mlir:2:1: error: expected 'func.func' or 'module' at top level, found '0'"
  : > empty.mlir
  run "$TOSAC" --syntax-only empty.mlir
  assert_failure 1
  assert_output "tosac: error: empty.mlir has no public function with a body to compile"
}

@test "a named pipe is read, not mapped: the whole graph arrives" {
  gen c.mlir 262144 '  %1 = tosa.negate %nope : (tensor<65536xf32>) -> tensor<65536xf32>'
  mkfifo fifo.mlir
  cat c.mlir > fifo.mlir &
  run "$TOSAC" --syntax-only fifo.mlir
  wait
  assert_failure 1
  assert_line --index 0 "fifo.mlir:3:20: error: use of undefined value '%nope'"
}

@test "the weights file is written piecewise from the decoded constants" {
  /usr/bin/python3 - <<'PY'
import random
random.seed(7)
T = "tensor<3x1000xf32>"  # 12000 bytes: offsets pad to 256, so the file has zero gaps
cs = [random.randbytes(12000) for _ in range(3)]
open("cs.bin", "wb").write(b"".join(cs))
with open("w.mlir", "w") as f:
    f.write("func.func @main(%%x: %s) -> %s {\n" % (T, T))
    prev = "%x"
    for i, c in enumerate(cs):
        f.write('  %%c%d = "tosa.const"() <{values = dense<"0x%s"> : %s}> : () -> %s\n' % (i, c.hex(), T, T))
        f.write("  %%a%d = tosa.add %s, %%c%d : (%s, %s) -> %s\n" % (i, prev, i, T, T, T))
        prev = "%%a%d" % i
    f.write("  return %s : %s\n}\n" % (prev, T))
PY
  "$TOSAC" w.mlir --offload-arch=gfx1030 -o w.hipfb
  run /usr/bin/python3 -c '
import json
m = json.load(open("w.json")); w = open("w.weights", "rb").read(); cs = open("cs.bin", "rb").read()
bufs = sorted((b["offset"], b["bytes"]) for b in m["targets"][0]["buffers"] if b["kind"] == "constant")
print(len(w), m["constants"]["bytes"], bufs)
got = b"".join(w[o:o + n] for o, n in bufs)
gaps = b"".join(w[o + n:o2] for (o, n), (o2, _) in zip(bufs, bufs[1:] + [(len(w), 0)]))
print(sorted(got[i:i + 12000] for i in range(0, len(got), 12000)) == sorted(cs[i:i + 12000] for i in range(0, len(cs), 12000)), len(gaps), set(gaps))'
  assert_line --index 0 "36096 36096 [(0, 12000), (12032, 12000), (24064, 12000)]"
  assert_line --index 1 "True 96 {0}"
  # A device as the weights file is written in place.
  run "$TOSAC" w.mlir --offload-arch=gfx1030 -o w2.hipfb --weights /dev/null
  assert_success
  grep -q '"file": "/dev/null"' w2.json
}

@test "a long dense_resource blob decodes to its exact bytes" {
  /usr/bin/python3 - <<'PY'
import random
random.seed(3)
data = random.randbytes(262144)
open("r.bin", "wb").write(data)
T = "tensor<65536xf32>"
open("r.mlir", "w").write('''func.func @main(%%x: %s) -> %s {
  %%c = "tosa.const"() <{values = dense_resource<blob1> : %s}> : () -> %s
  %%0 = tosa.add %%x, %%c : (%s, %s) -> %s
  return %%0 : %s
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x04000000%s"
    }
  }
#-}
''' % (T, T, T, T, T, T, T, T, data.hex()))
PY
  "$TOSAC" --emit=tosa r.mlir -o r.out.mlir
  run /usr/bin/python3 -c '
import re
h = re.search(r"dense<\"0x([0-9A-F]+)\">", open("r.out.mlir").read()).group(1)
print(len(h) // 2, bytes.fromhex(h) == open("r.bin", "rb").read())'
  assert_output "262144 True"
}
