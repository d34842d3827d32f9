#!/usr/bin/env bats
# Block pairs of a short sequence in the MFMA flash kernel (docs/kernels-attention.md "Block
# pairs"): a chunk of fewer than five blocks runs its pairs with unclamped loads whose blocks past
# the keys read the last whole block instead (three scalar mins per pair). With fewer than five
# whole blocks and a partial one, the partial block reads the whole block ending at L with its
# keys before its start masked, so its pairs run capped too; longer sequences' pairs stop before
# a partial block past L - nk. 512 to 639 keys are four 128-key blocks (and a partial one) in the
# 128-key loops (gfx950's 16-bit loop from 512 keys, the fp8 loops always; from 640 keys five to
# seven whole ones with no partial one run capped too).
#
# Tolerance (`// oracle: result 0 err E`, gen_masked_attention.py): f16 4e-2, E4M3 0.125 (P
# rounded to 2^-4 relative in the graph and in the kernel, docs in attention_fp8.bats). Q and K
# in [-2, 2] (peaked rows: a key block read from the wrong rows moves O by far more than E).

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup
load lib/main_loop

setup() {
  tosac_setup
  GEN=(/usr/bin/python3 "$ROOT/tests/oracle/gen_masked_attention.py")
  unset TOSAC_ATTENTION_FMA TOSAC_ATTENTION_LDS TOSAC_SPLIT_KV TOSAC_NO_ATTENTION_FUSION
}

peaked() { sed 's/arg \([01]\) -1 1/arg \1 -2 2/'; }

# graphs TYPE: 512 keys (head sizes 64 and 128), 520 and 600 (four whole blocks and a partial
# one: capped pairs, the partial block's keys before it masked; causal too), 700 (a partial
# block past L - 64), causal over a KV cache of 512, 256 keys (capped pairs of 64-key blocks on
# gfx942 and gfx950, of 128-key blocks in the fp8 loops), 768 and 896 (six and seven 128-key
# blocks in capped pairs on gfx950 f16; 700 keys there: five and a partial)
graphs() {
  "${GEN[@]}" 2 64 512 64 --form=none --dtype="$1" | peaked > g1.mlir
  "${GEN[@]}" 1 48 512 128 --form=none --dtype="$1" | peaked > g2.mlir
  "${GEN[@]}" 2 40 520 64 --form=none --dtype="$1" | peaked > g3.mlir
  "${GEN[@]}" 1 33 700 64 --form=none --dtype="$1" | peaked > g4.mlir
  "${GEN[@]}" 2 77 512 64 --form=add --dtype="$1" | peaked > g5.mlir
  "${GEN[@]}" 2 40 256 64 --form=none --dtype="$1" | peaked > g6.mlir
  "${GEN[@]}" 1 40 768 64 --form=none --dtype="$1" | peaked > g7.mlir
  "${GEN[@]}" 1 24 896 128 --form=none --dtype="$1" | peaked > g8.mlir
  "${GEN[@]}" 2 40 600 64 --form=add --dtype="$1" | peaked > g9.mlir
  "${GEN[@]}" 1 24 600 128 --form=none --dtype="$1" | peaked > g10.mlir
  "${GEN[@]}" 1 56 520 128 --form=add --dtype="$1" | peaked > g11.mlir
}

# check TARGETS SEED: the graphs whole (TOSAC_SPLIT_KV=1) and in three split-KV chunks (512 keys:
# chunks of 192, three 64-key blocks, the last chunk's pair capped; 700: the last chunk's partial
# block past L - 64), both execution modes
check() {
  local mode sk
  for mode in isa ir; do
    for sk in 1 3; do
      TOSAC_SPLIT_KV=$sk TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" g1.mlir g2.mlir g3.mlir g4.mlir g5.mlir g6.mlir g7.mlir g8.mlir g9.mlir g10.mlir g11.mlir --targets="$1" --seed="$2"
      assert_success
      assert_output --partial "PASSED: 11 graph(s)"
    done
  done
}

@test "attention at 512, 768 and 896 keys (capped block pairs) and at 520, 600 and 700 keys (a partial last block) matches the oracle: gfx942 and gfx950 f16, f8E4M3FNUZ on gfx942, f8E4M3FN on gfx950, split-KV, causal, both execution modes" {
  graphs f16
  check gfx942,gfx950 512
  graphs f8E4M3FNUZ
  check gfx942 513
  graphs f8E4M3FN
  check gfx950 514
}

@test "512 keys (gfx950 16-bit: 640 to 896 too; 520 to 639: four blocks and a partial one): the main loop is a pair of 128-key blocks with unclamped loads (no lane clamp, three scalar mins); 1024 keys: none" {
  local p arch et head mfma seq
  for p in gfx942:f8E4M3FNUZ:64:64:512 gfx950:f8E4M3FN:128:128:512 gfx950:f16:64:64:512 \
    gfx950:bf16:128:128:512 gfx950:f16:64:64:640 gfx950:f16:64:64:768 gfx950:bf16:128:128:896 \
    gfx950:f16:64:64:520 gfx950:bf16:128:128:639 gfx942:f8E4M3FNUZ:64:64:600 \
    gfx950:f8E4M3FN:128:128:520; do
    IFS=: read -r arch et head mfma seq <<< "$p"
    /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 8 "$seq" "$head" "$et" > a.mlir
    "$TOSAC" a.mlir --offload-arch="$arch" -o a.hipfb --manifest=a.json
    run grep -o '"block_keys": *[0-9]*' a.json
    assert_output '"block_keys": 128'
    # MFMAs, the two blocks' checks; the clamped loads' v_min (v_med3) and address shifts
    run main_loop a "$arch" v_mfma v_cmp_nge_f32 s_cbranch_vccnz v_min v_med3 v_lshl s_min
    assert_output "$mfma 2 2 0 0 0 3"
  done
  # a longer sequence's main loop is the pairs whose loads stay below L: no min at all
  /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 8 1024 64 f8E4M3FNUZ > b.mlir
  "$TOSAC" b.mlir --offload-arch=gfx942 -o b.hipfb
  run main_loop b gfx942 v_mfma v_min s_min
  assert_output "64 0 0"
}
