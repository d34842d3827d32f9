func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<i1>) -> tensor<4xf32> {
  %0 = tosa.cond_if %arg2 -> (tensor<4xf32>) {
    %1 = tosa.add %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %1 : tensor<4xf32>
  } else {
    %1 = tosa.sub %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
