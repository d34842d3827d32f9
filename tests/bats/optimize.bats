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
