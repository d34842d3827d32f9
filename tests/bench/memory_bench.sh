#!/bin/bash
# memory_bench.sh [BUILD] [OPS...]: peak RSS and wall time of op-heavy graphs (issue 17, "a million
# ops"): a chain of tosa.abs / tosa.floor on tensor<4xf32>, 100,000 and 1,000,000 ops by default,
# parsed (--syntax-only) and compiled for gfx90a. Prints the input size, each peak RSS, the RSS of
# an empty graph (shared libraries: the constant), of a one-op compile (also LLVM's code pages:
# the compile's constant) and the growth per op and per input byte.
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
B="${1:-${TOSAC_BUILD:-build}}"
case "$B" in /*) ;; *) B="$ROOT/$B" ;; esac
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(100000 1000000)
TOSAC="$B/bin/tosac"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
gen() { # gen N FILE
  /usr/bin/python3 - "$1" > "$2" <<'PY'
import sys
n = int(sys.argv[1])
out = ['func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {']
prev = '%a'
for i in range(n):
    out.append(f'  %{i} = tosa.{"abs" if i % 2 == 0 else "floor"} {prev} : (tensor<4xf32>) -> tensor<4xf32>')
    prev = f'%{i}'
out.append(f'  return {prev} : tensor<4xf32>\n}}')
print('\n'.join(out))
PY
}
# peak RSS in KiB and wall seconds of the command: sets $kb, $sec
peak() {
  /usr/bin/time -o t.txt -f '%M %e' "$@" >/dev/null 2>err.txt || { echo "   FAILED: $*"; head -3 err.txt; }
  read -r kb sec < t.txt
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
gen 0 empty.mlir
peak "$TOSAC" empty.mlir --offload-arch=gfx90a -o e.hipfb
base=$kb
echo "empty graph, compile gfx90a: peak RSS $base KiB (the constant: shared libraries)"
gen 1 one.mlir
peak "$TOSAC" one.mlir --offload-arch=gfx90a -o o.hipfb
one=$kb
echo "one op, compile gfx90a: peak RSS $one KiB (the compile's constant: also LLVM's code pages)"
for n in "${SIZES[@]}"; do
  gen "$n" g.mlir
  bytes=$(stat -c %s g.mlir)
  echo "$n ops, $((bytes / 1024)) KiB of MLIR:"
  peak "$TOSAC" g.mlir --syntax-only
  echo "   \$ tosac g.mlir --syntax-only: ${sec} s, peak RSS $kb KiB ($(( (kb - base) * 1024 / n )) B/op, $(( (kb - base) * 1024 * 10 / bytes )) / 10 of the input above the constant)"
  peak "$TOSAC" g.mlir --offload-arch=gfx90a -o g.hipfb
  echo "   \$ tosac g.mlir --offload-arch=gfx90a: ${sec} s, peak RSS $kb KiB ($(( (kb - base) * 1024 / n )) B/op, $(( (kb - base) * 1024 * 10 / bytes )) / 10 of the input above the constant; $(( (kb - one) * 1024 * 100 / bytes )) / 100 above the one-op compile)"
done
