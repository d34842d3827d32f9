#!/usr/bin/env bats
# Wave-level matrix emulation (src/emu/matrix.c) checked against AMD's lane-layout tables.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin/test-matrix"
  DATA="$ROOT/tests/data/mfma_layouts"
}

@test "matrix: every MFMA/WMMA instruction matches the calculator's layout tables" {
  run "$BIN" "$DATA"
  assert_success
  assert_line "matrix: 151 instructions checked, 0 failed"
  # one line per (processor, instruction, modifier set); 151 in all
  [ "$(printf '%s\n' "$output" | grep -c '^ok ')" -eq 151 ]
  assert_line "ok gfx908 v_mfma_f32_32x32x8f16"
  assert_line "ok gfx90a v_mfma_f64_16x16x4f64"
  assert_line "ok gfx942 v_mfma_f32_16x16x32_fp8_bf8"
  assert_line "ok gfx942 v_mfma_f32_32x32x4_xf32"
  assert_line "ok gfx950 v_mfma_f32_32x32x16_bf8_fp8 (gfx942 layout)"
  assert_line "ok gfx950 v_mfma_f32_16x16x32_f16 [derived]"
  assert_line "ok gfx1100 v_wmma_f16_16x16x16_f16 (opsel 1)"
  assert_line "ok gfx1200 v_wmma_i32_16x16x32_iu4"
  assert_line "ok gfx942 v_mfma_f32_4x4x1_16b_f32 (cbsz 4 abid 9 blgp 7)"
  refute_line --partial "FAIL"
}

@test "matrix: per-architecture instruction counts" {
  run "$BIN" "$DATA"
  assert_success
  count() { printf '%s\n' "$output" | grep -c "^ok $1 v_[a-z0-9_]*\$"; }
  [ "$(count gfx908)" -eq 20 ]
  [ "$(count gfx90a)" -eq 27 ]
  [ "$(count gfx942)" -eq 32 ]
  [ "$(printf '%s\n' "$output" | grep -c '^ok gfx950 .*(gfx942 layout)$')" -eq 30 ]
  [ "$(printf '%s\n' "$output" | grep -c '^ok gfx950 .*\[derived\]$')" -eq 6 ]
  [ "$(count gfx1100)" -eq 10 ]
  [ "$(count gfx1200)" -eq 15 ]
}

@test "matrix: a corrupted D table is detected" {
  tmp="$BATS_TEST_TMPDIR/layouts"
  cp -r "$DATA" "$tmp"
  f="$tmp/gfx90a/v_mfma_f32_32x32x8f16.D.csv"
  # swap the row labels of accumulators v0 and v1 in lane 0 (D[0][0] <-> D[1][0])
  sed -i '2s/^0,D\[0\]\[0\],D\[1\]\[0\]/0,D[1][0],D[0][0]/' "$f"
  grep -q '^0,D\[1\]\[0\],D\[0\]\[0\]' "$f"
  run "$BIN" "$tmp"
  assert_failure
  assert_line --regexp '^FAIL gfx90a v_mfma_f32_32x32x8f16: lane 0 col [01] D\[[01]\]\[0\]\.B0 = '
  assert_line "ok gfx908 v_mfma_f32_32x32x8f16"
  assert_line "matrix: 149 instructions checked, 2 failed"  # plain and blgp 1 runs
}

@test "matrix: missing tables are an error, not a silent pass" {
  run "$BIN" "$BATS_TEST_TMPDIR/nowhere"
  assert_failure
  assert_line "FAIL gfx908 v_mfma_f32_32x32x1f32: layout tables missing under $BATS_TEST_TMPDIR/nowhere"
}
