# matmul NAME TYPE B M K N: NAME.mlir, a tosa.matmul of BxMxK by BxKxN TYPE operands with zero
# zero points (f16, bf16, f8 and f32 -> f32; i8 -> i32); the oracle draws its inputs from [-2, 2]
# ([-8, 8] for i8). matmul and eighths are shared by the GEMM suites: load them with `load lib/matmul`.
matmul() {
  local out=f32 zero=0.0 rng="-2 2"
  case $2 in i8) out=i32 zero=0 rng="-8 8" ;; esac
  local a="tensor<$3x$4x$5x$2>" b="tensor<$3x$5x$6x$2>" r="tensor<$3x$4x$6x$out>"
  cat > "$1.mlir" <<EOF2
// oracle: arg 0 $rng
// oracle: arg 1 $rng
func.func @main(%a: $a, %b: $b) -> $r {
  %z = "tosa.const"() <{values = dense<$zero> : tensor<1x$2>}> : () -> tensor<1x$2>
  %r = tosa.matmul %a, %b, %z, %z : ($a, $b, tensor<1x$2>, tensor<1x$2>) -> $r
  return %r : $r
}
EOF2
}

# eighths FILE DTYPE SEED DIMS...: random multiples of 1/8 in [-2, 2] as .npy (exact f32 sums in
# any order and split, so every tile must give the oracle's bits)
eighths() {
  /usr/bin/python3 -c "
import sys, numpy as np
r = np.random.default_rng(int(sys.argv[3]))
np.save(sys.argv[1], (r.integers(-16, 17, [int(d) for d in sys.argv[4:]]) / 8).astype(sys.argv[2]))" "$@"
}

# conv7 FILE TYPE: ResNet-18's last 3x3 convolution, 7x7x512 -> 512, pad 1 (GEMM 49x512x4608)
conv7() {
  local x="tensor<1x7x7x512x$2>" w="tensor<512x3x3x512x$2>" b="tensor<512x$2>" z="tensor<1x$2>"
  cat > "$1" <<EOF
func.func @main(%x: $x, %w: $w, %b: $b) -> $x {
  %z = "tosa.const"() <{values = dense<0.0> : $z}> : () -> $z
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : ($x, $w, $b, $z, $z) -> $x
  return %0 : $x
}
EOF
}
