// GELU (erf form) on a BERT-base hidden state: gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2))).
// Written the way TOSA 1.0 producers (torch-mlir's TorchToTosa for aten.gelu, approximate="none")
// emit it: rank-matching tosa.const operands, multiplication by 1/sqrt(2) instead of a division,
// and the i8 shift operand on every tosa.mul.
// oracle: arg 0 -6.0 6.0
func.func @main(%arg0: tensor<1x128x768xf32>) -> tensor<1x128x768xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %half = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %rsqrt2 = "tosa.const"() <{values = dense<0.707106769> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %0 = tosa.mul %arg0, %half, %shift : (tensor<1x128x768xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x128x768xf32>
  %1 = tosa.mul %arg0, %rsqrt2, %shift : (tensor<1x128x768xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x128x768xf32>
  %2 = tosa.erf %1 : (tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
  %3 = tosa.add %2, %one : (tensor<1x128x768xf32>, tensor<1x1x1xf32>) -> tensor<1x128x768xf32>
  %4 = tosa.mul %0, %3, %shift : (tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1xi8>) -> tensor<1x128x768xf32>
  return %4 : tensor<1x128x768xf32>
}
