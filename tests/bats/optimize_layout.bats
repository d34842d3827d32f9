#!/usr/bin/env bats
# The propagate-layout pass (docs/optimize.md, "Layout propagation"): transposes sink through
# elementwise ops, reductions, pooling, pads, tiles and concats until they meet their partner and
# cancel; ones that reach a result or a convolution stay. Graphs from tests/oracle/gen_layout.py
# (seeded shapes and data) match the MLIR oracle with the pass on and off on an MFMA (gfx90a), a
# WMMA (gfx1100) and the FMA target (gfx1030); the plans of torch-mlir's ResNets are pinned.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  DATA=/work/shared/testdata
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run"
         --targets gfx90a,gfx1100,gfx1030)
  # the layout pass alone: constant and batch-norm folding would change the graphs it is shown on
  ONLY=(-fno-fold-constants -fno-fold-batchnorm)
  cd "$BATS_TEST_TMPDIR"
}

gen() { /usr/bin/python3 "$ROOT/tests/oracle/gen_layout.py" "$1" "$2" > "$1$2.mlir"; }

# transposes left in the optimised graph
transposes() { "$TOSAC" "${ONLY[@]}" "$@" --emit=tosa | grep -c '"tosa.transpose"'; }

# both ways against the oracle: 3 targets each
both_ways() {
  run "${CHECK[@]}" "$@"
  assert_success
  assert_output --partial "PASSED: $# graph(s)"
  run "${CHECK[@]}" --tosac-arg=-fno-propagate-layout "$@"
  assert_success
  assert_output --partial "PASSED: $# graph(s)"
}

@test "transposes that cancel around elementwise chains (NCHW -> NHWC -> NCHW) disappear" {
  for s in 1 2 3; do
    gen cancel $s
    run mlir-opt-22 cancel$s.mlir -o /dev/null
    assert_success
    run grep -c '"tosa.transpose"' cancel$s.mlir
    assert_output 2
    run transposes cancel$s.mlir
    assert_output 0
    run transposes -fno-propagate-layout cancel$s.mlir
    assert_output 2
    run transposes -O0 cancel$s.mlir
    assert_output 2
  done
  run "$TOSAC" "${ONLY[@]}" cancel1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line --regexp '^# propagate-layout: [0-9]+:[0-9]+: moved tosa.transpose below tosa.(add|sub|mul|clamp|tanh)$'
  assert_line --regexp '^# propagate-layout: [0-9]+:[0-9]+: removed tosa.transpose: it undoes the one at [0-9]+:[0-9]+$'
  # no transpose kernel and no index-map transpose left
  refute_output --partial "_transpose"
  run "$TOSAC" "${ONLY[@]}" -fno-propagate-layout cancel1.mlir --offload-arch=gfx90a --emit=partitions
  refute_output --partial "# propagate-layout"
  both_ways cancel1.mlir cancel2.mlir cancel3.mlir
}

@test "a transposed value the function returns keeps its transpose" {
  for s in 1 2; do
    gen stay $s
    run transposes stay$s.mlir
    assert_output 1
  done
  run "$TOSAC" "${ONLY[@]}" stay1.mlir --offload-arch=gfx90a --emit=partitions
  refute_output --partial "# propagate-layout"
  both_ways stay1.mlir stay2.mlir
}

