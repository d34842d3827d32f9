#!/usr/bin/env bash
# Kernel cache benchmark (docs/library.md#kernel-cache): ResNet-18 for the 7 default targets,
# compiled cold into an empty cache, then a copy whose weights all changed (every hex constant
# gets other values) compiled with that warm cache, then the same copy without a cache. Prints
# wall and CPU time of each, the cache hits, and the warm/uncached ratio (same run, same load).
#   tests/bench/cache_bench.sh [BUILD_DIR (default $TOSAC_BUILD or build)] [graph.mlir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${TOSAC_BUILD:-build}}
graph=${2:-/work/shared/testdata/rocmlir_resnet18.mlir}
case $build in /*) ;; *) build=$root/$build ;; esac
tosac=$build/bin/tosac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$graph" model.mlir
# other weights, same shapes: the hex digits of every weight tensor (a constant of 1024 elements
# or more: the convolution and matmul weights, which live in the weights file) rotated by one.
# Small constants (biases, batch-norm scales) are folded into the kernels' code, so changing
# them changes those kernels: that case is measured too ("all constants changed").
/usr/bin/python3 - <<'PY'
import re
from functools import reduce
s = open("model.mlir").read()
rot = str.maketrans("0123456789ABCDEF", "123456789ABCDEF0")
pat = re.compile(r'dense<"0x([0-9A-F]+)">(\s*:\s*tensor<([0-9x]+)x[a-z0-9]+>)')
def count(dims):
    return reduce(lambda a, b: a * b, (int(d) for d in dims.split("x")), 1)
def sub(big_only, m):
    if big_only and count(m.group(3)) < 1024:
        return m.group(0)
    return 'dense<"0x%s">%s' % (m.group(1).translate(rot), m.group(2))
t, n = pat.subn(lambda m: sub(True, m), s)
changed = sum(1 for m in pat.finditer(s) if count(m.group(3)) >= 1024)
open("reweighted.mlir", "w").write(t)
open("allchanged.mlir", "w").write(pat.sub(lambda m: sub(False, m), s))
print("   %d weight tensors changed (of %d hex constants)" % (changed, n))
PY
echo "   load average: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "%e %U %S" -o time.txt "$tosac" model.mlir --cache-dir=cache -o cold.hipfb
read -r cwall cuser csys < time.txt
printf '   %-44s %6.2f s wall, %6.2f s user + %5.2f s sys\n' "cold compile into an empty cache" "$cwall" "$cuser" "$csys"
/usr/bin/time -f "%e %U %S" -o time.txt "$tosac" reweighted.mlir --cache-dir=cache -o warm.hipfb -v 2> v.txt
read -r wwall wuser wsys < time.txt
printf '   %-44s %6.2f s wall, %6.2f s user + %5.2f s sys\n' "new weights, warm cache" "$wwall" "$wuser" "$wsys"
awk '/from the cache$/ {n += $(NF-6); h += $(NF-3)} END {printf "   cache hits: %d of %d work items\n", h, n}' v.txt
/usr/bin/time -f "%e %U %S" -o time.txt "$tosac" reweighted.mlir -o nocache.hipfb
read -r nwall nuser nsys < time.txt
printf '   %-44s %6.2f s wall, %6.2f s user + %5.2f s sys\n' "new weights, no cache" "$nwall" "$nuser" "$nsys"
cmp warm.hipfb nocache.hipfb && cmp warm.weights nocache.weights &&
  echo "   outputs with the warm cache are byte-identical to the uncached compile"
/usr/bin/python3 -c "import sys; print('   warm / uncached wall: %.3f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$wwall" "$nwall"
/usr/bin/time -f "%e %U %S" -o time.txt "$tosac" allchanged.mlir --cache-dir=cache -o all.hipfb -v 2> v.txt
read -r awall auser asys < time.txt
printf '   %-44s %6.2f s wall, %6.2f s user + %5.2f s sys\n' "all constants changed, warm cache" "$awall" "$auser" "$asys"
awk '/from the cache$/ {n += $(NF-6); h += $(NF-3)} END {printf "   cache hits: %d of %d work items (kernels with folded constants recompile)\n", h, n}' v.txt
