// A causal-style mask as MIGraphX emits it: si32 positions broadcast (placed by the result's
// strides), greater, convert to MIGraphX's i8 booleans (target_type 0), where; rock.* attributes.
func.func @mlir_mask(%arg0: !migraphx.shaped<4x16xf32, 16x1>, %arg1: !migraphx.shaped<4xsi32, 1>, %arg2: !migraphx.shaped<16xsi32, 1>, %arg3: !migraphx.shaped<4xf32, 1>) -> (!migraphx.shaped<4x16xf32, 16x1>, !migraphx.shaped<4x4xf32, 4x1>) attributes {rock.arch = "gfx90a:sramecc+:xnack-", rock.kernel = "mixr", rock.num_cu = 104 : i64} {
  %fill = migraphx.literal (dense<-1.000000e+04> : tensor<1xf32>) : <1xf32, 0>
  %0 = migraphx.multibroadcast %arg1 {out_dyn_dims = [], out_lens = [4, 16]} : <4xsi32, 1> -> <4x16xsi32, 1x0>
  %1 = migraphx.multibroadcast %arg2 {out_dyn_dims = [], out_lens = [4, 16]} : <16xsi32, 1> -> <4x16xsi32, 0x1>
  %2 = migraphx.greater %1, %0 : <4x16xsi32, 0x1>, <4x16xsi32, 1x0> -> <4x16xsi32, 16x1>
  %3 = migraphx.convert %2 {target_type = 0 : i64} : <4x16xsi32, 16x1> to <4x16xsi8, 16x1>
  %4 = migraphx.multibroadcast %fill {out_dyn_dims = [], out_lens = [4, 16]} : <1xf32, 0> -> <4x16xf32, 0x0>
  %5 = migraphx.where %3, %4, %arg0 : <4x16xsi8, 16x1>, <4x16xf32, 0x0>, <4x16xf32, 16x1> -> <4x16xf32, 16x1>
  %6 = migraphx.multibroadcast %arg3 {out_dyn_dims = [], out_lens = [4, 4]} : <4xf32, 1> -> <4x4xf32, 1x0>
  %7 = migraphx.multibroadcast %arg3 {out_dyn_dims = [], out_lens = [4, 4]} : <4xf32, 1> -> <4x4xf32, 0x1>
  %8 = migraphx.less %6, %7 : <4x4xf32, 1x0>, <4x4xf32, 0x1> -> <4x4xf32, 4x1>
  %9 = migraphx.sub %6, %7 : <4x4xf32, 1x0>, <4x4xf32, 0x1> -> <4x4xf32, 4x1>
  %10 = migraphx.mul %8, %9 : <4x4xf32, 4x1>, <4x4xf32, 4x1> -> <4x4xf32, 4x1>
  return %5, %10 : !migraphx.shaped<4x16xf32, 16x1>, !migraphx.shaped<4x4xf32, 4x1>
}
