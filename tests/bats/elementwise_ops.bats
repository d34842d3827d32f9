#!/usr/bin/env bats
# elementwise_ops.bats: the issue-8 elementwise ops (pow, sin, cos, clz, bitwise, logical, shifts,
# intdiv, table, rescale, mul with shift, casts) through tosac + tosac-run on every default target,
# compared with the MLIR CPU oracle (tests/oracle/check.py), plus hand-computed edge cases.

bats_load_library bats-support
bats_load_library bats-assert

TARGETS=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200

setup() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  PY=/usr/bin/python3
  CHECK="$ROOT/tests/oracle/check.py"
  export TOSAC_BUILD="${TOSAC_BUILD:-build}"
  TOSAC="$ROOT/$TOSAC_BUILD/bin/tosac"
  [[ "$TOSAC_BUILD" = /* ]] && TOSAC="$TOSAC_BUILD/bin/tosac"
  RUN="${TOSAC%/tosac}/tosac-run"
  T="$BATS_TEST_TMPDIR"
}

# check.py on one graph, every default target: every target's line must say all results match.
oracle_all_targets() { # graph nresults [check.py options]
  local graph=$1 n=$2
  shift 2
  run $PY "$CHECK" "$graph" --targets=$TARGETS "$@"
  assert_success
  local t
  for t in ${TARGETS//,/ }; do
    assert_line --partial "[$t]: $n results match"
  done
  assert_line "PASSED: 1 graph(s)"
}

@test "bitwise, logical, shifts (i32/i16/i8, round), clz, intdiv (+-divisors, -1), mul shift=13 match the oracle" {
  cat > "$T/int.mlir" <<'EOF'
// oracle: arg 0 -2000000000 2000000000
// oracle: arg 1 0 31
// oracle: arg 2 -128 127
// oracle: arg 3 0 7
// oracle: arg 4 -32768 32767
// oracle: arg 5 0 15
func.func @main(%a: tensor<4x33xi32>, %s: tensor<4x33xi32>, %c: tensor<1x33xi8>, %cs: tensor<4x1xi8>, %h: tensor<4x33xi16>, %hs: tensor<4x33xi16>, %p: tensor<4x33xi1>, %q: tensor<1x33xi1>) -> (tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi8>, tensor<4x33xi8>, tensor<4x33xi8>, tensor<4x33xi16>, tensor<4x33xi16>, tensor<4x33xi16>, tensor<4x33xi1>, tensor<4x33xi1>, tensor<4x33xi1>, tensor<1x33xi1>, tensor<4x33xi32>, tensor<4x33xi32>) {
  %0 = tosa.bitwise_and %a, %s : (tensor<4x33xi32>, tensor<4x33xi32>) -> tensor<4x33xi32>
  %1 = tosa.bitwise_or %a, %s : (tensor<4x33xi32>, tensor<4x33xi32>) -> tensor<4x33xi32>
  %2 = tosa.bitwise_xor %a, %s : (tensor<4x33xi32>, tensor<4x33xi32>) -> tensor<4x33xi32>
  %3 = tosa.bitwise_not %a : (tensor<4x33xi32>) -> tensor<4x33xi32>
  %4 = tosa.clz %a : (tensor<4x33xi32>) -> tensor<4x33xi32>
  %5 = tosa.logical_left_shift %a, %s : (tensor<4x33xi32>, tensor<4x33xi32>) -> tensor<4x33xi32>
  %6 = tosa.logical_right_shift %a, %s : (tensor<4x33xi32>, tensor<4x33xi32>) -> tensor<4x33xi32>
  %7 = tosa.arithmetic_right_shift %a, %s {round = true} : (tensor<4x33xi32>, tensor<4x33xi32>) -> tensor<4x33xi32>
  %8 = tosa.arithmetic_right_shift %a, %s {round = false} : (tensor<4x33xi32>, tensor<4x33xi32>) -> tensor<4x33xi32>
  %9 = tosa.arithmetic_right_shift %c, %cs {round = true} : (tensor<1x33xi8>, tensor<4x1xi8>) -> tensor<4x33xi8>
  %10 = tosa.logical_right_shift %c, %cs : (tensor<1x33xi8>, tensor<4x1xi8>) -> tensor<4x33xi8>
  %11 = tosa.bitwise_xor %c, %cs : (tensor<1x33xi8>, tensor<4x1xi8>) -> tensor<4x33xi8>
  %12 = tosa.arithmetic_right_shift %h, %hs {round = true} : (tensor<4x33xi16>, tensor<4x33xi16>) -> tensor<4x33xi16>
  %13 = tosa.logical_left_shift %h, %hs : (tensor<4x33xi16>, tensor<4x33xi16>) -> tensor<4x33xi16>
  %14 = tosa.bitwise_not %h : (tensor<4x33xi16>) -> tensor<4x33xi16>
  %15 = tosa.logical_and %p, %q : (tensor<4x33xi1>, tensor<1x33xi1>) -> tensor<4x33xi1>
  %16 = tosa.logical_or %p, %q : (tensor<4x33xi1>, tensor<1x33xi1>) -> tensor<4x33xi1>
  %17 = tosa.logical_xor %p, %q : (tensor<4x33xi1>, tensor<1x33xi1>) -> tensor<4x33xi1>
  %18 = tosa.logical_not %q : (tensor<1x33xi1>) -> tensor<1x33xi1>
  %one = "tosa.const"() <{values = dense<1> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %d = tosa.bitwise_or %s, %one : (tensor<4x33xi32>, tensor<1x1xi32>) -> tensor<4x33xi32>
  %m1 = "tosa.const"() <{values = dense<16> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %dn = tosa.sub %d, %m1 : (tensor<4x33xi32>, tensor<1x1xi32>) -> tensor<4x33xi32>
  %19 = tosa.intdiv %a, %dn : (tensor<4x33xi32>, tensor<4x33xi32>) -> tensor<4x33xi32>
  %sh = "tosa.const"() <{values = dense<13> : tensor<1xi8>}> : () -> tensor<1xi8>
  %hs32 = tosa.cast %h : (tensor<4x33xi16>) -> tensor<4x33xi32>
  %20 = tosa.mul %a, %hs32, %sh : (tensor<4x33xi32>, tensor<4x33xi32>, tensor<1xi8>) -> tensor<4x33xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20 : tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi32>, tensor<4x33xi8>, tensor<4x33xi8>, tensor<4x33xi8>, tensor<4x33xi16>, tensor<4x33xi16>, tensor<4x33xi16>, tensor<4x33xi1>, tensor<4x33xi1>, tensor<4x33xi1>, tensor<1x33xi1>, tensor<4x33xi32>, tensor<4x33xi32>
}
EOF
  oracle_all_targets "$T/int.mlir" 21 --seed=3
}

@test "table: i8 lookup and i16 interpolated (random and splat tables, folded constants) match the oracle" {
  $PY - "$T/table.mlir" <<'EOF'
import random, sys
r = random.Random(5)
t8 = ", ".join(str(r.randint(-128, 127)) for _ in range(256))
t16 = ", ".join(str(r.randint(-32768, 32767)) for _ in range(513))
open(sys.argv[1], "w").write("""// oracle: arg 1 -32768 32767
func.func @main(%x: tensor<3x1x7x17xi8>, %h: tensor<2x129xi16>) -> (tensor<3x1x7x17xi8>, tensor<2x129xi32>, tensor<2x129xi32>) {
  %t8 = "tosa.const"() <{values = dense<[T8]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %t16 = "tosa.const"() <{values = dense<[T16]> : tensor<513xi16>}> : () -> tensor<513xi16>
  %ts = "tosa.const"() <{values = dense<-77> : tensor<513xi16>}> : () -> tensor<513xi16>
  %0 = tosa.table %x, %t8 : (tensor<3x1x7x17xi8>, tensor<256xi8>) -> tensor<3x1x7x17xi8>
  %1 = tosa.table %h, %t16 : (tensor<2x129xi16>, tensor<513xi16>) -> tensor<2x129xi32>
  %2 = tosa.table %h, %ts : (tensor<2x129xi16>, tensor<513xi16>) -> tensor<2x129xi32>
  return %0, %1, %2 : tensor<3x1x7x17xi8>, tensor<2x129xi32>, tensor<2x129xi32>
}
""".replace("T8", t8).replace("T16", t16))
EOF
  oracle_all_targets "$T/table.mlir" 3
}

@test "rescale: per-channel, single/double round, shifts 2..45, 16-bit multiplier, unsigned in/out, zero points match the oracle" {
  cat > "$T/rescale.mlir" <<'EOF'
// oracle: arg 1 -100000000 100000000
func.func @main(%x: tensor<2x3x5xi8>, %w: tensor<4x5xi32>, %h: tensor<3x7xi16>, %y: tensor<3x7xi8>) -> (tensor<2x3x5xi8>, tensor<4x5xi8>, tensor<3x7xi16>, tensor<3x7xi8>, tensor<3x7xi8>, tensor<3x7xi32>, tensor<4x5xi16>, tensor<3x7xi16>) {
  %m0 = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s0 = "tosa.const"() <{values = dense<33> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zm3 = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z5 = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %x, %m0, %s0, %zm3, %z5 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<2x3x5xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x3x5xi8>
  %m1 = "tosa.const"() <{values = dense<[1073741824, 1518500250, 2147483647, 1200000000, 1900000001]> : tensor<5xi32>}> : () -> tensor<5xi32>
  %s1 = "tosa.const"() <{values = dense<[20, 31, 32, 38, 45]> : tensor<5xi8>}> : () -> tensor<5xi8>
  %zi32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %zm10 = "tosa.const"() <{values = dense<-10> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = tosa.rescale %w, %m1, %s1, %zi32, %zm10 {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<4x5xi32>, tensor<5xi32>, tensor<5xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<4x5xi8>
  %m2 = "tosa.const"() <{values = dense<12345> : tensor<1xi16>}> : () -> tensor<1xi16>
  %s2 = "tosa.const"() <{values = dense<14> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zi16 = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %2 = tosa.rescale %h, %m2, %s2, %zi16, %zi16 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = false} : (tensor<3x7xi16>, tensor<1xi16>, tensor<1xi8>, tensor<1xi16>, tensor<1xi16>) -> tensor<3x7xi16>
  %m3 = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s3 = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z128 = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %3 = tosa.rescale %y, %m3, %s3, %z128, %z0 {input_unsigned = true, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<3x7xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<3x7xi8>
  %4 = tosa.rescale %y, %m0, %s3, %z0, %z128 {input_unsigned = false, output_unsigned = true, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<3x7xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<3x7xi8>
  %m5 = "tosa.const"() <{values = dense<[1073741824, 1518500250, 2147483647, 1200000000, 1900000001, 5, 999999999]> : tensor<7xi32>}> : () -> tensor<7xi32>
  %s5 = "tosa.const"() <{values = dense<[2, 31, 32, 38, 45, 3, 29]> : tensor<7xi8>}> : () -> tensor<7xi8>
  %z7 = "tosa.const"() <{values = dense<7> : tensor<1xi8>}> : () -> tensor<1xi8>
  %5 = tosa.rescale %y, %m5, %s5, %z7, %zi32 {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<3x7xi8>, tensor<7xi32>, tensor<7xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<3x7xi32>
  %s6 = "tosa.const"() <{values = dense<2> : tensor<1xi8>}> : () -> tensor<1xi8>
  %6 = tosa.rescale %w, %m0, %s6, %zi32, %zi16 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4x5xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi16>) -> tensor<4x5xi16>
  %z300 = "tosa.const"() <{values = dense<-32768> : tensor<1xi16>}> : () -> tensor<1xi16>
  %7 = tosa.rescale %h, %m2, %s2, %z300, %zi16 {input_unsigned = true, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = false} : (tensor<3x7xi16>, tensor<1xi16>, tensor<1xi8>, tensor<1xi16>, tensor<1xi16>) -> tensor<3x7xi16>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3x5xi8>, tensor<4x5xi8>, tensor<3x7xi16>, tensor<3x7xi8>, tensor<3x7xi8>, tensor<3x7xi32>, tensor<4x5xi16>, tensor<3x7xi16>
}
EOF
  oracle_all_targets "$T/rescale.mlir" 8 --seed=5
}

@test "sin, cos, pow (f32, f16, bf16) incl. NaN, +-inf, +-0, negative bases, large arguments match the oracle" {
  cat > "$T/fmath.mlir" <<'EOF'
// oracle: arg 0 -60 60
// oracle: arg 1 0 4
// oracle: arg 2 -8 8
// oracle: arg 3 -10 10
// oracle: arg 4 0 3
// oracle: arg 5 -3 3
func.func @main(%a: tensor<7x129xf32>, %x: tensor<7x129xf32>, %y: tensor<1x129xf32>, %h: tensor<33x4xf16>, %hx: tensor<33x4xbf16>, %hy: tensor<33x1xbf16>) -> (tensor<7x129xf32>, tensor<7x129xf32>, tensor<7x129xf32>, tensor<33x4xf16>, tensor<33x4xf16>, tensor<33x4xbf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<33x4xbf16>) {
  %0 = tosa.sin %a : (tensor<7x129xf32>) -> tensor<7x129xf32>
  %1 = tosa.cos %a : (tensor<7x129xf32>) -> tensor<7x129xf32>
  %2 = tosa.pow %x, %y : (tensor<7x129xf32>, tensor<1x129xf32>) -> tensor<7x129xf32>
  %3 = tosa.sin %h : (tensor<33x4xf16>) -> tensor<33x4xf16>
  %4 = tosa.cos %h : (tensor<33x4xf16>) -> tensor<33x4xf16>
  %5 = tosa.pow %hx, %hy : (tensor<33x4xbf16>, tensor<33x1xbf16>) -> tensor<33x4xbf16>
  %ex = "tosa.const"() <{values = dense<[0x7FC00000, 0x7F800000, 0xFF800000, 0.0, -0.0, -2.0, -2.0, -1.0, 1.0, 0.5, 2.0, -8.0, 1.0e-30, 3.0e38, -0.0, 0xFF800000]> : tensor<16xf32>}> : () -> tensor<16xf32>
  %ey = "tosa.const"() <{values = dense<[0.0, 0x7FC00000, 2.0, -1.0, -3.0, 3.0, 0.5, 0x7F800000, 0x7FC00000, 0x7F800000, 0xFF800000, 0.333333343, 2.0, 2.0, 0.5, -3.0]> : tensor<16xf32>}> : () -> tensor<16xf32>
  %6 = tosa.pow %ex, %ey : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %et = "tosa.const"() <{values = dense<[0x7FC00000, 0x7F800000, 0xFF800000, 0.0, -0.0, 1.0e6, 1.0e10, 1.0e14, 1.0e-40, 3.14159274, 1.57079637, -1.57079637, 100.0, 1.0e-5, 6.28318548, 1.0e12]> : tensor<16xf32>}> : () -> tensor<16xf32>
  %7 = tosa.sin %et : (tensor<16xf32>) -> tensor<16xf32>
  %8 = tosa.cos %et : (tensor<16xf32>) -> tensor<16xf32>
  %9 = tosa.sin %hx : (tensor<33x4xbf16>) -> tensor<33x4xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<7x129xf32>, tensor<7x129xf32>, tensor<7x129xf32>, tensor<33x4xf16>, tensor<33x4xf16>, tensor<33x4xbf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<33x4xbf16>
}
EOF
  oracle_all_targets "$T/fmath.mlir" 10 --seed=2
}

@test "casts: i16 <-> f32/f16/bf16/i8/i32/i1, float -> int rounding (half to even), saturation, NaN, inf match the oracle" {
  cat > "$T/cast.mlir" <<'EOF'
// oracle: arg 0 -40000 40000
// oracle: arg 1 -32768 32767
func.func @main(%f: tensor<5x17xf32>, %h: tensor<5x17xi16>, %b: tensor<5x17xbf16>, %p: tensor<5x17xi1>) -> (tensor<5x17xi16>, tensor<5x17xi8>, tensor<5x17xf32>, tensor<5x17xf16>, tensor<5x17xbf16>, tensor<5x17xi8>, tensor<5x17xi32>, tensor<5x17xi1>, tensor<5x17xi16>, tensor<5x17xi16>, tensor<16xi16>, tensor<16xi8>, tensor<16xi32>, tensor<16xi16>, tensor<5x17xi16>) {
  %0 = tosa.cast %f : (tensor<5x17xf32>) -> tensor<5x17xi16>
  %1 = tosa.cast %f : (tensor<5x17xf32>) -> tensor<5x17xi8>
  %2 = tosa.cast %h : (tensor<5x17xi16>) -> tensor<5x17xf32>
  %3 = tosa.cast %h : (tensor<5x17xi16>) -> tensor<5x17xf16>
  %4 = tosa.cast %h : (tensor<5x17xi16>) -> tensor<5x17xbf16>
  %5 = tosa.cast %h : (tensor<5x17xi16>) -> tensor<5x17xi8>
  %6 = tosa.cast %h : (tensor<5x17xi16>) -> tensor<5x17xi32>
  %7 = tosa.cast %h : (tensor<5x17xi16>) -> tensor<5x17xi1>
  %8 = tosa.cast %b : (tensor<5x17xbf16>) -> tensor<5x17xi16>
  %9 = tosa.cast %p : (tensor<5x17xi1>) -> tensor<5x17xi16>
  %e = "tosa.const"() <{values = dense<[0x7FC00000, 0x7F800000, 0xFF800000, 0.0, -0.0, 2.5, 3.5, -2.5, -0.5, 0.5, 32767.5, -32768.5, 1.0e10, -1.0e10, 127.5, -128.5]> : tensor<16xf32>}> : () -> tensor<16xf32>
  %10 = tosa.cast %e : (tensor<16xf32>) -> tensor<16xi16>
  %11 = tosa.cast %e : (tensor<16xf32>) -> tensor<16xi8>
  %12 = tosa.cast %e : (tensor<16xf32>) -> tensor<16xi32>
  %eh = tosa.cast %e : (tensor<16xf32>) -> tensor<16xf16>
  %13 = tosa.cast %eh : (tensor<16xf16>) -> tensor<16xi16>
  %hf = tosa.cast %h : (tensor<5x17xi16>) -> tensor<5x17xf16>
  %14 = tosa.cast %hf : (tensor<5x17xf16>) -> tensor<5x17xi16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14 : tensor<5x17xi16>, tensor<5x17xi8>, tensor<5x17xf32>, tensor<5x17xf16>, tensor<5x17xbf16>, tensor<5x17xi8>, tensor<5x17xi32>, tensor<5x17xi1>, tensor<5x17xi16>, tensor<5x17xi16>, tensor<16xi16>, tensor<16xi8>, tensor<16xi32>, tensor<16xi16>, tensor<5x17xi16>
}
EOF
  oracle_all_targets "$T/cast.mlir" 15 --seed=4
}

@test "random graphs with the new ops (gen_graph seeds 1,5,7,9 and 26,27,28,29) match the oracle" {
  grep -qE "tosa\.(sin|cos|pow|bitwise_|logical_|arithmetic_right_shift|table|rescale|clz|intdiv)" \
    <($PY "$ROOT/tests/oracle/gen_graph.py" 1 5 7 9)
  run $PY "$CHECK" --gen=1,5,7,9 --gen=26,27,28,29 --targets=$TARGETS
  assert_success
  local t
  for t in ${TARGETS//,/ }; do
    assert_line --regexp "^ok gen:1,5,7,9 \[$t\]: [0-9]+ results match"
    assert_line --regexp "^ok gen:26,27,28,29 \[$t\]: [0-9]+ results match"
  done
  assert_line "PASSED: 2 graph(s)"
}

@test "the comparison can fail: a corrupted rescale reference is a mismatch" {
  cat > "$T/r.mlir" <<'EOF'
func.func @main(%x: tensor<2x3xi8>) -> tensor<2x3xi8> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %x, %m, %s, %z, %z {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<2x3xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}
EOF
  run $PY "$CHECK" "$T/r.mlir" --targets=gfx90a --corrupt
  assert_failure
  assert_line "MISMATCH $T/r.mlir [gfx90a] result 0 (tensor<2x3xi8>):"
  assert_line --partial "1 of 6 elements differ (exact match required)"
}

@test "hand-computed edge cases: rounding shift, clz(0), intdiv by -1 and negatives, rescale halves, i16 table ends" {
  $PY - "$T" <<'EOF'
import sys, numpy as np
t = sys.argv[1]
ramp = ", ".join(str(i) for i in range(513))  # table[i] = i
open(t + "/e.mlir", "w").write("""
func.func @main(%x: tensor<8xi32>, %s: tensor<8xi32>, %d: tensor<8xi32>, %b: tensor<8xi8>, %h: tensor<4xi16>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<4xi32>) {
  %0 = tosa.arithmetic_right_shift %x, %s {round = true} : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %1 = tosa.clz %x : (tensor<8xi32>) -> tensor<8xi32>
  %2 = tosa.intdiv %x, %d : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %sh = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %3 = tosa.rescale %b, %m, %sh, %z, %z {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<8xi8>
  %tt = "tosa.const"() <{values = dense<[RAMP]> : tensor<513xi16>}> : () -> tensor<513xi16>
  %4 = tosa.table %h, %tt : (tensor<4xi16>, tensor<513xi16>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<4xi32>
}
""".replace("RAMP", ramp))
np.save(t + "/x.npy", np.array([-7, -8, 7, 5, 0, -1, 2**31 - 1, -2**31], np.int32))
np.save(t + "/s.npy", np.array([1, 1, 1, 2, 3, 0, 31, 31], np.int32))
np.save(t + "/d.npy", np.array([2, -3, -1, 2, 5, -1, -1, 7], np.int32))
np.save(t + "/b.npy", np.array([-128, -3, -2, -1, 1, 2, 3, 127], np.int8))
np.save(t + "/h.npy", np.array([-32768, -32767, 0, 32767], np.int16))
EOF
  run "$TOSAC" "$T/e.mlir" --embed-ir --offload-arch=gfx942,gfx1100 -o "$T/e.hipfb"
  assert_success
  for tg in gfx942 gfx1100; do
    run "$RUN" "$T/e.hipfb" --target=$tg --input=@"$T/x.npy" --input=@"$T/s.npy" --input=@"$T/d.npy" \
      --input=@"$T/b.npy" --input=@"$T/h.npy" --output=@"$T/o0.npy" --output=@"$T/o1.npy" \
      --output=@"$T/o2.npy" --output=@"$T/o3.npy" --output=@"$T/o4.npy"
    assert_success
    run $PY -c "
import numpy as np
t = '$T'
print(*[np.load(t + '/o%d.npy' % k).tolist() for k in range(5)], sep='\n')"
    assert_success
    # round adds the last bit shifted out; shift 0 does not round
    assert_line --index 0 "[-3, -4, 4, 1, 0, -1, 1, -1]"
    assert_line --index 1 "[0, 0, 29, 29, 32, 0, 1, 0]"
    # truncation toward zero; INT_MAX / -1 = -INT_MAX
    assert_line --index 2 "[-3, 2, -7, 2, 0, 1, -2147483647, -306783378]"
    # x * 2^30 >> 31 = x / 2 rounded half up: -1.5 -> -1, -0.5 -> 0, 0.5 -> 1
    assert_line --index 3 "[-64, -1, -1, 0, 1, 1, 2, 64]"
    # ramp table: (idx << 7) + frac = x + 32768
    assert_line --index 4 "[0, 1, 32768, 65535]"
  done
}
