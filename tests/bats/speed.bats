#!/usr/bin/env bats
# Compile speed (issue 9): kernel deduplication of repeated blocks, -j N output equal to -j 1
# (also for one target whose kernels are compiled in several work items), the --time-report
# stages, and partitioning staying near-linear on a large generated graph.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run")
  cd "$BATS_TEST_TMPDIR"
}

# Two conv2d + bias + clamp blocks of identical shapes with different (seeded) weights.
two_conv_blocks() {
  /usr/bin/python3 - <<'PY' > g.mlir
import numpy as np
rng = np.random.default_rng(7)
def hx(a): return '"0x' + a.astype("<f4").tobytes().hex().upper() + '"'
W, B, X = "tensor<8x3x3x8xf32>", "tensor<8xf32>", "tensor<1x8x8x8xf32>"
print("func.func @main(%%x: %s) -> %s {" % (X, X))
print('  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>')
prev = "%x"
for i in range(2):
    w = rng.standard_normal((8, 3, 3, 8)).astype(np.float32) * 0.3
    b = rng.standard_normal(8).astype(np.float32)
    print('  %%w%d = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s' % (i, hx(w), W, W))
    print('  %%b%d = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s' % (i, hx(b), B, B))
    print('  %%c%d = tosa.conv2d %s, %%w%d, %%b%d, %%zp, %%zp {acc_type = f32, dilation = array<i64: 1, 1>, '
          'pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (%s, %s, %s, tensor<1xf32>, '
          'tensor<1xf32>) -> %s' % (i, prev, i, i, X, W, B, X))
    print('  %%r%d = tosa.clamp %%c%d {max_val = 6.0 : f32, min_val = 0.0 : f32} : (%s) -> %s' % (i, i, X, X))
    prev = "%%r%d" % i
print("  return %s : %s\n}" % (prev, X))
PY
}

