// Convolution forms: grouped (2 groups), depthwise and 1-D, asymmetric padding, dilation.
func.func @mlir_conv_forms(%arg0: !migraphx.shaped<1x4x7x7xf32, 196x49x7x1>, %arg1: !migraphx.shaped<6x2x3x3xf32, 18x9x3x1>, %arg2: !migraphx.shaped<12x1x3x3xf32, 9x9x3x1>, %arg3: !migraphx.shaped<2x3x10xf32, 30x10x1>, %arg4: !migraphx.shaped<5x3x3xf32, 9x3x1>) -> (!migraphx.shaped<1x6x6x5xf32, 180x30x5x1>, !migraphx.shaped<1x12x4x4xf32, 192x16x4x1>, !migraphx.shaped<2x5x5xf32, 25x5x1>) {
  %0 = migraphx.convolution %arg0, %arg1 {dilation = [1, 1], group = 2 : i64, padding = [0, 0, 1, 0], padding_mode = 0 : i64, stride = [1, 1]} : <1x4x7x7xf32, 196x49x7x1>, <6x2x3x3xf32, 18x9x3x1> -> <1x6x6x5xf32, 180x30x5x1>
  %1 = migraphx.convolution %arg0, %arg2 {dilation = [2, 2], group = 4 : i64, padding = [1, 1, 1, 1], padding_mode = 0 : i64, stride = [1, 1]} : <1x4x7x7xf32, 196x49x7x1>, <12x1x3x3xf32, 9x9x3x1> -> <1x12x5x5xf32, 300x25x5x1>
  %2 = migraphx.slice %1 {axes = [2, 3], ends = [4, -1], starts = [0, 0]} : <1x12x5x5xf32, 300x25x5x1> -> <1x12x4x4xf32, 300x25x5x1>
  %3 = migraphx.convolution %arg3, %arg4 {dilation = [1], group = 1 : i64, padding = [1, 0], padding_mode = 0 : i64, stride = [2]} : <2x3x10xf32, 30x10x1>, <5x3x3xf32, 9x3x1> -> <2x5x5xf32, 25x5x1>
  return %0, %2, %3 : !migraphx.shaped<1x6x6x5xf32, 180x30x5x1>, !migraphx.shaped<1x12x4x4xf32, 192x16x4x1>, !migraphx.shaped<2x5x5xf32, 25x5x1>
}
