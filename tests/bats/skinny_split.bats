#!/usr/bin/env bats
# One priced launch and one skinny-kernel model (docs/gemm.md "Skinny GEMMs", docs/quality.md):
# the tuner's choice of form and split-K for a skinny GEMM is the best by tosac-bundle quality's
# estimate among the sliced form and the wide form's splits it considers (TOSAC_GEMV_FORM and
# TOSAC_SPLIT_K force each one; the kernel's shape stays), on every CDNA target; --model charges every launch the target table's launch_ns.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() { tosac_setup; }

# matmul M x K x N (type) or fully_connected (fc: [N][K] weights) as a TOSA graph.
graph() {
  /usr/bin/python3 - "$@" <<'PY'
import sys
kind, m, k, n, et = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5]
if kind == "fc":
    x, w, b, r = f"tensor<{m}x{k}x{et}>", f"tensor<{n}x{k}x{et}>", f"tensor<{n}x{et}>", f"tensor<{m}x{n}x{et}>"
    print(f'func.func @main(%x: {x}, %w: {w}, %b: {b}) -> {r} {{\n  %0 = "tosa.fully_connected"(%x, %w, %b) : ({x}, {w}, {b}) -> {r}\n  return %0 : {r}\n}}')
else:
    acc = et if et == "f32" else "f32"
    a, bb, r = f"tensor<1x{m}x{k}x{et}>", f"tensor<1x{k}x{n}x{et}>", f"tensor<1x{m}x{n}x{acc}>"
    print(f'func.func @main(%a: {a}, %b: {bb}) -> {r} {{\n  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1x{et}>}}> : () -> tensor<1x{et}>\n'
          f'  %r = tosa.matmul %a, %b, %z, %z : ({a}, {bb}, tensor<1x{et}>, tensor<1x{et}>) -> {r}\n  return %r : {r}\n}}')
PY
}

# "split est_us" of the report's GEMM row of bundle $1 on target $2 (split 1: no /sN).
row() {
  "$BUNDLE" quality "$1" --no-mca | awk -v t="$2" '$1 == t {
    s = 1; if (match($4, /\/s[0-9]+$/)) s = substr($4, RSTART + 2); print s, $(NF - 4) }'
}

# The default's form, split and estimate against the sliced form (unsplit; TOSAC_GEMV_FORM=sliced)
# and every split the tuner considers for the wide form (1, and 2 up to the K blocks over the
# waves; TOSAC_GEMV_FORM=wide), each forced: the default must be the least (to the report's 0.1
# us). An [N][K] B (fc) has the wide form only.
check_best() {
  local kind=$1 m=$2 k=$3 n=$4 et=$5 t
  graph "$kind" "$m" "$k" "$n" "$et" > g.mlir
  for t in gfx908 gfx90a gfx942 gfx950; do
    "$TOSAC" g.mlir --offload-arch=$t -o d.hipfb
    local def est most best=1e9 bs=0 s e
    read -r def est < <(row d.hipfb $t)
    TOSAC_GEMV_FORM=sliced "$TOSAC" g.mlir --offload-arch=$t -o f.hipfb
    read -r _ best < <(row f.hipfb $t)
    bs=sliced
    TOSAC_GEMV_FORM=wide "$TOSAC" g.mlir --offload-arch=$t -o w.hipfb
    most=$(/usr/bin/python3 -c 'import json,sys
k=json.load(open("w.json"))["targets"][0]["kernels"][0]["tuning"]
print(max(1, int(sys.argv[1]) // (k["bk"] * k["waves"])))' "$k")
    for s in $(seq 1 "$most"); do
      TOSAC_GEMV_FORM=wide TOSAC_SPLIT_K=$s "$TOSAC" g.mlir --offload-arch=$t -o f.hipfb
      read -r _ e < <(row f.hipfb $t)
      if awk -v e="$e" -v b="$best" 'BEGIN { exit !(e < b) }'; then best=$e bs=s$s; fi
    done
    echo "$t $kind ${m}x${k}x${n} $et: default s$def $est us, best $bs $best us (sliced, wide 1..$most)"
    awk -v e="$est" -v b="$best" 'BEGIN { exit !(e <= b) }'
  done
}

@test "skinny GEMMs: the chosen split is the report's best on gfx908, gfx90a, gfx942 and gfx950" {
  check_best mm 16 768 3072 f16
  check_best mm 1 4096 4096 f16
  check_best mm 8 4096 4096 f16
  check_best fc 1 512 1000 f32
}

@test "GPT-2's decode GEMVs: the chosen split is the report's best on the CDNA targets" {
  check_best mm 1 768 2304 f16
  check_best mm 1 768 768 f16
  check_best mm 1 768 3072 f16
  check_best mm 1 3072 768 f16
}

@test "16x768x3072 f16 on gfx90a: split 5, 4.6 us (split 4 the same), its reduction in the last work-group" {
  graph mm 16 768 3072 f16 > g.mlir
  "$TOSAC" g.mlir --offload-arch=gfx90a -o d.hipfb
  run "$BUNDLE" quality d.hipfb --no-mca
  assert_success
  assert_line --regexp '^gfx90a +matmul:1x16x3072x768:f16:a768:b3072n +f16 +16x256x8/16x256/s5 .* gemv +[0-9.]+ +4\.6 +'
  grep -q "\"split_k_form\": \"lastwg\"" d.json
  TOSAC_SPLIT_K=4 "$TOSAC" g.mlir --offload-arch=gfx90a -o f.hipfb
  run "$BUNDLE" quality f.hipfb --no-mca
  assert_line --regexp '^gfx90a .*/s4 .* gemv +[0-9.]+ +4\.6 +'
}

@test "--model charges every launch the target table's launch_ns (3.8 us) in a row of its own" {
  graph mm 16 768 3072 f16 > g.mlir
  "$TOSAC" g.mlir --offload-arch=gfx942 -o d.hipfb
  run "$BUNDLE" quality d.hipfb --no-mca --model
  assert_success
  assert_line 'model gfx942: 1 launches, estimated 5.4 us, roofline 0.9 us: 17% of the roofline (5.84x)'
  assert_line --regexp '^  launch +1 +3\.8 +69\.9% +0\.0 +-$'
  assert_line --regexp '^  gemm +1 +1\.6 '
  # a combine kernel is a launch of its own: charged its gap too
  TOSAC_GEMV_FORM=wide TOSAC_SPLIT_K=5 TOSAC_SPLIT_K_FORM=combine "$TOSAC" g.mlir --offload-arch=gfx942 -o c.hipfb
  run "$BUNDLE" quality c.hipfb --no-mca --model
  assert_line --regexp '^model gfx942: 2 launches, estimated [0-9.]+ us'
  assert_line --regexp '^  launch +2 +7\.6 '
}
