// mxfp4 GEMMs as MIGraphX's GPU target hands them to rocMLIR: f4E2M1FN operands (two values per
// byte, low nibble first), f8E8M0FNU scales with one value per block of 32 along K, broadcast to
// the operand's shape (multibroadcast + reshape), a scaled quant_dot and a bias add; then a
// batched one whose B is read transposed (a [N, K] weight viewed as [K, N]).
func.func @mlir_mxfp4_dot(%arg0: !migraphx.shaped<16x64xf4E2M1FN, 64x1>, %arg1: !migraphx.shaped<64x24xf4E2M1FN, 24x1>, %arg2: !migraphx.shaped<16x2x1xf8E8M0FNU, 2x1x1>, %arg3: !migraphx.shaped<2x1x24xf8E8M0FNU, 24x24x1>, %arg4: !migraphx.shaped<16x24xf32, 24x1>, %arg5: !migraphx.shaped<2x8x96xf4E2M1FN, 768x96x1>, %arg6: !migraphx.shaped<2x12x96xf4E2M1FN, 1152x96x1>, %arg7: !migraphx.shaped<2x8x3x1xf8E8M0FNU, 24x3x1x1>, %arg8: !migraphx.shaped<2x12x3x1xf8E8M0FNU, 36x3x1x1>) -> (!migraphx.shaped<16x24xf32, 24x1>, !migraphx.shaped<2x8x12xf32, 96x12x1>) attributes {rock.kernel = "mixr"} {
  %0 = migraphx.multibroadcast %arg2 {out_dyn_dims = [], out_lens = [16, 2, 32]} : <16x2x1xf8E8M0FNU, 2x1x1> -> <16x2x32xf8E8M0FNU, 2x1x0>
  %1 = migraphx.reshape %0 {dims = [16, 64]} : <16x2x32xf8E8M0FNU, 2x1x0> -> <16x64xf8E8M0FNU, 64x1>
  %2 = migraphx.multibroadcast %arg3 {out_dyn_dims = [], out_lens = [2, 32, 24]} : <2x1x24xf8E8M0FNU, 24x24x1> -> <2x32x24xf8E8M0FNU, 24x0x1>
  %3 = migraphx.reshape %2 {dims = [64, 24]} : <2x32x24xf8E8M0FNU, 24x0x1> -> <64x24xf8E8M0FNU, 24x1>
  %4 = migraphx.quant_dot %arg0 scaled by %1, %arg1 scaled by %3 : <16x64xf4E2M1FN, 64x1> scaled by !migraphx.shaped<16x64xf8E8M0FNU, 64x1>, <64x24xf4E2M1FN, 24x1> scaled by !migraphx.shaped<64x24xf8E8M0FNU, 24x1> -> <16x24xf32, 24x1>
  %5 = migraphx.add %4, %arg4 : <16x24xf32, 24x1>, <16x24xf32, 24x1> -> <16x24xf32, 24x1>
  %6 = migraphx.transpose %arg6 {permutation = [0, 2, 1]} : <2x12x96xf4E2M1FN, 1152x96x1> -> <2x96x12xf4E2M1FN, 1152x1x96>
  %7 = migraphx.multibroadcast %arg7 {out_dyn_dims = [], out_lens = [2, 8, 3, 32]} : <2x8x3x1xf8E8M0FNU, 24x3x1x1> -> <2x8x3x32xf8E8M0FNU, 24x3x1x0>
  %8 = migraphx.reshape %7 {dims = [2, 8, 96]} : <2x8x3x32xf8E8M0FNU, 24x3x1x0> -> <2x8x96xf8E8M0FNU, 768x96x1>
  %9 = migraphx.multibroadcast %arg8 {out_dyn_dims = [], out_lens = [2, 12, 3, 32]} : <2x12x3x1xf8E8M0FNU, 36x3x1x1> -> <2x12x3x32xf8E8M0FNU, 36x3x1x0>
  %10 = migraphx.reshape %9 {dims = [2, 12, 96]} : <2x12x3x32xf8E8M0FNU, 36x3x1x0> -> <2x12x96xf8E8M0FNU, 1152x96x1>
  %11 = migraphx.transpose %10 {permutation = [0, 2, 1]} : <2x12x96xf8E8M0FNU, 1152x96x1> -> <2x96x12xf8E8M0FNU, 1152x1x96>
  %12 = migraphx.quant_dot %arg5 scaled by %8, %6 scaled by %11 {perf_config = "v3:64,64,16,32,32,32,4,1,2,1,1"} : <2x8x96xf4E2M1FN, 768x96x1> scaled by !migraphx.shaped<2x8x96xf8E8M0FNU, 768x96x1>, <2x96x12xf4E2M1FN, 1152x1x96> scaled by !migraphx.shaped<2x96x12xf8E8M0FNU, 1152x1x96> -> <2x8x12xf32, 96x12x1>
  return %5, %12 : !migraphx.shaped<16x24xf32, 24x1>, !migraphx.shaped<2x8x12xf32, 96x12x1>
}
