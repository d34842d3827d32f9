// One wave64 on gfx1100 (tests/bats/isa.bats): out[i] (the buffer of the first kernel argument,
// holding i) becomes i + 1 for i < 40 and stays i above, under a 64-bit EXEC mask; assembled with
// +wavefrontsize64. Its descriptor flipped to wave32 is the planted fault.
.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
.text
.globl wave64
.p2align 8
.type wave64,@function
wave64:
  s_load_b64 s[2:3], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  v_add_nc_u32 v2, 1, v0
  v_cmp_gt_u32 vcc, 40, v0
  s_and_saveexec_b64 s[4:5], vcc
  s_waitcnt lgkmcnt(0)
  global_store_b32 v1, v2, s[2:3]
  s_endpgm
.size wave64, .-wave64
.rodata
.p2align 6
.amdhsa_kernel wave64
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_wavefront_size32 0
.end_amdhsa_kernel
