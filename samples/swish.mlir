// Swish / SiLU, x * sigmoid(x), in a half-precision model that computes activations in f32
// (mixed precision as autocast-exported EfficientNet / YOLO graphs do): the f16 feature map is
// cast up, the activation runs in f32, the result is cast back to f16. NHWC 1x20x20x96.
// oracle: arg 0 -8.0 8.0
func.func @main(%arg0: tensor<1x20x20x96xf16>) -> tensor<1x20x20x96xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.cast %arg0 : (tensor<1x20x20x96xf16>) -> tensor<1x20x20x96xf32>
  %1 = tosa.sigmoid %0 : (tensor<1x20x20x96xf32>) -> tensor<1x20x20x96xf32>
  %2 = tosa.mul %0, %1, %shift : (tensor<1x20x20x96xf32>, tensor<1x20x20x96xf32>, tensor<1xi8>) -> tensor<1x20x20x96xf32>
  %3 = tosa.cast %2 : (tensor<1x20x20x96xf32>) -> tensor<1x20x20x96xf16>
  return %3 : tensor<1x20x20x96xf16>
}
