#!/usr/bin/env bats
# The documentation against the tree and the tools: every option --help prints is in the man
# page and every documented option exists (tests/bats/lib/doccheck.py parses --help, so options
# added later are checked too), README names only real options, every relative link in README.md
# and docs/ resolves, README's walkthrough runs from the build, and the docs hold no
# development history.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  BUILD="$ROOT/${TOSAC_BUILD:-build}"
  case "${TOSAC_BUILD:-build}" in /*) BUILD="$TOSAC_BUILD" ;; esac
  CHECK="/usr/bin/python3 $ROOT/tests/bats/lib/doccheck.py"
  cd "$BATS_TEST_TMPDIR"
}

@test "every option of tosac --help is in docs/tosac.1, and every option tosac.1 documents exists" {
  run $CHECK manpage "$BUILD/bin/tosac" "$ROOT/docs/tosac.1"
  assert_success
  assert_output ""
}

@test "the other man pages agree with their tool's --help (tosac-run, tosac-bundle, tosac-tune)" {
  checked=0
  for page in "$ROOT"/docs/*.1; do
    tool=$(basename "$page" .1)
    [ "$tool" != tosac ] || continue
    [ -x "$BUILD/bin/$tool" ] || continue
    run $CHECK manpage "$BUILD/bin/$tool" "$page"
    assert_success
    assert_output ""
    checked=$((checked + 1))
  done
  [ "$checked" -ge 3 ]
}

@test "the option check finds an undocumented option and a documented one that does not exist" {
  # tosac.1 without -j's paragraph, and with an option no tool has
  /usr/bin/python3 - "$ROOT/docs/tosac.1" page.1 <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index(".BI \\-j \" n\"")
out = lines[:i - 1] + [".TP", ".B \\-\\-no\\-such\\-option", "Invented."] + lines[i + 1:]
open(sys.argv[2], "w").write("\n".join(out))
PY
  run $CHECK manpage "$BUILD/bin/tosac" page.1
  assert_failure
  assert_line "page.1: '-j' is printed by tosac --help but not documented"
  assert_line --regexp "^page.1:[0-9]+: '--no-such-option' is documented but tosac --help does not know it$"
}

@test "every option README.md names exists in its tool's --help" {
  run $CHECK readme "$ROOT/README.md" "$BUILD/bin"
  assert_success
  assert_output ""
}

@test "the README option check refuses an option that no tool has" {
  cat > README.md <<'M'
| option | meaning |
|---|---|
| `--offload-arch=ID` | targets |
| `--frobnicate` | none |

```sh
tosac-run m.hipfb --target=gfx90a --offload-arch=gfx90a
```
M
  run $CHECK readme README.md "$BUILD/bin"
  assert_failure
  assert_output "README.md:4: '--frobnicate' is not an option of tosac
README.md:7: '--offload-arch' is not an option of tosac-run"
}

@test "every relative link in README.md and docs/*.md resolves, anchors included" {
  run $CHECK links "$ROOT/README.md" "$ROOT"/docs/*.md
  assert_success
  assert_output ""
}

@test "the link check reports a missing file and a missing heading" {
  mkdir -p d
  printf '# Title\n\n## A heading: with `code`\n\nSee [x](#a-heading-with-code), [y](d/none.md), [z](#nowhere) and [w](https://example.org).\n' > d/page.md
  run $CHECK links d/page.md
  assert_failure
  assert_output "d/page.md:5: link to missing file 'd/none.md'
d/page.md:5: link to missing heading '#nowhere'"
}

@test "README's walkthrough runs from the build, block by block, in a scratch directory" {
  # The checkout as the walkthrough expects it: build/, samples/, include/, tests/.
  mkdir checkout
  ln -s "$BUILD" checkout/build
  for d in samples include tests; do ln -s "$ROOT/$d" checkout/$d; done
  # Programs the walkthrough builds link libraries built with the sanitizers of make asan.
  mkdir wrap
  printf '#!/bin/sh\nexec /usr/bin/cc %s "$@"\n' "${TOSAC_SAN:-}" > wrap/cc
  chmod +x wrap/cc
  $CHECK walkthrough "$ROOT/README.md" > walk.sh
  [ "$(grep -c '' walk.sh)" -ge 20 ]
  cd checkout
  run env PATH="$BATS_TEST_TMPDIR/wrap:$PATH" TMPDIR="$BATS_TEST_TMPDIR" bash -euo pipefail ../walk.sh
  assert_success
  assert_line "ok: 3 code objects, 3 kernels, manifest agrees"
  assert_line "[SUCCESS] all function outputs matched their expected values."
  assert_line --partial "tosac_k0_matmul_add_clamp.kd grid"
}

@test "README.md opens with the two commands: make run and make test within its first 40 lines" {
  run head -40 "$ROOT/README.md"
  assert_line --regexp '^make run +# '
  assert_line --regexp '^make test +# '
}

@test "README.md is at most 12 KiB, docs/bench.md 40 KiB, docs/decisions.md 20 KiB" {
  [ "$(stat -c %s "$ROOT/README.md")" -le 12288 ]
  [ "$(stat -c %s "$ROOT/docs/bench.md")" -le 40960 ]
  [ "$(stat -c %s "$ROOT/docs/decisions.md")" -le 20480 ]
}

@test "README.md and docs/ hold no development history: sessions, branches, issue numbers, dates" {
  run grep -niE 'session|branch `|issue [0-9]+|20[0-9]{2}-[01][0-9]-[0-3][0-9]|[0-9]{2}:[0-9]{2} UTC' \
    "$ROOT/README.md" "$ROOT"/docs/*.md "$ROOT"/docs/*.1
  assert_failure 1
  assert_output ""
}
