!t = tensor<1x4x4x2xf32>
!o = tensor<1x2x2x2xf32>
#k = array<i64: 2, 2>
#map = affine_map<(d0) -> (d0)>
func.func @main(%x: !t) -> !o {
  %y = tosa.max_pool2d %x {kernel = #k, stride = #k, pad = array<i64: 0, 0, 0, 0>} : (!t) -> !o
  %z = tosa.abs %y : (!o) -> !o
  return %z : !o
}
