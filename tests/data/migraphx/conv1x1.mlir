// A ResNet-style 1x1 convolution + bias + relu in NCHW: one matmul on views, its epilogue fused.
func.func @mlir_convolution_1x1(%arg0: !migraphx.shaped<1x16x14x14xf32, 0x1x0x0>, %arg1: !migraphx.shaped<1x32x14x14xf32, 6272x196x14x1>, %arg2: !migraphx.shaped<16x32x1x1xf32, 32x1x1x1>) -> !migraphx.shaped<1x16x14x14xf32, 3136x196x14x1> attributes {kernel = "mixr"} {
  %0 = migraphx.convolution %arg1, %arg2 {dilation = [1, 1], group = 1 : i64, padding = [0, 0, 0, 0], padding_mode = 0 : i64, stride = [1, 1]} : <1x32x14x14xf32, 6272x196x14x1>, <16x32x1x1xf32, 32x1x1x1> -> <1x16x14x14xf32, 3136x196x14x1>
  %1 = migraphx.add %0, %arg0 : <1x16x14x14xf32, 3136x196x14x1>, <1x16x14x14xf32, 0x1x0x0> -> <1x16x14x14xf32, 3136x196x14x1>
  %2 = migraphx.relu %1 : <1x16x14x14xf32, 3136x196x14x1> -> <1x16x14x14xf32, 3136x196x14x1>
  return %2 : !migraphx.shaped<1x16x14x14xf32, 3136x196x14x1>
}
