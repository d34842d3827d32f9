#!/usr/bin/env bats
# fp8 flash attention (docs/kernels-attention.md "The fp8 path"): Q, K, V in an 8-bit float type,
# f16 scores cast to f32, the softmax in f32, P cast to the fp8 type for the second matmul, an f16
# result. On a target with the type's 16x16x32 MFMA (FNUZ types on gfx942, OCP types on gfx950)
# the whole chain is one flash kernel whose P is rounded by v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32,
# as a standalone tosa.cast rounds it; elsewhere the ops stay unfused and the first matmul's
# error stands.
#
# Tolerance (`// oracle: result 0 err E`, gen_masked_attention.py): Q, K, V in [-1, 1]; the
# graph rounds the normalised P and the kernel the unnormalised one (before O / l), each to
# 2^-m relative (m = 4 for E4M3, 3 for E5M2: half a unit of 3 or 2 mantissa bits), so each is
# within 2^-m max|v| of the exact sum: E = 2 * 2^-m (0.125, 0.25). Measured: at most 0.027.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
  GEN=(/usr/bin/python3 "$ROOT/tests/oracle/gen_masked_attention.py")
  unset TOSAC_ATTENTION_FMA TOSAC_ATTENTION_LDS TOSAC_SPLIT_KV TOSAC_NO_ATTENTION_FUSION
}

# plain HEADS SEQ HEAD TYPE: gen_attention.py's unmasked fp8 form, Q and K in [-2, 2] (peaked
# rows), V in [-1, 1], the tolerance above
plain() {
  local err=0.125
  case "$4" in f8E5M2*) err=0.25 ;; esac
  printf '// oracle: arg 0 -2 2\n// oracle: arg 1 -2 2\n// oracle: arg 2 -1 1\n// oracle: result 0 err %s\n' "$err"
  /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" "$1" "$2" "$3" "$4"
}

# peaked: Q and K of a gen_masked_attention.py graph in [-2, 2] instead of [-1, 1] (V stays in
# [-1, 1]): with flat rows O is nearly the mean of V whatever key each probability meets
peaked() { sed 's/arg \([01]\) -1 1/arg \1 -2 2/'; }

# graphs TYPE_E4M3 TYPE_E5M2: unmasked and causal, head sizes 64 and 128, tails (150 keys: two
# 64-key blocks and 22; 300: two 128-key blocks and 44), queries fewer than keys (a KV cache)
graphs() {
  plain 2 150 64 "$1" > g1.mlir
  "${GEN[@]}" 2 77 203 128 --dtype="$2" --form=add | peaked > g2.mlir
  plain 1 300 128 "$2" > g3.mlir
  "${GEN[@]}" 1 300 300 64 --dtype="$1" --form=select | peaked > g4.mlir
  "${GEN[@]}" 2 37 37 16 --dtype="$2" --form=neginf | peaked > g5.mlir
}

# kernels FILE TARGET: "count name instruction block_keys" of the manifest
kernels() {
  "$TOSAC" "$1" --offload-arch="$2" -o k.hipfb --manifest=k.json
  /usr/bin/python3 -c "
import json; t = json.load(open('k.json'))['targets'][0]
print(t['kernel_count'], len(t['launches']), ' '.join('%s %s %s' % (k['name'], k.get('matrix_instruction'), k['tuning'].get('block_keys')) for k in t['kernels']))"
}

@test "fp8 attention is one kernel on the type's MFMA: gfx942 FNUZ types, gfx950 OCP types; P by the packed fp8 conversion, two per dword" {
  local p arch et mn
  for p in gfx942:f8E4M3FNUZ:fp8 gfx942:f8E5M2FNUZ:bf8 gfx950:f8E4M3FN:fp8 gfx950:f8E5M2:bf8; do
    IFS=: read -r arch et mn <<< "$p"
    plain 2 150 64 "$et" > a.mlir
    plain 1 300 128 "$et" > b.mlir
    run kernels a.mlir "$arch"
    assert_output "1 1 tosac_k0_attention v_mfma_f32_16x16x32_${mn}_${mn} 64"
    run kernels b.mlir "$arch"
    assert_output "1 1 tosac_k0_attention v_mfma_f32_16x16x32_${mn}_${mn} 128"
    "$TOSAC" a.mlir --offload-arch="$arch" --emit=asm -o a.s
    # two conversions per dword of P: the second writes the high half (op_sel[2])
    run grep -cE "v_cvt_pk_${mn}_f32 v[0-9]+, v[0-9]+, v[0-9]+ op_sel:\[0,0,1\]" a.s
    assert_success
    run grep -c "v_mfma_f32_16x16x32_${mn}_${mn}" a.s
    assert_success
  done
}

