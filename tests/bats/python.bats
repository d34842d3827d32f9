#!/usr/bin/env bats
# The tosac Python module (python/tosac, docs/python.md): its unittest suite
# (tests/python/test_tosac.py) through Python's own test runner, and the installed module.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export TOSAC_BUILD="${TOSAC_BUILD:-build}"
}

load lib/python

@test "python3 -m unittest: compile, manifest, diagnostics, options, run against numpy" {
  run py -m unittest discover -s "$ROOT/tests/python" -v
  echo "$output" >&2
  assert_success
  assert_output --partial "Ran 6 tests"
  assert_line OK
}

@test "make install puts the module on the Python path it is given, finding the installed library" {
  local d="$BATS_TEST_TMPDIR"
  make -C "$ROOT" -s BUILD="$TOSAC_BUILD" install-python DESTDIR="$d/root" PREFIX=/opt/t PYTHON_SITE=/py
  [ -f "$d/root/py/tosac/__init__.py" ]
  run cat "$d/root/py/tosac/_paths.py"
  assert_line 'LIBRARY = "/opt/t/lib/libtosac.so.0"'
  assert_line 'BINDIR = "/opt/t/bin"'
}
