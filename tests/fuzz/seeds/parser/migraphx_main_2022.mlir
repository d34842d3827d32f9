// MIGraphX's 2022 output: `func @main` (MLIR before the func dialect), tensor-typed operands in
// parentheses, standard layouts.
module  {
  func @main(%arg0: tensor<1x8x6x6xf32>, %arg1: tensor<2x8x3x3xf32>, %arg2: tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32> attributes {kernel, arch = ""} {
    %0 = migraphx.convolution(%arg0, %arg1) {dilation = [1, 1], group = 1 : i64, padding = [0, 0, 0, 0], padding_mode = 0 : i64, stride = [1, 1]} : (tensor<1x8x6x6xf32>, tensor<2x8x3x3xf32>) -> tensor<1x2x4x4xf32>
    %1 = migraphx.multibroadcast(%arg2) {out_lens = [1, 2, 4, 4]} : (tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    %2 = migraphx.add(%0, %1) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %3 = migraphx.relu(%2) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    return %3 : tensor<1x2x4x4xf32>
  }
}
