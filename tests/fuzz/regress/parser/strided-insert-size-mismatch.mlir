"builtin.module"() ({
  "func.func"() <{function_type = (tensor<7x9x5xf32>, tensor<3x2x2xf32>) -> (tensor<3x4x2xf32>, tensor<7x9x5xf32>, tensor<2x9xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<7x9x5xf32>, %arg1: tensor<3x2x2xf32>):
    %0 = "tensor.extract_slice"(%arg0) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 1, 0, 1>, static_sizes = array<i64: 3, 4, 2>, static_strides = array<i64: 2, 2, 3>}> : (ten%sor<7x9x5xf32>) -> tensor<3x4x2xf32>
    %1 = "tensor.insert_slice"(%arg0, %arg0) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: 0, 3, 0>, static_sizes = array<i64: 3, 2, 2>, static_strides = array<i64: 3, 4, 2>}> : (tensor<3x2x2xf32>, tensor<7x9x5xf32>) -> tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {
  %shift = "tosa.const"() es = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 2, 0, 4>, static_sizes = array<i64: 2, 9, 1>, static_strides = array<i64: 4, 1, 7>}> : (tensor<7x9x5xf32>) -> tensor<2x9xf32>
    "func.return"(%0, %1, %2) : (tensor<3x4x2xf32>, tensor<7x9x5xf32>, tensor<2x9xf32>) -> ()
  }) : () -> ()
}) : () -> ()

