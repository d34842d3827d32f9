#!/usr/bin/env bats
# tosac-bundle quality --model over whole models (docs/quality.md): small seeded ResNet-50,
# BERT and GPT-2 decode graphs (the generators of tests/bench/model_bench.sh) on the 7 default
# targets; every launch of every target is accounted for (a row of a family with an estimate),
# no figure is above its roofline, and a launch without a row is an error.

bats_load_library bats-support
bats_load_library bats-assert
load quality_helpers

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  BUILD="${TOSAC_BUILD:-build}"
  case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
  export TOSAC="$BUILD/bin/tosac" Q="$BUILD/bin/tosac-bundle"
  unset TOSAC_TUNING_DB TOSAC_SPLIT_K TOSAC_IM2COL TOSAC_ATTENTION_FMA
  cd "$BATS_FILE_TMPDIR"
  local gen=$ROOT/tests/bench/gen_model.py tr=$ROOT/tests/oracle/gen_transformer.py
  # ResNet-50's stem, max pool, first stage (3 bottlenecks), global pool and classifier
  /usr/bin/python3 "$gen" resnet50 --stages 1 --batch 2 --dtype f16 --weights args > r50.mlir
  /usr/bin/python3 "$tr" bert --layers=1 --seq=24 --hidden=64 --heads=2 --dtype=f16 --weights=args --seed=3 > bert.mlir
  # one GPT-2 decode layer (768 wide) with a KV cache of 40 and GPT-2's 50257-word head
  /usr/bin/python3 "$gen" gpt2 --layers 1 --kv 40 --vocab 50257 > gpt.mlir
  for m in r50 bert gpt; do
    "$TOSAC" $m.mlir -o $m.hipfb
  done
}

setup() { cd "$BATS_FILE_TMPDIR"; }

# The manifest's kernel, copy and fill launches per target: "processor count" lines.
launch_counts() {
  /usr/bin/python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    print(t["processor"], sum(n["kind"] in ("kernel", "copy", "fill") for n in t["launches"]))' "$1"
}

@test "every launch of the small ResNet-50, BERT and GPT-2 decode graphs is accounted for on the 7 targets" {
  for m in r50 bert gpt; do
    run "$Q" quality $m.hipfb --no-mca --model
    assert_success
    refute_line --partial 'error:'
    refute_line --regexp '^  other '
    [ "$(echo "$output" | grep -c '^model ')" = 7 ]
    # the summary's launches are the manifest's, target by target
    diff <(echo "$output" | awk '/^model / { t = $2; sub(":", "", t); print t, $3 }') <(launch_counts $m.json)
    echo "$output" > $m.txt
    run within_roofline $m.txt
    assert_success
  done
}

@test "the GPT-2 decode step: the language-model head is a skinny GEMM at its memory roofline, never above it" {
  # 768 x 50257 f16 weights (77 MB) stream at the bandwidth; the ideal counts the f16 result
  # in its own type (at 4 bytes it came out 0.1 % above the estimate)
  run "$Q" quality gpt.hipfb --no-mca
  assert_success
  assert_line --regexp '^gfx942 +matmul:1x1x50257x768:f16:a768:b50257n +f16 .* gemv +[0-9.]+ +14\.6 +100% mem '
  run "$Q" quality gpt.hipfb --no-mca --model
  # 6: the QKV slices and the KV-cache concats are views, the split skinny GEMMs reduce in their
  # last work-group, the layer norms run in the prologues of the GEMVs reading them
  assert_line --regexp '^model gfx942: 6 launches, estimated [0-9.]+ us, roofline [0-9.]+ us: [0-9]+% of the roofline \([0-9.]+x\)$'
  assert_line --regexp '^  attention +1 '
}

@test "a launch of a kernel the report has no row for is an error" {
  /usr/bin/python3 -c '
import json
m = json.load(open("bert.json"))
for t in m["targets"]:
    if t["processor"] == "gfx1100":
        n = [n for n in t["launches"] if n["kind"] == "kernel"][1]
        n["kernel"] = 999
json.dump(m, open("lost.json", "w"))'
  run "$Q" quality bert.hipfb --manifest lost.json --no-mca --model
  assert_failure
  assert_line --regexp '^error: launch [0-9]+ \(kernel\) on gfx1100 is not accounted for: no row of a family$'
  [ "$(echo "$output" | grep -c '^error:')" = 1 ]
}

@test "a grouped GEMM is charged every GEMM's tiles and flops: BERT-base's Q, K, V (weights as arguments) against three GEMMs" {
  # one 768-wide layer at sequence 512: the grouped kernel's K loop is one slice's (not the
  # switch's flow around all three), its grid three problems; per target the 512x768x768 rows
  # (the grouped kernel's first, then the out-projection's; identical kernels share a row) and
  # the model line
  /usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" bert --seq=512 --hidden=768 --heads=12 --dtype=f16 --weights=args > b.mlir
  "$TOSAC" b.mlir --offload-arch=gfx942,gfx1100 -o g.hipfb
  TOSAC_NO_GEMM_GROUPING=1 "$TOSAC" b.mlir --offload-arch=gfx942,gfx1100 -o s.hipfb
  for f in g s; do
    "$Q" quality $f.hipfb --no-mca --model > $f.txt
    echo "$(grep ' matmul:1x512x768x768:' $f.txt | awk '{ printf "%s %s ", $1, $(NF-4) }')"
    grep '^model ' $f.txt | cut -d: -f1-2
  done > rows.txt
  run cat rows.txt
  # gfx1100: 3 x 5.6 us (the grid takes three times the rounds); gfx942: 2.0 us against 3 x
  # 1.0 (one GEMM's 192 tiles leave CUs idle); both 2 launches (7.6 us) less per layer
  assert_output "$(printf '%s\n' 'gfx942 2.0 gfx942 1.0 gfx1100 16.8 gfx1100 5.6 ' \
    'model gfx942: 7 launches, estimated 40.9 us, roofline 7.2 us' 'model gfx1100: 7 launches, estimated 104.8 us, roofline 68.8 us' \
    'gfx942 1.0 gfx942 1.0 gfx1100 5.6 gfx1100 5.6 ' \
    'model gfx942: 9 launches, estimated 49.5 us, roofline 7.4 us' 'model gfx1100: 9 launches, estimated 112.4 us, roofline 68.8 us')"
}
