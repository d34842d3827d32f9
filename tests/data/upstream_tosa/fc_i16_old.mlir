func.func @main(%x: tensor<3x40xi16>, %w: tensor<5x40xi16>) -> tensor<3x5xi48> {
  %b = "tosa.const"() {value = dense<[10, -20, 30, -40, 50]> : tensor<5xi48>} : () -> tensor<5xi48>
  %0 = "tosa.fully_connected"(%x, %w, %b) : (tensor<3x40xi16>, tensor<5x40xi16>, tensor<5xi48>) -> tensor<3x5xi48>
  return %0 : tensor<3x5xi48>
}
