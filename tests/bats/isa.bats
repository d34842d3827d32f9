#!/usr/bin/env bats
# isa.bats: the machine-code emulator (src/emu/isa_*.c, docs/emulator.md). Hand-written kernels
# assembled with llvm-mc-22 and linked with ld.lld-22 run one work-group through test-isa (exact
# memory words and exact diagnostics, planted faults included, LDS and its race check); tosac's
# elementwise graphs run as machine code (tosac-run --exec=isa, bundles without embedded IR) on
# gfx90a, gfx1030 and gfx1100 against the MLIR CPU oracle.

bats_load_library bats-support
bats_load_library bats-assert

TARGETS=gfx90a,gfx1030,gfx1100

setup() {
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

# the word basic.s computes for element i
basic_word() { echo $(((3 * $1 + 107) | ($1 / 2) << 16 | ($1 >= 16) << 24)); }

@test "SALU, VALU, SMEM, global memory and VCC carries of one wave64 (gfx90a)" {
  assemble "$DATA/basic_gfx90a.s" gfx90a "$T/b.co"
  run "$ISA" "$T/b.co" gfx90a basic 64
  assert_success
  for i in 0 1 15 16 17 63; do
    assert_line "out[$i] = $(basic_word $i)"
  done
}

@test "two wave32 waves: packed work-item ids, vcc_lo carries, SMEM and global memory (gfx1100)" {
  assemble "$DATA/basic_gfx1100.s" gfx1100 "$T/b.co"
  run "$ISA" "$T/b.co" gfx1100 basic 64 64
  assert_success
  for i in 0 1 15 16 31 32 47 63; do
    assert_line "out[$i] = $(basic_word $i)"
  done
  # one wave only: the second half of the buffer is untouched
  run "$ISA" "$T/b.co" gfx1100 basic 64 32
  assert_success
  assert_line "out[31] = $(basic_word 31)"
  assert_line "out[32] = 32"
}

@test "planted fault: a kernel with its s_waitcnt vmcnt(0) removed is a missing wait" {
  sed '/s_waitcnt vmcnt(0)/d' "$DATA/basic_gfx90a.s" > "$T/nowait.s"
  assemble "$T/nowait.s" gfx90a "$T/nowait.co"
  run "$ISA" "$T/nowait.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic, work-group (0,0,0), wave 0, instruction at 0x1328 (v_mul_lo_u32): missing s_waitcnt: v2 is still being written by the load at 0x1310"
  sed '/s_waitcnt vmcnt(0)/d' "$DATA/basic_gfx1100.s" > "$T/nowait.s"
  assemble "$T/nowait.s" gfx1100 "$T/nowait.co"
  run "$ISA" "$T/nowait.co" gfx1100 basic 32
  assert_failure 1
  assert_output --regexp '^error: kernel basic, work-group \(0,0,0\), wave 0, instruction at 0x[0-9a-f]+ \(v_mul_lo_u32\): missing s_waitcnt: v2 is still being written by the load at 0x[0-9a-f]+$'
  # the lgkmcnt wait removed: the scalar load's registers are read too early
  sed '/s_waitcnt lgkmcnt(0)/d' "$DATA/basic_gfx90a.s" > "$T/nolgkm.s"
  assemble "$T/nolgkm.s" gfx90a "$T/nolgkm.co"
  run "$ISA" "$T/nolgkm.co" gfx90a basic 64
  assert_failure 1
  assert_output --partial "(global_load_dword): missing s_waitcnt: s2 is still being written by the load at 0x1300"
}

@test "an access outside every buffer names kernel, wave, lane and instruction" {
  assemble "$DATA/basic_gfx90a.s" gfx90a "$T/b.co"
  run "$ISA" "$T/b.co" gfx90a basic 32
  assert_failure 1
  assert_output --regexp '^error: kernel basic, work-group \(0,0,0\), wave 0, instruction at 0x1310 \(global_load_dword\): lane 32 loads 4 bytes at 0x[0-9a-f]+, outside every buffer of the launch$'
}

@test "bad code objects: LDS beyond the target, wrong target, truncated, no code size" {
  sed 's/.amdhsa_accum_offset 8/.amdhsa_accum_offset 8\n  .amdhsa_group_segment_fixed_size 70000/' \
    "$DATA/basic_gfx90a.s" > "$T/lds.s"
  assemble "$T/lds.s" gfx90a "$T/lds.co"
  run "$ISA" "$T/lds.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic: the descriptor asks for 70000 bytes of LDS, more than gfx90a has (65536)"
  assemble "$DATA/basic_gfx90a.s" gfx90a "$T/b.co"
  run "$ISA" "$T/b.co" gfx1100 basic 64
  assert_failure 1
  assert_output "error: the code object is for EF_AMDGPU_MACH 0x3f, not gfx1100 (0x41)"
  head -c 100 "$T/b.co" > "$T/trunc.co"
  run "$ISA" "$T/trunc.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: ELF program headers lie outside the file"
  sed '/^.size/d' "$DATA/basic_gfx90a.s" > "$T/nosize.s"
  assemble "$T/nosize.s" gfx90a "$T/nosize.co"
  run "$ISA" "$T/nosize.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic: no code symbol with a size at its entry point 0x1300"
}

@test "an instruction the emulator does not implement stops the load, naming it and the kernel" {
  sed 's/^  v_or_b32 v3, v3, v4$/  v_or_b32 v3, v3, v4\n  v_mqsad_pk_u16_u8 v[6:7], v[2:3], v4, v[6:7]/' "$DATA/basic_gfx90a.s" > "$T/mqsad.s"
  assemble "$T/mqsad.s" gfx90a "$T/mqsad.co"
  run "$ISA" "$T/mqsad.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic: instruction v_mqsad_pk_u16_u8 is not implemented by the emulator"
}

# check.py on one graph, as machine code on $TARGETS: every target's line must say all match.
oracle_isa() { # graph nresults [check.py options]
  local graph=$1 n=$2
  shift 2
  run $PY "$CHECK" "$graph" --targets=$TARGETS --exec=isa "$@"
  assert_success
  local t
  for t in ${TARGETS//,/ }; do
    assert_line --partial "[$t]: $n results match"
  done
}

@test "samples/gelu.mlir runs as machine code on gfx90a, gfx1030, gfx1100 and matches the oracle" {
  oracle_isa "$ROOT/samples/gelu.mlir" 1
}

@test "seeded random elementwise graphs run as machine code and match the oracle" {
  for seed in 1 2 3; do
    run $PY "$CHECK" --gen=1,2,3,4 --seed=$seed --targets=$TARGETS --exec=isa
    assert_success
    assert_line "PASSED: 1 graph(s)"
    assert_line --regexp "^ok gen:1,2,3,4 \[gfx1100\]: [0-9]+ results match$"
  done
}

# The graphs of elementwise_ops.bats, by the name of their heredoc.
ew_graph() { # name out
  $PY - "$ROOT/tests/bats/elementwise_ops.bats" "$1" > "$2" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"cat > \"\$T/%s\" <<'EOF'\n(.*?)\nEOF" % re.escape(sys.argv[2]), text, re.S)
sys.stdout.write(m.group(1) + "\n")
EOF
}

@test "elementwise_ops.bats's graphs (integer, rescale, sin/cos/pow, casts, new-op random) run as machine code" {
  ew_graph int.mlir "$T/int.mlir"
  oracle_isa "$T/int.mlir" 21 --seed=3
  ew_graph rescale.mlir "$T/rescale.mlir"
  oracle_isa "$T/rescale.mlir" 8 --seed=5
  ew_graph fmath.mlir "$T/fmath.mlir"
  oracle_isa "$T/fmath.mlir" 10 --seed=2
  ew_graph cast.mlir "$T/cast.mlir"
  oracle_isa "$T/cast.mlir" 15 --seed=4
  run $PY "$CHECK" --gen=1,5,7,9 --gen=26,27,28,29 --targets=$TARGETS --exec=isa
  assert_success
  local t
  for t in ${TARGETS//,/ }; do
    assert_line --regexp "^ok gen:1,5,7,9 \[$t\]: [0-9]+ results match"
  done
}

@test "tosac-run --exec: ir and isa give the same gelu; a bad mode is a usage error" {
  TOSAC="$BIN/tosac"
  RUN="$BIN/tosac-run"
  "$TOSAC" "$ROOT/samples/gelu.mlir" --embed-ir --offload-arch=gfx90a -o "$T/g.hipfb"
  run "$RUN" "$T/g.hipfb" --exec=isa --input="1x128x768xf32=0.5" --print_max_element_count=2
  assert_success
  assert_line "1x128x768xf32=[[0.34573123 0.34573123...]]"
  isa_out=$output
  run "$RUN" "$T/g.hipfb" --exec=ir --input="1x128x768xf32=0.5" --print_max_element_count=2
  assert_success
  [ "$output" = "$isa_out" ]
  run "$RUN" "$T/g.hipfb" --exec=gpu --input="1x128x768xf32=0.5"
  assert_failure 2
  assert_output "tosac-run: error: --exec: 'gpu' is not ir or isa"
  run "$RUN" --help
  assert_output --partial "--exec=ir|isa"
}

@test "LDS: two waves exchange through LDS across s_barrier (gfx90a); planted faults: barrier removed, LDS under-allocated, ds wait removed" {
  assemble "$DATA/lds_gfx90a.s" gfx90a "$T/l.co"
  run "$ISA" "$T/l.co" gfx90a lds_swap 128 128
  assert_success
  assert_line "out[0] = 64"
  assert_line "out[63] = 127"
  assert_line "out[64] = 0"
  assert_line "out[127] = 63"
  # without the barrier wave 1 overwrites what wave 0 read in the same interval
  sed '/s_barrier/d' "$DATA/lds_gfx90a.s" > "$T/nobar.s"
  assemble "$T/nobar.s" gfx90a "$T/nobar.co"
  run "$ISA" "$T/nobar.co" gfx90a lds_swap 128 128
  assert_failure 1
  assert_output "error: kernel lds_swap, work-group (0,0,0), wave 1, instruction at 0x1324 (ds_write_b32): LDS race: lane 0 overwrites LDS offset 256, which wave 0 read without an s_barrier between"
  # a descriptor that under-allocates LDS
  sed 's/group_segment_fixed_size 512/group_segment_fixed_size 256/' "$DATA/lds_gfx90a.s" > "$T/small.s"
  assemble "$T/small.s" gfx90a "$T/small.co"
  run "$ISA" "$T/small.co" gfx90a lds_swap 128 128
  assert_failure 1
  assert_output "error: kernel lds_swap, work-group (0,0,0), wave 1, instruction at 0x1324 (ds_write_b32): lane 0 stores 4 bytes at LDS offset 256, beyond the kernel's 256 bytes of LDS"
  # the wait after ds_read_b32 removed
  awk '/s_waitcnt lgkmcnt\(0\)/ { if (++c == 3) next } { print }' "$DATA/lds_gfx90a.s" > "$T/nowait.s"
  assemble "$T/nowait.s" gfx90a "$T/nowait.co"
  run "$ISA" "$T/nowait.co" gfx90a lds_swap 128 128
  assert_failure 1
  assert_output "error: kernel lds_swap, work-group (0,0,0), wave 0, instruction at 0x134c (global_store_dword): missing s_waitcnt: v4 is still being written by the load at 0x1344"
}

@test "reductions (DPP, ds_swizzle, LDS across waves) and a row softmax run as machine code and match the oracle" {
  cat > "$T/red.mlir" <<'EOF2'
func.func @main(%x: tensor<64x300xf32>) -> (tensor<64x1xf32>, tensor<1x300xf32>, tensor<64x1xf32>) {
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<64x300xf32>) -> tensor<64x1xf32>
  %1 = tosa.reduce_max %x {axis = 0 : i32} : (tensor<64x300xf32>) -> tensor<1x300xf32>
  %2 = tosa.reduce_min %x {axis = 1 : i32} : (tensor<64x300xf32>) -> tensor<64x1xf32>
  return %0, %1, %2 : tensor<64x1xf32>, tensor<1x300xf32>, tensor<64x1xf32>
}
EOF2
  oracle_isa "$T/red.mlir" 3 --seed=7
  cat > "$T/softmax.mlir" <<'EOF2'
func.func @main(%x: tensor<8x200xf32>) -> (tensor<8x200xf32>) {
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<8x200xf32>) -> tensor<8x1xf32>
  %d = tosa.sub %x, %m : (tensor<8x200xf32>, tensor<8x1xf32>) -> tensor<8x200xf32>
  %e = tosa.exp %d : (tensor<8x200xf32>) -> tensor<8x200xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<8x200xf32>) -> tensor<8x1xf32>
  %r = tosa.reciprocal %s : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.mul %e, %r, %sh : (tensor<8x200xf32>, tensor<8x1xf32>, tensor<1xi8>) -> tensor<8x200xf32>
  return %y : tensor<8x200xf32>
}
EOF2
  oracle_isa "$T/softmax.mlir" 1 --seed=8
  oracle_isa "$ROOT/samples/swish.mlir" 1
  oracle_isa "$ROOT/samples/gelu_tanh.mlir" 1
}

