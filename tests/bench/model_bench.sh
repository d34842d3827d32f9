#!/usr/bin/env bash
# Whole-model summaries (tosac-bundle quality --model, docs/quality.md): the launch graph's
# estimated time per target against its roofline (the sum over launches of max(bytes /
# bandwidth, flops / peak)) and each kernel family's share, on gfx942, gfx950, gfx1100 and gfx1030:
# - generated f16 models (tests/bench/gen_model.py, tests/oracle/gen_transformer.py; weights as
#   arguments, seeded): ResNet-50 at batch 1 and 32, BERT-base (12 layers) at sequence 128 and
#   512, and one GPT-2-small decode step (1 new token, a KV cache of 1024, the 50257-word head);
#   per model and target a line with the estimate, the roofline, their ratio and the families
#   losing the most time (estimate minus roofline);
# - the testdata graphs (ResNet-18, the ResNet-50 and BERT parts) and an f16 attention (8 heads,
#   sequence 1024, head size 64).
#   tests/bench/model_bench.sh [BUILD_DIR (default $TOSAC_BUILD or build)]
#   TARGETS="gfx942 ..." to choose targets; MODELS="r50b1 gpt2" for some generated models only
#   (TESTDATA=0 skips the testdata graphs); MCA=1 for llvm-mca-22 on CDNA (default: the
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
py=/usr/bin/python3
gen=$root/tests/bench/gen_model.py
tr=$root/tests/oracle/gen_transformer.py

# the generated models: name, description, generator command
declare -A what how
what[r50b1]="ResNet-50, batch 1, 224x224, f16";     how[r50b1]="$py $gen resnet50 --batch 1 --dtype f16 --weights args"
what[r50b32]="ResNet-50, batch 32, 224x224, f16";   how[r50b32]="$py $gen resnet50 --batch 32 --dtype f16 --weights args"
what[bert128]="BERT-base, 12 layers, seq 128, f16"; how[bert128]="$py $tr bert --layers=12 --seq=128 --hidden=768 --heads=12 --dtype=f16 --weights=args"
what[bert512]="BERT-base, 12 layers, seq 512, f16"; how[bert512]="$py $tr bert --layers=12 --seq=512 --hidden=768 --heads=12 --dtype=f16 --weights=args"
what[gpt2]="GPT-2 small decode step, KV 1024, f16"; how[gpt2]="$py $gen gpt2 --layers 12 --kv 1024 --vocab 50257 --dtype f16"

# One line per target from a --model report: estimate, roofline, ratio, the kernels alone (without
# the launch gaps) and their ratio, and the three families that lose the most time against their
# roofline (family lost-us roofline%).
table() {
  awk -v m="$1" '
    function flush() { if (t == "") return; n = 0
      for (f in lost) order[++n] = f
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (lost[order[j]] > lost[order[i]]) { x = order[i]; order[i] = order[j]; order[j] = x }
      w = ""; for (i = 1; i <= n && i <= 3; i++) w = w sprintf(" %s %.1f (%s)", order[i], lost[order[i]], roof[order[i]])
      printf "   %-8s %-8s %10.1f %10.1f %6.2fx %10.1f %6.2fx %s\n", m, t, est, rl, ratio, kest, kratio, w
      delete lost; delete roof; delete order; t = "" }
    /^model / { flush(); t = $2; sub(":", "", t); est = $6; rl = $9; r = $NF; gsub(/[()x]/, "", r); ratio = r; next }
    /^kernels / && t != "" { kest = $4; r = $10; gsub(/[(),x]/, "", r); kratio = r; next }
    /^  [a-z0-9]+ +[0-9]+ / && t != "" && $1 != "launch" { lost[$1] = $3 - $5; roof[$1] = $6 }
    END { flush() }'
}

echo "   load average: $(cut -d' ' -f1-3 /proc/loadavg)"
summary=$work/summary.txt
: > "$summary"
for m in ${MODELS:-r50b1 r50b32 bert128 bert512 gpt2}; do
  echo "== $m: ${what[$m]}"
  echo "\$ ${how[$m]#$py } > $m.mlir"
  ${how[$m]} > $m.mlir
  echo "\$ tosac $m.mlir --offload-arch=${targets// /,} -o $m.hipfb && tosac-bundle quality $m.hipfb $mca --model"
  if ! "$build/bin/tosac" $m.mlir --offload-arch="${targets// /,}" -o $m.hipfb 2> err.txt; then
    echo "   compile failed: $(head -1 err.txt)"
    continue
  fi
  "$build/bin/tosac-bundle" quality $m.hipfb $mca --model > q.txt || echo "   (the report found problems: $(grep -c '^error' q.txt) errors)"
  grep '^error' q.txt | sed 's/^/   /' || true
  sed -n '/^model /,$p' q.txt | sed 's/^/   /'
  table $m < q.txt >> "$summary"
done
echo "== summary: estimated us, roofline us, ratio; the kernels alone; the families losing the most (lost us, family's roofline share)"
printf '   %-8s %-8s %10s %10s %7s %10s %7s %s\n' model target est_us roof_us ratio kernel_us ratio "worst families"
cat "$summary"

[ "${TESTDATA:-1}" = 0 ] && exit 0
$py "$root/tests/bench/gen_attention.py" 8 1024 64 f16 > attention_f16_8x1024x64.mlir
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
