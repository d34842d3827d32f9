// v_minmax/v_maxmin on gfx1100 (tests/bats/isa.bats): out[i] (holding i) becomes
// minmax_f32(i, 20, 5) | maxmin_f32(i, 5, 20) << 8 | minmax_f16(i, 20, 5) << 16 | maxmin_f16(i, 5, 20) << 24,
// each max(min(a, b), c) or min(max(a, b), c) converted back to an integer: i clamped to [5, 20] four times.
.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
.text
.globl minmax
.p2align 8
.type minmax,@function
minmax:
  s_load_b64 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_b32 v2, v1, s[2:3]
  s_mov_b32 s4, 0x41a00000
  s_mov_b32 s5, 0x40a00000
  s_mov_b32 s6, 0x4d00
  s_mov_b32 s7, 0x4500
  s_waitcnt vmcnt(0)
  v_cvt_f32_u32 v3, v2
  v_minmax_f32 v4, v3, s4, s5
  v_maxmin_f32 v5, v3, s5, s4
  v_cvt_u32_f32 v4, v4
  v_cvt_u32_f32 v5, v5
  v_cvt_f16_f32 v6.l, v3
  v_minmax_f16 v7.l, v6.l, s6, s7
  v_maxmin_f16 v8.l, v6.l, s7, s6
  v_cvt_f32_f16 v7, v7.l
  v_cvt_f32_f16 v8, v8.l
  v_cvt_u32_f32 v7, v7
  v_cvt_u32_f32 v8, v8
  v_lshl_or_b32 v4, v5, 8, v4
  v_lshl_or_b32 v4, v7, 16, v4
  v_lshl_or_b32 v4, v8, 24, v4
  global_store_b32 v1, v4, s[2:3]
  s_endpgm
.size minmax, .-minmax
.rodata
.p2align 6
.amdhsa_kernel minmax
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 10
  .amdhsa_next_free_sgpr 16
  .amdhsa_wavefront_size32 1
.end_amdhsa_kernel
