
// CHECK-LABEL: test_matmul_t_quantized_i8
func.func @test_matmul_t_quantized_i8(%arg0: tensor<2x14x19x!quant.uniform<i8:f32, 0.125>>, %arg1: tensor<2x28x19x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x14x28xi32> {
%azp0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
%bzp0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
%0 = tosa.matmul_t %arg0, %arg1, %azp0, %bzp0 : (tensor<2x14x19x!quant.uniform<i8:f32, 0.125>>, tensor<2x28x19x!quant.uniform<i8:f32, 0.25>>, tensor<1xi8>, tensor<1xi8>)  -> tensor<2x14x28xi32>
  return %0 : tensor<2x14x28xi32>
}

