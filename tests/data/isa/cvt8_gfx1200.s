// gfx12's fp8/bf8 conversions (tests/bats/isa.bats), the kernels of cvt8.s in gfx12 syntax run by
// two wave32 waves (64 work-items): cvt8 stores the same packed OCP codes (v_cvt_pk_fp8_f32,
// v_cvt_pk_bf8_f32 op_sel:[0,0,1] for the high half); dec8 decodes lane i's codes 4i .. 4i + 3,
// out[8i + k] = f32 of fp8 code 4i + k (v_cvt_f32_fp8 byte_sel:k), out[8i + 4 + k] that of bf8
// code 4i + k (v_cvt_pk_f32_bf8, op_sel:[1,0] for the high pair).
.amdgcn_target "amdgcn-amd-amdhsa--gfx1200"
.text
.globl cvt8
.p2align 8
.type cvt8,@function
cvt8:
  s_load_b64 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  v_subrev_nc_u32 v2, 32, v0
  v_cvt_f32_i32 v2, v2
  v_mul_f32 v3, 0x3d900000, v2
  v_mul_f32 v4, 0x411c0000, v2
  v_mul_f32 v5, 0x39800000, v2
  v_mul_f32 v6, 0x43800000, v4
  v_mov_b32 v8, 0
  v_mov_b32 v9, 0
  v_cvt_pk_fp8_f32 v8, v3, v4
  v_cvt_pk_bf8_f32 v8, v3, v4 op_sel:[0,0,1]
  v_cvt_pk_fp8_f32 v9, v5, v6
  v_cvt_pk_bf8_f32 v9, v5, v6 op_sel:[0,0,1]
  s_wait_kmcnt 0
  global_store_b64 v1, v[8:9], s[2:3]
  s_endpgm
.size cvt8, .-cvt8
.globl dec8
.p2align 8
.type dec8,@function
dec8:
  s_load_b64 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_mul_lo_u32 v2, v1, 0x01010101
  v_add_nc_u32 v2, 0x03020100, v2
  v_cvt_f32_fp8 v4, v2
  v_cvt_f32_fp8 v5, v2 byte_sel:1
  v_cvt_f32_fp8 v6, v2 byte_sel:2
  v_cvt_f32_fp8 v7, v2 byte_sel:3
  v_cvt_pk_f32_bf8 v[8:9], v2
  v_cvt_pk_f32_bf8 v[10:11], v2 op_sel:[1,0]
  v_lshlrev_b32 v3, 5, v0
  s_wait_kmcnt 0
  global_store_b128 v3, v[4:7], s[2:3]
  global_store_b128 v3, v[8:11], s[2:3] offset:16
  s_endpgm
.size dec8, .-dec8
.rodata
.p2align 6
.amdhsa_kernel cvt8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 10
  .amdhsa_next_free_sgpr 8
  .amdhsa_wavefront_size32 1
.end_amdhsa_kernel
.amdhsa_kernel dec8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 8
  .amdhsa_wavefront_size32 1
.end_amdhsa_kernel
