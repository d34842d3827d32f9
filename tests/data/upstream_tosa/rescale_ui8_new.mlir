func.func @main(%a: tensor<5x8xui8>, %b: tensor<5x8xi8>) -> (tensor<5x8xi8>, tensor<5x8xui8>) {
  %m0 = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s0 = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m1 = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s1 = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %u128 = "tosa.const"() <{values = dense<128> : tensor<1xui8>}> : () -> tensor<1xui8>
  %i5 = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %i0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %a, %m0, %s0, %u128, %i5 {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = true, output_unsigned = false} : (tensor<5x8xui8>, tensor<1xi32>, tensor<1xi8>, tensor<1xui8>, tensor<1xi8>) -> tensor<5x8xi8>
  %1 = tosa.rescale %b, %m1, %s1, %i0, %u128 {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = true} : (tensor<5x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xui8>) -> tensor<5x8xui8>
  return %0, %1 : tensor<5x8xi8>, tensor<5x8xui8>
}
