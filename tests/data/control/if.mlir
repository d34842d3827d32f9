func.func @main(%p: tensor<i1>, %x: tensor<1x32x64xf16>, %w: tensor<1x64x32xf16>) -> tensor<1x32x32xf32> {
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf16>} : () -> tensor<1xf16>
  %r = tosa.cond_if %p (%a = %x) : tensor<i1> (tensor<1x32x64xf16>) -> tensor<1x32x32xf32> {
  ^bb0(%a: tensor<1x32x64xf16>):
    %m = tosa.matmul %a, %w, %z, %z : (tensor<1x32x64xf16>, tensor<1x64x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x32x32xf32>
    tosa.yield %m : tensor<1x32x32xf32>
  } else {
  ^bb0(%a: tensor<1x32x64xf16>):
    %sl = tosa.const_shape {values = dense<[0, 0, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %sz = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %s = tosa.slice %a, %sl, %sz : (tensor<1x32x64xf16>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x32x32xf16>
    %c = tosa.cast %s : (tensor<1x32x32xf16>) -> tensor<1x32x32xf32>
    %t = tosa.tanh %c : (tensor<1x32x32xf32>) -> tensor<1x32x32xf32>
    tosa.yield %t : tensor<1x32x32xf32>
  }
  return %r : tensor<1x32x32xf32>
}