@test "gelu and seeded random graphs run as machine code on gfx908, gfx942, gfx950 and gfx1200 too" {
  local all=gfx908,gfx942,gfx950,gfx1200
  run $PY "$CHECK" "$ROOT/samples/gelu.mlir" --targets=$all --exec=isa
  assert_success
  run $PY "$CHECK" --gen=1,2,3,4 --seed=1 --targets=$all --exec=isa
  assert_success
  local t
  for t in ${all//,/ }; do
    assert_line "ok gen:1,2,3,4 [$t]: 5 results match"
  done
}

# the word buffer_*.s writes to out[64 + i]: a | b << 8 | c << 16, each 0 when out of range
buffer_word() { # i a_last (the last lane whose soffset load is in range)
  local i=$1 a=0 b=0 c=0
  ((i <= $2)) && a=$((i + 2))
  ((4 * i + 8 <= 200)) && b=$((i + 1))
  ((4 * i + 12 <= 200)) && c=$((i + 2))
  echo $((a | b << 8 | c << 16))
}

@test "buffer loads and stores: per-dword range checks, out-of-range reads 0 and stores dropped, soffset in the gfx9 check only" {
  for t in gfx90a gfx1100; do
    assemble "$DATA/buffer_$t.s" $t "$T/b$t.co"
    run "$ISA" "$T/b$t.co" $t buffer 128 64
    assert_success
    # gfx9 counts soffset 8 in the range check (lanes up to 47), gfx11 (OOB_SELECT 3) does not (49)
    last=47
    [ $t = gfx1100 ] && last=49
    for i in 0 46 47 48 49 50 63; do
      assert_line "out[$((64 + i))] = $(buffer_word $i $last)"
    done
    assert_line "out[9] = 1009"
    assert_line "out[10] = 10"
  done
}

@test "planted fault: a V# whose dword 3 disables the range check (OOB_SELECT 2) reads outside the buffer" {
  # the dwordx2 load moved to offset 448 + 4i: past num_records, so it reads zeros...
  sed 's/offen offset:4$/offen offset:448/' "$DATA/buffer_gfx1100.s" > "$T/far.s"
  assemble "$T/far.s" gfx1100 "$T/far.co"
  run "$ISA" "$T/far.co" gfx1100 buffer 128 64
  assert_success
  assert_line "out[64] = 2"
  assert_line "out[79] = 17"
  # ...until dword 3 says OOB_SELECT 2 (only num_records = 0 is out of range): lane 15's second
  # dword is word 128, past the 128-word buffer
  sed 's/s_mov_b32 s7, 0x31004000/s_mov_b32 s7, 0x21004000/' "$T/far.s" > "$T/oob2.s"
  assemble "$T/oob2.s" gfx1100 "$T/oob2.co"
  run "$ISA" "$T/oob2.co" gfx1100 buffer 128 64
  assert_failure 1
  assert_output --regexp "^error: kernel buffer, work-group \(0,0,0\), wave 0, instruction at 0x[0-9a-f]+ \(buffer_load_b64\): lane 15 loads 4 bytes at 0x[0-9a-f]+, outside every buffer of the launch$"
}

@test "planted fault: two work-groups of one launch write the same global bytes without atomics" {
  assemble "$DATA/wgstore_gfx90a.s" gfx90a "$T/wg.co"
  run "$ISA" "$T/wg.co" gfx90a wgstore 192 64 3
  assert_success
  assert_line "out[63] = 63"
  assert_line "out[64] = 1000"
  assert_line "out[191] = 2063"
  # every group on the first 64 words: the second group to store is reported
  sed 's/s_lshl_b32 s7, s2, 8/s_mov_b32 s7, 0/' "$DATA/wgstore_gfx90a.s" > "$T/wgsame.s"
  assemble "$T/wgsame.s" gfx90a "$T/wgsame.co"
  TOSAC_RUN_THREADS=1 run "$ISA" "$T/wgsame.co" gfx90a wgstore 192 64 3
  assert_failure 1
  assert_output "error: kernel wgstore, work-group (1,0,0), wave 0, instruction at 0x1324 (global_store_dword): lane 0 writes global bytes at out+0 that work-group (0,0,0) of this launch wrote too, without atomics"
}

@test "agent-scope release/acquire cache ops (gfx942 buffer_wbl2 sc1, buffer_inv sc1): the last of 3 work-groups sums and resets the counter" {
  assemble "$DATA/lastwg_gfx942.s" gfx942 "$T/lw.co"
  run "$ISA" "$T/lw.co" gfx942 lastwg 8 64 3
  assert_success
  assert_line "out[0] = 0"
  assert_line "out[1] = 100"
  assert_line "out[3] = 102"
  assert_line "out[4] = 303"
  assert_line "out[5] = 5"
}
