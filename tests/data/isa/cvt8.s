// Packed fp8/bf8 conversions of one wave64 on gfx942, and on gfx950 with the target line replaced
// (tests/bats/isa.bats): with d = i - 32 as f32,
// x0 = d * 9/128, x1 = d * 9.75, x2 = d * 2^-12, x3 = x1 * 256, out[2i] (two words per lane)
// becomes fp8(x0) | fp8(x1) << 8 | bf8(x0) << 16 | bf8(x1) << 24 and out[2i + 1]
// fp8(x2) | fp8(x3) << 8 | bf8(x2) << 16 | bf8(x3) << 24 (the target's encodings).
// dec8 (back to f32, the SDWA byte and word selects): lane i holds the codes 4i .. 4i + 3 in one
// word; out[8i + k] is the f32 of fp8 code 4i + k (k < 4, v_cvt_f32_fp8 src0_sel:BYTE_k), out[8i
// + 4 + k] that of bf8 code 4i + k (v_cvt_pk_f32_bf8, src0_sel:WORD_1 for the high pair).
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl cvt8
.p2align 8
.type cvt8,@function
cvt8:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  v_subrev_u32 v2, 32, v0
  v_cvt_f32_i32 v2, v2
  v_mul_f32 v3, 0x3d900000, v2
  v_mul_f32 v4, 0x411c0000, v2
  v_mul_f32 v5, 0x39800000, v2
  v_mul_f32 v6, 0x43800000, v4
  v_mov_b32 v8, 0
  v_mov_b32 v9, 0
  v_cvt_pk_fp8_f32 v8, v3, v4
  v_cvt_pk_bf8_f32 v8, v3, v4 op_sel:[0,0,1]
  v_cvt_pk_fp8_f32 v9, v5, v6
  v_cvt_pk_bf8_f32 v9, v5, v6 op_sel:[0,0,1]
  s_waitcnt lgkmcnt(0)
  global_store_dwordx2 v1, v[8:9], s[2:3]
  s_endpgm
.size cvt8, .-cvt8
.globl dec8
.p2align 8
.type dec8,@function
dec8:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_mov_b32 s4, 0x01010101
  v_mul_lo_u32 v2, v1, s4
  v_add_u32 v2, 0x03020100, v2
  v_cvt_f32_fp8 v4, v2
  v_cvt_f32_fp8_sdwa v5, v2 src0_sel:BYTE_1
  v_cvt_f32_fp8_sdwa v6, v2 src0_sel:BYTE_2
  v_cvt_f32_fp8_sdwa v7, v2 src0_sel:BYTE_3
  v_cvt_pk_f32_bf8 v[8:9], v2
  v_cvt_pk_f32_bf8_sdwa v[10:11], v2 src0_sel:WORD_1
  v_lshlrev_b32 v3, 5, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v3, v[4:7], s[2:3]
  global_store_dwordx4 v3, v[8:11], s[2:3] offset:16
  s_endpgm
.size dec8, .-dec8
.rodata
.p2align 6
.amdhsa_kernel cvt8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 10
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
.amdhsa_kernel dec8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
