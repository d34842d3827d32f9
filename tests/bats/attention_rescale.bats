#!/usr/bin/env bats
# Lazy rescaling in the MFMA flash kernel (docs/kernels-attention.md "Lazy rescaling"): a block
# computes P against the row's stale shift and takes the slow path (the block's max, the column
# exchange, alpha, the O and l rescale, P again) only when some lane's block sum passes the
# bound of P's type (f16 2^15, E4M3FNUZ 2^7, E4M3FN 2^8). The graphs here make the scores grow
# along the keys (gen_masked_attention.py --kscale, --ramp), so the slow path runs again and
# again between fast blocks whose P passes 1: K's rows scaled by 1 + 0.3 j (the folded scale),
# an additive ramp of 12 every 40 keys under a causal mask, and a gentle ramp (1 every 16 keys:
# the fast path with P up to the bound between the slow blocks) over 1100 keys, whole
# (block pairs, gfx950's 128-key blocks at head 128) and in split-KV chunks.
#
# Tolerance (`// oracle: result 0 err E`, gen_masked_attention.py): f16 4e-2, E4M3 0.125 (P
# rounded to 2^-4 relative in the graph and the kernel). With the fast path letting P through
# without bound (the check against 2^127) every graph below gets NaN.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup
load lib/main_loop

setup() {
  tosac_setup
  GEN=(/usr/bin/python3 "$ROOT/tests/oracle/gen_masked_attention.py")
  unset TOSAC_ATTENTION_FMA TOSAC_ATTENTION_LDS TOSAC_SPLIT_KV TOSAC_NO_ATTENTION_FUSION
}

# graphs TYPE: f16 (gfx942 and gfx950) or an fp8 type
graphs() {
  if [ "$1" = f16 ]; then
    "${GEN[@]}" 2 150 203 64 --form=none --kscale=0.3 --dtype=f16 > g1.mlir
    "${GEN[@]}" 2 77 203 64 --form=add --ramp=12,40 --dtype=f16 > g2.mlir
    "${GEN[@]}" 1 33 1100 128 --form=none --ramp=1,16 --dtype=f16 > g3.mlir
  else
    "${GEN[@]}" 2 150 203 64 --form=neginf --ramp=6,24 --dtype="$1" > g1.mlir
    "${GEN[@]}" 2 77 203 128 --form=add --ramp=12,40 --dtype="$1" > g2.mlir
    "${GEN[@]}" 2 100 1100 64 --form=none --ramp=1,16 --dtype="$1" > g3.mlir
  fi
}

# check TARGETS: the three graphs whole (TOSAC_SPLIT_KV=1) and in three split-KV chunks, both
# execution modes
check() {
  local mode sk
  for mode in isa ir; do
    for sk in 1 3; do
      TOSAC_SPLIT_KV=$sk TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" g1.mlir g2.mlir g3.mlir --targets="$1"
      assert_success
      assert_output --partial "PASSED: 3 graph(s)"
    done
  done
}

@test "f16 attention whose scores grow along the keys (the rescaling path again and again) matches the oracle on gfx942 and gfx950: folded scale, causal, 1100 keys, split-KV, both execution modes" {
  graphs f16
  check gfx942,gfx950
}

@test "fp8 attention whose scores grow along the keys matches the oracle: f8E4M3FNUZ on gfx942, f8E4M3FN on gfx950, both execution modes" {
  graphs f8E4M3FNUZ
  check gfx942
  graphs f8E4M3FN
  check gfx950
}

@test "the flash loop's fast path: one wave-uniform check per block, the max exchange and the rescale out of the loop's body" {
  local arch
  /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 8 1024 64 f16 > a.mlir
  "$TOSAC" a.mlir --offload-arch=gfx942,gfx950 -o a.hipfb
  for arch in gfx942 gfx950; do
    # a pair of blocks: 64 MFMAs, two checks (v_cmp, s_cbranch_vccnz), no ds_bpermute
    run main_loop a "$arch" v_mfma v_cmp_nge_f32 s_cbranch_vccnz ds_bpermute
    assert_output "64 2 2 0"
    # the exchanges are in the slow blocks, which follow the loop, and the row sum's at the end
    run grep -c ds_bpermute "a.$arch.dis"
    assert_output 8
  done
  # gfx950 (issue-bound, P rounded to nearest): the row sum is one dot of each converted pair of P
  # with (1, 1), 16 per 128-key block, no packed f32 add
  run main_loop a gfx950 v_dot2c_f32_f16 v_pk_add_f32
  assert_output "32 0"
  # 512 keys of fp8 are four 128-key blocks: they run as pairs (64 MFMAs and two checks per
  # iteration, attention_pairs.bats), not one block at a time
  /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 8 512 64 f8E4M3FNUZ > s.mlir
  "$TOSAC" s.mlir --offload-arch=gfx942 -o s.hipfb
  run main_loop s gfx942 v_mfma v_cmp_nge_f32 s_cbranch_vccnz
  assert_output "64 2 2"
}
