#!/usr/bin/env bats
# ir_smoke.bats: the kernel-IR path of the emulator (tosac-run --exec=ir, TOSAC_HIPEMU_EXEC=ir;
# docs/emulator.md), kept as the fast alternative now that machine code is the default proof: a
# few graphs through tests/oracle/check.py --exec=ir on an MFMA (gfx90a), a WMMA (gfx1100) and the
# FMA target (gfx1030), and the IR and the machine code giving the same bits.

load lib/isa

TARGETS=gfx90a,gfx1100,gfx1030

setup() {
  isa_setup
  ORACLE=($PY "$CHECK" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run")
  cd "$T"
}

load lib/matmul

# check.py --exec=ir passes on every target
oracle_ir() { # graph [check.py options]
  run "${ORACLE[@]}" "$@" --targets=$TARGETS --exec=ir
  assert_success
  local t
  for t in ${TARGETS//,/ }; do
    assert_line --regexp "^ok .* \[$t\]: [0-9]+ results match$"
  done
}

@test "IR path: gelu, an f16 matmul (MFMA, WMMA, dot) and a seeded random graph match the oracle" {
  oracle_ir "$ROOT/samples/gelu.mlir"
  matmul mm f16 1 40 72 24
  oracle_ir mm.mlir --seed=3
  oracle_ir --gen=3,4,5 --seed=7
}

@test "IR path: an avg_pool2d with padding, a tanh of large values and an f32 matmul give the machine code's bits" {
  cat > g.mlir <<'M'
func.func @main(%x: tensor<2x3x6x4xf32>, %w: tensor<1x4x8xf32>) -> (tensor<2x2x3x4xf32>, tensor<1x4x8xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = "tosa.avg_pool2d"(%x, %z, %z) <{acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 0, 1>, stride = array<i64: 2, 2>}> : (tensor<2x3x6x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x2x3x4xf32>
  %r = tosa.reshape %p {new_shape = array<i64: 1, 12, 4>} : (tensor<2x2x3x4xf32>) -> tensor<1x12x4xf32>
  %s = tosa.slice %r {start = array<i64: 0, 0, 0>, size = array<i64: 1, 4, 4>} : (tensor<1x12x4xf32>) -> tensor<1x4x4xf32>
  %m = tosa.matmul %s, %w, %z, %z : (tensor<1x4x4xf32>, tensor<1x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %t = tosa.tanh %m : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %p, %t : tensor<2x2x3x4xf32>, tensor<1x4x8xf32>
}
M
  "$BIN/tosac" g.mlir --embed-ir --offload-arch=$TARGETS -o g.hipfb
  $PY -c "
import numpy as np
r = np.random.default_rng(5)
np.save('x.npy', (r.random((2, 3, 6, 4)) * 2 - 1).astype(np.float32))
np.save('w.npy', (r.random((1, 4, 8)) * 200 - 100).astype(np.float32))"
  for t in ${TARGETS//,/ }; do
    for e in ir isa; do
      "$BIN/tosac-run" g.hipfb --target=$t --exec=$e --input=@x.npy --input=@w.npy --output=@p_$e.npy --output=@t_$e.npy
    done
    cmp p_ir.npy p_isa.npy
    cmp t_ir.npy t_isa.npy
  done
  # large tanh arguments were drawn: the results are +-1, not NaN
  run $PY -c "import numpy as np; t = np.load('t_isa.npy'); print(np.isnan(t).sum(), (np.abs(t) == 1).sum() > 0)"
  assert_output "0 True"
}
