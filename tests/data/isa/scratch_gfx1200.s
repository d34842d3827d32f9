// scratch_gfx1100.s with gfx12's split waits (tests/bats/isa_scratch.bats): architected flat
// scratch; two wave32 waves; stores with `off` addresses, loads with the VGPR+SGPR (SV) form.
// Same words as scratch_gfx90a.s:
// out[i] = i + 1000 * (i % 4).
.amdgcn_target "amdgcn-amd-amdhsa--gfx1200"
.text
.globl scratch_g12
.p2align 8
.type scratch_g12,@function
scratch_g12:
  s_load_b64 s[6:7], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  s_wait_kmcnt 0x0
  global_load_b32 v2, v1, s[6:7]
  s_wait_loadcnt 0x0
  v_mov_b32 v4, v2
  v_add_nc_u32 v5, 0x3e8, v2
  v_add_nc_u32 v6, 0x7d0, v2
  v_add_nc_u32 v7, 0xbb8, v2
  scratch_store_b128 off, v[4:7], off offset:16
  v_and_b32 v9, 3, v2
  v_lshlrev_b32 v9, 2, v9
  s_mov_b32 s8, 16
  s_wait_storecnt 0x0
  scratch_load_b32 v3, v9, s8
  s_wait_loadcnt 0x0
  scratch_store_b32 off, v3, off offset:4
  s_wait_storecnt 0x0
  scratch_load_b32 v3, off, off offset:4
  s_wait_loadcnt 0x0
  global_store_b32 v1, v3, s[6:7]
  s_endpgm
.size scratch_g12, .-scratch_g12
.rodata
.p2align 6
.amdhsa_kernel scratch_g12
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_enable_private_segment 1
  .amdhsa_private_segment_fixed_size 32
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 16
  .amdhsa_wavefront_size32 1
.end_amdhsa_kernel
