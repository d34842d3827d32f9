func.func @main(%a: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %0 = tosa.cond_if %c : tensor<i1> -> tensor<f32> {
    %1 = tosa.add %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>
