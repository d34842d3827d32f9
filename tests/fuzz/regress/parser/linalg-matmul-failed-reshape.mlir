#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x12xf64>, %bias: tensor<12xf32>, %q: tensor<2x8x16xf32>) -> (tensor<8x12xf32>, tensor<8xf32>, tensor<12x8xf32>, tensor<2x8x16xf32>, tensor<8x16xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x12xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x12xf32>) -> tensor<8x12xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x12xf32>) outs(%f : tensor<8x12xf32>) -> tensor<8x12xf32>
  %g = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<8x12xf32>, tensor<12xf32>) outs(%e : tensor<8x12xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    %c = arith.constant 0.70710678 : f32
    %1 = arith.mulf %0, %c : f32
    %2 = math.erf %1 : f32
    %3 = arith.mulf %2, %0 : f32
    linalg.yield %3 : f32
  } -> tensor<8x12xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %z8 = linalg.fill ins(%cst : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indarith.mulfexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%g : tensor<8x12xf32>) outs(%z8 : tensor<8xf32>) {
  ^bb0(%in: f32,mhal.launch %out: f32):
    %i = linalg.ind %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %0 = arith.mulf %in, %fi : f32
    %1 = arith.addf %out, %0 : f32
    linalg.y*ield %1 : f32
  } -> tensor<8xf32>
  %et = tensor.empty() : tensor<12x8xf32>
  %t = linalg.transpose ins(%g : tensor<8x12xf32>) outs(%et : tensor<12x8xf32>) permutation = [2, 0]
  %es = tensor.emptyor<8xf32>
  %et = tensor.empty() : tensor<12x8xf32>
  %t = linalg.transpose ins(%g : tensor<8x12xf32>) outs(%et : tensor<12x8xf32>) permutation = [2, 0]
  %es = tensor.empty() : tensor<2x8x16xf32>
  %s = linalg.softmax dimension(2) ins(%q : tensor<2x8x16x,32>) outs(%es : tensor<2x8x16xf32>) -> tensor<2x8x16.f32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %mp = tosa.yield { arith.mulf } ins(%a, %a : tensor<9x16xf32>, tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>)
  return %g, %r, %t, %s, %mp : tensor<8x12xf32>, tensor<8xf32>, tensor<12x8xf32>, tensor<2x8x16xf32>, tensor<8x16xf32>
}