@test "fp8 attention on gfx942 (FNUZ) matches the oracle: unmasked and causal, head 64 and 128, tails, both execution modes" {
  graphs f8E4M3FNUZ f8E5M2FNUZ
  for mode in isa ir; do
    TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" g1.mlir g2.mlir g3.mlir g4.mlir g5.mlir --targets=gfx942
    assert_success
    assert_equal "$(echo "$output" | grep -c '^ok ')" 5
  done
}

@test "fp8 attention on gfx950 (OCP) matches the oracle: unmasked and causal, head 64 and 128, tails, both execution modes" {
  graphs f8E4M3FN f8E5M2
  for mode in isa ir; do
    TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" g1.mlir g2.mlir g3.mlir g4.mlir g5.mlir --targets=gfx950
    assert_success
    assert_equal "$(echo "$output" | grep -c '^ok ')" 5
  done
}

@test "fp8 attention: a causal mask is recognised (the key loop ends at the block's last query), a perturbed reference fails the comparison" {
  "${GEN[@]}" 2 77 203 128 --dtype=f8E5M2FNUZ --form=add > c.mlir
  run "$TOSAC" c.mlir --offload-arch=gfx942 --emit=partitions
  assert_output --partial "causal mask, key j of query i masked for j > i + 126"
  run "${CHECK[@]}" c.mlir --targets=gfx942 --corrupt
  assert_failure
  assert_output --partial "MISMATCH"
}

@test "fp8 decode attention (3 queries, 700 keys): split-KV partials of the fp8 flash kernel and the combine match the oracle" {
  "${GEN[@]}" 1 3 700 64 --dtype=f8E4M3FNUZ --form=add | peaked > d.mlir
  "${GEN[@]}" 1 3 700 64 --dtype=f8E5M2 --form=add | peaked > e.mlir
  TOSAC_SPLIT_KV=3 run "$TOSAC" d.mlir --offload-arch=gfx942 --emit=partitions
  assert_line "  kernel 0 tosac_k0_attention_splitkv over tensor<1x3x64xf16>"
  for mode in isa ir; do
    TOSAC_SPLIT_KV=3 TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" d.mlir --targets=gfx942
    assert_success
    TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" e.mlir --targets=gfx950
    assert_success
  done
}

@test "fp8 attention without the type's MFMA (gfx90a, gfx1100, OCP types on gfx942, FNUZ on gfx950): unfused, the first matmul's exact error, no output" {
  local p arch et
  for p in gfx90a:f8E4M3FNUZ gfx1100:f8E4M3FN gfx942:f8E4M3FN gfx950:f8E5M2FNUZ; do
    IFS=: read -r arch et <<< "$p"
    /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 2 37 16 "$et" > a.mlir
    run "$TOSAC" a.mlir --offload-arch="$arch" --emit=partitions
    refute_output --partial "attention"
    run "$TOSAC" a.mlir --offload-arch="$arch" -o a.hipfb
    assert_failure
    assert_output --partial "a.mlir:6:10: error: $et inputs need an fp8 matrix instruction and $arch has none (f8E4M3FNUZ and f8E5M2FNUZ: gfx942; f8E4M3FN and f8E5M2: gfx950, gfx1200)"
    [ ! -e a.hipfb ]
  done
}

@test "fp8 attention: TOSAC_ATTENTION_FMA and TOSAC_ATTENTION_LDS leave the fp8 flash kernel (it has no other variant)" {
  plain 2 150 64 f8E4M3FN > a.mlir
  TOSAC_ATTENTION_FMA=1 run kernels a.mlir gfx950
  assert_output "1 1 tosac_k0_attention v_mfma_f32_16x16x32_fp8_fp8 64"
  TOSAC_ATTENTION_LDS=1 run kernels a.mlir gfx950
  assert_output "1 1 tosac_k0_attention v_mfma_f32_16x16x32_fp8_fp8 64"
  TOSAC_ATTENTION_LDS=1 run "${CHECK[@]}" a.mlir --targets=gfx950
  assert_success
}
