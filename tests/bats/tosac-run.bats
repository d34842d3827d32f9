#!/usr/bin/env bats
# tosac-run end to end: compile a 2x3 f32 add with tosac --embed-ir, run it through the emulator,
# and check printed results, --expected_output, .npy in/out, and every input/manifest error path.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$BATS_TEST_DIRNAME/../.."
  export TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  export RUN="$ROOT/${TOSAC_BUILD:-build}/bin/tosac-run"
  export W="$BATS_FILE_TMPDIR"
  cat >"$W/g.mlir" <<'EOF'
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
EOF
  "$TOSAC" "$W/g.mlir" --embed-ir --offload-arch=gfx90a,gfx1100 -o "$W/g.hipfb"
  "$TOSAC" "$W/g.mlir" --offload-arch=gfx90a -o "$W/noir.hipfb"
}

@test "adds two 2x3 f32 inputs and prints the result like iree-run-module" {
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input="2x3xf32=1 2 3 4 5 6" \
    --input="2x3xf32=[10 20 30][40 50 60.5]"
  assert_success
  assert_output "result[0]: hal.buffer_view
2x3xf32=[11 22 33][44 55 66.5]"
}

@test "--print_max_element_count stops printing with ..." {
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=1" \
    --print_max_element_count=4
  assert_success
  assert_output "result[0]: hal.buffer_view
2x3xf32=[2 3 4][5...]"
}

@test "the same graph runs on the wave32 target, values given with commas and a splat" {
  run "$RUN" "$W/g.hipfb" --target=gfx1100 --input="2x3xf32=1,2,3,4,5,6" --input="2x3xf32=0.25"
  assert_success
  assert_output "result[0]: hal.buffer_view
2x3xf32=[1.25 2.25 3.25][4.25 5.25 6.25]"
}

@test "--expected_output matching prints SUCCESS and exits 0" {
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=1" \
    --expected_output="2x3xf32=2 3 4 5 6 7.00001"
  assert_success
  assert_output "[SUCCESS] all function outputs matched their expected values."
}

@test "--expected_output mismatch names the element and the tolerance and exits 1" {
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=1" \
    --expected_output="2x3xf32=2 3 4 5.5 6 7"
  assert_failure 1
  assert_output "[FAILED] result[0]: element at index 3 (5) does not match the expected (5.5); tolerance 6.5e-05"
}

@test "--expected_f32_threshold widens the f32 tolerance like iree's flag" {
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=1" \
    --expected_output="2x3xf32=2 3 4 5.5 6 7" --expected_f32_threshold=0.5
  assert_success
  assert_output "[SUCCESS] all function outputs matched their expected values."
}

@test "a result shaped differently from --expected_output is reported as a metadata mismatch" {
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32" \
    --expected_output="3x2xf32=1 2 3 4 5 6"
  assert_failure 1
  assert_output "[FAILED] result[0]: metadata is 2x3xf32; expected that the view matches 3x2xf32"
}

@test ".npy inputs written by numpy and .npy outputs read back by numpy" {
  /usr/bin/python3 - "$W" <<'EOF'
import sys, numpy as np
w = sys.argv[1]
np.save(f"{w}/a.npy", np.array([[1.5, -2, 3], [4, 5, 1e-3]], dtype=np.float32))
with open(f"{w}/both.npy", "wb") as f:
    np.save(f, np.array([[1.5, -2, 3], [4, 5, 1e-3]], dtype=np.float32))
    np.save(f, np.full((2, 3), 0.5, dtype=np.float32))
EOF
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input=@"$W/a.npy" --input="2x3xf32=0.5" \
    --output=@"$W/y.npy"
  assert_success
  assert_output ""
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input=*"$W/both.npy" --output=+"$W/y.npy"
  assert_success
  run /usr/bin/python3 - "$W" <<'EOF'
import sys, numpy as np
w = sys.argv[1]
want = np.array([[1.5, -2, 3], [4, 5, 1e-3]], dtype=np.float32) + np.float32(0.5)
with open(f"{w}/y.npy", "rb") as f:
    for _ in range(2):
        y = np.load(f)
        assert y.dtype == np.float32 and y.shape == (2, 3), (y.dtype, y.shape)
        assert np.array_equal(y, want), y
print("ok")
EOF
  assert_success
  assert_output "ok"
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input=@"$W/a.npy" --input="2x3xf32=0.5" \
    --expected_output=@"$W/y.npy"
  assert_success
  assert_output "[SUCCESS] all function outputs matched their expected values."
}

@test "unknown target lists the available ones" {
  run "$RUN" "$W/g.hipfb" --target=gfx942 --input="2x3xf32" --input="2x3xf32"
  assert_failure 1
  assert_output "tosac-run: error: $W/g.json has no target 'gfx942'; available: gfx90a, gfx1100"
}

@test "a bundle compiled without --embed-ir runs as machine code (the default); --exec=ir refuses it" {
  run "$RUN" "$W/noir.hipfb" --target=gfx90a --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=1"
  assert_success
  assert_line "2x3xf32=[2 3 4][5 6 7]"
  run "$RUN" "$W/noir.hipfb" --target=gfx90a --exec=ir --input="2x3xf32" --input="2x3xf32"
  assert_failure 1
  assert_output "tosac-run: error: bundle has no embedded IR for gfx90a, which --exec=ir runs; compile with --embed-ir or run the machine code (--exec=isa, the default)"
  TOSAC_EXEC=ir run "$RUN" "$W/noir.hipfb" --target=gfx90a --input="2x3xf32" --input="2x3xf32"
  assert_failure 1
  assert_output --partial "bundle has no embedded IR for gfx90a, which --exec=ir runs"
}

