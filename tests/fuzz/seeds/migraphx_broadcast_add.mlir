// Broadcasts: a stride-0 argument, migraphx.multibroadcast (numpy rules) and migraphx.broadcast (axis).
func.func @mlir_broadcast_add(%arg0: !migraphx.shaped<4x16xf32, 16x1>, %arg1: !migraphx.shaped<16xf32, 1>, %arg2: !migraphx.shaped<4xf32, 1>, %arg3: !migraphx.shaped<4x16xf32, 0x1>) -> !migraphx.shaped<4x16xf32, 16x1> {
  %0 = migraphx.multibroadcast %arg1 {out_dyn_dims = [], out_lens = [4, 16]} : <16xf32, 1> -> <4x16xf32, 0x1>
  %1 = migraphx.broadcast %arg2 {axis = 0 : i64, out_lens = [4, 16]} : <4xf32, 1> -> <4x16xf32, 1x0>
  %2 = migraphx.add %arg0, %0 : <4x16xf32, 16x1>, <4x16xf32, 0x1> -> <4x16xf32, 16x1>
  %3 = migraphx.mul %2, %1 : <4x16xf32, 16x1>, <4x16xf32, 1x0> -> <4x16xf32, 16x1>
  %4 = migraphx.sub %3, %arg3 : <4x16xf32, 16x1>, <4x16xf32, 0x1> -> <4x16xf32, 16x1>
  return %4 : !migraphx.shaped<4x16xf32, 16x1>
}
