func.func @main(%x: tensor<3x16xi8>) -> tensor<3x5xi32> {
  %w = "tosa.const"() {value = dense<[[1,-2,3,-4,5,-6,7,-8,0,1,2,3,4,5,6,7],[7,6,5,4,3,2,1,0,-1,-2,-3,-4,-5,-6,-7,-8],[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],[-8,-8,-8,-8,-8,-8,-8,-8,7,7,7,7,7,7,7,7],[0,0,0,0,2,2,2,2,-3,-3,-3,-3,5,5,5,5]]> : tensor<5x16xi4>} : () -> tensor<5x16xi4>
  %b = "tosa.const"() {value = dense<[10, -20, 30, -40, 50]> : tensor<5xi32>} : () -> tensor<5xi32>
  %0 = "tosa.fully_connected"(%x, %w, %b) {quantization_info = {input_zp = 0 : i32, weight_zp = 0 : i32}} : (tensor<3x16xi8>, tensor<5x16xi4>, tensor<5xi32>) -> tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}
