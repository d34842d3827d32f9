#!/usr/bin/env bats
# The row-norm kernel (kernel_rownorm.c: layer norm, softmax) copies its input rows to LDS and
# stores its outputs in 16-byte chunks per work-item when the rows split into them, element by
# element otherwise; both paths against the oracle on an MFMA (gfx90a), a WMMA (gfx1100) and
# the FMA target (gfx1030), as LLVM IR and as machine code (tests/oracle/gen_rownorm.py).

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  BUILD="${TOSAC_BUILD:-build}"
  case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
  export TOSAC="$BUILD/bin/tosac"
  cd "$BATS_FILE_TMPDIR"
  /usr/bin/python3 "$ROOT/tests/oracle/gen_rownorm.py"
}

setup() { cd "$BATS_FILE_TMPDIR"; }

check() { # graph, exec mode
  TOSAC_EXEC=$2 TOSAC_HIPEMU_EXEC=$2 /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$1" \
    --targets=gfx90a,gfx1100,gfx1030 --seed=3
}

@test "rows of whole 16-byte chunks: one dwordx4 load per input and one 16-byte store per output chunk" {
  # f16 768-wide rows: 96 chunks of 8; no element loop copies or stores the row
  "$TOSAC" ln16.mlir --offload-arch=gfx90a --emit=asm -o ln16.s
  grep -q 'global_load_dwordx4' ln16.s
  grep -q 'global_store_dwordx4' ln16.s
  "$TOSAC" sm16.mlir --offload-arch=gfx1100 --emit=asm -o sm16.s
  grep -q 'global_load_b128' sm16.s
  grep -q 'global_store_b128' sm16.s
  # LLVM packs f16 row elements read back from LDS into register halves (emulated d16 loads)
  grep -q 'ds_load_u16_d16' sm16.s
  # 1030 f32 elements are no whole number of chunks: element by element
  "$TOSAC" sm32.mlir --offload-arch=gfx90a --emit=asm -o odd.s
  run grep -c 'global_[a-z]*_dwordx4' odd.s
  assert_output 0
}

@test "layer norms (f16 768 wide, rank 3 with the centred rows and the mean returned, 771 wide) match the oracle, IR and machine code" {
  for g in ln16 ln32 ln32odd; do
    for mode in ir isa; do
      run check $g.mlir $mode
      assert_success
    done
  done
}

@test "softmaxes (f16 4096 wide: two chunk steps per work-item; f32 1030 wide: element walks) match the oracle, IR and machine code" {
  for g in sm16 sm32; do
    for mode in ir isa; do
      run check $g.mlir $mode
      assert_success
    done
  done
}
