#!/usr/bin/env bash
# make bench (part): the emulator running machine code (tosac-run --exec=isa, the default) against
# the kernel IR (--exec=ir) in the same run: ResNet-18 batch 1 and one BERT-base layer (hidden
# 768, 12 heads, FFN 3072, sequence 128; tests/oracle/gen_transformer.py) on gfx90a. Targets of
# the machine-code path on 2 cores: ResNet-18 <= 60 s wall, the BERT layer <= 30 s. The two
# paths' outputs are compared bit for bit.
# Usage: tests/bench/emulator_bench.sh [BUILD_DIR]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${TOSAC_BUILD:-build}}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
tosac="$build/bin/tosac"
run="$build/bin/tosac-run"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# inputs.txt for a manifest: seeded random f32 in [-1, 1) per input (other types zero)
inputs() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys, numpy as np
m = json.load(open(sys.argv[1])); rng = np.random.default_rng(0)
with open("inputs.txt", "w") as f:
    for k, a in enumerate(m["inputs"]):
        t = {"f32": np.float32, "f16": np.float16}.get(a["element_type"])
        x = (rng.random(a["shape"]) * 2 - 1).astype(t) if t else np.zeros(a["shape"], np.int32)
        np.save("in%d.npy" % k, x); f.write("@in%d.npy\n" % k)
PY
}

# bench STEM LIMIT: runs STEM.hipfb on gfx90a as machine code and as IR; wall times and ratio
bench() {
  local stem=$1 limit=$2 e w u
  declare -A wall user
  for e in isa ir; do
    echo "\$ $run $stem.hipfb --target=gfx90a --exec=$e --input=@inputs.txt --output=@$stem-$e.npy"
    /usr/bin/time -o time.txt -f '%e %U' "$run" "$stem.hipfb" --target=gfx90a --exec=$e \
      --input=@inputs.txt --output=@"$stem-$e.npy" >/dev/null || echo "   FAILED"
    read -r w u < time.txt
    wall[$e]=$w user[$e]=$u
    echo "   wall $w s, user $u s"
  done
  # under load the wall times stretch; user time (CPU seconds) compares the two paths better
  /usr/bin/python3 -c "
isa, ir, uisa, uir = ${wall[isa]}, ${wall[ir]}, ${user[isa]}, ${user[ir]}
print(f'   machine code / IR: wall {isa / ir:.2f}x, user {uisa / uir:.2f}x; target <= $limit s wall: {\"met\" if isa <= $limit else \"MISSED\"}')"
  # exp/log/rsq are exact on the machine-code path and libm's float functions on the IR path:
  # graphs with transcendentals may differ in the last bit
  /usr/bin/python3 -c "
import numpy as np
a, b = np.load('$stem-isa.npy'), np.load('$stem-ir.npy')
n = int((a.view(np.uint32) != b.view(np.uint32)).sum())
print('   outputs byte-identical' if n == 0 else
      f'   {n} of {a.size} elements differ, by at most {np.abs(a.astype(np.float64) - b).max():.3g}')"
}

resnet=/work/shared/testdata/rocmlir_resnet18.mlir
if [ -f "$resnet" ]; then
  echo "== ResNet-18 batch 1, gfx90a"
  "$tosac" "$resnet" --embed-ir --offload-arch=gfx90a -o r18.hipfb 2>/dev/null
  inputs r18.json
  bench r18 60
fi

echo "== BERT-base, one layer (sequence 128), gfx90a"
/usr/bin/python3 "$root/tests/oracle/gen_transformer.py" bert --layers=1 --seq=128 --hidden=768 \
  --heads=12 --seed=11 > bert1.mlir
"$tosac" bert1.mlir --embed-ir --offload-arch=gfx90a -o bert1.hipfb
inputs bert1.json
bench bert1 30
