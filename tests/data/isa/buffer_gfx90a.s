// Buffer (MUBUF) loads and stores through a raw V# (stride 0) on gfx90a (tests/bats/isa.bats):
// num_records 200 bytes over a buffer holding i in word i. Range checks per dword, soffset
// counted (gfx9): out[64 + i] = a | b << 8 | c << 16 with a = word i + 2 through soffset 8 (0
// past 200 bytes), b, c = words i + 1, i + 2 of one dwordx2 at offset 4i + 4; then a store with
// num_records 40 writes 1000 + i to words 0..9 only.
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.globl buffer
.p2align 8
.type buffer,@function
buffer:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s4, s2
  s_and_b32 s5, s3, 0xffff
  s_mov_b32 s6, 200
  s_mov_b32 s7, 0x20000
  s_mov_b32 s8, 8
  buffer_load_dword v2, v1, s[4:7], s8 offen
  buffer_load_dwordx2 v[4:5], v1, s[4:7], 0 offen offset:4
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v6, 8, v4
  v_or_b32 v2, v2, v6
  v_lshlrev_b32 v6, 16, v5
  v_or_b32 v2, v2, v6
  global_store_dword v1, v2, s[2:3] offset:256
  s_mov_b32 s6, 40
  v_add_u32 v7, 0x3e8, v0
  buffer_store_dword v7, v1, s[4:7], 0 offen
  s_endpgm
.size buffer, .-buffer
.rodata
.p2align 6
.amdhsa_kernel buffer
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
