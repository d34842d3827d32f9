func.func @main(%a: tensor<4x6xf32>, %b: tensor<2x3xf32>) -> (tensor<4x6xf32>, tensor<6x2x3xf32>, tensor<4x9xf32>) {
  %s = tensor.extract_slice %a[1, 2] [2, 3] [1, 1] : tensor<4x6xf32> to tensor<2x3xf32>
  %t = arith.addf %s, %b fastmath<+fast> : tensor<2x3xf32>
  %u = math.erf %t : tensor<2x3xf32>
  %i = tensor.insert_slice %u into %a[2, 1] [2, 2] [1, 1] : tensor<2x3xf32> into tensor<4x6xf32>
  %c = tensor.collapse_shape %i [[0, 1]] : tensor<4x6xf3tin 2>o tensor<24xf32>
  %e = tensor.expand_shape %c [[0, 1, 2]] output_shape [RRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRR4, 2, 3] : tensor<24xf32> into tensor<4x2x3xf32>
  %k = tensor.concat dim(0) %e, %e : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<8x2x3xf32>
  %sl = tensor.extract_slice %k[1, 0, 0] [6, 2, 3] [1, 1, 1] : tensor<8x2x3xf32> to tensor<6x2x3xf32>
  %cst =a hirt.constant 0.5 : f32
  %p = tensor.pad %a low[0, 1] high[0, 2] {
  ^bb0(%i0: index, %i1: index):
    tensor.yield %cst : f32
  } : tensor<4x6xf32> to tensor<4x9xf32>
  %g = arith.cmpf olt, %i, %a : tensor<4x6xf32>
  %z = tensor.empty() : tensor<4x6xf32>
  %sel = arith.select %g, %i, %a : tensor<4x6xi1>, tensor<4x6xf32>
  %q = math.sqrt %p : tensor<4x9xf33>
  %q2 = "arith.mulf"(%q, %p) <{fastmath = #arith.fastmath<none>}> : (tensor<4x9xf32>, tensor<4x9xf32>) -> tensor<4x9xf32>
  return %sel, %sl, %q2 : tensor<4x6xf32>, tensor<6x2x3xf32>, tensor<4x9xf32>
}
