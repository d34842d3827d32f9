
// CHECK-LABEL: test_cast_block_scaled_dynamic
func.func @test_cast_block_scaled_dynamic(%arg0: tensor<?x32x!tosa.block_scaled<f8E5M2:f8E8M0FNU:BLOCK_SHAPE_32>>, %arg1: tensor<4x?x!tosa.block_scaled<f8E5M2:f8E8M0FNU:BLOCK_SHAPE_32>>) -> (tensor<?x32xf32>, tensor<4x?xf32>) {
  %0 = tosa.cast %arg0 : (tensor<?x32x!tosa.block_scaled<f8E5M2:f8E8M0FNU:BLOCK_SHAPE_32>>) -> tensor<?x32xf32>
  %1 = tosa.cast %arg1 : (tensor<4x?x!tosa.block_scaled<f8E5M2:f8E8M0FNU:BLOCK_SHAPE_32>>) -> tensor<4x?xf32>
  return %0, %1 : tensor<?x32xf32>, tensor<4x?xf32>
}

