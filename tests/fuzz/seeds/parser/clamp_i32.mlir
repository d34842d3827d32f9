func.func @main(%a: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = tosa.clamp %a {min_val = 0 : i32, max_val = 6 : i32} : (tensor<4x8xi32>) -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}
