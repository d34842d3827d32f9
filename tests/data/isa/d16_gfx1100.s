// 16-bit LDS loads into one half of a register on gfx1100 (tests/bats/isa.bats): lane i stores
// (i + 256) << 16 | i (out[i] holds i), then ds_load_u16_d16 replaces the low half of 0xdeadbeef
// (out[i] = 0xdead0000 | i) and ds_load_u16_d16_hi the high half of 0x12345678 with the word's
// high half (out[32 + i] = (i + 256) << 16 | 0x5678).
.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
.text
.globl d16
.p2align 8
.type d16,@function
d16:
  s_load_b64 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_b32 v2, v1, s[2:3]
  s_waitcnt vmcnt(0)
  v_add_nc_u32 v3, 0x100, v2
  v_lshl_or_b32 v2, v3, 16, v2
  ds_store_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32 v5, 0x12345678
  ds_load_u16_d16 v4, v1
  ds_load_u16_d16_hi v5, v1 offset:2
  s_waitcnt lgkmcnt(0)
  global_store_b32 v1, v4, s[2:3]
  global_store_b32 v1, v5, s[2:3] offset:128
  s_endpgm
.size d16, .-d16
.rodata
.p2align 6
.amdhsa_kernel d16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_group_segment_fixed_size 128
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_wavefront_size32 1
.end_amdhsa_kernel
