func.func @mlir_quant_dot_fp4(%arg0: !migraphx.shaped<1x64x128xf4E2M1FN, 8192x128x1>, %arg1: !migraphx.shaped<1x128x64xf4E2M1FN, 8192x64x1>, %arg2: !migraphx.shaped<1x64x4x1xf8E8M0FNU, 256x4x1x1>, %arg3: !migraphx.shaped<1x4x1x64xf8E8M0FNU, 256x64x64x1>, %arg4: !migraphx.shaped<64xf32, 1>) -> (!migraphx.shaped<1x64x64xf16, 4096x64x1>, !migraphx.shaped<1x64x128xf32, 8192x128x1>) attributes {kernel} {
  %0 = migraphx.multibroadcast %arg2 {out_dyn_dims = [], out_lens = [1, 64, 4, 32]} : <1x64x4x1xf8E8M0FNU, 256x4x1x1> -> <1x64x4x32xf8E8M0FNU, 256x4x1x0>
  %1 = migraphx.reshape %0 {dims = [1, 64, 128]} : <1x64x4x32xf8E8M0FNU, 256x4x1x0> -> <1x64x128xf8E8M0FNU, 8192x128x1>
  %2 = migraphx.multibroadcast %arg3 {out_dyn_dims = [], out_lens = [1, 4, 32, 64]} : <1x4x1x64xf8E8M0FNU, 256x64x64x1> -> <1x4x32x64xf8E8M0FNU, 256x64x0x1>
  %3 = migraphx.reshape %2 {dims = [1, 128, 64]} : <1x4x32x64xf8E8M0FNU, 256x64x0x1> -> <1x128x64xf8E8M0FNU, 8192x64x1>
  %4 = migraphx.quant_dot %arg0 scaled by %1, %arg1 scaled by %3 {perf_config = "x"} : <1x64x128xf4E2M1FN, 8192x128x1> scaled by !migraphx.shaped<1x64x128xf8E8M0FNU, 8192x128x1>, <1x128x64xf4E2M1FN, 8192x64x1> scaled by !migraphx.shaped<1x128x64xf8E8M0FNU, 8192x64x1> -> <1x64x64xf16, 4096x64x1>
  %5 = migraphx.convert %arg0 : <1x64x128xf4E2M1FN, 8192x128x1> to <1x64x128xf16, 8192x128x1>
  %6 = migraphx.dequantizelinear %arg0, %1 : <1x64x128xf4E2M1FN, 8192x128x1>, <1x64x128xf8E8M0FNU, 8192x128x1> -> <1x64x128xf32, 8192x128x1>
  return %4, %6 : !migraphx.shaped<1x64x64xf16, 4096x64x1>, !migraphx.shaped<1x64x128xf32, 8192x128x1>
}
