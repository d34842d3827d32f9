// Packed fp8/bf8 conversions of one wave64 on gfx942, and on gfx950 with the target line replaced
// (tests/bats/isa.bats): with d = i - 32 as f32,
// x0 = d * 9/128, x1 = d * 9.75, x2 = d * 2^-12, x3 = x1 * 256, out[2i] (two words per lane)
// becomes fp8(x0) | fp8(x1) << 8 | bf8(x0) << 16 | bf8(x1) << 24 and out[2i + 1]
// fp8(x2) | fp8(x3) << 8 | bf8(x2) << 16 | bf8(x3) << 24 (the target's encodings).
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
.rodata
.p2align 6
.amdhsa_kernel cvt8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 10
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
