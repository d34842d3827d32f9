#!/usr/bin/env bats
# The attention kernel's decode variant (docs/kernels-attention.md "Decode variant"): 1 to 4
# query rows over a long KV cache, the lanes of a work-group spread over keys and head elements,
# whole or as split-KV partials with the split count chosen by the estimate
# (codegen/tuning.c cg_tune_splitkv) and the chunks merged by the last work-group of each
# batch-and-head entry (cg_tune_splitkv_lastwg) or by a combine kernel. Results match the oracle on an MFMA (gfx942), a WMMA
# (gfx1100) and the FMA target (gfx1030) in both execution modes, on seeded odd key counts, with
# constant causal masks (add, -inf, select; a KV-cache offset), f32, f16 and bf16, and head sizes
# that do not fill 16-byte loads or a power of two of lanes.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
  unset TOSAC_SPLIT_KV TOSAC_ATTENTION_DECODE TOSAC_ATTENTION_FMA TOSAC_ATTENTION_LDS
  GEN=(/usr/bin/python3 "$ROOT/tests/oracle/gen_masked_attention.py")
  GENT=(/usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py")
  THREE=gfx942,gfx1100,gfx1030
}

# odd key counts from a seeded generator: n of them in [lo, hi)
odd_lengths() {
  /usr/bin/python3 -c 'import random, sys
r = random.Random(int(sys.argv[1]))
print(" ".join(str(r.randrange(int(sys.argv[2]), int(sys.argv[3])) | 1) for _ in range(int(sys.argv[4]))))' "$@"
}

# the attention kernels of one target's manifest: name, variant, split count, work-groups
attention_kernels() {
  /usr/bin/python3 -c '
import json, sys
for k in json.load(open(sys.argv[1]))["targets"][0]["kernels"]:
    t = k["tuning"]
    if k["family"] == "attention" and "block_rows" in t:
        print(k["name"], t.get("kernel", "-"), t.get("split_kv", 1), k["grid"][0])' "$1"
}

@test "decode graphs take the decode variant on every target family; 5 query rows and TOSAC_ATTENTION_DECODE=0 do not" {
  "${GEN[@]}" 3 1 301 16 > a.mlir
  "${GEN[@]}" 3 5 301 16 > b.mlir
  for t in gfx942 gfx950 gfx1100 gfx1030; do
    "$TOSAC" a.mlir --offload-arch=$t -o a.$t.hipfb
    "$TOSAC" b.mlir --offload-arch=$t -o b.$t.hipfb
    TOSAC_ATTENTION_DECODE=0 "$TOSAC" a.mlir --offload-arch=$t -o c.$t.hipfb
    echo "$t $(attention_kernels a.$t.json | cut -d' ' -f2) $(attention_kernels b.$t.json | cut -d' ' -f2) $(attention_kernels c.$t.json | cut -d' ' -f2)"
  done > kinds.txt
  run cat kinds.txt
  assert_output "$(printf '%s\n' 'gfx942 decode - -' 'gfx950 decode - -' 'gfx1100 decode - -' 'gfx1030 decode - -')"
}

@test "1-4 query rows over seeded odd key counts, causal masks (add, -inf, select), f32/f16/bf16, head sizes 7-64 match the oracle (both exec modes)" {
  read -r l1 l2 l3 l4 l5 l6 <<< "$(odd_lengths 30 65 3000 6)"
  echo "lengths $l1 $l2 $l3 $l4 $l5 $l6"
  "${GEN[@]}" 2 1 $l1 64 --form=add --dtype=f16 > a.mlir     # 16-byte loads, 8 lanes a key
  "${GEN[@]}" 3 2 $l2 24 --form=neginf --dtype=bf16 > b.mlir # 3 parts: 4 lanes, one idle
  "${GEN[@]}" 2 3 $l3 40 --form=select > c.mlir              # f32: 10 parts, 16 lanes a key
  "${GEN[@]}" 1 4 $l4 7 --form=add > d.mlir                  # element loads (no 16-byte part)
  "${GEN[@]}" 4 1 $l5 16 --form=select --near --dtype=f16 > e.mlir
  "${GEN[@]}" 2 4 $l6 12 --form=add --reshape --dtype=bf16 > f.mlir
  for mode in isa ir; do
    TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" a.mlir b.mlir c.mlir d.mlir e.mlir f.mlir --targets=$THREE
    assert_success
    assert_equal "$(echo "$output" | grep -c '^ok ')" 18
  done
  # every graph ran the decode variant
  for g in a b c d e f; do
    "$TOSAC" $g.mlir --offload-arch=gfx1030 -o $g.hipfb
    [ "$(attention_kernels $g.json | cut -d' ' -f2)" = decode ]
  done
}

