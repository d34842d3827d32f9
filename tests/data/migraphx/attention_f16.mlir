// The attention kernel in f16 (softmax(Q K^T * scale) V).
func.func @mlir_attention_f16(%arg0: !migraphx.shaped<1x2x16x8xf16, 256x128x8x1>, %arg1: !migraphx.shaped<1x2x8x16xf16, 256x128x16x1>, %arg2: !migraphx.shaped<1x2x16x8xf16, 256x128x8x1>) -> !migraphx.shaped<1x2x16x8xf16, 256x128x8x1> attributes {kernel = "mixr"} {
  %scale = migraphx.literal (dense<1.250000e-01> : tensor<1xf16>) : <1x2x16x16xf16, 0x0x0x0>
  %0 = migraphx.dot %arg0, %arg1 : <1x2x16x8xf16, 256x128x8x1>, <1x2x8x16xf16, 256x128x16x1> -> <1x2x16x16xf16, 512x256x16x1>
  %1 = migraphx.mul %0, %scale : <1x2x16x16xf16, 512x256x16x1>, <1x2x16x16xf16, 0x0x0x0> -> <1x2x16x16xf16, 512x256x16x1>
  %2 = migraphx.softmax %1 {axis = 3 : i64} : <1x2x16x16xf16, 512x256x16x1> -> <1x2x16x16xf16, 512x256x16x1>
  %3 = migraphx.dot %2, %arg2 : <1x2x16x16xf16, 512x256x16x1>, <1x2x16x8xf16, 256x128x8x1> -> <1x2x16x8xf16, 256x128x8x1>
  return %3 : !migraphx.shaped<1x2x16x8xf16, 256x128x8x1>
}
