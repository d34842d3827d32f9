// backwards_data_convolution as MIGraphX emits it (convolution_backwards): 2-D with stride and
// padding, and 1-D; both become tosa.transpose_conv2d.
func.func @mlir_bwd_data_conv(%arg0: !migraphx.shaped<1x3x6x7xf32, 126x42x7x1>, %arg1: !migraphx.shaped<3x4x3x3xf32, 36x9x3x1>, %arg2: !migraphx.shaped<2x4x5xf32, 20x5x1>, %arg3: !migraphx.shaped<4x2x3xf32, 6x3x1>) -> (!migraphx.shaped<1x4x11x19xf32, 836x209x19x1>, !migraphx.shaped<2x2x10xf32, 20x10x1>) attributes {rock.kernel} {
  %0 = migraphx.backwards_data_convolution %arg0, %arg1 {dilation = [1, 1], group = 1 : i64, padding = [1, 1, 1, 1], padding_mode = 0 : i64, stride = [2, 3]} : <1x3x6x7xf32, 126x42x7x1>, <3x4x3x3xf32, 36x9x3x1> -> <1x4x11x19xf32, 836x209x19x1>
  %1 = migraphx.backwards_data_convolution %arg2, %arg3 {dilation = [1], group = 1 : i64, padding = [1, 0], padding_mode = 0 : i64, stride = [2]} : <2x4x5xf32, 20x5x1>, <4x2x3xf32, 6x3x1> -> <2x2x10xf32, 20x10x1>
  return %0, %1 : !migraphx.shaped<1x4x11x19xf32, 836x209x19x1>, !migraphx.shaped<2x2x10xf32, 20x10x1>
}
