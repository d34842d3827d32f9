func.func @main(%arg0: tensor<10xi32>) -> tensor<10xi32> {
  %lim = "tosa.const"() {values = dense<300> : tensor<i32>} : () -> tensor<i32>
  %0 = "tosa.const"() {values = dense<0> : tensor<i32>} : () -> tensor<i32>
  %1:2 = tosa.while_loop (%i = %0, %x = %arg0) : (tensor<i32>, tensor<10xi32>) -> (tensor<i32>, tensor<10xi32>) {
    %2 = tosa.greater %lim, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %2 : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %x: tensor<10xi32>):
    %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
    %3 = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %4 = tosa.add %x, %x : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi32>
    tosa.yield %3, %4 : tensor<i32>, tensor<10xi32>
  }
  return %1#1 : tensor<10xi32>
}
