func.func @mlir_attention(%arg0: !migraphx.shaped<1x7x3xf32, 21x3x1>, %arg1: !migraphx.shaped<1x3x7xf32, 21x7x1>, %arg2: !migraphx.shaped<1x7x3xf32, 21x3x1>, %scale: !migraphx.shaped<1x7x7xf32, 49x7x1>) -> !migraphx.shaped<1x7x3xf32, 21x3x1> {
  %0 = migraphx.attention %arg0, %arg1, %arg2
    pre_softmax_inputs(%scale : !migraphx.shaped<1x7x7xf32, 49x7x1>) {
    ^bb0(%qk: !migraphx.shaped<1x7x7xf32, 49x7x1>, %s: !migraphx.shaped<1x7x7xf32, 49x7x1>):
      %1 = migraphx.mul %qk, %s : <1x7x7xf32, 49x7x1>, <1x7x7xf32, 49x7x1> -> <1x7x7xf32, 49x7x1>
      migraphx.yield %1 : !migraphx.shaped<1x7x7xf32, 49x7x1>
    } softmax_type = f32
    : <1x7x3xf32, 21x3x1>, <1x3x7xf32, 21x7x1>, <1x7x3xf32, 21x3x1> -> <1x7x3xf32, 21x3x1>
  return %0 : !migraphx.shaped<1x7x3xf32, 21x3x1>
}
