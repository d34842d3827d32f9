#!/usr/bin/env bash
# Whole-graph model summaries (tosac-bundle quality --model, docs/quality.md): the launch
# graph's estimated time per target against its roofline, and each kernel family's share, for
# the testdata graphs (ResNet-18, the ResNet-50 parts, the BERT parts) and an f16 attention
# (8 heads, sequence 1024, head size 64) on gfx942, gfx950, gfx1100 and gfx1030.
#   tests/bench/model_bench.sh [BUILD_DIR (default $TOSAC_BUILD or build)]
#   TARGETS="gfx942 ..." to choose targets; MCA=1 for llvm-mca-22 on CDNA (default: the
#   deterministic issue model, --no-mca)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${TOSAC_BUILD:-build}}
case $build in /*) ;; *) build=$root/$build ;; esac
targets=${TARGETS:-gfx942 gfx950 gfx1100 gfx1030}
mca=--no-mca
[ "${MCA:-0}" = 1 ] && mca="--mca-timeout=20"
data=/work/shared/testdata
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
/usr/bin/python3 "$root/tests/bench/gen_attention.py" 8 1024 64 f16 > attention_f16_8x1024x64.mlir
echo "   load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for g in "$data"/rocmlir_resnet18.mlir "$data"/rocmlir_resnet50_part_0.mlir "$data"/rocmlir_resnet50_blk.mlir \
  "$data"/rocmlir_bert_part_0.mlir "$data"/rocmlir_bert_part_37.mlir "$data"/rocmlir_bert_part_48.mlir \
  attention_f16_8x1024x64.mlir; do
  [ -f "$g" ] || continue
  stem=$(basename "$g" .mlir)
  echo "== $stem"
  echo "\$ tosac $g --offload-arch=${targets// /,} -o $stem.hipfb && tosac-bundle quality $stem.hipfb $mca --model"
  if ! "$build/bin/tosac" "$g" --offload-arch="${targets// /,}" -o "$stem.hipfb" 2> err.txt; then
    echo "   compile failed: $(head -1 err.txt)"
    continue
  fi
  "$build/bin/tosac-bundle" quality "$stem.hipfb" $mca --model | sed -n '/^model /,$p' | sed 's/^/   /'
done
echo "   load average: $(cut -d' ' -f1-3 /proc/loadavg)"
