// DS addresses are VGPR + offset summed in 32 bits (tests/bats/isa.bats): one wave64 of gfx90a
// stores out[i] (holding i) at LDS byte 4i through a VGPR of 4i - 256 and offset:256 (what LLVM
// emits for a base it cannot prove non-negative), reads it back through ds_read2_b32 with a base
// of 4i - 1016 and offsets 254 and 255 (dwords), and stores i + (i + 1 mod 64) · 65536, read
// past the end for lane 63 at byte 256: 0 there). out[64 + i] gets the plain read of 4i.
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.globl lds_wrap
.p2align 8
.type lds_wrap,@function
lds_wrap:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[2:3]
  v_mov_b32 v3, 0
  ds_write_b32 v1, v3 offset:256
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_subrev_u32 v5, 0x100, v1
  ds_write_b32 v5, v2 offset:256
  s_waitcnt lgkmcnt(0)
  v_subrev_u32 v6, 0x3f8, v1
  ds_read2_b32 v[8:9], v6 offset0:254 offset1:255
  ds_read_b32 v10, v1
  s_waitcnt lgkmcnt(0)
  v_lshl_or_b32 v8, v9, 16, v8
  global_store_dword v1, v8, s[2:3]
  global_store_dword v1, v10, s[2:3] offset:256
  s_endpgm
.size lds_wrap, .-lds_wrap
.rodata
.p2align 6
.amdhsa_kernel lds_wrap
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_group_segment_fixed_size 512
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 16
.end_amdhsa_kernel
