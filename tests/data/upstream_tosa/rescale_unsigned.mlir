func.func @main(%a: tensor<5x8xui8>, %b: tensor<5x8xi8>, %c: tensor<5x8xui16>, %d: tensor<5x8xi16>) -> (tensor<5x8xi8>, tensor<5x8xui8>, tensor<5x8xi16>, tensor<5x8xi16>, tensor<5x8xui16>, tensor<5x8xui8>) {
  %m = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %mc = "tosa.const"() <{values = dense<[1073741824, 1518500250, 2000000000, 1288490189, 1073741824, 1717986918, 1932735283, 1500000000]> : tensor<8xi32>}> : () -> tensor<8xi32>
  %sc = "tosa.const"() <{values = dense<[30, 31, 32, 30, 31, 33, 30, 29]> : tensor<8xi8>}> : () -> tensor<8xi8>
  %u128 = "tosa.const"() <{values = dense<128> : tensor<1xui8>}> : () -> tensor<1xui8>
  %u3 = "tosa.const"() <{values = dense<3> : tensor<1xui8>}> : () -> tensor<1xui8>
  %i0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %i5 = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %w0 = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %u32768 = "tosa.const"() <{values = dense<32768> : tensor<1xui16>}> : () -> tensor<1xui16>
  %u100 = "tosa.const"() <{values = dense<32768> : tensor<1xui16>}> : () -> tensor<1xui16>
  %0 = tosa.rescale %a, %m, %s, %u128, %i5 {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = true, output_unsigned = false} : (tensor<5x8xui8>, tensor<1xi32>, tensor<1xi8>, tensor<1xui8>, tensor<1xi8>) -> tensor<5x8xi8>
  %1 = tosa.rescale %b, %mc, %sc, %i0, %u128 {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = true, input_unsigned = false, output_unsigned = true} : (tensor<5x8xi8>, tensor<8xi32>, tensor<8xi8>, tensor<1xi8>, tensor<1xui8>) -> tensor<5x8xui8>
  %2 = tosa.rescale %a, %m, %s, %u128, %w0 {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<5x8xui8>, tensor<1xi32>, tensor<1xi8>, tensor<1xui8>, tensor<1xi16>) -> tensor<5x8xi16>
  %3 = tosa.rescale %c, %m, %s, %u32768, %w0 {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = true, output_unsigned = false} : (tensor<5x8xui16>, tensor<1xi32>, tensor<1xi8>, tensor<1xui16>, tensor<1xi16>) -> tensor<5x8xi16>
  %4 = tosa.rescale %d, %m, %s, %w0, %u100 {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = true} : (tensor<5x8xi16>, tensor<1xi32>, tensor<1xi8>, tensor<1xi16>, tensor<1xui16>) -> tensor<5x8xui16>
  %5 = tosa.rescale %a, %m, %s, %u3, %u3 {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = true, output_unsigned = true} : (tensor<5x8xui8>, tensor<1xi32>, tensor<1xi8>, tensor<1xui8>, tensor<1xui8>) -> tensor<5x8xui8>
  return %0, %1, %2, %3, %4, %5 : tensor<5x8xi8>, tensor<5x8xui8>, tensor<5x8xi16>, tensor<5x8xi16>, tensor<5x8xui16>, tensor<5x8xui8>
}
