func.func @main(%a: tensor<2x4xf32>, %b: tensor<2x4xi32>, %m: tensor<2x4xi1>) -> (tensor<2x4xf32>, tensor<2x4xi32>, tensor<2x6xf32>, tensor<2x4xi1>) {
  %half = arith.constant 0.5 : f32
  %neg = arith.constant -1.25 : f32
  %three = arith.constant 3 : i32
  %zero = arith.constant 0 : i8
  %pc = arith.constant 7.0 : f32
  %yes = arith.constant true
  %no = arith.constant 0 : i1
  %s = tensor.splat %half : tensor<2x4xf32>
  %v = tensor.from_elements %half, %neg, %half, %neg : tensor<1x4xf32>
  %sh = tensor.from_elements %zero : tensor<1xi8>
  %x = tosa.mul %a, %s, %sh : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<1xi8>) -> tensor<2x4xf32>
  %y = tosa.add %x, %v : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %t = tensor.splat %three : tensor<1x1xi32>
  %z = tosa.mul %b, %t, %sh : (tensor<2x4xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<2x4xi32>
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %pv = tensor.from_elements %pc : tensor<1xf32>
  %p = tosa.pad %a, %padding, %pv : (tensor<2x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<2x6xf32>
  %bits = tensor.from_elements %yes, %no, %no, %yes : tensor<1x4xi1>
  %l = tosa.logical_and %m, %bits : (tensor<2x4xi1>, tensor<1x4xi1>) -> tensor<2x4xi1>
  return %y, %z, %p, %l : tensor<2x4xf32>, tensor<2x4xi32>, tensor<2x6xf32>, tensor<2x4xi1>
}
