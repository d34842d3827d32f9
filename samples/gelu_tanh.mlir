// GELU, tanh approximation (GPT-2 / "gelu_new", aten.gelu approximate="tanh"):
//   gelu(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// on a GPT-2 MLP activation (1x64x3072xf32), in TOSA 1.0 form: x^3 as two tosa.mul (TOSA has no
// integer-power op), rank-matching constants, the i8 shift operand on every mul.
// oracle: arg 0 -6.0 6.0
func.func @main(%arg0: tensor<1x64x3072xf32>) -> tensor<1x64x3072xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c0 = "tosa.const"() <{values = dense<4.471500e-02> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %c1 = "tosa.const"() <{values = dense<0.797884583> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %half = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %0 = tosa.mul %arg0, %arg0, %shift : (tensor<1x64x3072xf32>, tensor<1x64x3072xf32>, tensor<1xi8>) -> tensor<1x64x3072xf32>
  %1 = tosa.mul %0, %arg0, %shift : (tensor<1x64x3072xf32>, tensor<1x64x3072xf32>, tensor<1xi8>) -> tensor<1x64x3072xf32>
  %2 = tosa.mul %1, %c0, %shift : (tensor<1x64x3072xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x64x3072xf32>
  %3 = tosa.add %arg0, %2 : (tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) -> tensor<1x64x3072xf32>
  %4 = tosa.mul %3, %c1, %shift : (tensor<1x64x3072xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x64x3072xf32>
  %5 = tosa.tanh %4 : (tensor<1x64x3072xf32>) -> tensor<1x64x3072xf32>
  %6 = tosa.add %5, %one : (tensor<1x64x3072xf32>, tensor<1x1x1xf32>) -> tensor<1x64x3072xf32>
  %7 = tosa.mul %arg0, %half, %shift : (tensor<1x64x3072xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x64x3072xf32>
  %8 = tosa.mul %7, %6, %shift : (tensor<1x64x3072xf32>, tensor<1x64x3072xf32>, tensor<1xi8>) -> tensor<1x64x3072xf32>
  return %8 : tensor<1x64x3072xf32>
}
