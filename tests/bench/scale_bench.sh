#!/bin/bash
# scale_bench.sh [BUILD]: frontend and partitioner time on generated 10,000-op graphs, to show
# that no stage grows quadratically: a chain of 10,000 kernels (transpose, transpose, add), and
# the same at 2,500 ops for the growth factor (4x the ops should cost about 4x, not 16x).
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
B="${1:-${TOSAC_BUILD:-build}}"  # a directory, absolute or relative to the repository root
case "$B" in /*) ;; *) B="$ROOT/$B" ;; esac
TOSAC="$B/bin/tosac"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
gen() { # gen N FILE: N ops, N kernels
  /usr/bin/python3 - "$1" > "$2" <<'PY'
import sys
n = int(sys.argv[1]) // 3
T, TT = "tensor<4x8xf32>", "tensor<8x4xf32>"
print("func.func @main(%%x: %s) -> %s {" % (T, T))
prev = "%x"
for i in range(n):
    print('  %%t%d = tosa.transpose %s {perms = array<i32: 1, 0>} : (%s) -> %s' % (i, prev, T, TT))
    print('  %%u%d = tosa.transpose %%t%d {perms = array<i32: 1, 0>} : (%s) -> %s' % (i, i, TT, T))
    print('  %%a%d = tosa.add %%u%d, %s : (%s, %s) -> %s' % (i, i, prev, T, T, T))
    prev = "%%a%d" % i
print("  return %s : %s\n}" % (prev, T))
PY
}
for n in 2500 10000; do
  gen $n "$TMP/g$n.mlir"
  for arch in gfx90a "gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200"; do
    echo "\$ $TOSAC g$n.mlir --offload-arch=$arch --emit=partitions --time-report -o /dev/null   # $n ops"
    /usr/bin/time -o "$TMP/t" -f '%e %M' "$TOSAC" "$TMP/g$n.mlir" --offload-arch=$arch \
      --emit=partitions --time-report -o /dev/null 2> "$TMP/r"
    read -r wall peak < "$TMP/t"
    parse=$(awk '/parse and verify/{print $4}' "$TMP/r")
    part=$(awk '/^  partition /{print $2}' "$TMP/r")
    printf '   %s targets: parse %s ms, partition %s ms, wall %s s, peak RSS %s KiB\n' \
      "$(echo "$arch" | tr ',' '\n' | wc -l)" "$parse" "$part" "$wall" "$peak"
  done
done
