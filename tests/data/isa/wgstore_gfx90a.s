// Work-groups of one wave64 each store to their own 64 words on gfx90a (tests/bats/isa.bats):
// out[64 * g + i] = 1000 * g + i for work-group g, work-item i. The planted fault moves every
// group onto the same words (the s_lshl_b32 of the group id replaced), which the cross-work-group
// write check reports.
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.globl wgstore
.p2align 8
.type wgstore,@function
wgstore:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_mul_i32 s6, s2, 0x3e8
  v_add_u32 v2, s6, v0
  s_lshl_b32 s7, s2, 8
  v_lshlrev_b32 v1, 2, v0
  v_add_u32 v1, s7, v1
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
  s_endpgm
.size wgstore, .-wgstore
.rodata
.p2align 6
.amdhsa_kernel wgstore
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
