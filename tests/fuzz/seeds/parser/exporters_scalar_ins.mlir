#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %i = arith.constant 2 : index
  %j = arith.constant 3 : index
  %s = tensor.extract %a[%i, %j] : tensor<4x8xf32>
  %t = math.tanh %s : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %t : tensor<4x8xf32>, f32) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %0 = arith.mulf %x, %y : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
