// Causal self-attention of two heads, 8 tokens, head size 16: softmax(Q K^T / 4 + mask) V.
// Written as torch-mlir / TF emit scaled_dot_product_attention: K transposed by tosa.transpose,
// the scale as a tosa.mul by a rank-matching constant, an additive causal mask constant
// (-10000 above the diagonal), softmax spelled out (reduce_max, sub, exp, reduce_sum,
// reciprocal, mul), then the matmul with V. tosac compiles all of it into one attention
// kernel (docs/partitioning.md, "Attention"); TOSAC_NO_ATTENTION_FUSION=1 gives 4 (transpose,
// matmul + scale + mask, the softmax as one row kernel, matmul), with TOSAC_NO_ROW_FUSION=1 too 7.
// oracle: arg 0 -2.0 2.0
// oracle: arg 1 -2.0 2.0
// oracle: arg 2 -2.0 2.0
func.func @main(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %mask = "tosa.const"() <{values = dense<[[[0.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0], [0.0, 0.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0], [0.0, 0.0, 0.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0], [0.0, 0.0, 0.0, 0.0, -10000.0, -10000.0, -10000.0, -10000.0], [0.0, 0.0, 0.0, 0.0, 0.0, -10000.0, -10000.0, -10000.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -10000.0, -10000.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -10000.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]> : tensor<1x8x8xf32>}> : () -> tensor<1x8x8xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x8xf32>
  %sm = tosa.add %ss, %mask : (tensor<2x8x8xf32>, tensor<1x8x8xf32>) -> tensor<2x8x8xf32>
  %m = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
  %d = tosa.sub %sm, %m : (tensor<2x8x8xf32>, tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
  %e = tosa.exp %d : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
  %r = tosa.reciprocal %sum : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x8x8xf32>, tensor<2x8x1xf32>, tensor<1xi8>) -> tensor<2x8x8xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x8x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}
