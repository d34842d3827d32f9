"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi8>) -> (tensor<4x8xf32>, tensor<2x2xf32>, tensor<4x8xf32>, tensor<1xi32>, tensor<4x8xi32>, tensor<4x8xi1>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<4x8xi8>):
    %0 = "arith.constant"() <{value = 1 : index}> : () -> index
    %1 = "arith.constant"() <{value = 5 : index}> : () -> index
    %2 = "tensor.extract"(%arg0, %0, %1) : (tensor<4x8xf32>, index, index) -> f32
    %3 = "arith.constant"() <{value = dense<[5.000000e-01, -1.250000e+00, 2.000000e+00, 3.500000e+00]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %4 = "arith.constant"() <{value = 2 : index}> : () -> index
    %5 = "tensor.extract"(%3, %4) : (tensor<4xf32>, index) -> f32
    %6 = "arith.constant"() <{value = 7.500000e-01 : f32}> : () -> f32
    %7 = "arith.mulf"(%2, %6) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
    %8 = "math.exp"(%7) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
    %9 = "arith.divf"(%8, %5) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %10 = "tensor.splat"(%9) : (f32) -> tensor<4x8xf32>
    %11 = "arith.mulf"(%arg1, %10) <{fastmath = #arith.fastmath<none>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %12 = "tensor.from_elements"(%2, %6, %9, %5) : (f32, f32, f32, f32) -> tensor<2x2xf32>
    %13 = "arith.cmpf"(%2, %5) <{fastmath = #arith.fastmath<none>, predicate = 9 : i64}> : (f32, f32) -> i1
    %14 = "arith.select"(%13, %arg0, %arg1) : (i1, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %15 = "math.floor"(%9) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
    %16 = "arith.fptosi"(%15) : (f32) -> i32
    %17 = "tensor.from_elements"(%16) : (i32) -> tensor<1xi32>
    %18 = "arith.extui"(%arg2) : (tensor<4x8xi8>) -> tensor<4x8xi32>
    %19 = "arith.cmpf"(%arg0, %arg1) <{fastmath = #arith.fastmath<none>, predicate = 14 : i64}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %20 = "arith.bitcast"(%3) : (tensor<4xf32>) -> tensor<4xi32>
    "func.return"(%11, %12, %14, %17, %18, %19) : (tensor<4x8xf32>, tensor<2x2xf32>, tensor<4x8xf32>, tensor<1xi32>, tensor<4x8xi32>, tensor<4x8xi1>) -> ()
  }) : () -> ()
}) : () -> ()

