// int4 weights as MIGraphX emits them: unpack (unsigned, low nibble first), dequantizelinear with
// a per-row scale and zero point 8, dot; a signed unpack in the older isUnsigned form; the
// zero_extend form of convert (the i8 bytes read as 0..255).
func.func @mlir_unpack_int4(%arg0: !migraphx.shaped<8x4xui8, 4x1>, %arg1: !migraphx.shaped<8x1xf32, 1x1>, %arg2: !migraphx.shaped<2x8xf32, 8x1>, %arg3: !migraphx.shaped<6x4xi8, 4x1>) -> (!migraphx.shaped<2x8xf32, 8x1>, !migraphx.shaped<6x8xi8, 8x1>, !migraphx.shaped<6x4xf32, 4x1>) attributes {rock.kernel} {
  %zp = migraphx.literal (dense<8> : tensor<1xui8>) : <1xui8, 0>
  %0 = migraphx.unpack %arg0 {axis = 1 : i64} : <8x4xui8, 4x1> -> <8x8xui8, 8x1>
  %1 = migraphx.multibroadcast %arg1 {out_dyn_dims = [], out_lens = [8, 8]} : <8x1xf32, 1x1> -> <8x8xf32, 1x0>
  %2 = migraphx.multibroadcast %zp {out_dyn_dims = [], out_lens = [8, 8]} : <1xui8, 0> -> <8x8xui8, 0x0>
  %3 = migraphx.dequantizelinear %0, %1, %2 : <8x8xui8, 8x1>, <8x8xf32, 1x0>, <8x8xui8, 0x0> -> <8x8xf32, 8x1>
  %4 = migraphx.dot %arg2, %3 : <2x8xf32, 8x1>, <8x8xf32, 8x1> -> <2x8xf32, 8x1>
  %5 = migraphx.unpack %arg3 {axis = 1 : i64, isUnsigned = false} : <6x4xi8, 4x1> -> <6x8xi8, 8x1>
  %6 = migraphx.convert zero_extend %arg3 : <6x4xi8, 4x1> to <6x4xf32, 4x1>
  return %4, %5, %6 : !migraphx.shaped<2x8xf32, 8x1>, !migraphx.shaped<6x8xi8, 8x1>, !migraphx.shaped<6x4xf32, 4x1>
}
