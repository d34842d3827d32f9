#!/usr/bin/env bats
# Faults (issue 17): a bundle, manifest and weights file of different compiles are refused by
# every client (the manifest's digests); compiles racing on one -o or killed with SIGKILL leave
# every file whole (old or new) and no temporary; a full disk or a read-only directory gives one
# message naming the path and strerror, exit 1, and leaves the old outputs untouched. The same
# for tosac-run's --output. The full-disk and read-only tests mount a small tmpfs (as root).

setup_file() {
  ROOT="$BATS_TEST_DIRNAME/../.."
  export FX="$BATS_FILE_TMPDIR"
  cd "$FX"
  # a: matmul with a 6 KiB weight (weights file) + tanh; b: the same kernels with other weight
  # values (same bundle, other weights file); c: sigmoid instead of tanh (other bundle).
  cp "$ROOT/tests/fuzz/data/verify.mlir" a.mlir
  sed 's/0\.875/0.5/g' a.mlir > b.mlir
  sed 's/tosa\.tanh/tosa.sigmoid/' a.mlir > c.mlir
  local bin="$ROOT/${TOSAC_BUILD:-build}/bin"
  for g in a b c; do
    mkdir -p "$g"
    (cd "$g" && "$bin/tosac" "$FX/$g.mlir" --offload-arch=gfx90a --embed-ir -o m.hipfb)
  done
}

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  RUN="$BIN/tosac-run"
  cd "$BATS_TEST_TMPDIR"
  X="--input=1x8x32xf32=1"
}

teardown() {
  if [ -n "${MNT:-}" ]; then umount "$MNT" 2>/dev/null || true; fi
}

# A tmpfs of $1 at ./$2 (skips where mounting is not allowed).
mount_tmpfs() {
  mkdir -p "$2"
  mount -t tmpfs -o "size=$1" tmpfs "$2" 2>/dev/null || skip "cannot mount a tmpfs (needs root)"
  MNT="$PWD/$2"
}

digest_of() { echo "sha256:$(sha256sum "$1" | cut -d' ' -f1)"; }

@test "digests: the manifest records SHA-256 of the bundle and weights bytes written" {
  run /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["digests"]; print(d["bundle"]); print(d["weights"])' "$FX/a/m.json"
  assert_line --index 0 "$(digest_of "$FX/a/m.hipfb")"
  assert_line --index 1 "$(digest_of "$FX/a/m.weights")"
  "$TOSAC" "$FX/a.mlir" --offload-arch=gfx1100 --compress=v3 -o z.hipfb
  run grep -c "\"bundle\": \"$(digest_of z.hipfb)\"" z.json
  assert_output 1
  "$TOSAC" "$ROOT/samples/swish.mlir" --offload-arch=gfx90a -o s.hipfb
  run grep -A2 '"digests"' s.json
  assert_line --index 2 '    "weights": null'
  # same kernels, other weights: the bundles are identical, only the weights digest tells
  cmp "$FX/a/m.hipfb" "$FX/b/m.hipfb"
}

@test "digests: a weights file of another compile is refused by tosac-run, tosac-bundle verify and tosac-hip-run" {
  cp "$FX"/a/m.* . && cp "$FX/b/m.weights" m.weights
  local msg="m.weights does not belong to this manifest: its digest is $(digest_of m.weights | cut -c1-23)..., the manifest records $(digest_of "$FX/a/m.weights" | cut -c1-23)... (outputs of another compile?)"
  run "$RUN" m.hipfb $X
  assert_failure 1
  assert_output "tosac-run: error: $msg (manifest m.json)"
  run "$BIN/tosac-bundle" verify m.hipfb --manifest m.json
  assert_failure 1
  assert_output "error: $msg"
  if [ -x "$BIN/tosac-hip-run" ]; then
    /usr/bin/python3 -c 'import numpy as np; np.save("x.npy", np.ones((1,8,32), np.float32))'
    run "$BIN/tosac-hip-run" m.hipfb --input x.npy
    assert_failure 1
    assert_output "tosac-hip-run: error: $msg (manifest m.json)"
  fi
  cp "$FX/a/m.weights" m.weights
  run "$RUN" m.hipfb $X
  assert_success
  run "$BIN/tosac-bundle" verify m.hipfb --manifest m.json
  assert_output "ok: 1 code object, 2 kernels, manifest agrees"
}

