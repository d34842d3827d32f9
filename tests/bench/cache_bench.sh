#!/usr/bin/env bash
# Kernel cache benchmark (docs/library.md#kernel-cache): ResNet-18 with real (non-splat) weights
# for the 7 default targets at -j 2, compiled cold into an empty cache; then the same model with
# EVERY weight changed (tests/bench/reweight.py, another seed), compiled with that warm cache and
# cold without one. Prints wall and CPU time of each, the warm compile's cache hits and misses,
# the cold/warm ratio (same run, same load) and whether the warm bundle is byte-identical to the
# cold one (the weights files differ: they hold the weights).
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
/usr/bin/python3 "$root/tests/bench/reweight.py" "$graph" model.mlir 1
/usr/bin/python3 "$root/tests/bench/reweight.py" "$graph" changed.mlir 2
echo "   load average: $(cut -d' ' -f1-3 /proc/loadavg)"
timed() { # label, then the command
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S" -o time.txt "$@" || echo "   (exit status $?)"
  read -r wall user sys < time.txt
  printf '   %-44s %6.2f s wall, %6.2f s user + %5.2f s sys\n' "$label" "$wall" "$user" "$sys"
}
timed "cold compile into an empty cache" "$tosac" model.mlir -j 2 --cache-dir=cache -o cold.hipfb
"$tosac" --cache-dir=cache --cache-stats > before.txt
timed "every weight changed, warm cache" "$tosac" changed.mlir -j 2 --cache-dir=cache -o warm.hipfb
warm=$wall
"$tosac" --cache-dir=cache --cache-stats > after.txt
/usr/bin/python3 - before.txt after.txt <<'PY'
import re, sys
def counts(path):
    t = open(path).read()
    return [int(re.search(r"%s\D*(\d+)" % k, t).group(1)) for k in ("hits", "misses")]
(h0, m0), (h1, m1) = counts(sys.argv[1]), counts(sys.argv[2])
print("   warm compile: %d cache hits, %d misses" % (h1 - h0, m1 - m0))
PY
timed "every weight changed, cold (no cache)" "$tosac" changed.mlir -j 2 -o nocache.hipfb
cold=$wall
same_json() { diff -q <(grep -Ev '"(bundle|file)"' "$1") <(grep -Ev '"(bundle|file)"' "$2") > /dev/null; }
if cmp -s warm.hipfb nocache.hipfb && same_json warm.json nocache.json; then
  echo "   the warm bundle and manifest are byte-identical to the cold compile's"
else
  echo "   the warm bundle differs from the cold compile's"
fi
cmp -s cold.weights warm.weights || echo "   (the weights files differ, as they should)"
/usr/bin/python3 -c "import sys; print('   cold / warm wall: %.1fx' % (float(sys.argv[1]) / float(sys.argv[2])))" "$cold" "$warm"
echo "   load average: $(cut -d' ' -f1-3 /proc/loadavg)"
