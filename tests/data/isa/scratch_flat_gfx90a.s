// Private memory through scratch_* on gfx90a as LLVM sets it up with enable-flat-scratch
// (tests/bats/isa_scratch.bats): flat scratch init (s[2:3]) plus the wave offset SGPR (s5, after
// the work-group id) into FLAT_SCRATCH; VGPR or SGPR addresses (gfx90a has neither the
// `off, off` nor the VGPR+SGPR form). Same words as scratch_gfx90a.s: out[i] = i + 1000 * (i % 4).
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.globl scratch_fsi
.p2align 8
.type scratch_fsi,@function
scratch_fsi:
  s_add_u32 flat_scratch_lo, s2, s5
  s_addc_u32 flat_scratch_hi, s3, 0
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
  v_mov_b32 v8, 0
  scratch_store_dwordx4 v8, v[4:7], off offset:16
  v_and_b32 v9, 3, v2
  v_lshlrev_b32 v9, 2, v9
  v_add_u32 v9, 16, v9
  s_waitcnt vmcnt(0)
  scratch_load_dword v3, v9, off
  s_waitcnt vmcnt(0)
  scratch_store_dword v8, v3, off offset:4
  s_waitcnt vmcnt(0)
  s_mov_b32 s9, 4
  scratch_load_dword v3, off, s9
  s_waitcnt vmcnt(0)
  global_store_dword v1, v3, s[6:7]
  s_endpgm
.size scratch_fsi, .-scratch_fsi
.rodata
.p2align 6
.amdhsa_kernel scratch_fsi
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_flat_scratch_init 1
  .amdhsa_system_sgpr_private_segment_wavefront_offset 1
  .amdhsa_private_segment_fixed_size 32
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
