// Three public functions and an external declaration in one module (issue 17): a static matmul,
// the same matmul with a dynamic batch (the static + dynamic pair upstream tests hold), and a
// convolution. @matmul's right operand and @conv's filter are constants larger than 4 KiB: the
// entries share one weights file, @conv's filter after @matmul's operand.
module {
  func.func @matmul(%a: tensor<1x64x32xf32>) -> tensor<1x64x48xf32> {
    %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %b = "tosa.const"() {values = dense<0.0625> : tensor<1x32x48xf32>} : () -> tensor<1x32x48xf32>
    %c = "tosa.const"() {values = dense<0.5> : tensor<1x64x48xf32>} : () -> tensor<1x64x48xf32>
    %m = tosa.matmul %a, %b, %z, %z : (tensor<1x64x32xf32>, tensor<1x32x48xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x48xf32>
    %s = tosa.add %m, %c : (tensor<1x64x48xf32>, tensor<1x64x48xf32>) -> tensor<1x64x48xf32>
    %t = tosa.tanh %s : (tensor<1x64x48xf32>) -> tensor<1x64x48xf32>
    return %t : tensor<1x64x48xf32>
  }
  func.func @matmul_dyn(%a: tensor<?x64x32xf32>, %b: tensor<?x32x48xf32>) -> tensor<?x64x48xf32> {
    %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %c = "tosa.const"() {values = dense<0.5> : tensor<1x64x48xf32>} : () -> tensor<1x64x48xf32>
    %m = tosa.matmul %a, %b, %z, %z : (tensor<?x64x32xf32>, tensor<?x32x48xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x64x48xf32>
    %s = tosa.add %m, %c : (tensor<?x64x48xf32>, tensor<1x64x48xf32>) -> tensor<?x64x48xf32>
    %t = tosa.tanh %s : (tensor<?x64x48xf32>) -> tensor<?x64x48xf32>
    return %t : tensor<?x64x48xf32>
  }
  func.func @conv(%x: tensor<1x8x8x16xf32>, %bias: tensor<32xf32>) -> tensor<1x8x8x32xf32> {
    %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %w = "tosa.const"() {values = dense<0.03125> : tensor<32x3x3x16xf32>} : () -> tensor<32x3x3x16xf32>
    %c = tosa.conv2d %x, %w, %bias, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<32x3x3x16xf32>, tensor<32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x32xf32>
    %r = tosa.clamp %c {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
    return %r : tensor<1x8x8x32xf32>
  }
  func.func private @external(tensor<2xf32>) -> tensor<2xf32>
}
