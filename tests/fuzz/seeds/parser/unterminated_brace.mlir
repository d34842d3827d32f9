func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "tosa.const"() {values = dense<1.0> : tensor<4xf32>
}
