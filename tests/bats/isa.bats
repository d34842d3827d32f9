#!/usr/bin/env bats
# isa.bats: the machine-code emulator (src/emu/isa_*.c, docs/emulator.md). Hand-written kernels
# assembled with llvm-mc-22 and linked with ld.lld-22 run one work-group through test-isa (exact
# memory words and exact diagnostics, planted faults included, LDS and its race check); tosac's
# elementwise graphs run as machine code (tosac-run --exec=isa, bundles without embedded IR) on
# gfx90a, gfx1030 and gfx1100 against the MLIR CPU oracle.

load lib/isa

TARGETS=gfx90a,gfx1030,gfx1100

setup() {
  isa_setup
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

@test "tosac-run --exec: ir and isa (the default) give the same gelu; a bad mode is a usage error" {
  TOSAC="$BIN/tosac"
  RUN="$BIN/tosac-run"
  "$TOSAC" "$ROOT/samples/gelu.mlir" --embed-ir --offload-arch=gfx90a -o "$T/g.hipfb"
  run "$RUN" "$T/g.hipfb" --exec=isa --input="1x128x768xf32=0.5" --print_max_element_count=2
  assert_success
  assert_line "1x128x768xf32=[[0.34573123 0.34573123...]]"
  isa_out=$output
  # the default is the machine code: -v names what was loaded
  env -u TOSAC_EXEC "$RUN" "$T/g.hipfb" --input="1x128x768xf32=0.5" --output= -v 2> "$T/v.txt"
  grep -q "loaded the code object for gfx90a" "$T/v.txt"
  TOSAC_EXEC=ir "$RUN" "$T/g.hipfb" --input="1x128x768xf32=0.5" --output= -v 2> "$T/v.txt"
  grep -q "loaded the kernel IR for gfx90a" "$T/v.txt"
  run "$RUN" "$T/g.hipfb" --exec=ir --input="1x128x768xf32=0.5" --print_max_element_count=2
  assert_success
  [ "$output" = "$isa_out" ]
  run "$RUN" "$T/g.hipfb" --exec=gpu --input="1x128x768xf32=0.5"
  assert_failure 2
  assert_output "tosac-run: error: --exec: 'gpu' is not ir or isa"
  run "$RUN" --help
  assert_output --partial "--exec=isa|ir"
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

@test "16-bit LDS loads into one half of a register (ds_load_u16_d16, _hi) keep the other half" {
  assemble "$DATA/d16_gfx1100.s" gfx1100 "$T/d.co"
  run "$ISA" "$T/d.co" gfx1100 d16 64
  assert_success
  for i in 0 1 31; do
    assert_line "out[$i] = $((0xdead0000 | i))"
    assert_line "out[$((32 + i))] = $(((i + 256) << 16 | 0x5678))"
  done
}

@test "DS addresses wrap at 32 bits: a VGPR of 4i - 256 with offset:256 is byte 4i (ds_write_b32, ds_read2_b32)" {
  assemble "$DATA/lds_wrap_gfx90a.s" gfx90a "$T/w.co"
  run "$ISA" "$T/w.co" gfx90a lds_wrap 128 64
  assert_success
  for i in 0 1 31 62; do
    assert_line "out[$i] = $((i | (i + 1) << 16))"
    assert_line "out[$((64 + i))] = $i"
  done
  assert_line "out[63] = 63"
}

# element e that lane l of rtr (read_tr_gfx950.s) receives: element l % 4 of what lane
# 16·(l / 16) + 4e + (l % 16) / 4 addressed (the elements of lane j ^ 5)
rtr_elem() { echo $((4 * ((($1 & ~15) + 4 * $2 + ($1 & 15) / 4) ^ 5) + $1 % 4)); }

@test "gfx950 ds_read_b64_tr_b16: lane i of each 16-lane group gets column i of the 4 x 16 tile the group's addresses name; a partly active group is refused" {
  assemble "$DATA/read_tr_gfx950.s" gfx950 "$T/r.co"
  run "$ISA" "$T/r.co" gfx950 rtr 256 128
  assert_success
  assert_line "out[0] = $((20 | 4 << 16))"
  for l in 0 1 5 15 16 38 63 64 127; do
    assert_line "out[$((2 * l))] = $(($(rtr_elem $l 0) | $(rtr_elem $l 1) << 16))"
    assert_line "out[$((2 * l + 1))] = $(($(rtr_elem $l 2) | $(rtr_elem $l 3) << 16))"
  done
  sed 's/^  ds_read_b64_tr_b16/  s_mov_b32 exec_lo, 0xff\n&/' "$DATA/read_tr_gfx950.s" > "$T/part.s"
  assemble "$T/part.s" gfx950 "$T/part.co"
  run "$ISA" "$T/part.co" gfx950 rtr 256 64
  assert_failure 1
  assert_output --regexp '^error: kernel rtr, work-group \(0,0,0\), wave 0, instruction at 0x[0-9a-f]+ \(ds_read_b64_tr_b16\): ds_read_b64_tr_b16 with lanes 0\.\.15 only partly active$'
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

@test "a buffer offset is voffset + the offset field without wrapping: a negative voffset brought back into range reads zero" {
  assemble "$DATA/bufwrap_gfx90a.s" gfx90a "$T/w.co"
  run "$ISA" "$T/w.co" gfx90a bufwrap 128 64
  assert_success
  for i in 0 15 16 17 49 50 63; do
    w=0
    ((i >= 16 && i < 50)) && w=$i
    assert_line "out[$((64 + i))] = $w"
  done
}

# vmcnt.s: N global loads (word i + k into v[2 + k]), then v2 stored to out[64 + i] without a wait
vmcnt_kernel() { # loads out
  {
    printf '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\n.text\n.globl vmcnt\n.p2align 8\n.type vmcnt,@function\nvmcnt:\n'
    printf '  s_load_dwordx2 s[2:3], s[0:1], 0x0\n  v_lshlrev_b32 v1, 2, v0\n  s_waitcnt lgkmcnt(0)\n'
    for ((k = 0; k < $1; k++)); do printf '  global_load_dword v%d, v1, s[2:3] offset:%d\n' $((2 + k)) $((4 * k)); done
    printf '  global_store_dword v1, v2, s[2:3] offset:256\n  s_endpgm\n.size vmcnt, .-vmcnt\n.rodata\n.p2align 6\n'
    printf '.amdhsa_kernel vmcnt\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 72\n'
    printf '  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 72\n.end_amdhsa_kernel\n'
  } > "$2"
}

@test "vmcnt holds at most 63: after 64 loads the first is complete without a wait, after 63 it needs one" {
  vmcnt_kernel 64 "$T/v65.s"
  assemble "$T/v65.s" gfx90a "$T/v65.co"
  run "$ISA" "$T/v65.co" gfx90a vmcnt 128 64
  assert_success
  assert_line "out[64] = 0"
  assert_line "out[127] = 63"
  vmcnt_kernel 63 "$T/v64.s"
  assemble "$T/v64.s" gfx90a "$T/v64.co"
  run "$ISA" "$T/v64.co" gfx90a vmcnt 128 64
  assert_failure 1
  assert_output --partial "(global_store_dword): missing s_waitcnt: v2 is still being written by the load at 0x"
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

@test "gfx12 scalar float: arithmetic, fma forms, min/max (num and IEEE maximum), compares, conversions, f16, v_s_rsq" {
  assemble "$DATA/sfloat_gfx1200.s" gfx1200 "$T/sf.co"
  run "$ISA" "$T/sf.co" gfx1200 sfloat 32
  assert_success
  # f32: 1.5 + -2.25, 1.5 - -2.25, 1.5 * -2.25, 1.0 + 1.5 * -2.25, 1.5 * -2.25 + 2, 1.5 * 2 + -2.25
  assert_line "out[0] = $((0xbf400000))"
  assert_line "out[1] = $((0x40700000))"
  assert_line "out[2] = $((0xc0580000))"
  assert_line "out[3] = $((0xc0180000))"
  assert_line "out[4] = $((0xbfb00000))"
  assert_line "out[5] = $((0x3f400000))"
  # min_num(NaN, 1.5) = 1.5; minimum(NaN, 1.5) = NaN; maximum(1.5, -2.25); max_num(-2.25, NaN)
  assert_line "out[6] = $((0x3fc00000))"
  assert_line "out[7] = $((0x7fc00000))"
  assert_line "out[8] = $((0x3fc00000))"
  assert_line "out[9] = $((0xc0100000))"
  # SCC of o(1.5, NaN), u(1.5, NaN), lt(-2.25, 1.5), neq(NaN, NaN), nge(1.5, -2.25)
  for kv in 10=0 11=1 12=1 13=1 14=0; do assert_line "out[${kv%=*}] = ${kv#*=}"; done
  # cvt_i32(-2.25) = -2, cvt_f32_i32(-3), ceil(-2.25), floor(1.5), rndne(2.5) = 2
  assert_line "out[15] = 4294967294"
  assert_line "out[16] = $((0xc0400000))"
  assert_line "out[17] = $((0xc0000000))"
  assert_line "out[18] = $((0x3f800000))"
  assert_line "out[19] = $((0x40000000))"
  # f16: cvt(1.5), pk_rtz(1.5, -2.25), 1.5 + -2.25, 1.5 * -2.25, cvt_hi of the packed pair,
  # gt(1.5, -2.25), maximum, cvt_f32_f16(1.5); trunc(-2.25); cvt_u32(-2.25) clamps to 0
  assert_line "out[20] = $((0x3e00))"
  assert_line "out[21] = $((0xc0803e00))"
  assert_line "out[22] = $((0xba00))"
  assert_line "out[23] = $((0xc2c0))"
  assert_line "out[24] = $((0xc0100000))"
  assert_line "out[25] = 1"
  assert_line "out[26] = $((0x3e00))"
  assert_line "out[27] = $((0x3fc00000))"
  assert_line "out[28] = $((0xc0000000))"
  assert_line "out[29] = 0"
  # the VALU-encoded scalar transcendental v_s_rsq_f32(4.0)
  assert_line "out[30] = $((0x3f000000))"
  assert_line "out[31] = 31"
}

@test "gfx12 scalar loads: s_load_u8/i8/u16/i16 zero- or sign-extend, immediate, SGPR and negative offsets; s_load_b96" {
  assemble "$DATA/sload_gfx1200.s" gfx1200 "$T/sl.co"
  run "$ISA" "$T/sl.co" gfx1200 sload 17
  assert_success
  # the pattern bytes e3 f2 81 80 | 02 7e 01 7f
  assert_line "out[0] = $((0x8081f2e3))"
  assert_line "out[1] = $((0x7f017e02))"
  # u8 and i8 of byte 0 (0xe3); i8 of byte 5 (0x7e, positive)
  assert_line "out[2] = $((0xe3))"
  assert_line "out[3] = $((0xffffffe3))"
  assert_line "out[4] = $((0x7e))"
  # byte 3 through s14 = 2 plus offset:1: 0x80 zero- and sign-extended
  assert_line "out[5] = $((0x80))"
  assert_line "out[6] = $((0xffffff80))"
  # half-word at 2 (0x8081) and at 6 (0x7f01), u16 and i16
  assert_line "out[7] = $((0x8081))"
  assert_line "out[8] = $((0xffff8081))"
  assert_line "out[9] = $((0x7f01))"
  assert_line "out[10] = $((0x7f01))"
  # base out + 4 with offsets -4 (i16 of bytes e3 f2) and -1 (u8 of byte 3)
  assert_line "out[11] = $((0xfffff2e3))"
  assert_line "out[12] = $((0x80))"
  # three dwords: the two pattern words and out[2]'s initial 2
  assert_line "out[13] = $((0x8081f2e3))"
  assert_line "out[14] = $((0x7f017e02))"
  assert_line "out[15] = 2"
  assert_line "out[16] = 16"
}

@test "the f32 division sequence by a denominator near the top of the range (tanh of +-44.2: 2 / (1 + e^88.4)) is not NaN" {
  cat > "$T/tanh.mlir" <<'M'
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %t = tosa.tanh %x : (tensor<8xf32>) -> tensor<8xf32>
  return %t : tensor<8xf32>
}
M
  "$BIN/tosac" "$T/tanh.mlir" --offload-arch=$TARGETS -o "$T/tanh.hipfb"
  for t in gfx90a gfx1030 gfx1100; do
    run "$BIN/tosac-run" "$T/tanh.hipfb" --target=$t --exec=isa --input="8xf32=-44.2 44.2 -44.35 44.06 -43 88 -0.5 0.5"
    assert_success
    assert_line "8xf32=-1 1 -1 1 -1 1 -0.46211717 0.46211717"
  done
}

@test "integer clamp saturates unsigned add and subtract (u32, u16, with carry-out) instead of wrapping" {
  assemble "$DATA/clamp_gfx90a.s" gfx90a "$T/c.co"
  run "$ISA" "$T/c.co" gfx90a clamp 64
  assert_success
  for i in 0 2 3 4 5 6 31 40 41 63; do
    a=$((i > 3 ? i - 3 : 0)) b=$((i < 31 ? i : 31)) c=$((i > 40 ? i - 40 : 0)) d=$((i > 5 ? i - 5 : 0))
    assert_line "out[$i] = $((a | b << 8 | c << 16 | d << 24))"
  done
}

@test "TOSAC_ISA_OPCODES lists the distinct opcodes executed, one 'processor mnemonic' line each" {
  "$BIN/tosac" "$ROOT/samples/gelu.mlir" --offload-arch=gfx90a,gfx1100 -o "$T/g.hipfb"
  for t in gfx90a gfx1100; do
    TOSAC_ISA_OPCODES="$T/ops.txt" "$BIN/tosac-run" "$T/g.hipfb" --target=$t --input="1x128x768xf32=0.5" --output=
  done
  run grep -c "^gfx90a s_endpgm$" "$T/ops.txt"
  assert_output 1
  run grep -c "^gfx1100 s_endpgm$" "$T/ops.txt"
  assert_output 1
  grep -q "^gfx90a global_load_dword" "$T/ops.txt"
  grep -q "^gfx1100 global_load_b" "$T/ops.txt"
  # one line per distinct opcode and target
  [ "$(sort "$T/ops.txt" | uniq -d | wc -l)" -eq 0 ]
  # without the variable nothing is written
  rm "$T/ops.txt"
  "$BIN/tosac-run" "$T/g.hipfb" --target=gfx90a --input="1x128x768xf32=0.5" --output=
  [ ! -e "$T/ops.txt" ]
}

@test "hazards: an MFMA result read too early, or a VALU result fed to an MFMA too early, is reported (gfx90a, gfx942)" {
  assemble "$DATA/mfma_gfx90a.s" gfx90a "$T/m.co"
  run "$ISA" "$T/m.co" gfx90a mfma 64
  assert_success
  assert_line "out[0] = 8"
  assert_line "out[63] = 71"
  # the s_nop pair between the 16-pass MFMA and v_accvgpr_read removed: 0 of 19 wait states
  sed '/s_nop 15/d;/s_nop 2/d' "$DATA/mfma_gfx90a.s" > "$T/nonop.s"
  assemble "$T/nonop.s" gfx90a "$T/nonop.co"
  run "$ISA" "$T/nonop.co" gfx90a mfma 64
  assert_failure 1
  assert_output "error: kernel mfma, work-group (0,0,0), wave 0, instruction at 0x1334 (v_accvgpr_read_b32): hazard: lane 0 reads a0 0 wait states after the v_mfma_f32_32x32x8f16 at 0x132c; gfx90a needs 19"
  # one wait state short
  sed 's/s_nop 2$/s_nop 1/' "$DATA/mfma_gfx90a.s" > "$T/short.s"
  assemble "$T/short.s" gfx90a "$T/short.co"
  run "$ISA" "$T/short.co" gfx90a mfma 64
  assert_failure 1
  assert_output --partial "(v_accvgpr_read_b32): hazard: lane 0 reads a0 18 wait states after the v_mfma_f32_32x32x8f16 at 0x132c; gfx90a needs 19"
  # the s_nop 1 between v_mov_b32 v3 and the MFMA reading it removed
  sed '/s_nop 1$/d' "$DATA/mfma_gfx90a.s" > "$T/novalu.s"
  assemble "$T/novalu.s" gfx90a "$T/novalu.co"
  run "$ISA" "$T/novalu.co" gfx90a mfma 64
  assert_failure 1
  assert_output "error: kernel mfma, work-group (0,0,0), wave 0, instruction at 0x1328 (v_mfma_f32_32x32x8f16): hazard: lane 0 reads v3 0 wait states after the v_mov_b32 at 0x1320; gfx90a needs 2"
  # gfx942: the same MFMA is 8 passes there and XDL, so 11 wait states (s_nop 10) suffice...
  sed -e 's/gfx90a/gfx942/; s/v_mfma_f32_32x32x8f16/v_mfma_f32_32x32x8_f16/; s/s_nop 15$/s_nop 10/; /s_nop 2$/d' \
    "$DATA/mfma_gfx90a.s" > "$T/m942.s"
  assemble "$T/m942.s" gfx942 "$T/m942.co"
  run "$ISA" "$T/m942.co" gfx942 mfma 64
  assert_success
  assert_line "out[63] = 71"
  # ...and 10 do not
  sed 's/s_nop 10$/s_nop 9/' "$T/m942.s" > "$T/s942.s"
  assemble "$T/s942.s" gfx942 "$T/s942.co"
  run "$ISA" "$T/s942.co" gfx942 mfma 64
  assert_failure 1
  assert_output --regexp "^error: kernel mfma, work-group \(0,0,0\), wave 0, instruction at 0x[0-9a-f]+ \(v_accvgpr_read_b32\): hazard: lane 0 reads a0 10 wait states after the v_mfma_f32_32x32x8_f16 at 0x[0-9a-f]+; gfx942 needs 11$"
}

@test "planted fault: a kernel reading workspace bytes nothing wrote in this run (the producer's output redirected)" {
  TOSAC="$BIN/tosac"
  RUN="$BIN/tosac-run"
  cat > "$T/sk.mlir" <<'EOF2'
func.func @main(%a: tensor<1x64x4096xf32>, %b: tensor<1x4096x64xf32>) -> tensor<1x64x64xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.matmul %a, %b, %z, %z : (tensor<1x64x4096xf32>, tensor<1x4096x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  return %r : tensor<1x64x64xf32>
}
EOF2
  # split-K: launch 0 writes 4 partial products to the workspace, launch 1 adds them up
  TOSAC_SPLIT_K=4 TOSAC_SPLIT_K_FORM=combine "$TOSAC" "$T/sk.mlir" --offload-arch=gfx90a -o "$T/sk.hipfb"
  run "$RUN" "$T/sk.hipfb" --exec=isa --input=1x64x4096xf32=1 --input=1x4096x64xf32=0.5 --print_max_element_count=2
  assert_success
  assert_line "1x64x64xf32=[[2048 2048...]]"
  # the partials go to input 0 instead: the combine kernel reads a workspace nobody wrote
  $PY -c "
import json, sys
m = json.load(open(sys.argv[1]))
a = m['targets'][0]['kernels'][0]['args'][2]
assert a['name'] == 'out0' and a['buffer'] == 3, a
a['buffer'] = 0
json.dump(m, open(sys.argv[2], 'w'))" "$T/sk.json" "$T/redir.json"
  # work-groups run on several threads; the lowest failing work-group is the one reported, every time
  for threads in 1 2 8 8 8; do
    TOSAC_RUN_THREADS=$threads run "$RUN" "$T/sk.hipfb" --manifest="$T/redir.json" --exec=isa --input=1x64x4096xf32=1 --input=1x4096x64xf32=0.5
    assert_failure 1
    assert_output --regexp "^tosac-run: error: launch 1: kernel tosac_k1_matmul_combine, work-group \(0,0,0\), wave 0, instruction at 0x[0-9a-f]+ \(global_load_dword\): lane 0 loads 4 bytes at workspace\+0, of which byte 0 was not written by anything in this run$"
  done
}

@test "planted fault: a wave64 kernel whose descriptor says wave32 is refused at load (gfx1100)" {
  llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx1100 -mattr=+wavefrontsize64 -filetype=obj \
    "$DATA/wave64_gfx1100.s" -o "$T/w.o"
  ld.lld-22 -shared "$T/w.o" -o "$T/w.co"
  run "$ISA" "$T/w.co" gfx1100 wave64 64 64
  assert_success
  assert_line "out[39] = 40"
  assert_line "out[40] = 40"
  assert_line "out[63] = 63"
  # kernel_code_properties bit 10: ENABLE_WAVEFRONT_SIZE32
  $PY "$DATA/kdpatch.py" "$T/w.co" wave64 56 0x400 0x400 "$T/w32.co"
  run "$ISA" "$T/w32.co" gfx1100 wave64 64 64
  assert_failure 1
  assert_output "error: kernel wave64: instruction at 0x131c (s_and_saveexec_b64) uses the 64-bit EXEC of wave64 code, but the descriptor says wave32"
}

@test "bad input: more SGPRs or VGPRs than the target has, an undecodable word, code without s_endpgm, garbage and a cut code object" {
  # COMPUTE_PGM_RSRC1 bits 9:6 (SGPR granules of 8) at their maximum: 128 SGPRs on gfx90a
  assemble "$DATA/basic_gfx90a.s" gfx90a "$T/b.co"
  $PY "$DATA/kdpatch.py" "$T/b.co" basic 48 0x3c0 0x3c0 "$T/sgpr.co"
  run "$ISA" "$T/sgpr.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic: the descriptor allocates 128 SGPRs, more than gfx90a has (112)"
  sed 's/.amdhsa_next_free_vgpr 8/.amdhsa_next_free_vgpr 400/' "$DATA/basic_gfx1100.s" > "$T/vgpr.s"
  assemble "$T/vgpr.s" gfx1100 "$T/vgpr.co"
  run "$ISA" "$T/vgpr.co" gfx1100 basic 32
  assert_failure 1
  assert_output "error: kernel basic: the descriptor allocates 400 VGPRs, more than gfx1100 has (256)"
  # accum_offset beyond the VGPRs allocated (AGPRs of the unified file)
  $PY "$DATA/kdpatch.py" "$T/b.co" basic 44 0x3f 0x3f "$T/acc.co"
  run "$ISA" "$T/acc.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic: accum_offset 256 is beyond the 8 VGPRs allocated"
  sed 's/^  s_mov_b32 s4, -1$/  s_mov_b32 s4, -1\n  .long 0xffffffff/' "$DATA/basic_gfx90a.s" > "$T/inv.s"
  assemble "$T/inv.s" gfx90a "$T/inv.co"
  run "$ISA" "$T/inv.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic: invalid instruction encoding at 0x131c"
  sed '/s_endpgm/d' "$DATA/basic_gfx90a.s" > "$T/noend.s"
  assemble "$T/noend.s" gfx90a "$T/noend.co"
  run "$ISA" "$T/noend.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic, work-group (0,0,0), wave 0, instruction at 0x1370 ((end of code)): the wave ran off the end of the kernel's code without s_endpgm"
  echo garbage > "$T/garbage.co"
  run "$ISA" "$T/garbage.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: not a 64-bit little-endian ELF code object (8 bytes)"
  head -c $(($(stat -c %s "$T/b.co") / 2)) "$T/b.co" > "$T/cut.co"
  run "$ISA" "$T/cut.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: ELF section headers lie outside the file"
}

@test "encodings LLVM 22's disassembler crashes on (a literal it cannot read) are refused with an error" {
  # A literal source in a 64-bit encoding: gfx908..gfx942 instructions are at most 8 bytes long.
  sed 's/^  s_mov_b32 s4, -1$/  s_mov_b32 s4, -1\n  .long 0xd2000001, 0x04910eff/' "$DATA/basic_gfx90a.s" > "$T/vop3.s"
  assemble "$T/vop3.s" gfx90a "$T/vop3.co"
  run "$ISA" "$T/vop3.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic: instruction at 0x131c asks for a literal constant in its src0 field, which gfx90a cannot encode"
  sed 's/^  s_mov_b32 s4, -1$/  s_mov_b32 s4, -1\n  .long 0xe0501000, 0xff010201/' "$DATA/basic_gfx90a.s" > "$T/mubuf.s"
  assemble "$T/mubuf.s" gfx90a "$T/mubuf.co"
  run "$ISA" "$T/mubuf.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic: instruction at 0x131c asks for a literal constant in its soffset field, which gfx90a cannot encode"
  # the code object fuzz-isa found (tests/fuzz/regress/isa/): a buffer load's soffset on gfx942
  run "$ISA" "$ROOT/tests/fuzz/regress/isa/disasm-literal-soffset.co" gfx942 tosac_k0_matmul 64
  assert_failure 1
  assert_output "error: kernel tosac_k0_matmul: instruction at 0x199c asks for a literal constant in its soffset field, which gfx942 cannot encode"
  # A literal cut off by the end of the kernel's code (SOP1 on gfx90a, VOP3 on gfx1100).
  sed 's/^  s_endpgm$/  .long 0xbe8400ff/' "$DATA/basic_gfx90a.s" > "$T/cut.s"
  assemble "$T/cut.s" gfx90a "$T/cut.co"
  run "$ISA" "$T/cut.co" gfx90a basic 64
  assert_failure 1
  assert_output "error: kernel basic: the instruction at 0x1370 (8 bytes) runs past the end of the kernel's code"
  sed 's/^  s_endpgm$/  .long 0xd5030000, 0x000200ff/' "$DATA/basic_gfx1100.s" > "$T/cut11.s"
  assemble "$T/cut11.s" gfx1100 "$T/cut11.co"
  run "$ISA" "$T/cut11.co" gfx1100 basic 32
  assert_failure 1
  assert_output "error: kernel basic: the instruction at 0x1370 (12 bytes) runs past the end of the kernel's code"
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

@test "gfx11 v_minmax (the min, then the max) and v_maxmin (the max, then the min), f32 and true16 f16" {
  assemble "$DATA/minmax_gfx1100.s" gfx1100 "$T/mm.co"
  run "$ISA" "$T/mm.co" gfx1100 minmax 32
  assert_success
  for i in 0 4 5 6 19 20 21 31; do
    c=$((i < 5 ? 5 : i > 20 ? 20 : i))
    assert_line "out[$i] = $((c | c << 8 | c << 16 | c << 24))"
  done
}

@test "v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32: FNUZ codes on gfx942, OCP on gfx950, either half of the word, against the oracle's decode table" {
  # cvt8_ref.py rounds by the decode table alone (nearest code, ties to even, overflow to NaN or
  # infinity); the data has ties, subnormals, -0 and values past every format's largest
  for t in gfx942 gfx950; do
    sed "s/gfx942/$t/" "$DATA/cvt8.s" > "$T/cvt8.s"
    assemble "$T/cvt8.s" $t "$T/c8.co"
    run "$ISA" "$T/c8.co" $t cvt8 128
    assert_success
    "$PY" "$DATA/cvt8_ref.py" $t "$ROOT/tests/oracle" > "$T/want.txt"
    diff "$T/want.txt" <(printf '%s\n' "${lines[@]}")
  done
}

@test "gfx1200 v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 (OCP, either half of the word) against the oracle's decode table" {
  assemble "$DATA/cvt8_gfx1200.s" gfx1200 "$T/c8.co"
  run "$ISA" "$T/c8.co" gfx1200 cvt8 128 64
  assert_success
  "$PY" "$DATA/cvt8_ref.py" gfx1200 "$ROOT/tests/oracle" > "$T/want.txt"
  diff "$T/want.txt" <(printf '%s\n' "${lines[@]}")
}

@test "v_cvt_f32_fp8 / v_cvt_pk_f32_bf8: every code to its f32 (NaN to 0x7fc00000), each byte and word select: SDWA on gfx942 (FNUZ) and gfx950, byte_sel / op_sel on gfx1200" {
  for t in gfx942 gfx950 gfx1200; do
    if [ $t = gfx1200 ]; then
      cp "$DATA/cvt8_gfx1200.s" "$T/d8.s"
    else
      sed "s/gfx942/$t/" "$DATA/cvt8.s" > "$T/d8.s"
    fi
    assemble "$T/d8.s" $t "$T/d8.co"
    run "$ISA" "$T/d8.co" $t dec8 512 64
    assert_success
    "$PY" "$DATA/dec8_ref.py" $t "$ROOT/tests/oracle" > "$T/want.txt"
    diff "$T/want.txt" <(printf '%s\n' "${lines[@]}")
  done
  # gfx1200, lane 31 (codes 0x7c .. 0x7f): E4M3FN 0x7c = 384, 0x7f = NaN; E5M2 0x7c = Inf
  assert_line "out[248] = $((0x43c00000))"
  assert_line "out[251] = $((0x7fc00000))"
  assert_line "out[252] = $((0x7f800000))"
}

# the word out[i] of a kernel that stores v_cvt_i32_f32 results, as test-isa prints it
u32() { echo $((($1 + 4294967296) % 4294967296)); }

@test "gfx950 block-scaled MFMA with fp4 A and B: lane layout, scale byte select, C/D layout (16x16x128, 32x32x64)" {
  assemble "$DATA/mfma_scale_gfx950.s" gfx950 "$T/s.co"
  # mfma16: D[i][j] = A(i) * (48 * 2^(j%4) - 240), A(i) = 1 for even rows and 3 for odd ones;
  # lane L's register r is D[4 (L/16) + r][L % 16]
  run "$ISA" "$T/s.co" gfx950 mfma16 256
  assert_success
  f16=(-192 -144 -48 144)
  for L in 0 1 2 3 17 30 63; do
    for r in 0 1 2 3; do
      assert_line "out[$((4 * L + r))] = $(u32 $(((r % 2 ? 3 : 1) * ${f16[L % 4]})))"
    done
  done
  # mfma32: D[i][j] = A(i) * (j % 2 ? 32 : -128); lane L's register r is row 8 (r/4) + 4 (L/32) + r % 4
  run "$ISA" "$T/s.co" gfx950 mfma32 1024
  assert_success
  for L in 0 1 31 32 33 63; do
    for r in 0 1 5 15; do
      assert_line "out[$((16 * L + r))] = $(u32 $(((r % 2 ? 3 : 1) * (L % 2 ? 32 : -128))))"
    done
  done
  # planted faults: the A scale read from byte 0 (0x00, 2^-127) instead of byte 1 makes every
  # product vanish; an fp8 A format is refused (its lane layout is not confirmed)
  sed 's/op_sel:\[1,0,0\] op_sel_hi:\[0,1,0\]/op_sel_hi:[0,1,0]/' "$DATA/mfma_scale_gfx950.s" > "$T/byte0.s"
  assemble "$T/byte0.s" gfx950 "$T/byte0.co"
  run "$ISA" "$T/byte0.co" gfx950 mfma16 256
  assert_success
  assert_line "out[0] = 0"
  assert_line "out[255] = 0"
  sed 's/\(v_mfma_scale_f32_16x16x128_f8f6f4 v\[20:23\]\), v\[4:7\]\(.*\)cbsz:4/\1, v[24:31]\2cbsz:0/' \
    "$DATA/mfma_scale_gfx950.s" > "$T/fp8.s"
  assemble "$T/fp8.s" gfx950 "$T/fp8.co"
  run "$ISA" "$T/fp8.co" gfx950 mfma16 256
  assert_failure 1
  assert_output --partial "(v_mfma_scale_f32_16x16x128_f8f6f4): llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4: formats A 0 / B 4: only fp4 (E2M1, format 4) operands are emulated"
}

@test "gfx950 block-scaled MFMA as llc-22 compiles it (its wait states, an inline-constant C) matches the layout's reference" {
  llc-22 -O2 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj "$DATA/mfma_scale_llc.ll" -o "$T/l.o"
  ld.lld-22 -shared "$T/l.o" -o "$T/l.co"
  llvm-objdump-22 -d --mcpu=gfx950 "$T/l.co" | grep -q "v_mfma_scale_f32_16x16x128_f8f6f4 .* op_sel:\[1,0,0\] op_sel_hi:\[1,0,0\] cbsz:4 blgp:4"
  run "$ISA" "$T/l.co" gfx950 mfma_llc 1024
  assert_success
  diff <(echo "$output" | head -256) <($PY "$DATA/mfma_scale_llc.py")
}
