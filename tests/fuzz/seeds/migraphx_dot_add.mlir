// MIGraphX dot + add (batched GEMM with a residual input).
func.func @mlir_dot_add(%arg0: !migraphx.shaped<2x16x24xf32, 384x24x1>, %arg1: !migraphx.shaped<2x16x32xf32, 512x32x1>, %arg2: !migraphx.shaped<2x32x24xf32, 768x24x1>) -> !migraphx.shaped<2x16x24xf32, 384x24x1> attributes {kernel = "mixr"} {
  %0 = migraphx.dot %arg1, %arg2 : <2x16x32xf32, 512x32x1>, <2x32x24xf32, 768x24x1> -> <2x16x24xf32, 384x24x1>
  %1 = migraphx.add %0, %arg0 : <2x16x24xf32, 384x24x1>, <2x16x24xf32, 384x24x1> -> <2x16x24xf32, 384x24x1>
  return %1 : !migraphx.shaped<2x16x24xf32, 384x24x1>
}