@test "the decode variant as one kernel (TOSAC_SPLIT_KV=0) and in 5 chunks (TOSAC_SPLIT_KV=5, the last one short; merged by the last work-group and by a combine kernel) matches the oracle (both exec modes)" {
  read -r l1 l2 <<< "$(odd_lengths 31 300 2000 2)"
  "${GEN[@]}" 2 3 $l1 16 --form=add > a.mlir
  "${GEN[@]}" 3 1 $l2 32 --form=neginf --dtype=f16 > b.mlir
  for split in 0 5 5:combine; do
    for mode in isa ir; do
      TOSAC_SPLIT_KV=${split%:*} TOSAC_SPLIT_KV_FORM=${split#*:} TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode \
        run "${CHECK[@]}" a.mlir b.mlir --targets=$THREE
      assert_success
      assert_equal "$(echo "$output" | grep -c '^ok ')" 6
    done
  done
  # whole 64-key tiles per chunk: 5 of them over l2 keys, 3 entries each
  TOSAC_SPLIT_KV=5 "$TOSAC" b.mlir --offload-arch=gfx942 -o b.hipfb
  run attention_kernels b.json
  chunk=$(( (l2 + 4) / 5 )) && chunk=$(( (chunk + 63) / 64 * 64 ))
  [ $(( (l2 + chunk - 1) / chunk )) -eq 5 ]
  assert_output "tosac_k0_attention_splitkv decode 5 15"
}

@test "split-KV merged by the last work-group: one launch, its 3 counters in the zeroed workspace; the combine kernel where forced or without a zeroed workspace" {
  "${GEN[@]}" 3 1 1001 32 --form=neginf --dtype=f16 > b.mlir
  # under sanitizers (TOSAC_SAN) Python loads an instrumented libtosac: the runtime comes first
  local pre=""
  [ -z "${TOSAC_SAN:-}" ] || pre="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  form() {
    LD_PRELOAD="$pre" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
      /usr/bin/python3 - "$ROOT/python" "$@" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tosac
opt = {} if sys.argv[2] == "default" else {'zeroed_workspace': False}
t = tosac.compile(open('b.mlir').read(), ['gfx942'], **opt).manifest['targets'][0]
print(len(t['launches']), t['workspace'].get('zeroed_bytes', 0),
      [(k['name'], k['tuning'].get('split_kv'), k['tuning'].get('split_kv_form', '-')) for k in t['kernels']])
PY
  }
  TOSAC_SPLIT_KV=4 run form default
  assert_success
  assert_output "1 256 [('tosac_k0_attention_splitkv', 4, 'lastwg')]"
  TOSAC_SPLIT_KV=4 run form no_zeroed
  assert_success
  assert_output "2 0 [('tosac_k0_attention_splitkv', 4, '-'), ('tosac_k1_attention_combine', 4, '-')]"
  TOSAC_SPLIT_KV=4 TOSAC_SPLIT_KV_FORM=combine run "$TOSAC" b.mlir --offload-arch=gfx942 --emit=partitions
  assert_line "  kernel 1 tosac_k1_attention_combine over tensor<3x1x32xf16>"
  TOSAC_SPLIT_KV=4 run "$TOSAC" b.mlir --offload-arch=gfx942 --emit=partitions
  assert_line "target gfx942: 1 kernels, 1 launches, workspace 2048 bytes"
  assert_line --regexp "^    split-KV estimate: 4 chunks [0-9.]+ us with the combine, one kernel [0-9.]+ us; merged by the last work-group$"
}

@test "GPT decode steps over odd KV caches and a causal decode step (3 queries, the KV-cache offset) match the oracle (both exec modes)" {
  read -r l1 l2 <<< "$(odd_lengths 32 500 2500 2)"
  "${GENT[@]}" gpt --seq=1 --decode=$l1 --hidden=64 --heads=2 --seed=21 > g.mlir
  "${GENT[@]}" bert --seq=3 --decode=$l2 --causal --hidden=64 --heads=4 --seed=22 > c.mlir
  for mode in isa ir; do
    TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" g.mlir c.mlir --targets=$THREE
    assert_success
    assert_equal "$(echo "$output" | grep -c '^ok ')" 6
  done
}

# The GPT-2-small decode step's attention (12 heads, head size 64, f16) per target: the split
# count and the partial's (or the one kernel's) tosac-bundle quality row, est_us and share of the
# memory roofline, with the combine's; a share above 100 % fails.
quality_rows() {
  "${GENT[@]}" gpt --seq=1 --decode=$1 --hidden=768 --heads=12 --dtype=f16 --weights=args > g$1.mlir
  for t in gfx942 gfx950 gfx1100 gfx1030; do
    "$TOSAC" g$1.mlir --offload-arch=$t -o g.$t.hipfb
    echo "$t P $(attention_kernels g.$t.json | cut -d' ' -f3) $("$BUNDLE" quality g.$t.hipfb --no-mca |
      awk '$2 == "attention" || $3 ~ /attention_combine/ { printf " %s %s %s", $2, $(NF-3), $(NF-2) }')"
  done > rows.txt
  cat rows.txt
  ! grep -E ' (1[0-9][1-9]|1[1-9][0-9]|[2-9][0-9][0-9])%' rows.txt
}

@test "GPT-2-small decode over 1024 keys: RDNA one kernel at 82 and 100 % of the memory roofline; CDNA split, bound by one memory latency and the last work-group's merge" {
  run quality_rows 1024
  assert_success
  # gfx942: K/V (3.1 MB) take 0.59 us at the bandwidth, under one 0.7 us memory latency; the
  # last work-group's merge adds three coherent-cache round trips (a combine kernel was another
  # 0.7 us launch)
  assert_line "gfx942 P 8  attention 1.16 52%"
  assert_line "gfx950 P 8  attention 1.16 34%"
  assert_line "gfx1100 P 1  attention 4.00 82%"
  assert_line "gfx1030 P 1  attention 6.15 100%"
}

@test "GPT-2-small decode over 8192 keys: the partials near the memory roofline on CDNA (with their last work-group's merge), RDNA one kernel" {
  run quality_rows 8192
  assert_success
  assert_line "gfx942 P 10  attention 5.21 91%"
  assert_line "gfx950 P 15  attention 3.61 87%"
  assert_line "gfx1100 P 1  attention 32.00 82%"
  assert_line "gfx1030 P 1  attention 49.16 100%"
}
