# The setup the migraphx suites share: the binaries, tests/data/migraphx, the oracle's check.py
# bound to this build (CHECK), the seven default targets (ALL7); the test runs in its temp dir.
migraphx_setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  DATA="$ROOT/tests/data/migraphx"
  PY=/usr/bin/python3
  CHECK=($PY "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run")
  ALL7=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200
  cd "$BATS_TEST_TMPDIR"
}

# numeric NAME: tests/data/migraphx/NAME.mlir converted with --emit=tosa passes mlir-opt-22, matches
# the numpy evaluation of tests/oracle/mgx_ref.py through the MLIR oracle, and tosac-run on gfx90a
# (MFMA), gfx1100 (WMMA) and gfx1030 (FMA) matches the oracle on the same inputs. Shared by the
# migraphx suites (`load lib/migraphx`); needs TOSAC, DATA, ROOT and CHECK from their setup.
numeric() {
  run "$TOSAC" "$DATA/$1.mlir" --emit=tosa -o "$1.tosa.mlir"
  assert_success
  run mlir-opt-22 "$1.tosa.mlir" -o /dev/null
  assert_success
  mkdir -p "$1.ref"
  opts=$(/usr/bin/python3 "$ROOT/tests/oracle/mgx_ref.py" "$DATA/$1.mlir" "$1.tosa.mlir" "$1.ref")
  run "${CHECK[@]}" "$1.tosa.mlir" $opts
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  run "${CHECK[@]}" "$1.tosa.mlir" $(echo "$opts" | tr ' ' '\n' | grep -- --input) --targets=gfx90a,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}
