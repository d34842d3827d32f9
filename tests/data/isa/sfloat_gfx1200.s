// gfx12's scalar float operations (tests/bats/isa.bats): one wave32 computes each in SGPRs and
// stores it to out[k] (the buffer of the first kernel argument). Inputs: s4 = 1.5, s5 = -2.25,
// s6 = NaN, s7 = 2.5 (f32); s11 = 1.5, s12 = -2.25 (f16).
.amdgcn_target "amdgcn-amd-amdhsa--gfx1200"
.macro out k, r
  v_mov_b32 v2, \r
  global_store_b32 v1, v2, s[2:3] offset:\k*4
.endm
.macro scc k
  s_cselect_b32 s10, 1, 0
  out \k, s10
.endm
.text
.globl sfloat
.p2align 8
.type sfloat,@function
sfloat:
  s_load_b64 s[2:3], s[0:1], 0x0
  v_mov_b32 v1, 0
  s_mov_b32 s4, 0x3fc00000
  s_mov_b32 s5, 0xc0100000
  s_mov_b32 s6, 0x7fc00000
  s_mov_b32 s7, 0x40200000
  s_mov_b32 s11, 0x3e00
  s_mov_b32 s12, 0xc080
  s_wait_kmcnt 0
  s_add_f32 s10, s4, s5
  out 0, s10
  s_sub_f32 s10, s4, s5
  out 1, s10
  s_mul_f32 s10, s4, s5
  out 2, s10
  s_mov_b32 s10, 1.0
  s_fmac_f32 s10, s4, s5
  out 3, s10
  s_fmaak_f32 s10, s4, s5, 0x40000000
  out 4, s10
  s_fmamk_f32 s10, s4, 0x40000000, s5
  out 5, s10
  s_min_num_f32 s10, s6, s4
  out 6, s10
  s_minimum_f32 s10, s6, s4
  out 7, s10
  s_maximum_f32 s10, s4, s5
  out 8, s10
  s_max_num_f32 s10, s5, s6
  out 9, s10
  s_cmp_o_f32 s4, s6
  scc 10
  s_cmp_u_f32 s4, s6
  scc 11
  s_cmp_lt_f32 s5, s4
  scc 12
  s_cmp_neq_f32 s6, s6
  scc 13
  s_cmp_nge_f32 s4, s5
  scc 14
  s_cvt_i32_f32 s10, s5
  out 15, s10
  s_cvt_f32_i32 s10, -3
  out 16, s10
  s_ceil_f32 s10, s5
  out 17, s10
  s_floor_f32 s10, s4
  out 18, s10
  s_rndne_f32 s10, s7
  out 19, s10
  s_cvt_f16_f32 s10, s4
  out 20, s10
  s_cvt_pk_rtz_f16_f32 s13, s4, s5
  out 21, s13
  s_add_f16 s10, s11, s12
  out 22, s10
  s_mul_f16 s10, s11, s12
  out 23, s10
  s_cvt_hi_f32_f16 s10, s13
  out 24, s10
  s_cmp_gt_f16 s11, s12
  scc 25
  s_maximum_f16 s10, s11, s12
  out 26, s10
  s_cvt_f32_f16 s10, s11
  out 27, s10
  s_trunc_f32 s10, s5
  out 28, s10
  s_cvt_u32_f32 s10, s5
  out 29, s10
  v_s_rsq_f32 s10, 4.0
  out 30, s10
  s_endpgm
.size sfloat, .-sfloat
.rodata
.p2align 6
.amdhsa_kernel sfloat
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_wavefront_size32 1
.end_amdhsa_kernel
