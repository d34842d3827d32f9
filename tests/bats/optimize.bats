#!/usr/bin/env bats
# The graph optimiser's switches (docs/optimize.md): -O0 runs no pass, -fno-NAME turns one off,
# -fNAME turns one on whatever the level; unknown pass names are usage errors; the report lines
# of --emit=partitions; the stage's row in --time-report.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  cd "$BATS_TEST_TMPDIR"
  cat > twice.mlir <<'G'
func.func @main(%a: tensor<4x8xf32>) -> (tensor<4x8xf32>) {
  %0 = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = tosa.add %0, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
G
}

@test "cleanup removes a repeated op and says so; -fno-cleanup and -O0 keep it; -O0 -fcleanup runs it" {
  run "$TOSAC" twice.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line --index 0 "# optimize: 3 ops -> 2, constant bytes 0 -> 0"
  assert_line --index 1 "# cleanup: 3:8: removed tosa.exp: the same as the one at 2:8"
  assert_line "  kernel 0 tosac_k0_exp_add over tensor<4x8xf32>"
  for flags in "-fno-cleanup" "-O0"; do
    run "$TOSAC" twice.mlir --offload-arch=gfx90a --emit=partitions $flags
    assert_success
    refute_line --partial "# cleanup"
    assert_line "  kernel 0 tosac_k0_exp_exp_add over tensor<4x8xf32>"
  done
  run "$TOSAC" twice.mlir --offload-arch=gfx90a --emit=partitions -O0 -fcleanup
  assert_line --index 1 "# cleanup: 3:8: removed tosa.exp: the same as the one at 2:8"
  # --emit=tosa prints the graph the partitioner sees
  run "$TOSAC" twice.mlir --emit=tosa
  assert_success
  [ "$(grep -c '"tosa.exp"' <<< "$output")" -eq 1 ]
  run "$TOSAC" twice.mlir --emit=tosa -O0
  [ "$(grep -c '"tosa.exp"' <<< "$output")" -eq 2 ]
}

@test "an unknown pass name is a usage error naming the passes; nothing is written" {
  run "$TOSAC" twice.mlir -fno-fold-everything -o x.hipfb
  assert_failure 2
  assert_line --index 0 "tosac: error: unknown option '-fno-fold-everything' (optimisation passes: fold-constants, fold-batchnorm, propagate-layout, cleanup)"
  [ ! -e x.hipfb ] && [ ! -e x.json ]
}

@test "cleanup: a bias add behind a reshape of leading unit dims joins the matmul's epilogue" {
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  cat > cls.mlir <<'G'
// oracle: arg 0 -1 1
// oracle: result 0 err 1e-5
func.func @main(%x: tensor<1x1x64xf32>) -> (tensor<1x24xf32>) {
  %w = "tosa.const"() <{values = dense<0.125> : tensor<1x64x24xf32>}> : () -> tensor<1x64x24xf32>
  %b = "tosa.const"() <{values = dense<[[0.5, -0.25, 1.0, 2.0, 0.5, -0.25, 1.0, 2.0, 0.5, -0.25, 1.0, 2.0, 0.5, -0.25, 1.0, 2.0, 0.5, -0.25, 1.0, 2.0, 0.5, -0.25, 1.0, 2.0]]> : tensor<1x24xf32>}> : () -> tensor<1x24xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = "tosa.matmul"(%x, %w, %z, %z) : (tensor<1x1x64xf32>, tensor<1x64x24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x24xf32>
  %s = "tosa.const_shape"() <{values = dense<[1, 24]> : tensor<2xindex>}> : () -> !tosa.shape<2>
  %r = "tosa.reshape"(%m, %s) : (tensor<1x1x24xf32>, !tosa.shape<2>) -> tensor<1x24xf32>
  %y = "tosa.add"(%r, %b) : (tensor<1x24xf32>, tensor<1x24xf32>) -> tensor<1x24xf32>
  return %y : tensor<1x24xf32>
}
G
  run mlir-opt-22 cls.mlir -o /dev/null
  assert_success
  run "$TOSAC" cls.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "# cleanup: 10:8: tosa.add reads the tosa.matmul result in its own shape: the reshape moved below it"
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  run "$TOSAC" cls.mlir --offload-arch=gfx90a --emit=partitions -fno-cleanup
  assert_line "target gfx90a: 2 kernels, 2 launches, workspace 256 bytes"
  for arg in -fcleanup -fno-cleanup; do
    run /usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run" \
      --targets gfx90a,gfx1100,gfx1030 --tosac-arg=$arg cls.mlir
    assert_success
    assert_output --partial "PASSED: 1 graph(s)"
  done
}
