func.func @main(%f: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %0 = "tosa.const"() {values = dense<0> : tensor<i32>} : () -> tensor<i32>
  %lim = "tosa.const"() {values = dense<2> : tensor<i32>} : () -> tensor<i32>
  %1:2 = tosa.while_loop (%i = %0, %y = %f) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
    %2 = tosa.greater %lim, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %2 : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %y: tensor<4xf32>):
    %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
    %i1 = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %y1 = tosa.cond_if %p (%a = %y) : tensor<i1> (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %m = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      tosa.yield %m : tensor<4xf32>
    } else {
    ^bb0(%a: tensor<4xf32>):
      tosa.yield %a : tensor<4xf32>
    }
    tosa.yield %i1, %y1 : tensor<i32>, tensor<4xf32>
  }
  return %1#1 : tensor<4xf32>
}
