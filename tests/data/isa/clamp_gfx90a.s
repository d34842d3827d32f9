// Integer clamp (VOP3 saturation) of one wave64 on gfx90a (tests/bats/isa.bats): out[i] (the buffer
// of the first kernel argument, holding i) becomes
// max(i - 3, 0) | min(i, 31) << 8 | max(i - 40, 0) << 16 | max(i - 5, 0) << 24.
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.globl clamp
.p2align 8
.type clamp,@function
clamp:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[2:3]
  s_waitcnt vmcnt(0)
  v_sub_u32_e64 v3, v2, 3 clamp
  v_mov_b32 v7, 0xffffffe0
  v_add_u32_e64 v4, v7, v2 clamp
  v_sub_u32 v4, v4, v7
  v_lshl_or_b32 v3, v4, 8, v3
  v_sub_u16_e64 v5, v2, 40 clamp
  v_lshl_or_b32 v3, v5, 16, v3
  v_sub_co_u32_e64 v6, s[4:5], v2, 5 clamp
  v_lshl_or_b32 v3, v6, 24, v3
  global_store_dword v1, v3, s[2:3]
  s_endpgm
.size clamp, .-clamp
.rodata
.p2align 6
.amdhsa_kernel clamp
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
