#!/usr/bin/env bash
# Compile CPU time: ResNet-18 as torch-mlir exports it, compiled for the 7 default targets
# (default -j), user + sys seconds per run (/usr/bin/time), with the machine's load before and after.
# With a second build directory (another checkout's build, e.g. a git worktree at an older
# commit), the runs alternate between the two and the ratio of the medians is printed: same run,
# same load. Also checks that both builds' bundles are byte-identical when they should be.
#   tests/bench/compile_cpu_bench.sh [BUILD_DIR] [BASELINE_BUILD_DIR] [RUNS (default 3)] [graph]
# BUILD_DIR defaults to $TOSAC_BUILD or build; the baseline to $TOSAC_BASE_BUILD (none if unset).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${TOSAC_BUILD:-build}}
base=${2:-${TOSAC_BASE_BUILD:-}}
runs=${3:-3}
graph=${4:-/work/shared/testdata/rocmlir_resnet18.mlir}
case $build in /*) ;; *) build=$root/$build ;; esac
if [ -n "$base" ]; then case $base in /*) ;; *) base=$root/$base ;; esac; fi
if [ ! -f "$graph" ]; then
  echo "   ($graph not found: skipped)"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
echo "   graph: $graph, 7 default targets, $runs runs each"
echo "   load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
labels=(this)
builds=("$build")
if [ -n "$base" ]; then
  labels+=(baseline)
  builds+=("$base")
fi
for ((r = 1; r <= runs; r++)); do
  for i in "${!builds[@]}"; do
    /usr/bin/time -f "%U %S %e" -o time.txt "${builds[$i]}/bin/tosac" "$graph" \
      -o "${labels[$i]}.hipfb" 2>err.txt || { echo "   (exit status $?)"; head -3 err.txt; }
    read -r user sys wall < time.txt
    printf '   run %d %-8s user %6.2f s + sys %5.2f s = %6.2f s (wall %6.2f s)\n' "$r" \
      "${labels[$i]}" "$user" "$sys" "$(echo "$user + $sys" | bc)" "$wall"
    echo "${labels[$i]} $(echo "$user + $sys" | bc)" >> cpu.txt
  done
done
echo "   load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - cpu.txt <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    t.setdefault(k, []).append(float(v))
for k, v in t.items():
    print("   %-8s median %.2f s user+sys (min %.2f, max %.2f)" % (k, statistics.median(v), min(v), max(v)))
if "baseline" in t:
    print("   this / baseline (medians): %.3f" % (statistics.median(t["this"]) / statistics.median(t["baseline"])))
PY
if [ -n "$base" ]; then
  cmp -s this.hipfb baseline.hipfb && echo "   bundles byte-identical" || echo "   bundles differ"
fi
