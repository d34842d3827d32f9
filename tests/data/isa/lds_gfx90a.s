// Two wave64 waves of one work-group exchange halves through LDS on gfx90a
// (tests/bats/isa.bats): out[i] (the buffer of the first kernel argument, holding i) becomes
// (i + 64) % 128. Without the s_barrier it is an LDS race.
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.globl lds_swap
.p2align 8
.type lds_swap,@function
lds_swap:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[2:3]
  s_waitcnt vmcnt(0)
  ds_write_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_add_u32 v3, 0x100, v1
  v_and_b32 v3, 0x1ff, v3
  ds_read_b32 v4, v3
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v4, s[2:3]
  s_endpgm
.size lds_swap, .-lds_swap
.rodata
.p2align 6
.amdhsa_kernel lds_swap
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_group_segment_fixed_size 512
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
