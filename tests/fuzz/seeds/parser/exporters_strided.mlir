func.func @main(%a: tensor<7x9x5xf32>, %b: tensor<3x2x2xf32>) -> (tensor<3x4x2xf32>, tensor<7x9x5xf32>, tensor<2x9xf32>) {
  %x = tensor.extract_slice %a[1, 0, 1] [3, 4, 2] [2, 2, 3] : tensor<7x9x5xf32> to tensor<3x4x2xf32>
  %y = tensor.insert_slice %b into %a[0, 3, 0] [3, 2, 2] [3, 4, 2] : tensor<3x2x2xf32> into tensor<7x9x5xf32>
  %z = tensor.extract_slice %a[2, 0, 4] [2, 9, 1] [4, 1, 7] : tensor<7x9x5xf32> to tensor<2x9xf32>
  return %x, %y, %z : tensor<3x4x2xf32>, tensor<7x9x5xf32>, tensor<2x9xf32>
}
