// The older tensor-typed migraphx form (standard layouts), parenthesised operands.
func.func @old(%arg0: tensor<1x64x1x1xf32>, %arg1: tensor<1x3x16x16xf32>, %arg2: tensor<64x3x7x7xf32>) -> tensor<1x64x8x8xf32> attributes {kernel = "mixr"} {
  %0 = migraphx.multibroadcast(%arg0) {out_lens = [1, 64, 8, 8]} : (tensor<1x64x1x1xf32>) -> tensor<1x64x8x8xf32>
  %1 = migraphx.convolution(%arg1, %arg2) {dilation = [1, 1], group = 1 : i64, padding = [3, 3, 3, 3], padding_mode = 0 : i64, stride = [2, 2]} : (tensor<1x3x16x16xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x8x8xf32>
  %2 = migraphx.add(%1, %0) : (tensor<1x64x8x8xf32>, tensor<1x64x8x8xf32>) -> tensor<1x64x8x8xf32>
  %3 = migraphx.relu(%2) : (tensor<1x64x8x8xf32>) -> tensor<1x64x8x8xf32>
  return %3 : tensor<1x64x8x8xf32>
}