@test "digests: a bundle of another compile is refused; a manifest without digests is not checked" {
  cp "$FX"/a/m.* . && cp "$FX/c/m.hipfb" m.hipfb
  local msg="m.hipfb does not belong to this manifest: its digest is $(digest_of m.hipfb | cut -c1-23)..., the manifest records $(digest_of "$FX/a/m.hipfb" | cut -c1-23)... (outputs of another compile?)"
  run "$RUN" m.hipfb $X
  assert_failure 1
  assert_output "tosac-run: error: $msg (manifest m.json)"
  run "$BIN/tosac-bundle" verify m.hipfb --manifest m.json
  assert_failure 1
  assert_line "error: the bundle does not belong to this manifest: its digest is $(digest_of m.hipfb | cut -c1-23)..., the manifest records $(digest_of "$FX/a/m.hipfb" | cut -c1-23)... (outputs of another compile?)"
  if [ -x "$BIN/tosac-hip-run" ]; then
    /usr/bin/python3 -c 'import numpy as np; np.save("x.npy", np.ones((1,8,32), np.float32))'
    run "$BIN/tosac-hip-run" m.hipfb --input x.npy
    assert_failure 1
    assert_output "tosac-hip-run: error: $msg (manifest m.json)"
  fi
  # A manifest from before digests (no "digests" key) is read unchecked.
  cp "$FX/a/m.hipfb" m.hipfb
  /usr/bin/python3 -c 'import json; m=json.load(open("m.json")); m.pop("digests"); json.dump(m, open("m.json","w"))'
  run "$RUN" m.hipfb $X
  assert_success
}

# Which compile (a or c) wrote each file; "?" when neither (a damaged file).
origin() {
  local d; d=$(sha256sum "$1" | cut -d' ' -f1)
  for g in a c; do
    [ "$d" = "$(sha256sum "$FX/$g/$(basename "$1")" | cut -d' ' -f1)" ] && { echo $g; return; }
  done
  echo "?"
}

@test "racing compiles of two graphs on the same -o, 20 rounds: every triple is consistent or refused" {
  local mixed=0
  for round in $(seq 20); do
    "$TOSAC" "$FX/a.mlir" --offload-arch=gfx90a --embed-ir -o m.hipfb 2>race.err &
    "$TOSAC" "$FX/c.mlir" --offload-arch=gfx90a --embed-ir -o m.hipfb 2>>race.err &
    wait
    [ ! -s race.err ] || { cat race.err; false; }
    [ "$(ls | sort | tr '\n' ' ')" = "m.hipfb m.json m.weights race.err " ] || { ls; false; }
    local ob ow om
    ob=$(origin m.hipfb) ow=$(origin m.weights) om=$(origin m.json)
    [ "$ob" != "?" ] && [ "$ow" != "?" ] && [ "$om" != "?" ] || { echo "round $round: damaged file ($ob $ow $om)"; false; }
    run "$BIN/tosac-bundle" verify m.hipfb --manifest m.json
    # a and c share their weights, so a triple is consistent when bundle and manifest agree
    if [ "$ob" = "$om" ]; then
      assert_success
    else
      assert_failure 1
      assert_output --partial "does not belong to this manifest"
      run "$RUN" m.hipfb $X
      assert_failure 1
      assert_output --partial "m.hipfb does not belong to this manifest"
      mixed=$((mixed + 1))
    fi
  done
  echo "# $mixed of 20 rounds left a mixed pair (all refused)" >&3
}

