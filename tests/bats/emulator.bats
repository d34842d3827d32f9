#!/usr/bin/env bats
# emulator.bats: the emulator core (tools/tosac-run emu_*) through its unit-test program, which
# builds AMDGPU kernels from IR text for gfx90a and gfx1100, runs them and checks exact results.

bats_load_library bats-support
bats_load_library bats-assert

setup() {
  ROOT="$BATS_TEST_DIRNAME/../.."
  T="$ROOT/${TOSAC_BUILD:-build}/bin/test-emu_core"
  [ -x "$T" ] || fail "test-emu_core not built: run make first"
}

@test "elementwise add over 1000 elements with a partial last group (gfx90a, wave64)" {
  run "$T" add-gfx90a
  assert_success
  assert_line "ok - add-gfx90a"
  assert_line --regexp '^message: kernel tosac_k1_oob: work-item \(232,0,0\) of work-group \(3,0,0\): global store of 4 bytes at 0x[0-9a-f]+ is outside every bound buffer$'
}

@test "elementwise add and out-of-bounds store (gfx1100, wave32)" {
  run "$T" add-gfx1100
  assert_success
  assert_line "ok - add-gfx1100"
  assert_line --regexp '^message: kernel tosac_k1_oob: work-item \(232,0,0\) of work-group \(3,0,0\): global store of 4 bytes at 0x[0-9a-f]+ is outside every bound buffer$'
}

@test "LDS reverse with a barrier; divergent barrier, missing barrier and LDS overflow (gfx90a)" {
  run "$T" lds-gfx90a
  assert_success
  assert_line "ok - lds-gfx90a"
  assert_line "message: kernel divergent_barrier: work-item (32,0,0) of work-group (0,0,0): barrier not reached by every work-item of the work-group"
  assert_line "missing barrier: 64 of 128 results wrong"
  assert_line "message: kernel lds_oob: work-item (4,0,0) of work-group (0,0,0): LDS store of 4 bytes at offset 256 is outside the kernel's 256 bytes of LDS"
}

@test "LDS reverse with a barrier; divergent barrier, missing barrier and LDS overflow (gfx1100)" {
  run "$T" lds-gfx1100
  assert_success
  assert_line "ok - lds-gfx1100"
  assert_line "message: kernel divergent_barrier: work-item (32,0,0) of work-group (0,0,0): barrier not reached by every work-item of the work-group"
  assert_line "missing barrier: 64 of 128 results wrong"
}

@test "ballot, readfirstlane, readlane, bpermute, swizzle, DPP against hand-computed values (gfx90a)" {
  run "$T" waves-gfx90a
  assert_success
  assert_line "ok - waves-gfx90a"
  assert_line "message: kernel partial_ballot: work-item (0,0,0) of work-group (0,0,0): wave operation llvm.amdgcn.ballot executed by part of a wave"
}

@test "wave operations in wave32 (gfx1100)" {
  run "$T" waves-gfx1100
  assert_success
  assert_line "ok - waves-gfx1100"
  assert_line "message: kernel partial_ballot: work-item (0,0,0) of work-group (0,0,0): wave operation llvm.amdgcn.ballot executed by part of a wave"
}

@test "cvt.pkrtz rounds two floats to half toward zero in IR mode: past the largest half, subnormals, signs (gfx1100)" {
  run "$T" pkrtz-gfx1100
  assert_success
  assert_line "ok - pkrtz-gfx1100"
}

@test "llvm.amdgcn.perm selects bytes of two words in IR mode: bytes, half signs, 0 and 0xff selectors (gfx942)" {
  run "$T" perm-gfx942
  assert_success
  assert_line "ok - perm-gfx942"
}

@test "llvm.amdgcn.cvt.pk.fp8/bf8.f32 in IR mode: FNUZ codes on gfx942, OCP on gfx950 (ties to even, subnormals, -0, overflow, NaN, word select)" {
  run "$T" cvt-f8-gfx942
  assert_success
  assert_line "ok - cvt-f8-gfx942"
  run "$T" cvt-f8-gfx950
  assert_success
  assert_line "ok - cvt-f8-gfx950"
}

@test "an intrinsic without runtime counterpart is refused by name" {
  run "$T" unsupported
  assert_success
  assert_line "message: kernel module uses llvm.amdgcn.s.getpc, which the emulator does not support"
}

@test "llvm.amdgcn.cvt.pkrtz rounds toward zero: 70000 to 65504, 1 + 1.5 ulp to 1 + 1 ulp, infinity and NaN kept (gfx90a)" {
  run "$T" pkrtz-gfx90a
  assert_success
  assert_line "ok - pkrtz-gfx90a"
}

@test "MFMA 32x32x8 f16 as a wave collective" {
  run "$T" mfma-gfx90a
  assert_success
  assert_line "ok - mfma-gfx90a"
}

@test "gfx950 block-scaled MFMA (fp4 A and B, 16x16x128 and 32x32x64) in IR mode: scaled, unscaled (constant-zero scales), fp8 refused" {
  run "$T" mfma-scale-gfx950
  assert_success
  assert_line "ok - mfma-scale-gfx950"
  assert_line "message: kernel mfma_scale: work-item (0,0,0) of work-group (0,0,0): llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4: formats A 0 / B 0: only fp4 (E2M1, format 4) operands are emulated (the lane layout of the fp8/fp6 formats is not confirmed)"
}

@test "gfx950 llvm.amdgcn.ds.read.tr16.b64 in IR mode: lane i of each 16-lane group gets column i of the 4 x 16 tile its group addresses" {
  run "$T" read-tr16-gfx950
  assert_success
  assert_line "ok - read-tr16-gfx950"
}

@test "the whole program reports its summary" {
  run "$T" add-gfx90a unsupported
  assert_success
  assert_line "2 passed, 0 failed"
}

@test "DPP quad_perm, row_bcast15/31, wave_shr1, row_ror, bank_mask with bound_ctrl (gfx90a)" {
  run "$T" dpp-gfx90a
  assert_success
  assert_line "ok - dpp-gfx90a"
}

@test "permlanex16 swaps rows in wave32 (gfx1100)" {
  run "$T" permlanex16-gfx1100
  assert_success
  assert_line "ok - permlanex16-gfx1100"
}
