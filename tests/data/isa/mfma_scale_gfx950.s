// gfx950's block-scaled MFMA with fp4 (E2M1) A and B, one wave64 per kernel (tests/bats/isa.bats;
// docs/emulator.md, "Block-scaled MFMA"). Lane L holds row/column L % M and the 32 K values of
// block q = L / M (4 VGPRs, every nibble the same code here):
//   A[i][k] = 1.0 (code 0x2) for even rows i, 3.0 (0x5) for odd ones;
//   B[k][j] = 1.0 where the block is the one the column picks, else -0.5 (0x9) in mfma16 and
//             -1.5 (0xb) in mfma32;
// the scales sit in one byte of a VGPR whose other bytes are 0x00 (2^-127) or 0xff (NaN), so
// a wrong byte select is visible. Each lane converts its D registers to integers and stores them
// to out[R * L + r] (R = 4 or 16 registers).
//   mfma16 (16x16x128): A scale 2^q in byte 1 (op_sel[0]), B scale 1.0 in byte 2 (op_sel_hi[1]);
//     B picks block q = j % 4: D[i][j] = A(i) * 32 * (1.5 * 2^(j%4) - 7.5).
//   mfma32 (32x32x64): A scale 2^q in byte 3, B scale 2.0 in byte 0; B picks q = j % 2:
//     D[i][j] = A(i) * 64 * (j % 2 ? 0.5 : -2).
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl mfma16
.p2align 8
.type mfma16,@function
mfma16:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_and_b32 v1, 1, v0
  v_mul_u32_u24 v1, 3, v1
  v_add_u32 v1, 2, v1
  v_mov_b32 v4, 0x11111111
  v_mul_lo_u32 v4, v1, v4
  v_mov_b32 v5, v4
  v_mov_b32 v6, v4
  v_mov_b32 v7, v4
  v_lshrrev_b32 v2, 4, v0
  v_and_b32 v3, 3, v0
  v_cmp_eq_u32 vcc, v2, v3
  v_mov_b32 v12, 0x99999999
  v_mov_b32 v13, 0x22222222
  v_cndmask_b32 v8, v12, v13, vcc
  v_mov_b32 v9, v8
  v_mov_b32 v10, v8
  v_mov_b32 v11, v8
  v_add_u32 v14, 0x7f, v2
  v_lshlrev_b32 v14, 8, v14
  v_or_b32 v14, 0xffff0000, v14
  v_mov_b32 v15, 0x017f00ff
  s_nop 4
  v_mfma_scale_f32_16x16x128_f8f6f4 v[20:23], v[4:7], v[8:11], 0, v14, v15 op_sel:[1,0,0] op_sel_hi:[0,1,0] cbsz:4 blgp:4
  s_nop 7
  s_nop 7
  s_nop 7
  v_cvt_i32_f32 v20, v20
  v_cvt_i32_f32 v21, v21
  v_cvt_i32_f32 v22, v22
  v_cvt_i32_f32 v23, v23
  v_lshlrev_b32 v1, 4, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v1, v[20:23], s[2:3]
  s_endpgm
.size mfma16, .-mfma16

.globl mfma32
.p2align 8
.type mfma32,@function
mfma32:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_and_b32 v1, 1, v0
  v_mul_u32_u24 v1, 3, v1
  v_add_u32 v1, 2, v1
  v_mov_b32 v4, 0x11111111
  v_mul_lo_u32 v4, v1, v4
  v_mov_b32 v5, v4
  v_mov_b32 v6, v4
  v_mov_b32 v7, v4
  v_lshrrev_b32 v2, 5, v0
  v_and_b32 v3, 1, v0
  v_cmp_eq_u32 vcc, v2, v3
  v_mov_b32 v12, 0xbbbbbbbb
  v_mov_b32 v13, 0x22222222
  v_cndmask_b32 v8, v12, v13, vcc
  v_mov_b32 v9, v8
  v_mov_b32 v10, v8
  v_mov_b32 v11, v8
  v_add_u32 v14, 0x7f, v2
  v_lshlrev_b32 v14, 24, v14
  v_or_b32 v14, 0xff00ff, v14
  v_mov_b32 v15, 0xff00ff80
  s_nop 4
  v_mfma_scale_f32_32x32x64_f8f6f4 v[32:47], v[4:7], v[8:11], 0, v14, v15 op_sel:[1,0,0] op_sel_hi:[1,0,0] cbsz:4 blgp:4
  s_nop 7
  s_nop 7
  s_nop 7
  s_nop 7
  s_nop 7
  .irp r, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
  v_cvt_i32_f32 v\r, v\r
  .endr
  v_lshlrev_b32 v1, 6, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v1, v[32:35], s[2:3]
  global_store_dwordx4 v1, v[36:39], s[2:3] offset:16
  global_store_dwordx4 v1, v[40:43], s[2:3] offset:32
  global_store_dwordx4 v1, v[44:47], s[2:3] offset:48
  s_endpgm
.size mfma32, .-mfma32

.rodata
.p2align 6
.amdhsa_kernel mfma16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 64
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 64
.end_amdhsa_kernel
.amdhsa_kernel mfma32
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 64
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 64
.end_amdhsa_kernel
