// Grouped 1-D and 3-D convolutions (group 2), with padding and stride.
func.func @mlir_conv_grouped(%arg0: !migraphx.shaped<2x4x9xf32, 36x9x1>, %arg1: !migraphx.shaped<6x2x3xf32, 6x3x1>, %arg2: !migraphx.shaped<1x4x4x5x5xf32, 400x100x25x5x1>, %arg3: !migraphx.shaped<4x2x2x3x3xf32, 36x18x9x3x1>) -> (!migraphx.shaped<2x6x5xf32, 30x5x1>, !migraphx.shaped<1x4x3x2x5xf32, 120x30x10x5x1>) {
  %0 = migraphx.convolution %arg0, %arg1 {dilation = [1], group = 2 : i64, padding = [1, 1], padding_mode = 0 : i64, stride = [2]} : <2x4x9xf32, 36x9x1>, <6x2x3xf32, 6x3x1> -> <2x6x5xf32, 30x5x1>
  %1 = migraphx.convolution %arg2, %arg3 {dilation = [1, 1, 1], group = 2 : i64, padding = [0, 0, 1, 0, 0, 1], padding_mode = 0 : i64, stride = [1, 2, 1]} : <1x4x4x5x5xf32, 400x100x25x5x1>, <4x2x2x3x3xf32, 36x18x9x3x1> -> <1x4x3x2x5xf32, 120x30x10x5x1>
  return %0, %1 : !migraphx.shaped<2x6x5xf32, 30x5x1>, !migraphx.shaped<1x4x3x2x5xf32, 120x30x10x5x1>
}
