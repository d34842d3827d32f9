func @main(%arg0: tensor<i32>) -> tensor<i32> {
  %1 = "tosa.while_loop"(%arg0) ( {
  ^bb0(%arg2: tensor<i32>):  // no predecessors
    %2 = "tosa.const"() {value = dense<30> : tensor<i32>} : () -> tensor<i32>
    %3 = "tosa.greater_equal"(%2, %arg2) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tosa.yield"(%3) : (tensor<i1>) -> ()
  },  {
  ^bb0(%arg2: tensor<i32>):  // no predecessors
    %2 = "tosa.const"() {value = dense<7> : tensor<i32>} : () -> tensor<i32>
    %3 = "tosa.add"(%arg2, %2) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "tosa.yield"(%3) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> (tensor<i32>)
  return %1 : tensor<i32>
}
