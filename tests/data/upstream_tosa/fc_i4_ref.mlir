func.func @main(%x: tensor<3x16xi8>) -> tensor<3x5xi32> {
  %w = "tosa.const"() <{values = dense<[[1,-2,3,-4,5,-6,7,-8,0,1,2,3,4,5,6,7],[7,6,5,4,3,2,1,0,-1,-2,-3,-4,-5,-6,-7,-8],[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],[-8,-8,-8,-8,-8,-8,-8,-8,7,7,7,7,7,7,7,7],[0,0,0,0,2,2,2,2,-3,-3,-3,-3,5,5,5,5]]> : tensor<5x16xi4>}> : () -> tensor<5x16xi4>
  %b = "tosa.const"() <{values = dense<[[10, -20, 30, -40, 50]]> : tensor<1x5xi32>}> : () -> tensor<1x5xi32>
  %s1 = tosa.const_shape {values = dense<[1, 3, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %s1 : (tensor<3x16xi8>, !tosa.shape<3>) -> tensor<1x3x16xi8>
  %wt = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<5x16xi4>) -> tensor<16x5xi4>
  %s2 = tosa.const_shape {values = dense<[1, 16, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %wt, %s2 : (tensor<16x5xi4>, !tosa.shape<3>) -> tensor<1x16x5xi4>
  %az = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %bz = "tosa.const"() <{values = dense<0> : tensor<1xi4>}> : () -> tensor<1xi4>
  %m = tosa.matmul %x3, %w3, %az, %bz : (tensor<1x3x16xi8>, tensor<1x16x5xi4>, tensor<1xi8>, tensor<1xi4>) -> tensor<1x3x5xi32>
  %s3 = tosa.const_shape {values = dense<[3, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %m2 = tosa.reshape %m, %s3 : (tensor<1x3x5xi32>, !tosa.shape<2>) -> tensor<3x5xi32>
  %r = tosa.add %m2, %b : (tensor<3x5xi32>, tensor<1x5xi32>) -> tensor<3x5xi32>
  return %r : tensor<3x5xi32>
}
