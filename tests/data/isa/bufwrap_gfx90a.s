// A raw buffer load whose VGPR offset is negative and whose instruction offset brings the sum
// back into range (tests/bats/isa.bats): the hardware adds voffset and the offset field without
// wrapping at 2^32, so the access is out of range and reads 0. LLVM folds a constant addend of a
// buffer offset into the field this way; a padded convolution then read zeros (gemm_conv.c).
// num_records 200 bytes over a buffer holding i in word i: out[64 + i] = word i for
// 16 <= i < 50 (voffset 4i - 64 >= 0, 4i + 4 <= 200), 0 for i < 16 (voffset 4i - 64 < 0) and
// for i >= 50.
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.globl bufwrap
.p2align 8
.type bufwrap,@function
bufwrap:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_add_u32 v3, -64, v1
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s4, s2
  s_and_b32 s5, s3, 0xffff
  s_mov_b32 s6, 200
  s_mov_b32 s7, 0x20000
  buffer_load_dword v2, v3, s[4:7], 0 offen offset:64
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[2:3] offset:256
  s_endpgm
.size bufwrap, .-bufwrap
.rodata
.p2align 6
.amdhsa_kernel bufwrap
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
