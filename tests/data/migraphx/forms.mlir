// Other spellings: rank-0 and all-broadcast scalars, a non-splat literal, the generic op form.
func.func @scal(%arg0: !migraphx.shaped<f32>, %arg1: !migraphx.shaped<1xf32, 0>, %arg2: !migraphx.shaped<2x3xf32, 3x1>) -> (!migraphx.shaped<f32>, !migraphx.shaped<2x3xf32, 3x1>) {
  %c = migraphx.literal (dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>) : <2x3xf32, 3x1>
  %0 = migraphx.floor %arg0 : <f32> -> <f32>
  %1 = migraphx.multibroadcast %arg1 {out_lens = [2, 3]} : <1xf32, 0> -> <2x3xf32, 0x0>
  %2 = migraphx.add %1, %arg2 : <2x3xf32, 0x0>, <2x3xf32, 3x1> -> <2x3xf32, 3x1>
  %3 = "migraphx.mul"(%2, %c) : (!migraphx.shaped<2x3xf32, 3x1>, !migraphx.shaped<2x3xf32, 3x1>) -> !migraphx.shaped<2x3xf32, 3x1>
  return %0, %3 : !migraphx.shaped<f32>, !migraphx.shaped<2x3xf32, 3x1>
}
