

// CHECK-LABEL: test_block_scaled_const_cast_scale_values_no_propagate
func.func @test_block_scaled_const_cast_scale_values_no_propagate() -> tensor<2x32xf32> {
  %0 = "tosa.const"() <{values = dense<tensor<2x32x!tosa.block_scaled<f8E4M3FN:f8E8M0FNU:BLOCK_SHAPE_32, {2.0, 4.0}>> : 0.0 : f8E4M3FN>}> : () -> tensor<2x32x!tosa.block_scaled<f8E4M3FN:f8E8M0FNU:BLOCK_SHAPE_32>>
  %1 = tosa.cast %0 : (tensor<2x32x!tosa.block_scaled<f8E4M3FN:f8E8M0FNU:BLOCK_SHAPE_32>>) -> tensor<2x32xf32>
  return %1 : tensor<2x32xf32>
}
