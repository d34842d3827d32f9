// Two launches ordered by a token: the second kernel reads the first one's result.
module {
  func.func private @k_dot(%arg0: !migraphx.shaped<4x8xf32, 8x1>, %arg1: !migraphx.shaped<8x6xf32, 1x8>) -> !migraphx.shaped<4x6xf32, 6x1> {
    %0 = migraphx.dot %arg0, %arg1 : <4x8xf32, 8x1>, <8x6xf32, 1x8> -> <4x6xf32, 6x1>
    return %0 : !migraphx.shaped<4x6xf32, 6x1>
  }
  func.func private @k_softmax(%arg0: !migraphx.shaped<4x6xf32, 6x1>) -> !migraphx.shaped<4x6xf32, 6x1> {
    %0 = migraphx.softmax %arg0 {axis = 1 : i64} : <4x6xf32, 6x1> -> <4x6xf32, 6x1>
    return %0 : !migraphx.shaped<4x6xf32, 6x1>
  }
  func.func @wrapper(%arg0: !migraphx.shaped<4x8xf32, 8x1>, %arg1: !migraphx.shaped<8x6xf32, 1x8>) -> !migraphx.shaped<4x6xf32, 6x1> {
    %t0, %r0 = mhal.launch @k_dot (%arg0, %arg1) : (!migraphx.shaped<4x8xf32, 8x1>, !migraphx.shaped<8x6xf32, 1x8>) -> !migraphx.shaped<4x6xf32, 6x1>
    %t1, %r1 = mhal.launch @k_softmax [%t0] (%r0) : (!migraphx.shaped<4x6xf32, 6x1>) -> !migraphx.shaped<4x6xf32, 6x1>
    mhal.await %t1 : !mhal.token
    return %r1 : !migraphx.shaped<4x6xf32, 6x1>
  }
}
