// Quantised convolution: i8 NCHW operands stored NHWC (strides), i32 result, padding and stride 2.
func.func @mlir_quant_convolution(%arg0: !migraphx.shaped<1x8x9x9xi8, 648x1x72x8>, %arg1: !migraphx.shaped<16x8x3x3xi8, 72x1x24x8>) -> !migraphx.shaped<1x16x5x5xi32, 400x25x5x1> {
  %0 = migraphx.quant_convolution %arg0, %arg1 {dilation = [1, 1], group = 1 : i64, padding = [1, 1, 1, 1], padding_mode = 0 : i64, stride = [2, 2]} : <1x8x9x9xi8, 648x1x72x8>, <16x8x3x3xi8, 72x1x24x8> -> <1x16x5x5xi32, 400x25x5x1>
  return %0 : !migraphx.shaped<1x16x5x5xi32, 400x25x5x1>
}
