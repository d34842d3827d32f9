// mxfp4 weights dequantized before a regular dot (MIGraphX's weight-only form): f4E2M1FN weights
// [N, K], one f8E8M0FNU scale per block of 32 along K, dequantizelinear to f32, the dot with the
// weights transposed; and a convert of the fp4 values to f16.
func.func @mlir_mxfp4_dequant(%arg0: !migraphx.shaped<16x64xf4E2M1FN, 64x1>, %arg1: !migraphx.shaped<16x2x1xf8E8M0FNU, 2x1x1>, %arg2: !migraphx.shaped<8x64xf32, 64x1>) -> (!migraphx.shaped<8x16xf32, 16x1>, !migraphx.shaped<16x64xf16, 64x1>) {
  %0 = migraphx.multibroadcast %arg1 {out_dyn_dims = [], out_lens = [16, 2, 32]} : <16x2x1xf8E8M0FNU, 2x1x1> -> <16x2x32xf8E8M0FNU, 2x1x0>
  %1 = migraphx.reshape %0 {dims = [16, 64]} : <16x2x32xf8E8M0FNU, 2x1x0> -> <16x64xf8E8M0FNU, 64x1>
  %2 = migraphx.dequantizelinear %arg0, %1 : <16x64xf4E2M1FN, 64x1>, <16x64xf8E8M0FNU, 64x1> -> <16x64xf32, 64x1>
  %3 = migraphx.transpose %2 {permutation = [1, 0]} : <16x64xf32, 64x1> -> <64x16xf32, 1x64>
  %4 = migraphx.dot %arg2, %3 : <8x64xf32, 64x1>, <64x16xf32, 1x64> -> <8x16xf32, 16x1>
  %5 = migraphx.convert %arg0 : <16x64xf4E2M1FN, 64x1> to <16x64xf16, 64x1>
  return %4, %5 : !migraphx.shaped<8x16xf32, 16x1>, !migraphx.shaped<16x64xf16, 64x1>
}
