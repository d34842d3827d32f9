func.func @main(%x: tensor<?x16x32xf32>, %w: tensor<?x32x16xf32>, %b: tensor<8x16xf32>) -> (tensor<?x16x16xf32>, tensor<1x16xf32>) {
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %z, %z : (tensor<?x16x32xf32>, tensor<?x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x16x16xf32>
  %s = tosa.reduce_sum %b {axis = 0 : i32} : (tensor<8x16xf32>) -> tensor<1x16xf32>
  %sh = tosa.const_shape {values = dense<[1, 1, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s3 = tosa.reshape %s, %sh : (tensor<1x16xf32>, !tosa.shape<3>) -> tensor<1x1x16xf32>
  %y = tosa.add %m, %s3 : (tensor<?x16x16xf32>, tensor<1x1x16xf32>) -> tensor<?x16x16xf32>
  %t = tosa.tanh %y : (tensor<?x16x16xf32>) -> tensor<?x16x16xf32>
  return %t, %s : tensor<?x16x16xf32>, tensor<1x16xf32>
}