@test "kill -9 at 20 random moments of a ResNet-18 compile over existing outputs" {
  local resnet="$ROOT/tests/fuzz/seeds/parser/rocmlir_resnet18.mlir"
  mkdir -p old new
  (cd old && "$TOSAC" "$resnet" --offload-arch=gfx90a -o r.hipfb)
  local t0 t1 ms
  t0=$(date +%s%N)
  (cd new && "$TOSAC" "$resnet" --offload-arch=gfx942 -o r.hipfb)
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  cp old/r.* .
  local f replaced=0 arch
  for round in $(seq 20); do
    # each round compiles the other variant, so there is always something to replace
    arch=gfx942
    cmp -s r.json new/r.json && arch=gfx90a
    "$TOSAC" "$resnet" --offload-arch=$arch -o r.hipfb 2>/dev/null &
    local pid=$!
    # moments spread over the compile, denser towards its end where the outputs are written
    sleep "$(awk -v r=$RANDOM -v ms=$ms 'BEGIN {printf "%.3f", (0.3 + 1.7 * r / 32768) * ms / 1000}')"
    kill -9 $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    [ "$(ls | sort | tr '\n' ' ')" = "new old r.hipfb r.json r.weights " ] || { echo "round $round:"; ls -a; false; }
    for f in r.hipfb r.json r.weights; do
      cmp -s $f old/$f || cmp -s $f new/$f || {
        # what differs, for diagnosing a failure (seen once in ~300 rounds, not reproduced)
        echo "round $round ($arch): $f is neither old nor new"
        ls -l $f old/$f new/$f; cmp $f old/$f; cmp $f new/$f; false
      }
    done
    # bundle and manifest from different runs are refused
    if ! { cmp -s r.hipfb old/r.hipfb && cmp -s r.json old/r.json; } &&
       ! { cmp -s r.hipfb new/r.hipfb && cmp -s r.json new/r.json; }; then
      run "$BIN/tosac-bundle" verify r.hipfb --manifest r.json
      assert_output --partial "does not belong to this manifest"
    fi
    { [ $arch = gfx942 ] && cmp -s r.json new/r.json; } || { [ $arch = gfx90a ] && cmp -s r.json old/r.json; } &&
      replaced=$((replaced + 1))
  done
  echo "# one compile ${ms} ms; $replaced of 20 killed runs had already replaced the outputs" >&3
  run "$TOSAC" "$resnet" --offload-arch=gfx942 -o r.hipfb
  assert_success
  [ "$(ls -a | sort | tr '\n' ' ')" = ". .. new old r.hipfb r.json r.weights " ]
  cmp r.hipfb new/r.hipfb && cmp r.json new/r.json && cmp r.weights new/r.weights
}

@test "a full disk: exit 1, one message naming the path and strerror, old outputs untouched" {
  mount_tmpfs 64k d
  "$TOSAC" "$ROOT/samples/swish.mlir" --offload-arch=gfx90a -o d/m.hipfb
  sha256sum d/* > before
  # weights (6 KiB) fit, the bundle (55 KiB) does not: nothing may be renamed into place
  run "$TOSAC" "$FX/a.mlir" --offload-arch=gfx90a,gfx1100 --embed-ir -o d/m.hipfb
  assert_failure 1
  assert_output "tosac: error: cannot write 'd/m.hipfb': No space left on device"
  sha256sum -c --quiet before
  [ "$(ls -a d | tr '\n' ' ')" = ". .. m.hipfb m.json " ]
  [ "$(df --output=used d | tail -1)" -le 20 ] # no unnamed temporary still holds space
}

@test "a read-only output directory: exit 1, one message naming the path and strerror" {
  mount_tmpfs 1m d
  "$TOSAC" "$ROOT/samples/swish.mlir" --offload-arch=gfx90a -o d/m.hipfb
  sha256sum d/* > before
  mount -o remount,ro "$MNT"
  run "$TOSAC" "$FX/a.mlir" --offload-arch=gfx90a -o d/m.hipfb
  assert_failure 1
  assert_output "tosac: error: cannot write 'd/m.weights': Read-only file system"
  run "$TOSAC" "$ROOT/samples/swish.mlir" --offload-arch=gfx1100 -o d/m.hipfb
  assert_failure 1
  assert_output "tosac: error: cannot write 'd/m.hipfb': Read-only file system"
  sha256sum -c --quiet before
  [ "$(ls -a d | tr '\n' ' ')" = ". .. m.hipfb m.json " ]
}

@test "tosac-run --output on a full disk and into a read-only directory" {
  cp "$FX"/a/m.* .
  mount_tmpfs 16k d
  echo old > d/y.npy
  head -c 64k /dev/zero > d/fill 2>/dev/null || true
  run "$RUN" m.hipfb $X --output=@d/y.npy
  assert_failure 1
  assert_output "tosac-run: error: result 0: cannot write 'd/y.npy': No space left on device"
  [ "$(cat d/y.npy)" = old ]
  [ "$(ls -a d | tr '\n' ' ')" = ". .. fill y.npy " ]
  rm d/fill
  mount -o remount,ro "$MNT"
  run "$RUN" m.hipfb $X --output=@d/y.npy
  assert_failure 1
  assert_output "tosac-run: error: result 0: cannot write 'd/y.npy': Read-only file system"
  [ "$(cat d/y.npy)" = old ]
}
