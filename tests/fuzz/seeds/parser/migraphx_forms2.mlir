func.func @k(%a: !migraphx.shaped<8xf32, 1>, %b: !migraphx.shaped<2x4xui8, 4x1>) -> (!migraphx.shaped<8x2x16xf32, 32x16x1>, !migraphx.shaped<2x8xi8, 8x1>, !migraphx.shaped<2x4xf16, 4x1>) {
  %0 = migraphx.multibroadcast %a {out_dyn_dims = [], out_lens = [8, 2, 8]} : <8xf32, 1> -> <8x2x16xf32, 1x0x0>
  %1 = migraphx.unpack %b {axis = 1 : i64, isUnsigned = true} : <2x4xui8, 4x1> -> <2x8xi8, 8x1>
  %2 = migraphx.convert zero_extend %b : <2x4xui8, 4x1> to <2x4xf16, 4x1>
  return %0, %1, %2 : !migraphx.shaped<8x2x16xf32, 32x16x1>, !migraphx.shaped<2x8xi8, 8x1>, !migraphx.shaped<2x4xf16, 4x1>
}
