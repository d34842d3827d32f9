// Quantised dot, then dequantizelinear and quantizelinear with zero points (splat literals).
func.func @mlir_quant_dot(%arg0: !migraphx.shaped<4x16xi8, 16x1>, %arg1: !migraphx.shaped<16x8xi8, 1x16>) -> (!migraphx.shaped<4x8xf32, 8x1>, !migraphx.shaped<4x8xi8, 8x1>) {
  %s = migraphx.literal (dense<2.500000e-01> : tensor<1xf32>) : <4x8xf32, 0x0>
  %z = migraphx.literal (dense<3> : tensor<1xi32>) : <4x8xi32, 0x0>
  %s2 = migraphx.literal (dense<3.750000e-01> : tensor<1xf32>) : <4x8xf32, 0x0>
  %z2 = migraphx.literal (dense<-2> : tensor<1xi8>) : <4x8xi8, 0x0>
  %0 = migraphx.quant_dot %arg0, %arg1 : <4x16xi8, 16x1>, <16x8xi8, 1x16> -> <4x8xi32, 8x1>
  %1 = migraphx.dequantizelinear %0, %s, %z : <4x8xi32, 8x1>, <4x8xf32, 0x0>, <4x8xi32, 0x0> -> <4x8xf32, 8x1>
  %2 = migraphx.quantizelinear %1, %s2, %z2 : <4x8xf32, 8x1>, <4x8xf32, 0x0>, <4x8xi8, 0x0> -> <4x8xi8, 8x1>
  return %1, %2 : !migraphx.shaped<4x8xf32, 8x1>, !migraphx.shaped<4x8xi8, 8x1>
}
