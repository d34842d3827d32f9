#!/usr/bin/env bats
# Inputs the parser fuzzer (make fuzz) found or that stress its recovery paths: each must give
# diagnostics and exit 1 (or 0), never crash.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
}

@test "fuzz regressions: no crash, a diagnostic for each rejected input" {
  local n=0
  for f in "$ROOT"/tests/fuzz/regress/parser/*; do
    run "$TOSAC" --syntax-only "$f"
    [ "$status" -le 1 ] || { echo "$f: exit $status"; false; }
    if [ "$status" -eq 1 ]; then assert_output --regexp ': error: '; fi
    n=$((n + 1))
  done
  [ "$n" -ge 2 ]
}

@test "fuzz regressions: exact diagnostics for the two hand-written ones" {
  run "$TOSAC" --syntax-only "$ROOT/tests/fuzz/regress/parser/unterminated-region.mlir"
  assert_failure 1
  assert_line --index 0 --partial "unterminated-region.mlir:3:69: error: unterminated '{': unexpected end of file"
  run "$TOSAC" --syntax-only "$ROOT/tests/fuzz/regress/parser/too-many-results.mlir"
  assert_failure 1
  assert_line --index 0 --partial "too-many-results.mlir:2:6: error: result count '70' must be in 1..64"
}
