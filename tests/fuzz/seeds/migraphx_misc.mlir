// Elementwise, reduction and data ops: div, sqrt, clip, where, convert, reduce_mean/sum, flatten.
func.func @mlir_misc(%arg0: !migraphx.shaped<3x4x5xf32, 20x5x1>, %arg1: !migraphx.shaped<3x4x5xf32, 20x5x1>, %arg2: !migraphx.shaped<3x4x5xi8, 20x5x1>) -> (!migraphx.shaped<3x1x1xf32, 1x1x1>, !migraphx.shaped<3x20xf16, 20x1>) {
  %lo = migraphx.literal (dense<-1.5> : tensor<1xf32>) : <3x4x5xf32, 0x0x0>
  %hi = migraphx.literal (dense<2.0> : tensor<1xf32>) : <3x4x5xf32, 0x0x0>
  %0 = migraphx.abs %arg1 : <3x4x5xf32, 20x5x1> -> <3x4x5xf32, 20x5x1>
  %1 = migraphx.sqrt %0 : <3x4x5xf32, 20x5x1> -> <3x4x5xf32, 20x5x1>
  %2 = migraphx.div %arg0, %1 : <3x4x5xf32, 20x5x1>, <3x4x5xf32, 20x5x1> -> <3x4x5xf32, 20x5x1>
  %3 = migraphx.clip %2, %lo, %hi : <3x4x5xf32, 20x5x1>, <3x4x5xf32, 0x0x0>, <3x4x5xf32, 0x0x0> -> <3x4x5xf32, 20x5x1>
  %4 = migraphx.where %arg2, %3, %arg0 : <3x4x5xi8, 20x5x1>, <3x4x5xf32, 20x5x1>, <3x4x5xf32, 20x5x1> -> <3x4x5xf32, 20x5x1>
  %5 = migraphx.reduce_mean %4 {axes = [1, 2]} : <3x4x5xf32, 20x5x1> -> <3x1x1xf32, 1x1x1>
  %6 = migraphx.flatten %4 {axis = 1 : i64} : <3x4x5xf32, 20x5x1> -> <3x20xf32, 20x1>
  %7 = migraphx.convert %6 : <3x20xf32, 20x1> to <3x20xf16, 20x1>
  return %5, %7 : !migraphx.shaped<3x1x1xf32, 1x1x1>, !migraphx.shaped<3x20xf16, 20x1>
}
