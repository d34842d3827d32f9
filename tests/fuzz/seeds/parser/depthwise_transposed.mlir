func.func @main(%x: tensor<1x5x4x6xf32>, %w: tensor<3x3x2x3xf32>, %b: tensor<1xf32>, %y: tensor<1x4x4x2xf32>) -> (tensor<1x11x9x2xf32>, tensor<1x4x4x6xf32>) {
  %0 = "tosa.depthwise_conv2d"(%x, %w, %b) {dilation = [2, 2], out_pad = [-1, -1, -1, -1], stride = [2, 2]} : (tensor<1x5x4x6xf32>, tensor<3x3x2x3xf32>, tensor<1xf32>) -> tensor<1x11x9x2xf32>
  %1 = "tosa.depthwise_conv2d"(%y, %w, %b) {dilation = [1, 1], out_pad = [-1, -1, -1, -1], stride = [1, 1]} : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>, tensor<1xf32>) -> tensor<1x4x4x6xf32>
  return %0, %1 : tensor<1x11x9x2xf32>, tensor<1x4x4x6xf32>
}