@test "transposes cross reductions with the axis renamed, but never move a row reduction's axis" {
  for s in 1 2 3; do
    gen reduce $s
  done
  # seed 1 reduces NCHW axis 2 (H): NHWC axis 1; seed 3 axis 1 (C): NHWC axis 3, a row
  # reduction now (one kernel instead of six)
  run grep -o 'reduce_max"(%v1) <{axis = [0-9]' reduce1.mlir
  assert_output 'reduce_max"(%v1) <{axis = 2'
  run bash -c "'$TOSAC' ${ONLY[*]} reduce1.mlir --emit=tosa | grep -o 'reduce_max\"(%arg0) <{axis = [0-9]'"
  assert_output 'reduce_max"(%arg0) <{axis = 1'
  run transposes reduce1.mlir
  assert_output 0
  run transposes reduce3.mlir
  assert_output 0
  run "$TOSAC" "${ONLY[@]}" reduce1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line --regexp '^# propagate-layout: [0-9]+:[0-9]+: moved tosa.transpose below tosa.reduce_max$'
  assert_line --regexp '^# propagate-layout: [0-9]+:[0-9]+: moved tosa.transpose below tosa.reduce_sum$'
  run "$TOSAC" "${ONLY[@]}" reduce3.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  # seed 2 reduces the last axis (W): a row reduction fused with its neighbours stays one
  run grep -o 'reduce_max"(%v1) <{axis = [0-9]' reduce2.mlir
  assert_output 'reduce_max"(%v1) <{axis = 3'
  run transposes reduce2.mlir
  assert_output 2
  both_ways reduce1.mlir reduce2.mlir reduce3.mlir
}

@test "transposes that keep H and W in place cross pooling; pads cross with the amounts permuted" {
  for s in 1 2; do
    gen pool $s
    gen pad $s
    run transposes pool$s.mlir
    assert_output 0
    run transposes pad$s.mlir
    assert_output 0
  done
  run "$TOSAC" "${ONLY[@]}" pool1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line --regexp '^# propagate-layout: [0-9]+:[0-9]+: moved tosa.transpose below tosa.max_pool2d$'
  # seed 1 pads NCHW by [0,0, 0,2, 2,2, 0,1]: NHWC by [0,0, 2,2, 0,1, 0,2]
  run grep -o 'values = dense<\[0, 0, [0-9, ]*\]> : tensor<8xindex>' pad1.mlir
  assert_output 'values = dense<[0, 0, 0, 2, 2, 2, 0, 1]> : tensor<8xindex>'
  run bash -c "'$TOSAC' ${ONLY[*]} pad1.mlir --emit=tosa | grep -o 'dense<\[0, 0, [0-9, ]*\]> : tensor<8xindex>'"
  assert_output 'dense<[0, 0, 2, 2, 0, 1, 0, 2]> : tensor<8xindex>'
  both_ways pool1.mlir pool2.mlir pad1.mlir pad2.mlir
}

@test "broadcast and full constants, tile and concat: constants take the other layout" {
  for s in 1 2; do
    gen bcast $s
    run transposes bcast$s.mlir
    assert_output 0
  done
  run "$TOSAC" "${ONLY[@]}" bcast1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line --regexp '^# propagate-layout: [0-9]+:[0-9]+: moved tosa.transpose below tosa.tile$'
  assert_line --regexp '^# propagate-layout: [0-9]+:[0-9]+: moved tosa.transpose below tosa.concat$'
  refute_output --partial "_transpose"
  both_ways bcast1.mlir bcast2.mlir
}

