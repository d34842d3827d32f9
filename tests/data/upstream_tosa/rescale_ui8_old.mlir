func.func @main(%a: tensor<5x8xui8>, %b: tensor<5x8xi8>) -> (tensor<5x8xi8>, tensor<5x8xui8>) {
  %0 = "tosa.rescale"(%a) {input_zp = 128 : i32, output_zp = -5 : i32, multiplier = array<i32: 1518500250>, shift = array<i8: 31>, scale32 = true, double_round = false, per_channel = false} : (tensor<5x8xui8>) -> tensor<5x8xi8>
  %1 = "tosa.rescale"(%b) {input_zp = 0 : i32, output_zp = 128 : i32, multiplier = array<i32: 1073741824>, shift = array<i8: 30>, scale32 = true, double_round = true, per_channel = false} : (tensor<5x8xi8>) -> tensor<5x8xui8>
  return %0, %1 : tensor<5x8xi8>, tensor<5x8xui8>
}
