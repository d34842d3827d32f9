func.func @main(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  %s = tosa.const_shape {values = dense<8> : tensor<1xindex>} : () -> !tosa.shape<1>
  %y = tosa.reshape %x, %s : (tensor<2x4xf32>, !tosa.shape<1>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
