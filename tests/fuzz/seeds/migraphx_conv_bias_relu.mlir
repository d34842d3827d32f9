// MIGraphX conv + bias + relu as rocMLIR receives it (bias broadcast by stride 0).
func.func @mlir_convolution_add_relu(%arg0: !migraphx.shaped<1x8x6x6xf32, 0x1x0x0>, %arg1: !migraphx.shaped<1x4x8x8xf32, 256x64x8x1>, %arg2: !migraphx.shaped<8x4x3x3xf32, 36x9x3x1>) -> !migraphx.shaped<1x8x6x6xf32, 288x36x6x1> attributes {arch = "gfx90a", kernel = "mixr", num_cu = 110 : i64} {
  %0 = migraphx.convolution %arg1, %arg2 {dilation = [1, 1], group = 1 : i64, padding = [0, 0, 0, 0], padding_mode = 0 : i64, stride = [1, 1]} : <1x4x8x8xf32, 256x64x8x1>, <8x4x3x3xf32, 36x9x3x1> -> <1x8x6x6xf32, 288x36x6x1>
  %1 = migraphx.add %0, %arg0 : <1x8x6x6xf32, 288x36x6x1>, <1x8x6x6xf32, 0x1x0x0> -> <1x8x6x6xf32, 288x36x6x1>
  %2 = migraphx.relu %1 : <1x8x6x6xf32, 288x36x6x1> -> <1x8x6x6xf32, 288x36x6x1>
  return %2 : !migraphx.shaped<1x8x6x6xf32, 288x36x6x1>
}
