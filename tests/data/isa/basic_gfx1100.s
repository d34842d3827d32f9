// One wave32 of SALU, VALU, SMEM and global memory on gfx1100 (tests/bats/isa.bats): out[i] (the
// buffer whose address is the first kernel argument, holding i) becomes
// (3 * i + 107) | (i / 2) << 16 | (i >= 16) << 24.
.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
.text
.globl basic
.p2align 8
.type basic,@function
basic:
  s_load_b64 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_b32 v2, v1, s[2:3]
  s_mov_b32 s4, -1
  s_add_u32 s5, s4, 2
  s_cselect_b32 s6, 0x64, 60
  s_waitcnt vmcnt(0)
  v_mul_lo_u32 v3, v2, 3
  v_add_nc_u32 v3, 7, v3
  v_add_nc_u32 v3, s6, v3
  v_cvt_f32_u32 v4, v2
  v_mul_f32 v4, 0.5, v4
  v_cvt_u32_f32 v4, v4
  v_lshlrev_b32 v4, 16, v4
  v_or_b32 v3, v3, v4
  v_add_co_u32 v5, vcc_lo, v2, 0xfffffff0
  v_cndmask_b32 v6, 0, 1, vcc_lo
  v_lshl_or_b32 v3, v6, 24, v3
  global_store_b32 v1, v3, s[2:3]
  s_endpgm
.size basic, .-basic
.rodata
.p2align 6
.amdhsa_kernel basic
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_wavefront_size32 1
.end_amdhsa_kernel
