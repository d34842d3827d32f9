// Transposed operands: a column-major argument, migraphx.transpose, a sliced (padded-stride)
// argument and a result written through transposed strides.
func.func @mlir_transpose_dot(%arg0: !migraphx.shaped<12x8xf32, 1x12>, %arg1: !migraphx.shaped<2x8x12xf32, 96x12x1>, %arg2: !migraphx.shaped<12x6xf32, 10x1>) -> !migraphx.shaped<6x12xf32, 1x6> {
  %0 = migraphx.transpose %arg1 {permutation = [0, 2, 1]} : <2x8x12xf32, 96x12x1> -> <2x12x8xf32, 96x1x12>
  %1 = migraphx.slice %0 {axes = [0], ends = [1], starts = [0]} : <2x12x8xf32, 96x1x12> -> <1x12x8xf32, 96x1x12>
  %2 = migraphx.reshape %1 {dims = [12, 8]} : <1x12x8xf32, 96x1x12> -> <12x8xf32, 8x1>
  %3 = migraphx.add %arg0, %2 : <12x8xf32, 1x12>, <12x8xf32, 8x1> -> <12x8xf32, 8x1>
  %4 = migraphx.transpose %3 {permutation = [1, 0]} : <12x8xf32, 8x1> -> <8x12xf32, 1x8>
  %5 = migraphx.dot %4, %arg2 : <8x12xf32, 1x8>, <12x6xf32, 10x1> -> <8x6xf32, 6x1>
  %6 = migraphx.transpose %5 {permutation = [1, 0]} : <8x6xf32, 6x1> -> <6x8xf32, 1x6>
  %7 = migraphx.dot %6, %4 {perf_config = "v2:16,16,4,16,16,1,1,1,1"} : <6x8xf32, 1x6>, <8x12xf32, 1x8> -> <6x12xf32, 12x1>
  return %7 : !migraphx.shaped<6x12xf32, 1x6>
}
