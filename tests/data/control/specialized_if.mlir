func.func @main(%p: tensor<i1>, %x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = tosa.cond_if %p (%a = %x) : tensor<i1> (tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%a: tensor<?x8xf32>):
    %t = tosa.tanh %a : (tensor<?x8xf32>) -> tensor<?x8xf32>
    tosa.yield %t : tensor<?x8xf32>
  } else {
  ^bb0(%a: tensor<?x8xf32>):
    %s = tosa.sigmoid %a : (tensor<?x8xf32>) -> tensor<?x8xf32>
    tosa.yield %s : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}
