// ds_read_b64_tr_b16 on gfx950 (tests/bats/isa.bats): lane l writes the 16-bit elements
// 4l .. 4l + 3 (value = element index) at LDS byte 8l; then lane l reads with the address of
// lane l ^ 5 (byte 8·(l ^ 5)), transposed in groups of 16 lanes, and stores its two result
// dwords at out[2l], out[2l + 1]: lane i of group G gets, as element e, element i % 4 of what
// lane 16G + 4e + i / 4 addressed.
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl rtr
.p2align 8
.type rtr,@function
rtr:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v2, 2, v0
  v_add_u32 v3, 1, v2
  v_lshl_or_b32 v4, v3, 16, v2
  v_add_u32 v3, 2, v2
  v_add_u32 v6, 3, v2
  v_lshl_or_b32 v5, v6, 16, v3
  v_lshlrev_b32 v7, 3, v0
  ds_write_b64 v7, v[4:5]
  v_xor_b32 v1, 5, v0
  v_lshlrev_b32 v1, 3, v1
  s_waitcnt lgkmcnt(0)
  ds_read_b64_tr_b16 v[8:9], v1
  s_waitcnt lgkmcnt(0)
  global_store_dwordx2 v7, v[8:9], s[2:3]
  s_endpgm
.size rtr, .-rtr
.rodata
.p2align 6
.amdhsa_kernel rtr
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_group_segment_fixed_size 1024
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