@test "transposes cross reshapes that merge or split dims neighbouring in both layouts" {
  # NCHW -> NHWC -> [N, H*W, C] (+ per-channel constant) -> [N, H, W, C] -> NCHW: H and W merge
  # in both layouts, so the reshapes take x's order and the pair cancels
  cat > resh.mlir <<'M'
// oracle: arg 0 -1 1
func.func @main(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  %t = "tosa.transpose"(%x) <{perms = array<i32: 0, 2, 3, 1>}> : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32>
  %s1 = "tosa.const_shape"() <{values = dense<[2, 20, 3]> : tensor<3xindex>}> : () -> !tosa.shape<3>
  %r = "tosa.reshape"(%t, %s1) : (tensor<2x4x5x3xf32>, !tosa.shape<3>) -> tensor<2x20x3xf32>
  %c = "tosa.const"() <{values = dense<[[[0.5, -1.0, 2.0]]]> : tensor<1x1x3xf32>}> : () -> tensor<1x1x3xf32>
  %a = "tosa.add"(%r, %c) : (tensor<2x20x3xf32>, tensor<1x1x3xf32>) -> tensor<2x20x3xf32>
  %s2 = "tosa.const_shape"() <{values = dense<[2, 4, 5, 3]> : tensor<4xindex>}> : () -> !tosa.shape<4>
  %r2 = "tosa.reshape"(%a, %s2) : (tensor<2x20x3xf32>, !tosa.shape<4>) -> tensor<2x4x5x3xf32>
  %t2 = "tosa.transpose"(%r2) <{perms = array<i32: 0, 3, 1, 2>}> : (tensor<2x4x5x3xf32>) -> tensor<2x3x4x5xf32>
  return %t2 : tensor<2x3x4x5xf32>
}
M
  run "$TOSAC" "${ONLY[@]}" resh.mlir --emit=tosa
  assert_success
  refute_output --partial '"tosa.transpose"'
  assert_output --partial '"tosa.reshape"(%arg0, %0) : (tensor<2x3x4x5xf32>, !tosa.shape<3>) -> tensor<2x3x20xf32>'
  assert_output --partial '"tosa.add"(%1, %2) : (tensor<2x3x20xf32>, tensor<1x3x1xf32>) -> tensor<2x3x20xf32>'
  run "$TOSAC" "${ONLY[@]}" resh.mlir --offload-arch=gfx90a --emit=partitions
  assert_line --regexp '^# propagate-layout: 5:8: moved tosa.transpose below tosa.reshape$'
  assert_line '# propagate-layout: 10:9: removed tosa.transpose: it undoes the one at 9:9'
  # [N, C, H, W] -> [N, H, C, W] -> [N, H, C*W]: C and W are not neighbours in NCHW
  sed -e 's/0, 2, 3, 1>}> : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32>/0, 2, 1, 3>}> : (tensor<2x3x4x5xf32>) -> tensor<2x4x3x5xf32>/' \
      -e 's/(%t, %s1) : (tensor<2x4x5x3xf32>/(%t, %s1) : (tensor<2x4x3x5xf32>/' \
      -e 's/dense<\[2, 20, 3\]>/dense<[2, 4, 15]>/' -e 's/2x20x3xf32/2x4x15xf32/g' \
      -e 's/tensor<1x1x3xf32>/tensor<1x1x15xf32>/g' -e 's/\[\[\[0.5, -1.0, 2.0\]\]\]/0.5/' \
      -e 's/dense<\[2, 4, 5, 3\]>/dense<[2, 4, 3, 5]>/' -e 's/2x4x5x3xf32/2x4x3x5xf32/g' \
      -e 's/0, 3, 1, 2>}>/0, 2, 1, 3>}>/' resh.mlir > noresh.mlir
  run mlir-opt-22 noresh.mlir -o /dev/null
  assert_success
  run transposes noresh.mlir
  assert_output 2
  both_ways resh.mlir noresh.mlir
}

@test "NCHW ResNet blocks: only the input's and the weights' transposes and the result's stay" {
  for s in 1 2 3; do
    gen block $s
    run grep -c '"tosa.transpose"' block$s.mlir
    assert_output 11
    # of 11: the input's, the two 3x3 weights' (a 1x1 kernel's is a reshape), the pooled result's
    run transposes block$s.mlir
    assert_output 4
  done
  # every batch norm and ReLU is a convolution epilogue; no transpose kernel reads another's;
  # the input's and the weights' transposes are operand views of their convolutions
  "$TOSAC" "${ONLY[@]}" block1.mlir --offload-arch=gfx90a --emit=partitions > on.txt
  "$TOSAC" "${ONLY[@]}" -fno-propagate-layout block1.mlir --offload-arch=gfx90a --emit=partitions > off.txt
  run grep '^target' on.txt
  assert_output "target gfx90a: 5 kernels, 5 launches, workspace 4096 bytes"
  run grep '^target' off.txt
  assert_output "target gfx90a: 9 kernels, 9 launches, workspace 6144 bytes"
  run grep -c '^  kernel [0-9]* tosac_k[0-9]*_conv2d_sub_mul over' on.txt
  assert_output 3
  run transposes_in_a_row on.txt
  assert_output 0
  both_ways block1.mlir block2.mlir block3.mlir
}

