// The split-K last-work-group pattern on gfx942 (tests/bats/isa.bats): each of 3 one-wave
// work-groups stores 100 + g to out[1 + g] (lane 0), releases it at agent scope (buffer_wbl2 sc1,
// s_waitcnt vmcnt(0)) and adds 1 to the counter out[0] with a returning atomic; the group that
// sees 2 acquires (buffer_inv sc1), stores the sum of the three words to out[4] and puts the
// counter back to 0.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl lastwg
.p2align 8
.type lastwg,@function
lastwg:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_mov_b32 v1, 0
  v_cmp_eq_u32 vcc, 0, v0
  s_and_b64 exec, exec, vcc
  s_add_u32 s6, s2, 1
  s_lshl_b32 s6, s6, 2
  s_add_u32 s7, s2, 100
  v_mov_b32 v2, s7
  v_mov_b32 v3, s6
  s_waitcnt lgkmcnt(0)
  global_store_dword v3, v2, s[4:5]
  buffer_wbl2 sc1
  s_waitcnt vmcnt(0)
  v_mov_b32 v4, 1
  global_atomic_add v6, v1, v4, s[4:5] sc0
  s_waitcnt vmcnt(0)
  v_cmp_eq_u32 vcc, 2, v6
  s_and_b64 exec, exec, vcc
  s_cbranch_execz .Ldone
  buffer_inv sc1
  global_load_dword v7, v1, s[4:5] offset:4
  global_load_dword v8, v1, s[4:5] offset:8
  global_load_dword v9, v1, s[4:5] offset:12
  s_waitcnt vmcnt(0)
  v_add_u32 v7, v7, v8
  v_add_u32 v7, v7, v9
  global_store_dword v1, v7, s[4:5] offset:16
  global_store_dword v1, v1, s[4:5]
.Ldone:
  s_endpgm
.size lastwg, .-lastwg
.rodata
.p2align 6
.amdhsa_kernel lastwg
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 16
.end_amdhsa_kernel
