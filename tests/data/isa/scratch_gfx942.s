// Private memory through scratch_* with architected flat scratch on gfx942
// (tests/bats/isa_scratch.bats): no private segment buffer, no flat scratch init, no wave offset
// SGPR; stores with `off` addresses, loads with the VGPR+SGPR (SVS) form. Same words as
// scratch_gfx90a.s: out[i] = i + 1000 * (i % 4).
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl scratch_arch
.p2align 8
.type scratch_arch,@function
scratch_arch:
  s_load_dwordx2 s[6:7], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[6:7]
  s_waitcnt vmcnt(0)
  v_mov_b32 v4, v2
  v_add_u32 v5, 0x3e8, v2
  v_add_u32 v6, 0x7d0, v2
  v_add_u32 v7, 0xbb8, v2
  scratch_store_dwordx4 off, v[4:7], off offset:16
  v_and_b32 v9, 3, v2
  v_lshlrev_b32 v9, 2, v9
  s_mov_b32 s8, 16
  s_waitcnt vmcnt(0)
  scratch_load_dword v3, v9, s8
  s_waitcnt vmcnt(0)
  scratch_store_dword off, v3, off offset:4
  s_waitcnt vmcnt(0)
  scratch_load_dword v3, off, off offset:4
  s_waitcnt vmcnt(0)
  global_store_dword v1, v3, s[6:7]
  s_endpgm
.size scratch_arch, .-scratch_arch
.rodata
.p2align 6
.amdhsa_kernel scratch_arch
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_enable_private_segment 1
  .amdhsa_private_segment_fixed_size 32
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
