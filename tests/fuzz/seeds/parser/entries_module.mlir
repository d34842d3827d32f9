func.func @one(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @two(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tosa.add %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %1 = tosa.exp %0 : (tensor<?xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
func.func private @decl(tensor<4xf32>) -> tensor<4xf32>
