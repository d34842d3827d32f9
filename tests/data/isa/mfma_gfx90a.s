// One wave64 MFMA on gfx90a (tests/bats/isa.bats): A and B all 1.0 (f16), C 0, so every element
// of the 32x32 product is 8; lane i stores its first result element plus i to out[i]. The
// s_nop 15 / s_nop 2 pair is the 19 wait states a 16-pass MFMA result needs before a VALU reads
// it (ISA.md §6), the s_nop 1 the 2 a VALU result needs before an MFMA reads it; removing either
// is a planted hazard.
.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.globl mfma
.p2align 8
.type mfma,@function
mfma:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, 0x3c003c00
  s_waitcnt lgkmcnt(0)
  global_load_dword v4, v1, s[2:3]
  v_mov_b32 v3, 0x3c003c00
  s_nop 1
  v_mfma_f32_32x32x8f16 a[0:15], v[2:3], v[2:3], 0
  s_nop 15
  s_nop 2
  v_accvgpr_read_b32 v5, a0
  v_cvt_u32_f32 v5, v5
  s_waitcnt vmcnt(0)
  v_add_u32 v5, v5, v4
  global_store_dword v1, v5, s[2:3]
  s_endpgm
.size mfma, .-mfma
.rodata
.p2align 6
.amdhsa_kernel mfma
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
