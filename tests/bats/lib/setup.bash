# tosac_setup: the common start of a compiler suite's setup(): ROOT, BUILD (absolute), TOSAC,
# BUNDLE (tosac-bundle), CHECK (the oracle checker as an array), DATA (the shared test graphs);
# every tuning override of the environment removed, so each test starts from the compiler's own
# choices, and the working directory the test's temporary one. Load it with `load lib/setup`.
tosac_setup() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  BUILD="${TOSAC_BUILD:-build}"
  case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
  TOSAC="$BUILD/bin/tosac"
  BUNDLE="$BUILD/bin/tosac-bundle"
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py")
  DATA=/work/shared/testdata
  export TOSAC_BUILD="$BUILD"
  unset TOSAC_TUNING_DB TOSAC_SPLIT_K TOSAC_SPLIT_K_FORM TOSAC_IM2COL TOSAC_GEMV_FORM TOSAC_GEMV_KL
  cd "$BATS_TEST_TMPDIR"
}

# gen_seeded SCRIPT KIND SEED (suites that load lib/setup): the graph tests/oracle/SCRIPT writes for KIND and SEED, as
# KINDSEED.mlir in the test's directory
gen_seeded() { /usr/bin/python3 "$ROOT/tests/oracle/$1" "$2" "$3" > "$2$3.mlir"; }
