func.func @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %q: tensor<4x8xi8>) -> (tensor<4x8xf32>, tensor<2x2xf32>, tensor<4x8xf32>, tensor<1xi32>, tensor<4x8xi32>, tensor<4x8xi1>) {
  %i = arith.constant 1 : index
  %j = arith.constant 5 : index
  %s = tensor.extract %a[%i, %j] : tensor<4x8xf32>
  %cst = arith.constant dense<[0.5, -1.25, 2.0, 3.5]> : tensor<4xf32>
  %k = arith.constant 2 : index
  %c = tensor.extract %cst[%k] : tensor<4xf32>
  %h = arith.constant 0.75 : f32
  %m = arith.mulf %s, %h fastmath<fast> : f32
  %e = math.exp %m : f32
  %d = arith.divf %e, %c : f32
  %sp = tensor.splat %d : tensor<4x8xf32>
  %r = arith.mulf %b, %sp : tensor<4x8xf32>
  %fe = tensor.from_elements %s, %h, %d, %c : tensor<2x2xf32>
  %g = arith.cmpf ugt, %s, %c : f32
  %sel = arith.select %g, %a, %b : tensor<4x8xf32>
  %fl = math.floor %d : f32
  %ii = arith.fptosi %fl : f32 to i32
  %t = tensor.from_elements %ii : tensor<1xi32>
  %u = arith.extui %q : tensor<4x8xi8> to tensor<4x8xi32>
  %n = arith.cmpf uno, %a, %b : tensor<4x8xf32>
  %bc = arith.bitcast %cst : tensor<4xf32> to tensor<4xi32>
  return %r, %fe, %sel, %t, %u, %n : tensor<4x8xf32>, tensor<2x2xf32>, tensor<4x8xf32>, tensor<1xi32>, tensor<4x8xi32>, tensor<4x8xi1>
}