# transposes_in_a_row PLAN.txt: kernels that only transpose and read another such kernel's output
transposes_in_a_row() {
  /usr/bin/python3 -c '
import re, sys
writer, n, kern = {}, 0, None
for line in open(sys.argv[1]):
    m = re.match(r"  kernel \d+ (\S+) over", line)
    if m: kern = m.group(1)
    m = re.match(r"    reads ([^;]*); writes (.*)", line)
    if m and kern:
        t = re.search(r"_k\d+_transpose$", kern) is not None
        n += t and any(writer.get(b) for b in m.group(1).split())
        for b in m.group(2).split(): writer[b] = t
print(n)' "$1"
}

# launches and transpose kernels per target: "gfx908=L/T ..."
launches_transposes() {
  /usr/bin/python3 -c '
import re, sys
out, tgt = [], None
for line in open(sys.argv[1]):
    m = re.match(r"target (\S+): \d+ kernels, (\d+) launches", line)
    if m: out.append([m.group(1), m.group(2), 0])
    if re.match(r"  kernel \d+ \S+_k\d+_transpose over", line): out[-1][2] += 1
print(" ".join("%s=%s/%d" % tuple(o) for o in out))' "$1"
}

@test "torch-mlir's ResNet-18 and ResNet-50 stem: launches and transpose kernels pinned per target" {
  [ -d "$DATA" ] || skip "no $DATA"
  "$TOSAC" "${ONLY[@]}" "$DATA/rocmlir_resnet18.mlir" --emit=partitions > r18.txt
  "$TOSAC" "${ONLY[@]}" -fno-propagate-layout "$DATA/rocmlir_resnet18.mlir" --emit=partitions > r18off.txt
  # the 38 transposes around every convolution become the input's and the weights' (19), which
  # the convolutions read through strides (operand views): one transpose kernel is left, the
  # classifier's weights into the matmul; every batch norm and ReLU is a convolution epilogue
  run launches_transposes r18.txt
  assert_output "gfx908=44/1 gfx90a=44/1 gfx942=44/1 gfx950=44/1 gfx1030=44/1 gfx1100=44/1 gfx1200=44/1"
  run launches_transposes r18off.txt
  assert_output "gfx908=67/7 gfx90a=67/7 gfx942=67/7 gfx950=67/7 gfx1030=67/7 gfx1100=67/7 gfx1200=67/7"
  run transposes_in_a_row r18.txt
  assert_output 0
  run transposes_in_a_row r18off.txt
  assert_output 0
  run grep -c '^# propagate-layout: .*removed tosa.transpose: it undoes' r18.txt
  assert_output 18
  # the stem: the argument input and weights are transposed, the result is NCHW; nothing moves,
  # and the convolution reads both arguments through strides
  "$TOSAC" "${ONLY[@]}" "$DATA/rocmlir_resnet50_part_0.mlir" --emit=partitions > r50.txt
  run launches_transposes r50.txt
  assert_output "gfx908=2/0 gfx90a=2/0 gfx942=2/0 gfx950=2/0 gfx1030=2/0 gfx1100=2/0 gfx1200=2/0"
  run grep -c '# propagate-layout' r50.txt
  assert_output 0
}

