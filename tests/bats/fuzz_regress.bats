#!/usr/bin/env bats
# Inputs the fuzzers (make fuzz, tests/fuzz/) found crashing, kept in tests/fuzz/regress/<target>/
# and replayed through the same fuzz target linked with tests/fuzz/replay.c (replay-<target>,
# built by make all, with ASan/UBSan under make asan): each must now run clean.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  export TOSAC_FUZZ_BUNDLE="$BATS_TEST_TMPDIR/v.hipfb"
}

@test "every fuzz target has a replay binary and seeds" {
  local n=0
  for f in "$ROOT"/tests/fuzz/fuzz_*.c; do
    t=$(basename "$f" .c); t=${t#fuzz_}
    [ -x "$BIN/replay-$t" ] || { echo "no replay-$t"; false; }
    [ -n "$(ls "$ROOT/tests/fuzz/seeds/$t")" ] || { echo "no seeds for $t"; false; }
    n=$((n + 1))
  done
  [ "$n" -eq 11 ]
}

@test "fuzz regressions replay clean" {
  "$BIN/tosac" "$ROOT/tests/fuzz/data/verify.mlir" --offload-arch=gfx90a,gfx1100 --embed-ir \
    -o "$TOSAC_FUZZ_BUNDLE"
  local total=0
  for d in "$ROOT"/tests/fuzz/regress/*/; do
    t=$(basename "$d")
    run "$BIN/replay-$t" "$d"*
    assert_success
    assert_output --regexp "^replayed [0-9]+ inputs?$"
    total=$((total + $(ls "$d" | wc -l)))
  done
  [ "$total" -ge 3 ]
}

@test "the seeds replay clean too (every reader accepts or refuses them without a report)" {
  "$BIN/tosac" "$ROOT/tests/fuzz/data/verify.mlir" --offload-arch=gfx90a,gfx1100 --embed-ir \
    -o "$TOSAC_FUZZ_BUNDLE"
  for t in bundle manifest verify weights npy values codeobj miir isa; do
    run "$BIN/replay-$t" "$ROOT/tests/fuzz/seeds/$t/"*
    assert_success
  done
}