@test "an input of the wrong shape is refused" {
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input="3x2xf32=1 2 3 4 5 6" --input="2x3xf32"
  assert_failure 1
  assert_output "tosac-run: error: input 0: expected 2x3xf32, got 3x2xf32"
}

@test "an input of the wrong element type is refused" {
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input="2x3xf32" --input="2x3xi32"
  assert_failure 1
  assert_output "tosac-run: error: input 1: expected 2x3xf32, got 2x3xi32"
}

@test "the wrong number of inputs is refused" {
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input="2x3xf32=1 2 3 4 5 6"
  assert_failure 1
  assert_output "tosac-run: error: main takes 2 inputs, got 1"
}

@test "a malformed input value names the element" {
  run "$RUN" "$W/g.hipfb" --target=gfx90a --input="2x3xf32=1 2 x 4 5 6" --input="2x3xf32"
  assert_failure 1
  assert_output "tosac-run: error: input 0: element 2: 'x' is not a valid f32"
}

@test "a missing manifest is reported with its path" {
  cp "$W/g.hipfb" "$W/lonely.hipfb"
  run "$RUN" "$W/lonely.hipfb" --target=gfx90a
  assert_failure 1
  assert_output "tosac-run: error: cannot read '$W/lonely.json': No such file or directory (the manifest tosac wrote next to the bundle; pass --manifest FILE)"
}

@test "a garbage bundle is refused before anything runs" {
  printf 'garbage garbage garbage garbage garbage' >"$W/junk.hipfb"
  run "$RUN" "$W/junk.hipfb" --manifest "$W/g.json" --target=gfx90a
  assert_failure 1
  assert_output "tosac-run: error: $W/junk.hipfb: not an offload bundle: missing magic '__CLANG_OFFLOAD_BUNDLE__'"
}

@test "a manifest with a kernel argument bound to a missing buffer is refused" {
  /usr/bin/python3 - "$W" <<'EOF'
import sys, json
w = sys.argv[1]
m = json.load(open(f"{w}/g.json"))
t = next(t for t in m["targets"] if t["processor"] == "gfx90a")
arg = next(a for a in t["kernels"][0]["args"] if a["value_kind"] == "global_buffer")
arg["buffer"] = 99
json.dump(m, open(f"{w}/bad.json", "w"))
EOF
  run "$RUN" "$W/g.hipfb" --manifest "$W/bad.json" --target=gfx90a
  assert_failure 1
  assert_output --regexp "^tosac-run: error: $W/bad.json: targets\[[0-9]\]\.kernels\[0\]\.args\[[0-9]+\]\.buffer: 99 is out of range \[0, [0-9]+\]$"
}

@test "a manifest that is not JSON is refused" {
  printf '{"format": "tosac-manifest",\n "version": 1,,}' >"$W/broken.json"
  run "$RUN" "$W/g.hipfb" --manifest "$W/broken.json" --target=gfx90a
  assert_failure 1
  assert_output "tosac-run: error: $W/broken.json: not valid JSON (near line 2)"
}

@test "usage errors exit 2" {
  run "$RUN"
  assert_failure 2
  assert_output "tosac-run: error: no bundle given (see tosac-run --help)"
  run "$RUN" "$W/g.hipfb" --frobnicate
  assert_failure 2
  assert_output "tosac-run: error: unknown option '--frobnicate' (see tosac-run --help)"
  run "$RUN" "$W/g.hipfb" --atol=-1
  assert_failure 2
  assert_output "tosac-run: error: --atol: '-1' is not a non-negative number"
}

@test "--version and --help" {
  run "$RUN" --version
  assert_success
  assert_output "tosac-run 0.1.0"
  run "$RUN" --help
  assert_success
  assert_line --index 0 --partial "usage: tosac-run MODEL.hipfb"
}

@test "unit test of the readers: values, 16-bit rounding, .npy, comparison, kernargs, manifest errors" {
  # test-values exits non-zero and names the failing check; it once rotted unnoticed when the
  # manifest gained its required "constants" object, because no suite ran it
  run "$ROOT/${TOSAC_BUILD:-build}/bin/test-values"
  assert_success
  assert_output "test-values: all passed"
}

@test "planted fault: a manifest with one dependency edge deleted names both launches (ir and isa)" {
  cat >"$W/sk.mlir" <<'EOF'
func.func @main(%a: tensor<1x64x4096xf32>, %b: tensor<1x4096x64xf32>) -> tensor<1x64x64xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.matmul %a, %b, %z, %z : (tensor<1x64x4096xf32>, tensor<1x4096x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  return %r : tensor<1x64x64xf32>
}
EOF
  # split-K: launch 1 (combine) reads the workspace launch 0 writes, after [0]
  TOSAC_SPLIT_K=4 TOSAC_SPLIT_K_FORM=combine "$TOSAC" "$W/sk.mlir" --embed-ir --offload-arch=gfx90a -o "$W/sk.hipfb"
  run "$RUN" "$W/sk.hipfb" --input=1x64x4096xf32=1 --input=1x4096x64xf32=0.5 --print_max_element_count=2
  assert_success
  assert_line "1x64x64xf32=[[2048 2048...]]"
  /usr/bin/python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))
l = m['targets'][0]['launches'][1]
assert l['deps'] == [0], l
l['deps'] = []
json.dump(m, open(sys.argv[2], 'w'))" "$W/sk.json" "$W/nodep.json"
  for mode in ir isa; do
    run "$RUN" "$W/sk.hipfb" --manifest="$W/nodep.json" --exec=$mode --input=1x64x4096xf32=1 --input=1x4096x64xf32=0.5
    assert_failure 1
    assert_output "tosac-run: error: launches 0 and 1 are unordered in the launch graph, but launch 0 writes bytes [0, 65536) of the workspace that launch 1 reads (a missing dependency edge)"
  done
}
