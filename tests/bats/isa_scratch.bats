#!/usr/bin/env bats
# isa_scratch.bats: private (scratch) memory in the machine-code emulator (src/emu/isa_exec_scratch.c,
# docs/emulator.md "Scratch"). Hand-written kernels assembled with llvm-mc-22 run through test-isa
# with exact memory words: the private segment buffer V# and wave offset SGPR (gfx90a), scratch_*
# with architected flat scratch (gfx942, gfx1100, gfx1200) and with flat scratch init (gfx90a); accesses outside the private segment are
# errors naming kernel, wave, lane and instruction; tosac's attention kernel that spills to
# scratch on gfx1030 runs as machine code and matches the oracle.

load lib/isa

setup() {
  isa_setup
}

# every word of the output: out[i] = i + 1000 * (i % 4)
expected() { # n
  for ((i = 0; i < $1; i++)); do echo "out[$i] = $((i + 1000 * (i % 4)))"; done
}

@test "private segment buffer (gfx90a): two wave64 waves, buffer_* offen and offset through s[0:3] and the wave offset SGPR" {
  assemble "$DATA/scratch_gfx90a.s" gfx90a "$T/s.co"
  run "$ISA" "$T/s.co" gfx90a scratch_buf 128 128
  assert_success
  assert_output "$(expected 128)"
}

@test "scratch_*: architected flat scratch on gfx942 (wave64), gfx1100 and gfx1200 (two wave32 waves), flat scratch init on gfx90a; off, VGPR, SGPR and SGPR+VGPR addresses" {
  assemble "$DATA/scratch_gfx942.s" gfx942 "$T/a.co"
  run "$ISA" "$T/a.co" gfx942 scratch_arch 128 128
  assert_success
  assert_output "$(expected 128)"
  assemble "$DATA/scratch_gfx1100.s" gfx1100 "$T/f.co"
  run "$ISA" "$T/f.co" gfx1100 scratch_flat 64 64
  assert_success
  assert_output "$(expected 64)"
  assemble "$DATA/scratch_gfx1200.s" gfx1200 "$T/g.co"
  run "$ISA" "$T/g.co" gfx1200 scratch_g12 64 64
  assert_success
  assert_output "$(expected 64)"
  # gfx90a without architected flat scratch: flat scratch init and the wave offset into FLAT_SCRATCH
  assemble "$DATA/scratch_flat_gfx90a.s" gfx90a "$T/i.co"
  run "$ISA" "$T/i.co" gfx90a scratch_fsi 128 128
  assert_success
  assert_output "$(expected 128)"
}

@test "planted faults: a private access past the private segment, and a wave that does not add its wave offset" {
  # 16 bytes at offset 20 of a 32-byte private segment
  sed '0,/0 offen offset:16/s//0 offen offset:20/' "$DATA/scratch_gfx90a.s" > "$T/oob.s"
  assemble "$T/oob.s" gfx90a "$T/oob.co"
  run "$ISA" "$T/oob.co" gfx90a scratch_buf 128 128
  assert_failure
  assert_output "error: kernel scratch_buf, work-group (0,0,0), wave 0, instruction at 0x1344 (buffer_store_dwordx4): lane 0 writes 16 private bytes at offset 20, outside its private segment of 32 bytes"
  # without s_add_u32 s0, s0, s7 the second wave lands in the first wave's scratch
  sed '/s_add_u32 s0, s0, s7/d;/s_addc_u32 s1, s1, 0/d' "$DATA/scratch_gfx90a.s" > "$T/nooff.s"
  assemble "$T/nooff.s" gfx90a "$T/nooff.co"
  run "$ISA" "$T/nooff.co" gfx90a scratch_buf 128 128
  assert_failure
  assert_output "error: kernel scratch_buf, work-group (0,0,0), wave 1, instruction at 0x133c (buffer_store_dwordx4): lane 0 writes 16 private bytes at offset -16, outside its private segment of 32 bytes"
  # scratch_*: lane 0 reads offset 16 + 16 of 32 bytes
  sed 's/scratch_load_b32 v3, v9, s8$/scratch_load_b32 v3, v9, s8 offset:16/' "$DATA/scratch_gfx1100.s" > "$T/oob11.s"
  assemble "$T/oob11.s" gfx1100 "$T/oob11.co"
  run "$ISA" "$T/oob11.co" gfx1100 scratch_flat 64 64
  assert_failure
  assert_output "error: kernel scratch_flat, work-group (0,0,0), wave 0, instruction at 0x1358 (scratch_load_b32): lane 0 reads 4 private bytes at offset 32, outside its private segment of 32 bytes"
}

@test "a descriptor asking for more private memory than a wave's scratch holds (8 MiB) is a load error" {
  assemble "$DATA/scratch_gfx90a.s" gfx90a "$T/s.co"
  # 131072 bytes per work-item of a wave64: 8 MiB, the most; one byte more is refused
  $PY "$DATA/kdpatch.py" "$T/s.co" scratch_buf 4 0xffffffff 131072 "$T/max.co"
  run "$ISA" "$T/max.co" gfx90a scratch_buf 128 128
  assert_success
  assert_output "$(expected 128)"
  $PY "$DATA/kdpatch.py" "$T/s.co" scratch_buf 4 0xffffffff 131073 "$T/big.co"
  run "$ISA" "$T/big.co" gfx90a scratch_buf 128 128
  assert_failure 1
  assert_output "error: kernel scratch_buf: the descriptor asks for 131073 private bytes per work-item, 8388672 per wave, more than the 8388608 a wave's scratch can hold"
  # the code object fuzz-isa found (tests/fuzz/regress/isa/): 1.8 GB per work-item
  run "$ISA" "$ROOT/tests/fuzz/regress/isa/private-segment-huge.co" gfx1100 tosac_k1_reduce_sum 64
  assert_failure 1
  assert_output "error: kernel tosac_k1_reduce_sum: the descriptor asks for 1836539766 private bytes per work-item, 58769272512 per wave, more than the 8388608 a wave's scratch can hold"
}

@test "the FMA attention kernel (564 private bytes per lane on gfx1030) runs as machine code and matches the oracle" {
  cd "$T"
  export TOSAC_SPLIT_KV=0 # the whole-sequence kernel (the estimate splits one head's 200 keys)
  /usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" bert --seq=200 --hidden=128 --heads=1 --mask --dtype=f16 --seed=10 > b200.mlir
  run "$BIN/tosac" b200.mlir --offload-arch=gfx1030 --emit=asm -o b200.s
  assert_success
  run grep -c '\.private_segment_fixed_size: 564' b200.s
  assert_output 1
  TOSAC_EXEC=isa TOSAC_HIPEMU_EXEC=isa run /usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" \
    --tosac-run "$BIN/tosac-run" b200.mlir --targets=gfx1030
  assert_success
  assert_line "ok b200.mlir [gfx1030]: 1 results match"
  # the harness fails on a wrong reference
  TOSAC_EXEC=isa run /usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" \
    --tosac-run "$BIN/tosac-run" b200.mlir --targets=gfx1030 --corrupt
  assert_failure
}
