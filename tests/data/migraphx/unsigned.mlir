// ui8 operands: zero-extending convert, dequantizelinear with a ui8 zero point, division, an
// unsigned comparison, clip and equal; a scale broadcast along the result's non-zero stride.
func.func @mlir_unsigned(%arg0: !migraphx.shaped<4x8xui8, 8x1>, %arg1: !migraphx.shaped<4x8xui8, 8x1>, %arg2: !migraphx.shaped<4xf32, 1>) -> (!migraphx.shaped<4x8xf32, 8x1>, !migraphx.shaped<4x8xui8, 8x1>, !migraphx.shaped<4x8xsi8, 8x1>, !migraphx.shaped<4x8xui8, 8x1>) attributes {rock.kernel} {
  %zp = migraphx.literal (dense<200> : tensor<1xui8>) : <1xui8, 0>
  %lo = migraphx.literal (dense<50> : tensor<1xui8>) : <1xui8, 0>
  %hi = migraphx.literal (dense<220> : tensor<1xui8>) : <1xui8, 0>
  %zb = migraphx.multibroadcast %zp {out_dyn_dims = [], out_lens = [4, 8]} : <1xui8, 0> -> <4x8xui8, 0x0>
  %lb = migraphx.multibroadcast %lo {out_dyn_dims = [], out_lens = [4, 8]} : <1xui8, 0> -> <4x8xui8, 0x0>
  %hb = migraphx.multibroadcast %hi {out_dyn_dims = [], out_lens = [4, 8]} : <1xui8, 0> -> <4x8xui8, 0x0>
  %s = migraphx.multibroadcast %arg2 {out_dyn_dims = [], out_lens = [4, 8]} : <4xf32, 1> -> <4x8xf32, 1x0>
  %0 = migraphx.dequantizelinear %arg0, %s, %zb : <4x8xui8, 8x1>, <4x8xf32, 1x0>, <4x8xui8, 0x0> -> <4x8xf32, 8x1>
  %1 = migraphx.convert %arg1 : <4x8xui8, 8x1> to <4x8xf32, 8x1>
  %2 = migraphx.add %0, %1 : <4x8xf32, 8x1>, <4x8xf32, 8x1> -> <4x8xf32, 8x1>
  %3 = migraphx.div %arg0, %arg1 : <4x8xui8, 8x1>, <4x8xui8, 8x1> -> <4x8xui8, 8x1>
  %4 = migraphx.greater %arg0, %arg1 : <4x8xui8, 8x1>, <4x8xui8, 8x1> -> <4x8xui8, 8x1>
  %5 = migraphx.equal %arg0, %hb : <4x8xui8, 8x1>, <4x8xui8, 0x0> -> <4x8xui8, 8x1>
  %6 = migraphx.where %5, %lb, %4 : <4x8xui8, 8x1>, <4x8xui8, 0x0>, <4x8xui8, 8x1> -> <4x8xui8, 8x1>
  %7 = migraphx.convert %6 : <4x8xui8, 8x1> to <4x8xsi8, 8x1>
  %8 = migraphx.clip %arg0, %lb, %hb : <4x8xui8, 8x1>, <4x8xui8, 0x0>, <4x8xui8, 0x0> -> <4x8xui8, 8x1>
  return %2, %3, %7, %8 : !migraphx.shaped<4x8xf32, 8x1>, !migraphx.shaped<4x8xui8, 8x1>, !migraphx.shaped<4x8xsi8, 8x1>, !migraphx.shaped<4x8xui8, 8x1>
}
