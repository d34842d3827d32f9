// gfx12's sub-dword scalar loads (tests/bats/isa.bats): one wave32 stores two pattern words to
// out[0] = 0x8081f2e3 and out[1] = 0x7f017e02 (bytes e3 f2 81 80 02 7e 01 7f), waits for the
// stores, then loads bytes and half-words with s_load_u8/i8/u16/i16 through an immediate
// offset, an SGPR offset plus an immediate, and a negative immediate from a base 4 bytes on,
// and stores each SGPR to out[2 + k]; then the three-dword s_load_b96 of out[0..2] (out[2] still
// holds the harness's initial 2) to out[13..15].
.amdgcn_target "amdgcn-amd-amdhsa--gfx1200"
.macro out k, r
  v_mov_b32 v2, \r
  global_store_b32 v1, v2, s[2:3] offset:\k*4
.endm
.text
.globl sload
.p2align 8
.type sload,@function
sload:
  s_load_b64 s[2:3], s[0:1], 0x0
  v_mov_b32 v1, 0
  s_wait_kmcnt 0
  out 0, 0x8081f2e3
  out 1, 0x7f017e02
  s_wait_storecnt 0
  s_mov_b32 s14, 2
  s_add_co_u32 s4, s2, 4
  s_add_co_ci_u32 s5, s3, 0
  s_load_u8 s20, s[2:3], 0x0
  s_load_i8 s21, s[2:3], 0x0
  s_load_i8 s22, s[2:3], 0x5
  s_load_u8 s23, s[2:3], s14 offset:0x1
  s_load_i8 s24, s[2:3], s14 offset:0x1
  s_load_u16 s25, s[2:3], 0x2
  s_load_i16 s26, s[2:3], 0x2
  s_load_u16 s27, s[2:3], 0x6
  s_load_i16 s28, s[2:3], 0x6
  s_load_i16 s29, s[4:5], -4
  s_load_u8 s30, s[4:5], -1
  s_load_b96 s[36:38], s[2:3], 0x0
  s_wait_kmcnt 0
  out 2, s20
  out 3, s21
  out 4, s22
  out 5, s23
  out 6, s24
  out 7, s25
  out 8, s26
  out 9, s27
  out 10, s28
  out 11, s29
  out 12, s30
  out 13, s36
  out 14, s37
  out 15, s38
  s_endpgm
.size sload, .-sload
.rodata
.p2align 6
.amdhsa_kernel sload
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 40
  .amdhsa_wavefront_size32 1
.end_amdhsa_kernel
