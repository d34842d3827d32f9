// rocMLIR's host form: the kernel, a wrapper launching it through mhal.launch / mhal.await, and
// the kernel again inside the mhal.module that holds the device code.
module {
  func.func private @mlir_dot_softmax(%arg0: !migraphx.shaped<1x2x16x8xf32, 256x128x8x1> {func.read_access}, %arg1: !migraphx.shaped<1x2x8x16xf32, 256x128x16x1> {func.read_access}) -> (!migraphx.shaped<1x2x16x16xf32, 512x256x16x1> {func.write_access}) {
    %0 = migraphx.dot %arg0, %arg1 : <1x2x16x8xf32, 256x128x8x1>, <1x2x8x16xf32, 256x128x16x1> -> <1x2x16x16xf32, 512x256x16x1>
    %1 = migraphx.softmax %0 {axis = 3 : i64} : <1x2x16x16xf32, 512x256x16x1> -> <1x2x16x16xf32, 512x256x16x1>
    return %1 : !migraphx.shaped<1x2x16x16xf32, 512x256x16x1>
  }
  func.func @mlir_dot_softmax_wrapper(%arg0: !migraphx.shaped<1x2x16x8xf32, 256x128x8x1>, %arg1: !migraphx.shaped<1x2x8x16xf32, 256x128x16x1>) -> !migraphx.shaped<1x2x16x16xf32, 512x256x16x1> {
    %token, %results = mhal.launch @mlir_dot_softmax (%arg0, %arg1) : (!migraphx.shaped<1x2x16x8xf32, 256x128x8x1>, !migraphx.shaped<1x2x8x16xf32, 256x128x16x1>) -> !migraphx.shaped<1x2x16x16xf32, 512x256x16x1>
    mhal.await %token : !mhal.token
    return %results : !migraphx.shaped<1x2x16x16xf32, 512x256x16x1>
  }
  module @__xmodule_ attributes {mhal.arch = "gfx90a", mhal.module} {
    func.func private @mlir_dot_softmax(%arg0: !migraphx.shaped<1x2x16x8xf32, 256x128x8x1> {func.read_access}, %arg1: !migraphx.shaped<1x2x8x16xf32, 256x128x16x1> {func.read_access}) -> (!migraphx.shaped<1x2x16x16xf32, 512x256x16x1> {func.write_access}) attributes {kernel, original_func = @mlir_dot_softmax} {
      %0 = migraphx.dot %arg0, %arg1 : <1x2x16x8xf32, 256x128x8x1>, <1x2x8x16xf32, 256x128x16x1> -> <1x2x16x16xf32, 512x256x16x1>
      %1 = migraphx.softmax %0 {axis = 3 : i64} : <1x2x16x16xf32, 512x256x16x1> -> <1x2x16x16xf32, 512x256x16x1>
      return %1 : !migraphx.shaped<1x2x16x16xf32, 512x256x16x1>
    }
  }
}