@test "two identical conv blocks share one kernel, launched twice, and match the oracle" {
  two_conv_blocks
  run "$TOSAC" g.mlir --offload-arch=gfx90a,gfx1100 -o g.hipfb
  assert_success
  # per target: kernel count, distinct kernels, the kernel each launch runs
  run /usr/bin/python3 -c '
import json
for t in json.load(open("g.json"))["targets"]:
    ks = t["kernels"]
    print(t["processor"], t["kernel_count"], t["distinct_kernels"],
          [ks[l["kernel"]]["symbol"] for l in t["launches"] if l["kind"] == "kernel"])'
  assert_success
  assert_output "gfx90a 2 1 ['tosac_k0_conv2d_clamp.kd', 'tosac_k0_conv2d_clamp.kd']
gfx1100 2 1 ['tosac_k0_conv2d_clamp.kd', 'tosac_k0_conv2d_clamp.kd']"
  # the code object holds that one kernel only
  clang-offload-bundler-22 -type=o -input=g.hipfb -unbundle -output=co.o \
    -targets=hipv4-amdgcn-amd-amdhsa--gfx90a
  run bash -c "llvm-readelf-22 --dyn-syms co.o | grep -o '[a-z0-9_]*\.kd' | sort -u"
  assert_output "tosac_k0_conv2d_clamp.kd"
  # weights stay out of kernels: both blocks' weights and biases are in the weights file, packed
  # without padding between them, the file a multiple of 256 bytes
  assert_equal "$(stat -c %s g.weights)" $(( (2 * (2304 + 32) + 255) / 256 * 256 ))
  run "${CHECK[@]}" g.mlir --targets gfx90a,gfx1100
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "-j 2 and -j 3 write the same bundle, manifest and weights as -j 1 on multi-kernel graphs" {
  two_conv_blocks
  cat > m.mlir <<'M'
func.func @main(%a: tensor<4x8x16xf32>, %b: tensor<4x8x16xf32>) -> (tensor<4x8x16xf32>, tensor<4x8x1xf32>) {
  %0 = tosa.add %a, %b : (tensor<4x8x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %1 = tosa.transpose %0 {perms = array<i32: 0, 2, 1>} : (tensor<4x8x16xf32>) -> tensor<4x16x8xf32>
  %2 = tosa.exp %1 : (tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %3 = tosa.transpose %2 {perms = array<i32: 0, 2, 1>} : (tensor<4x16x8xf32>) -> tensor<4x8x16xf32>
  %4 = tosa.reduce_sum %3 {axis = 2 : i32} : (tensor<4x8x16xf32>) -> tensor<4x8x1xf32>
  %5 = tosa.reverse %3 {axis = 1 : i32} : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %6 = tosa.sub %5, %4 : (tensor<4x8x16xf32>, tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
  return %6, %4 : tensor<4x8x16xf32>, tensor<4x8x1xf32>
}
M
  for g in g m; do
    for j in 1 2 3; do
      # (the transposes of m.mlir stay: without the optimiser's layout and cleanup passes they
      # cancel and leave fewer kernels)
      run "$TOSAC" $g.mlir -j $j --offload-arch=gfx908,gfx90a,gfx1030,gfx1100 -fno-propagate-layout -fno-cleanup -o $g-j$j.hipfb
      assert_success
    done
    for j in 2 3; do
      cmp $g-j1.hipfb $g-j$j.hipfb
      cmp $g-j1.json <(sed "s/$g-j$j/$g-j1/g" $g-j$j.json)
    done
  done
  cmp g-j1.weights g-j2.weights
  cmp g-j1.weights g-j3.weights
  run /usr/bin/python3 -c 'import json; print(json.load(open("m-j1.json"))["targets"][0]["kernel_count"] >= 5)'
  assert_output True
}

# Three conv2d + clamp blocks of different shapes (three distinct GEMM kernels, each a work item
# of its own), then exp and reduce_sum: one target's kernels are compiled in 4 LLVM modules.
three_conv_blocks() {
  /usr/bin/python3 - <<'PY' > g3.mlir
import numpy as np
rng = np.random.default_rng(11)
def hx(a): return '"0x' + a.astype("<f4").tobytes().hex().upper() + '"'
X = "tensor<1x8x8x8xf32>"
print("func.func @main(%%x: %s) -> (%s, tensor<1x8x8x1xf32>) {" % (X, X))
print('  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>')
prev = "%x"
for i, (ci, co, k) in enumerate([(8, 16, 3), (16, 8, 1), (8, 8, 3)]):
    W, B = "tensor<%dx%dx%dx%dxf32>" % (co, k, k, ci), "tensor<%dxf32>" % co
    I, O = "tensor<1x8x8x%dxf32>" % ci, "tensor<1x8x8x%dxf32>" % co
    w = rng.standard_normal((co, k, k, ci)).astype(np.float32) * 0.3
    b = rng.standard_normal(co).astype(np.float32)
    p = k // 2
    print('  %%w%d = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s' % (i, hx(w), W, W))
    print('  %%b%d = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s' % (i, hx(b), B, B))
    print('  %%c%d = tosa.conv2d %s, %%w%d, %%b%d, %%zp, %%zp {acc_type = f32, dilation = array<i64: 1, 1>, '
          'pad = array<i64: %d, %d, %d, %d>, stride = array<i64: 1, 1>} : (%s, %s, %s, tensor<1xf32>, '
          'tensor<1xf32>) -> %s' % (i, prev, i, i, p, p, p, p, I, W, B, O))
    print('  %%r%d = tosa.clamp %%c%d {max_val = 6.0 : f32, min_val = 0.0 : f32} : (%s) -> %s' % (i, i, O, O))
    prev = "%%r%d" % i
print('  %%s = tosa.reduce_sum %s {axis = 3 : i32} : (%s) -> tensor<1x8x8x1xf32>' % (prev, X))
print('  %%e = tosa.exp %s : (%s) -> %s' % (prev, X, X))
print("  return %%e, %%s : %s, tensor<1x8x8x1xf32>\n}" % X)
PY
}

@test "one target's kernels compile in parallel work items: -j 1/2/3 agree, one metadata note, oracle match" {
  three_conv_blocks
  for j in 1 2 3; do
    run "$TOSAC" g3.mlir -j $j -v --offload-arch=gfx90a -o g3-j$j.hipfb
    assert_success
    assert_line --regexp "^tosac: codegen gfx90a +[0-9.]+ ms in 4 work items$"
  done
  for j in 2 3; do
    cmp g3-j1.hipfb g3-j$j.hipfb
    cmp g3-j1.json <(sed "s/g3-j$j/g3-j1/g" g3-j$j.json)
  done
  # the four objects' metadata notes are merged into one listing all four kernels, in order
  clang-offload-bundler-22 -type=o -input=g3-j2.hipfb -unbundle -output=co.o \
    -targets=hipv4-amdgcn-amd-amdhsa--gfx90a
  run bash -c "llvm-readelf-22 --notes co.o | grep -c NT_AMDGPU_METADATA"
  assert_output "1"
  run bash -c "llvm-readelf-22 --notes co.o | sed -n 's/^    \.name: *//p'"
  assert_output "tosac_k0_conv2d_clamp
tosac_k1_conv2d_clamp
tosac_k2_conv2d_clamp_exp
tosac_k3_reduce_sum"
  run bash -c "llvm-readelf-22 --dyn-syms co.o | grep -o 'tosac_k[0-9a-z_]*\.kd' | sort | tr '\n' ' '"
  assert_output "tosac_k0_conv2d_clamp.kd tosac_k1_conv2d_clamp.kd tosac_k2_conv2d_clamp_exp.kd tosac_k3_reduce_sum.kd "
  run "${CHECK[@]}" g3.mlir --targets gfx90a
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "--emit=llvm and --emit=asm of a target compiled in several work items are one module, equal for any -j" {
  three_conv_blocks
  for j in 1 2 3; do
    run "$TOSAC" g3.mlir -j $j --offload-arch=gfx1100 --emit=llvm -o g3-j$j.ll
    assert_success
  done
  cmp g3-j1.ll g3-j2.ll
  cmp g3-j1.ll g3-j3.ll
  run grep -c '^target triple = "amdgcn-amd-amdhsa"$' g3-j1.ll
  assert_output "1"
  run bash -c "grep -o '^define amdgpu_kernel void @[a-z0-9_]*' g3-j1.ll | sed 's/.*@//' | tr '\n' ' '"
  assert_output "tosac_k0_conv2d_clamp tosac_k1_conv2d_clamp tosac_k2_conv2d_clamp_exp tosac_k3_reduce_sum "
  for j in 1 2; do
    run "$TOSAC" g3.mlir -j $j --offload-arch=gfx1100 --emit=asm -o g3-j$j.s
    assert_success
  done
  cmp g3-j1.s g3-j2.s
  run grep -c '^amdhsa.kernels:' g3-j1.s
  assert_output "1"
}

@test "--time-report lists every driver stage and every target's codegen stages" {
  two_conv_blocks
  run "$TOSAC" g.mlir --time-report --offload-arch=gfx90a,gfx1100 -o g.hipfb
  assert_success
  for stage in "parse and verify" "optimise graph" partition "codegen (all targets)" "bundle and manifest" total; do
    assert_line --regexp "^  $(printf '%s' "$stage" | sed 's/[()]/\\&/g') +[0-9]+\.[0-9]{2}$"
  done
  assert_line --regexp '^  target +IR build +optimise +codegen +link +metadata +total$'
  assert_line --regexp '^  gfx90a +([0-9]+\.[0-9]{2} +){5}[0-9]+\.[0-9]{2}$'
  assert_line --regexp '^  gfx1100 +([0-9]+\.[0-9]{2} +){5}[0-9]+\.[0-9]{2}$'
}

@test "partitioning a 6,000-op graph of 4,000 kernels takes well under a second" {
  /usr/bin/python3 - <<'PY' > big.mlir
T, TT = "tensor<4x8xf32>", "tensor<8x4xf32>"
print("func.func @main(%%x: %s) -> %s {" % (T, T))
prev = "%x"
for i in range(2000):
    print('  %%t%d = tosa.transpose %s {perms = array<i32: 1, 0>} : (%s) -> %s' % (i, prev, T, TT))
    print('  %%u%d = tosa.transpose %%t%d {perms = array<i32: 1, 0>} : (%s) -> %s' % (i, i, TT, T))
    print('  %%a%d = tosa.add %%u%d, %s : (%s, %s) -> %s' % (i, i, prev, T, T, T))
    prev = "%%a%d" % i
print("  return %s : %s\n}" % (prev, T))
PY
  # -O0: the graph optimiser would cancel every transpose pair (optimize_layout.bats)
  run "$TOSAC" big.mlir --offload-arch=gfx90a --emit=partitions --time-report -O0 -o big.txt
  assert_success
  # the second transpose of each pair is an index map of the add; two 256-byte slots of workspace
  # are reused all along the chain (the add overwrites its input in place)
  run head -1 big.txt
  assert_output "target gfx90a: 4000 kernels, 4000 launches, workspace 512 bytes"
  # the launch DAG is the chain, transitively reduced: launch i waits for launch i-1 only
  run awk '/^  launch /{n++; sub(":", "", $2); if ($0 !~ ("after \\[" ($2 > 0 ? $2 - 1 : "") "\\]$")) bad++}
           END {print n, bad + 0}' big.txt
  assert_output "4000 0"
  # quadratic partitioning took minutes here (12 s for ResNet-18 alone); now it is milliseconds
  run bash -c "'$TOSAC' big.mlir --offload-arch=gfx90a --emit=partitions --time-report -o /dev/null 2>&1 |
    awk '/^  partition /{print (\$2 < 1500) ? \"fast\" : \"slow \" \$2}'"
  assert_output "fast"
}
