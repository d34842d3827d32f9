# The setup the machine-code emulator suites share (isa.bats, isa_scratch.bats, ir_smoke.bats):
# ROOT, the build's binaries (BIN; TOSAC_BUILD exported, absolute or relative to ROOT), test-isa
# (ISA, which must be built), the hand-written kernels (DATA, tests/data/isa), the oracle (PY,
# CHECK: tests/oracle/check.py) and the test's temp dir (T).
isa_setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export TOSAC_BUILD="${TOSAC_BUILD:-build}"
  BIN="$ROOT/$TOSAC_BUILD/bin"
  [[ "$TOSAC_BUILD" = /* ]] && BIN="$TOSAC_BUILD/bin"
  ISA="$BIN/test-isa"
  [ -x "$ISA" ] || fail "test-isa not built: run make first"
  DATA="$ROOT/tests/data/isa"
  PY=/usr/bin/python3
  CHECK="$ROOT/tests/oracle/check.py"
  T="$BATS_TEST_TMPDIR"
}

# assemble SOURCE.s for CPU into a linked code object OUT.co
assemble() { # source cpu out
  llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu="$2" -filetype=obj "$1" -o "$3.o"
  ld.lld-22 -shared "$3.o" -o "$3"
}
