// rocMLIR's migraphx.attention as MIGraphX hands it fused attention: Q [B, H, S_q, D], K given as
// [B, H, D, S_k], V [B, H, S_k, D_v]; the pre-softmax body scales the product by a broadcast
// scalar and adds a bias (two pre_softmax_inputs), softmax in f32, then the product with V.
func.func @mlir_attention_op(%q: !migraphx.shaped<1x2x8x16xf32, 256x128x16x1>, %k: !migraphx.shaped<1x2x16x24xf32, 768x384x24x1>, %v: !migraphx.shaped<1x2x24x16xf32, 768x384x16x1>, %scale: !migraphx.shaped<1x2x8x24xf32, 0x0x0x0>, %bias: !migraphx.shaped<1x2x8x24xf32, 384x192x24x1>) -> !migraphx.shaped<1x2x8x16xf32, 256x128x16x1> attributes {rock.kernel = "mixr"} {
  %0 = migraphx.attention %q, %k, %v
    pre_softmax_inputs(%scale, %bias : !migraphx.shaped<1x2x8x24xf32, 0x0x0x0>, !migraphx.shaped<1x2x8x24xf32, 384x192x24x1>) {
    ^bb0(%qk: !migraphx.shaped<1x2x8x24xf32, 384x192x24x1>, %s: !migraphx.shaped<1x2x8x24xf32, 0x0x0x0>, %b: !migraphx.shaped<1x2x8x24xf32, 384x192x24x1>):
      %1 = migraphx.mul %qk, %s : <1x2x8x24xf32, 384x192x24x1>, <1x2x8x24xf32, 0x0x0x0> -> <1x2x8x24xf32, 384x192x24x1>
      %2 = migraphx.add %1, %b : <1x2x8x24xf32, 384x192x24x1>, <1x2x8x24xf32, 384x192x24x1> -> <1x2x8x24xf32, 384x192x24x1>
      migraphx.yield %2 : !migraphx.shaped<1x2x8x24xf32, 384x192x24x1>
    } softmax_type = f32
    : <1x2x8x16xf32, 256x128x16x1>, <1x2x16x24xf32, 768x384x24x1>, <1x2x24x16xf32, 768x384x16x1> -> <1x2x8x16xf32, 256x128x16x1>
  %1 = migraphx.attention %q, %k, %v {
    } : <1x2x8x16xf32, 256x128x16x1>, <1x2x16x24xf32, 768x384x24x1>, <1x2x24x16xf32, 768x384x16x1> -> <1x2x8x16xf32, 256x128x16x1>
  %2 = migraphx.add %0, %1 : <1x2x8x16xf32, 256x128x16x1>, <1x2x8x16xf32, 256x128x16x1> -> <1x2x8x16xf32, 256x128x16x1>
  return %2 : !migraphx.shaped<1x2x8x16xf32, 256x128x16x1>
}
