#!/usr/bin/env bats
# Causal masks (docs/partitioning.md "Causal masks"): a constant mask that hides the keys
# j > i + o of query i is recognised at partition time (additive -10000 or -inf, select with an
# i1 constant, through a reshape), the attention kernel's key loop of a query block stops at its
# last query's i + o, and results match the oracle on an MFMA (gfx90a, gfx942, gfx950), a WMMA (gfx1100)
# and the FMA target (gfx1030) in both execution modes; a mask with one element changed is not
# causal and keeps the whole loop.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  GEN=(/usr/bin/python3 "$ROOT/tests/oracle/gen_masked_attention.py")
  GENT=(/usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py")
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run")
  cd "$BATS_TEST_TMPDIR"
}

causal_line() { "$TOSAC" "$1" --offload-arch=gfx90a --emit=partitions | grep -o 'causal mask.*' || echo none; }

@test "--emit=partitions: causal masks by add (-10000, -inf), select and through a reshape; the KV-cache offset; near-causal is not" {
  "${GEN[@]}" 2 77 90 16 --form=add > a.mlir
  "${GEN[@]}" 2 77 90 16 --form=neginf > b.mlir
  "${GEN[@]}" 2 77 90 16 --form=select > c.mlir
  "${GEN[@]}" 2 77 90 16 --form=select --reshape > d.mlir
  "${GEN[@]}" 2 77 77 16 --form=add --reshape --dtype=f16 > e.mlir
  "${GEN[@]}" 2 77 90 16 --form=add --near > f.mlir
  "${GEN[@]}" 2 77 90 16 --form=select --near > g.mlir
  "${GENT[@]}" gpt --seq=13 --seed=2 > gpt.mlir
  "${GENT[@]}" bert --seq=3 --decode=40 --causal --seed=3 > dec.mlir
  for f in a b c d e f g gpt dec; do echo "$f $(causal_line $f.mlir)"; done > got.txt
  run cat got.txt
  assert_output "$(printf '%s\n' 'a causal mask, key j of query i masked for j > i + 13' \
    'b causal mask, key j of query i masked for j > i + 13' 'c causal mask, key j of query i masked for j > i + 13' \
    'd causal mask, key j of query i masked for j > i + 13' 'e causal mask, key j of query i masked for j > i + 0' \
    'f none' 'g none' 'gpt causal mask, key j of query i masked for j > i + 0' \
    'dec causal mask, key j of query i masked for j > i + 37')"
}

@test "a mask that a later op could lift is not causal: maximum with a constant, a select filling 0" {
  "${GEN[@]}" 2 20 20 16 --form=add > a.mlir
  sed 's/%sm = tosa.add %ss, %m3 : (\(.*\)) -> \(.*\)$/%sa = tosa.add %ss, %m3 : (\1) -> \2\n  %sm = tosa.maximum %sa, %ss : (\2, \2) -> \2/' a.mlir > max.mlir
  grep -q 'tosa.maximum' max.mlir
  run causal_line max.mlir
  assert_output "none"
  "${GEN[@]}" 2 20 20 16 --form=select > s.mlir
  sed 's/dense<"0x000080FF"> : tensor<1x1x1xf32>/dense<"0x00000000"> : tensor<1x1x1xf32>/' s.mlir > s0.mlir
  grep -q '0x00000000' s0.mlir
  run causal_line s0.mlir
  assert_output "none"
  run "${CHECK[@]}" max.mlir s0.mlir --targets=gfx90a,gfx1030
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
}

@test "causal attention at odd lengths (150 queries, 203 keys) matches the oracle: gfx90a, gfx942, gfx950, gfx1100, gfx1030, both execution modes" {
  "${GEN[@]}" 2 150 203 16 --form=add > c1.mlir
  "${GEN[@]}" 2 150 203 32 --form=select --reshape --dtype=f16 > c2.mlir
  "${GEN[@]}" 3 37 37 64 --form=neginf --dtype=bf16 > c3.mlir
  "${GEN[@]}" 2 150 203 16 --form=neginf --near > n1.mlir
  for mode in isa ir; do
    TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" c1.mlir c2.mlir c3.mlir n1.mlir --targets=gfx90a,gfx942,gfx950,gfx1100,gfx1030
    assert_success
    assert_equal "$(echo "$output" | grep -c '^ok ')" 20
  done
}

@test "causal GPT (2 blocks, 77 tokens, f16) and a causal decode step over a KV cache (3 queries, 1500 keys, split-KV) match the oracle" {
  "${GENT[@]}" gpt --layers=2 --seq=77 --dtype=f16 --seed=5 > gpt.mlir
  "${GENT[@]}" bert --seq=3 --decode=1500 --causal --hidden=64 --heads=2 --seed=6 > dec.mlir
  run "$TOSAC" dec.mlir --offload-arch=gfx90a --emit=partitions
  assert_output --partial "_attention_splitkv"
  assert_output --partial "causal mask, key j of query i masked for j > i + 1497"
  for mode in isa ir; do
    TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" gpt.mlir dec.mlir --targets=gfx90a,gfx1100,gfx1030
    assert_success
    assert_equal "$(echo "$output" | grep -c '^ok ')" 6
  done
}

@test "split-KV chunks wholly past a query block's causal end run no block (m = -inf, l = 0) and weigh nothing in the combine" {
  "${GEN[@]}" 2 150 203 16 --form=add > c1.mlir
  # 3 chunks; the first query block (rows 0-63) ends at key 64 + 53: its last chunk is empty
  TOSAC_SPLIT_KV=3 run "$TOSAC" c1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  kernel 0 tosac_k0_attention_splitkv over tensor<2x150x16xf32>"
  for mode in isa ir; do
    TOSAC_SPLIT_KV=3 TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" c1.mlir --targets=gfx90a,gfx1100,gfx1030
    assert_success
    assert_equal "$(echo "$output" | grep -c '^ok ')" 3
  done
}

@test "the causal kernel's first query block executes fewer instructions than the near-causal one's (the machine-code trace of its first wave)" {
  "${GEN[@]}" 2 150 203 16 --form=add > c.mlir
  "${GEN[@]}" 2 150 203 16 --form=add --near > n.mlir
  export TOSAC_SPLIT_KV=0 # one kernel over all keys (the estimate splits these 2 heads' keys)
  for t in gfx90a gfx1100 gfx1030; do
    for g in c n; do
      "$TOSAC" $g.mlir --offload-arch=$t -o $g.$t.hipfb
      TOSAC_EXEC=isa TOSAC_ISA_TRACE=0 "$BIN/tosac-run" $g.$t.hipfb --input="2x150x16xf32=1" --input="2x203x16xf32=1" \
        --input="2x203x16xf32=1" 2> $g.$t.trace > /dev/null
    done
    c=$(grep -c '^0x' c.$t.trace) n=$(grep -c '^0x' n.$t.trace)
    echo "$t causal $c near $n"
    # the first block of queries walks 64 + 53 keys instead of 203 (the LDS matrix kernel on
    # gfx1100: 16 + 53)
    [ "$c" -gt 100 ]
    [ $((c * 3)) -lt $((n * 2)) ]
  done
}
