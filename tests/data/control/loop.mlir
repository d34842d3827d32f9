func.func @main(%lim: tensor<i32>, %p: tensor<i1>, %x: tensor<1x16x32xf32>, %w: tensor<1x32x32xf32>) -> (tensor<i32>, tensor<1x16x32xf32>) {
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %zero = "tosa.const"() {values = dense<0> : tensor<i32>} : () -> tensor<i32>
  %r:2 = tosa.while_loop (%i = %zero, %y = %x) : (tensor<i32>, tensor<1x16x32xf32>) -> (tensor<i32>, tensor<1x16x32xf32>) {
    %c = tosa.greater %lim, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %y: tensor<1x16x32xf32>):
    %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
    %i1 = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %m = tosa.matmul %y, %w, %z, %z : (tensor<1x16x32xf32>, tensor<1x32x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x32xf32>
    %y1 = tosa.cond_if %p (%a = %m) : tensor<i1> (tensor<1x16x32xf32>) -> tensor<1x16x32xf32> {
    ^bb0(%a: tensor<1x16x32xf32>):
      %t = tosa.tanh %a : (tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
      tosa.yield %t : tensor<1x16x32xf32>
    } else {
    ^bb0(%a: tensor<1x16x32xf32>):
      %s = tosa.sigmoid %a : (tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
      tosa.yield %s : tensor<1x16x32xf32>
    }
    tosa.yield %i1, %y1 : tensor<i32>, tensor<1x16x32xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<1x16x32xf32>
}
