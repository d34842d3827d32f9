// Private memory through the private segment buffer (tests/bats/isa_scratch.bats), gfx90a as
// LLVM sets it up without architected flat scratch: the V# in s[0:3], the scratch wave offset
// SGPR (s7, after the work-group id) added to its base, buffer_* with offen and offsets. Lane i
// (out[i] = i on entry) stores i, i+1000, i+2000, i+3000 at private offset 16, reads back word
// i % 4 through its VGPR offset, bounces it through offset 4 and writes it: out[i] = i + 1000 * (i % 4).
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.globl scratch_buf
.p2align 8
.type scratch_buf,@function
scratch_buf:
  s_add_u32 s0, s0, s7
  s_addc_u32 s1, s1, 0
  s_load_dwordx2 s[8:9], s[4:5], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[8:9]
  s_waitcnt vmcnt(0)
  v_mov_b32 v4, v2
  v_add_u32 v5, 0x3e8, v2
  v_add_u32 v6, 0x7d0, v2
  v_add_u32 v7, 0xbb8, v2
  v_mov_b32 v8, 0
  buffer_store_dwordx4 v[4:7], v8, s[0:3], 0 offen offset:16
  v_and_b32 v9, 3, v2
  v_lshlrev_b32 v9, 2, v9
  s_waitcnt vmcnt(0)
  buffer_load_dword v3, v9, s[0:3], 0 offen offset:16
  s_waitcnt vmcnt(0)
  buffer_store_dword v3, off, s[0:3], 0 offset:4
  s_waitcnt vmcnt(0)
  buffer_load_dword v3, off, s[0:3], 0 offset:4
  s_waitcnt vmcnt(0)
  global_store_dword v1, v3, s[8:9]
  s_endpgm
.size scratch_buf, .-scratch_buf
.rodata
.p2align 6
.amdhsa_kernel scratch_buf
  .amdhsa_user_sgpr_private_segment_buffer 1
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_private_segment_wavefront_offset 1
  .amdhsa_private_segment_fixed_size 32
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