@test "torch-mlir's ResNet-18 and ResNet-50 stem with every pass: launches pinned per target" {
  [ -d "$DATA" ] || skip "no $DATA"
  # ResNet-18: 20 convolutions (the input's transpose and the three exact-geometry slices read
  # in place), the two pools and the matmul with its bias add; the split-K convolutions reduce
  # in their last work-group (splitk_form.bats), no combine kernel
  "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --emit=partitions > r18.txt
  run launches_transposes r18.txt
  assert_output "gfx908=23/0 gfx90a=23/0 gfx942=23/0 gfx950=23/0 gfx1030=23/0 gfx1100=23/0 gfx1200=23/0"
  run grep -c '^  kernel [0-9]* tosac_k[0-9]*_slice over' r18.txt
  assert_output 0
  run grep -c '^  kernel [0-9]* tosac_k[0-9]*_matmul_add over' r18.txt
  assert_output 7
  # without split-K (the cost model's choice): 20 convolutions, 2 pools, the matmul
  TOSAC_SPLIT_K=0 "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --emit=partitions > r18s.txt
  run launches_transposes r18s.txt
  assert_output "gfx908=23/0 gfx90a=23/0 gfx942=23/0 gfx950=23/0 gfx1030=23/0 gfx1100=23/0 gfx1200=23/0"
  # the last-work-group form forced: the estimate's own choice (23 launches, 73 split kernels
  # over the seven targets), the arrival counters in the workspace's zeroed region
  TOSAC_SPLIT_K_FORM=lastwg "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --emit=partitions > r18w.txt
  run launches_transposes r18w.txt
  assert_output "gfx908=23/0 gfx90a=23/0 gfx942=23/0 gfx950=23/0 gfx1030=23/0 gfx1100=23/0 gfx1200=23/0"
  run grep -c '^  kernel [0-9]* tosac_k[0-9]*_.*_splitk over' r18w.txt
  assert_output 73
  # the ResNet-50 stem: the convolution reading both arguments, then batch norm and ReLU on the
  # NCHW result (its transpose as an index map)
  "$TOSAC" "$DATA/rocmlir_resnet50_part_0.mlir" --emit=partitions > r50.txt
  run launches_transposes r50.txt
  assert_output "gfx908=2/0 gfx90a=2/0 gfx942=2/0 gfx950=2/0 gfx1030=2/0 gfx1100=2/0 gfx1200=2/0"
  run grep -A3 '^  kernel 0 ' r50.txt
  assert_line --index 0 --regexp '^  kernel 0 tosac_k0_conv2d over tensor<2x100x100x64xf32>$'
  assert_line --index 1 --regexp '^    tosa.transpose at .*rocmlir_resnet50_part_0.mlir:8:10$'
  assert_line --index 2 --regexp '^    tosa.transpose at .*rocmlir_resnet50_part_0.mlir:9:10$'
}

@test "ResNet-50's stem (input and weights read through strides) matches the oracle on gfx1030" {
  [ -d "$DATA" ] || skip "no $DATA"
  # models.bats checks it on gfx90a and gfx1100; the tolerance is models.bats's (K = 147 sums)
  "$TOSAC" "$DATA/rocmlir_resnet50_part_0.mlir" --emit=tosa -O0 -o r50.tosa.mlir
  { for k in 0 1 2 3 4 5; do echo "// oracle: arg $k -1 1"; done
    echo "// oracle: result 0 err 1e-4"
    cat r50.tosa.mlir; } > r50.o.mlir
  run "${CHECK[@]}" --targets gfx1030 r50.o.mlir
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "ResNet-18 at 64x64 matches the oracle with the pass on gfx90a, gfx1100 and gfx1030" {
  [ -d "$DATA" ] || skip "no $DATA"
  "$TOSAC" "$DATA/rocmlir_resnet18.mlir" -O0 --emit=tosa -o r18.tosa.mlir
  /usr/bin/python3 "$ROOT/tests/oracle/resnet18_64.py" r18.tosa.mlir > r18_64.mlir
  run "${CHECK[@]}" --tosac-arg=-fno-fold-constants r18_64.mlir
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "-fno-propagate-layout and -O0 leave every transpose; --emit=tosa prints the input graph at -O0" {
  gen cancel 4
  run "$TOSAC" -O0 cancel4.mlir --emit=tosa
  assert_success
  run grep -c '"tosa.transpose"' <(echo "$output")
  assert_output 2
  run "$TOSAC" -fno-propagate-layout -fpropagate-layout "${ONLY[@]}" cancel4.mlir --emit=tosa
  refute_output --partial '"tosa.transpose"'
}

@test "the rewritten graphs print as valid TOSA (--emit=tosa through mlir-opt-22)" {
  for k in block bcast pad reduce pool; do
    gen $k 5
    run "$TOSAC" "${ONLY[@]}" ${k}5.mlir --emit=tosa -o ${k}5.opt.mlir
    assert_success
    run mlir-opt-22 ${k}5.opt.mlir -o /dev/null
    assert_success
  done
  run grep -c '"tosa.transpose"' block5.opt.mlir
  assert_output 4
}

