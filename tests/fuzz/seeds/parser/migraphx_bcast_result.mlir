// Results with broadcast (stride 0) dimensions: one element in memory per broadcast index.
func.func @mlir_bcast_result(%arg0: !migraphx.shaped<3xf32, 1>, %arg1: !migraphx.shaped<4x3xf32, 3x1>) -> (!migraphx.shaped<4x3xf32, 0x1>, !migraphx.shaped<2x4x3xf32, 0x3x1>) {
  %0 = migraphx.relu %arg0 : <3xf32, 1> -> <3xf32, 1>
  %1 = migraphx.multibroadcast %0 {out_dyn_dims = [], out_lens = [4, 3]} : <3xf32, 1> -> <4x3xf32, 0x1>
  %2 = migraphx.multibroadcast %arg1 {out_dyn_dims = [], out_lens = [2, 4, 3]} : <4x3xf32, 3x1> -> <2x4x3xf32, 0x3x1>
  return %1, %2 : !migraphx.shaped<4x3xf32, 0x1>, !migraphx.shaped<2x4x3xf32, 0x3x1>
}
