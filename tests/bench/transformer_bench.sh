#!/usr/bin/env bash
# make bench (part): BERT-base (hidden 768, 12 heads, FFN 3072, sequence 128) from
# tests/oracle/gen_transformer.py with hex weights. Prints kernels per layer and workspace bytes
# with and without attention / row-normalisation fusion, the 12-layer compile time for the 7
# default targets, and checks one layer against the MLIR oracle on gfx90a (about a minute of
# emulation, too slow for make test).
# Usage: tests/bench/transformer_bench.sh [BUILD_DIR]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
tosac="$build/bin/tosac"
gen=("/usr/bin/python3" "$root/tests/oracle/gen_transformer.py")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

plan() { # $1 graph, $2 env: "kernels workspace"
  env $2 "$tosac" "$1" --offload-arch=gfx90a --emit=partitions | head -1 |
    sed -E 's/.*: ([0-9]+) kernels, [0-9]+ launches, workspace ([0-9]+) bytes/\1 \2/'
}

echo "\$ ${gen[*]} bert --layers=12 --seq=128 --hidden=768 --heads=12 > bert12.mlir"
"${gen[@]}" bert --layers=12 --seq=128 --hidden=768 --heads=12 --seed=11 > bert12.mlir
"${gen[@]}" bert --layers=1 --seq=128 --hidden=768 --heads=12 --seed=11 > bert1.mlir
echo "   $(du -m bert12.mlir | cut -f1) MB of TOSA text"
printf '%-58s %9s %9s %12s\n' "fusion (gfx90a plan; the same on every target)" kernels "/layer" workspace
for e in "" TOSAC_NO_GEMM_GROUPING=1 TOSAC_NO_ATTENTION_FUSION=1 TOSAC_NO_ROW_FUSION=1 \
         "TOSAC_NO_ATTENTION_FUSION=1 TOSAC_NO_ROW_FUSION=1" \
         "TOSAC_NO_ATTENTION_FUSION=1 TOSAC_NO_ROW_FUSION=1 TOSAC_NO_GEMM_GROUPING=1" TOSAC_NO_FUSION=1; do
  read -r n ws < <(plan bert12.mlir "$e")
  printf '%-58s %9d %9s %12d\n' "${e:-default}" "$n" "$((n / 12))" "$ws"
done
echo "\$ $tosac bert12.mlir --time-report -o bert12.hipfb   (7 default targets)"
/usr/bin/time -o time.txt -f '%e %M' "$tosac" bert12.mlir --time-report -o bert12.hipfb 2>report.txt
read -r wall peak < time.txt
echo "   wall $wall s, peak RSS $peak KiB"
sed -n '/time report/,$p' report.txt | sed 's/^/   /'
/usr/bin/python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    att = [k for k in t["kernels"] if k["family"] == "attention"][0]
    print("   %-8s %3d kernels (%d distinct), workspace %d bytes; attention: %s, %d VGPRs, %d spills, %d LDS bytes" % (
        t["processor"], t["kernel_count"], t["distinct_kernels"], t["workspace"]["bytes"],
        att["matrix_instruction"], att["registers"]["vgpr"], att["registers"]["vgpr_spills"], att["lds_bytes"]))' bert12.json
echo "\$ check.py bert1.mlir --targets=gfx90a   (one BERT-base layer against the oracle)"
/usr/bin/time -o time.txt -f '%e' /usr/bin/python3 "$root/tests/oracle/check.py" --tosac "$tosac" \
  --tosac-run "$build/bin/tosac-run" bert1.mlir --targets=gfx90a | tail -2 | sed 's/^/   /'
echo "   wall $(cat time.txt) s"
