#!/usr/bin/env bats
# Concatenation in place (docs/partitioning.md "Concatenation in place"): a tosa.concat whose
# every operand is the one result of a convolution or matmul kernel that nothing else reads
# launches nothing; each of those kernels stores its result into its slice of the concat's
# buffer. Seeded graphs (tests/oracle/gen_concat.py): NHWC channel and height concatenations of
# convolutions with and without ReLU, NCHW (the convolutions' output views), matmuls along N
# (bias epilogue) and along M; whole, split over K (combine and last-work-group forms) and
# through im2col; against the MLIR oracle on gfx90a (MFMA), gfx1100 (WMMA) and gfx1030 (FMA),
# as machine code and as IR.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run"
         --targets gfx90a,gfx1100,gfx1030)
  cd "$BATS_TEST_TMPDIR"
}

gen() { /usr/bin/python3 "$ROOT/tests/oracle/gen_concat.py" "$1" "$2" > "$1$2.mlir"; }

@test "convolutions concatenated along the channels (NHWC, NCHW) or along H store into the concat's buffer: no concat kernel, no workspace" {
  gen conv_c 1
  run "$TOSAC" conv_c1.mlir --offload-arch=gfx90a,gfx1100,gfx1030 --emit=partitions
  assert_success
  assert_line "target gfx90a: 2 kernels, 2 launches, workspace 0 bytes"
  assert_line "target gfx1100: 2 kernels, 2 launches, workspace 0 bytes"
  assert_line "target gfx1030: 2 kernels, 2 launches, workspace 0 bytes"
  assert_line "    reads b0 b2 b3; writes b1 (slice of the concatenation: 4 of every 12 elements from element 0)"
  assert_line "    reads b0 b4 b5; writes b1 (slice of the concatenation: 8 of every 12 elements from element 4)"
  refute_output --partial "_concat over"
  gen conv_nchw 1
  run "$TOSAC" conv_nchw1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 2 kernels, 2 launches, workspace 0 bytes"
  assert_line "    reads b0 b4 b5; writes b1 (slice of the concatenation: 2016 of every 2520 elements from element 504)"
  gen conv_h 1
  run "$TOSAC" conv_h1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 2 kernels, 2 launches, workspace 0 bytes"
  for s in 2 3; do gen conv_c $s; gen conv_nchw $s; gen conv_h $s; done
  run "${CHECK[@]}" conv_c1.mlir conv_c2.mlir conv_c3.mlir conv_nchw1.mlir conv_nchw2.mlir conv_nchw3.mlir \
    conv_h1.mlir conv_h2.mlir conv_h3.mlir
  assert_success
  assert_output --partial "PASSED: 9 graph(s)"
  TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir run "${CHECK[@]}" conv_c2.mlir conv_nchw2.mlir conv_h2.mlir
  assert_success
  assert_output --partial "PASSED: 3 graph(s)"
}

@test "matmuls concatenated along N (with a bias epilogue) and along M store into the concat's buffer" {
  gen mm_n 1
  run "$TOSAC" mm_n1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 3 kernels, 3 launches, workspace 0 bytes"
  assert_line "    reads b0 b6 b7; writes b1 (slice of the concatenation: 17 of every 84 elements from element 67)"
  gen mm_m 1
  run "$TOSAC" mm_m1.mlir --offload-arch=gfx1100 --emit=partitions
  assert_line "target gfx1100: 2 kernels, 2 launches, workspace 0 bytes"
  assert_line "    reads b2 b0; writes b3 (slice of the concatenation: 180 of every 740 elements from element 560)"
  for s in 2 3; do gen mm_n $s; gen mm_m $s; done
  run "${CHECK[@]}" mm_n1.mlir mm_n2.mlir mm_n3.mlir mm_m1.mlir mm_m2.mlir mm_m3.mlir
  assert_success
  assert_output --partial "PASSED: 6 graph(s)"
  TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir run "${CHECK[@]}" mm_n2.mlir mm_m2.mlir
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
}

@test "split over K (combine and last-work-group forms) and im2col: the kernel that stores the result stores its slice" {
  gen conv_c 1
  gen mm_n 2
  TOSAC_IM2COL=0 TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run "$TOSAC" conv_c1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 4 kernels, 4 launches, workspace 5120 bytes" # two partials, two combines
  assert_line "    reads b6 b3; writes b1 (slice of the concatenation: 4 of every 12 elements from element 0)"
  assert_line "    reads b0 b2; writes b6" # the partials go to the workspace
  TOSAC_IM2COL=1 run "$TOSAC" conv_c1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "    reads b7 b5; writes b1 (slice of the concatenation: 8 of every 12 elements from element 4)"
  TOSAC_IM2COL=0 TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run "${CHECK[@]}" conv_c1.mlir mm_n2.mlir
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
  TOSAC_IM2COL=0 TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=lastwg run "${CHECK[@]}" conv_c1.mlir mm_n2.mlir
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
  TOSAC_IM2COL=1 run "${CHECK[@]}" conv_c1.mlir
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "a concat whose operand another op also reads (here a graph result) stays a copy kernel" {
  gen shared 1
  run "$TOSAC" shared1.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 3 kernels, 3 launches, workspace 2816 bytes"
  assert_line --partial "kernel 2 tosac_k2_concat over tensor<1x9x9x16xf32>"
  refute_output --partial "slice of the concatenation"
  TOSAC_NO_FUSION=1 run "$TOSAC" conv_c1.mlir --offload-arch=gfx90a --emit=partitions
  refute_output --partial "slice of the concatenation"
  gen shared 2
  run "${CHECK[@]}" shared1.mlir shared2.mlir
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
}
