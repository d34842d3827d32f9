#!/usr/bin/env bats
# GEMM kernels on RDNA (gfx1030, gfx1100, gfx1200) and odd sizes: the FMA path's dot
# instructions and 16-byte fragment reads, the gfx12 64x64 WMMA wave tile, the static quality
# model's shares (docs/quality.md, docs/bench.md#kernel-quality), no spills for shapes off the tile grid,
# and oracle agreement on seeded random shapes that are no tile multiples.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export ROOT
  export TOSAC_BUILD="${TOSAC_BUILD:-build}"
  export BIN="$ROOT/$TOSAC_BUILD/bin"
  export MM="$BATS_FILE_TMPDIR/mm.py"
  cat > "$MM" <<'PY'
#!/usr/bin/python3
"""mm.py B M K N TYPE [ZP]: one tosa.matmul graph on stdout (zero points ZP for i8)."""
import sys
b, m, k, n = (int(x) for x in sys.argv[1:5])
et = sys.argv[5]
zp = sys.argv[6] if len(sys.argv) > 6 else "0"
acc = "i32" if et == "i8" else "f32"
zero = zp if et == "i8" else "0.0"
rng = "-8 8" if et == "i8" else "-2 2"
a, bt, r = f"tensor<{b}x{m}x{k}x{et}>", f"tensor<{b}x{k}x{n}x{et}>", f"tensor<{b}x{m}x{n}x{acc}>"
print(f"""// oracle: arg 0 {rng}
// oracle: arg 1 {rng}
func.func @main(%a: {a}, %b: {bt}) -> {r} {{
  %z = "tosa.const"() <{{values = dense<{zero}> : tensor<1x{et}>}}> : () -> tensor<1x{et}>
  %r = tosa.matmul %a, %b, %z, %z : ({a}, {bt}, tensor<1x{et}>, tensor<1x{et}>) -> {r}
  return %r : {r}
}}""")
PY
  # a tile whose B staging gives every thread two k rows (k-pair staging of an n-contiguous B)
  printf '#!/bin/sh\nexec "%s" "$@" --perf-config=bm=128,bn=128,bk=64,wm=64,wn=32,mma=16\n' "$BIN/tosac" > "$BATS_FILE_TMPDIR/tosac-pairs"
  chmod +x "$BATS_FILE_TMPDIR/tosac-pairs"
  printf '#!/bin/sh\nexec "%s" "$@" --perf-config=bm=128,bn=128,bk=32,wm=64,wn=32,mma=16\n' "$BIN/tosac" > "$BATS_FILE_TMPDIR/tosac-pairs16"
  chmod +x "$BATS_FILE_TMPDIR/tosac-pairs16"
  # the FMA path forced on WMMA targets
  printf '#!/bin/sh\nexec "%s" "$@" --perf-config=mma=fma\n' "$BIN/tosac" > "$BATS_FILE_TMPDIR/tosac-fma"
  chmod +x "$BATS_FILE_TMPDIR/tosac-fma"
}

# mm NAME B M K N TYPE [ZP]: write $BATS_FILE_TMPDIR/NAME.mlir
mm() {
  local name=$1
  shift
  /usr/bin/python3 "$MM" "$@" > "$BATS_FILE_TMPDIR/$name.mlir"
}

# oracle NAME TARGETS [TOSAC]: tosac + tosac-run against the MLIR oracle
oracle() {
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$BATS_FILE_TMPDIR/$1.mlir" --targets="$2" ${3:+--tosac=$3}
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# disasm NAME TARGET: the code object of TARGET from NAME.hipfb, disassembled to NAME_TARGET.dis
disasm() {
  clang-offload-bundler-22 -type=o -unbundle -input="$BATS_FILE_TMPDIR/$1.hipfb" \
    -targets="hipv4-amdgcn-amd-amdhsa--$2" -output="$BATS_FILE_TMPDIR/$1_$2.co"
  llvm-objdump-22 -d --mcpu="$2" "$BATS_FILE_TMPDIR/$1_$2.co" > "$BATS_FILE_TMPDIR/$1_$2.dis"
}

@test "127x255x63 f16 and a 13x13x96->200 conv: no spills or scratch on gfx950, gfx1100, gfx1200; odd runs take bk = 16 in the default tiles" {
  mm odd 1 127 255 63 f16
  run "$BIN/tosac" "$BATS_FILE_TMPDIR/odd.mlir" --offload-arch=gfx950,gfx1100,gfx1200 \
    -o "$BATS_FILE_TMPDIR/odd.hipfb" --manifest="$BATS_FILE_TMPDIR/odd.json"
  assert_success
  # gemm_tiles.c's default tiles (the estimate's pick above is a 32x64 or 64x32 tile of 16x16
  # waves, bk 32): a perf-config naming only the instruction keeps them
  run "$BIN/tosac" "$BATS_FILE_TMPDIR/odd.mlir" --offload-arch=gfx950 --perf-config=mma=32 \
    -o "$BATS_FILE_TMPDIR/oddd.hipfb" --manifest="$BATS_FILE_TMPDIR/oddd.json"
  assert_success
  run "$BIN/tosac" "$BATS_FILE_TMPDIR/odd.mlir" --offload-arch=gfx1100,gfx1200 --perf-config=mma=16 \
    -o "$BATS_FILE_TMPDIR/oddw.hipfb" --manifest="$BATS_FILE_TMPDIR/oddw.json"
  assert_success
  cat > "$BATS_FILE_TMPDIR/cv.mlir" <<'M'
func.func @main(%x: tensor<1x13x13x96xf16>, %w: tensor<200x3x3x96xf16>, %b: tensor<200xf16>) -> tensor<1x13x13x200xf16> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x13x13x96xf16>, tensor<200x3x3x96xf16>, tensor<200xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x13x13x200xf16>
  return %0 : tensor<1x13x13x200xf16>
}
M
  run "$BIN/tosac" "$BATS_FILE_TMPDIR/cv.mlir" --offload-arch=gfx950,gfx1100,gfx1200 -o "$BATS_FILE_TMPDIR/cv.hipfb"
  assert_success
  cd "$BATS_FILE_TMPDIR"
  for g in odd cv; do
    for t in gfx950 gfx1100 gfx1200; do
      disasm $g $t
      llvm-readelf-22 --notes ${g}_$t.co > ${g}_$t.notes
    done
  done
  disasm oddd gfx950
  disasm oddw gfx1100
  disasm oddw gfx1200
  for c in oddd_gfx950 oddw_gfx1100 oddw_gfx1200; do llvm-readelf-22 --notes $c.co > $c.notes; done
  run /usr/bin/python3 - <<'PY'
import json, re
for g, t in [(g, t) for g in ("odd", "cv") for t in ("gfx950", "gfx1100", "gfx1200")] + \
            [("oddd", "gfx950"), ("oddw", "gfx1100"), ("oddw", "gfx1200")]:
        note = open(f"{g}_{t}.notes").read()
        for k in ("vgpr_spill_count", "sgpr_spill_count", "private_segment_fixed_size"):
            vals = [int(x) for x in re.findall(rf"\.{k}:\s+(\d+)", note)]
            assert vals and all(v == 0 for v in vals), (g, t, k, vals)
man = {t["processor"]: t for f in ("oddd.json", "oddw.json") for t in json.load(open(f))["targets"]}
print(" ".join(f"{t}:{man[t]['kernels'][0]['tuning']['bk']}" for t in ("gfx950", "gfx1100", "gfx1200")))
PY
  assert_success
  assert_output "gfx950:16 gfx1100:16 gfx1200:16"
}

@test "FMA path: dot instructions and 16-byte LDS fragment reads in the main loop (gfx1030 f16/i8, gfx1100 bf16/f32, gfx1200 i8)" {
  mm ff16 1 2048 2048 2048 f16
  mm fi8 1 256 256 256 i8
  mm fbf16 1 256 256 256 bf16
  mm ff32 1 256 256 256 f32
  cd "$BATS_FILE_TMPDIR"
  "$BIN/tosac" ff16.mlir --offload-arch=gfx1030 -o ff16.hipfb --manifest=ff16.json
  "$BIN/tosac" fi8.mlir --offload-arch=gfx1030 -o fi8.hipfb
  "$BIN/tosac" fbf16.mlir --offload-arch=gfx1100 --perf-config=mma=fma -o fbf16.hipfb
  "$BIN/tosac" ff32.mlir --offload-arch=gfx1100 -o ff32.hipfb
  "$BIN/tosac" fi8.mlir --offload-arch=gfx1200 --perf-config=mma=fma -o fi8w.hipfb
  disasm ff16 gfx1030
  disasm fi8 gfx1030
  disasm fbf16 gfx1100
  disasm ff32 gfx1100
  disasm fi8w gfx1200
  run /usr/bin/python3 - <<'PY'
import json
checks = [("ff16_gfx1030", "v_dot2c_f32_f16"), ("fi8_gfx1030", "v_dot4c_i32_i8"),
          ("fbf16_gfx1100", "v_dot2_f32_bf16"), ("ff32_gfx1100", "fmac_f32"),
          ("fi8w_gfx1200", "v_dot4_i32_iu8")]
for name, op in checks:
    dis = open(f"{name}.dis").read()
    assert op in dis, (name, op)
    assert ("ds_read_b128" if name.endswith("gfx1030") else "ds_load_b128") in dis, name
# the FMA instruction tile: 8x8 lanes of 8x8 micro-tiles (wave32), 16 bytes of k
tun = json.load(open("ff16.json"))["targets"][0]["kernels"][0]["tuning"]
print(tun["mma"], tun["wm"], tun["wn"])
PY
  assert_success
  assert_output "64x32x8 64 32"
}

@test "quality model: >= 80 % FMA slots (gfx1030 f32, bf16, i8) and WMMA (gfx1200 f16, i8) on 4096^3, no spills" {
  cd "$BATS_FILE_TMPDIR"
  mm q32 1 4096 4096 4096 f32
  mm qi8 1 4096 4096 4096 i8
  mm q16 1 4096 4096 4096 f16
  mm qb16 1 4096 4096 4096 bf16
  "$BIN/tosac" q32.mlir --offload-arch=gfx1030 -o q32.hipfb
  "$BIN/tosac" qi8.mlir --offload-arch=gfx1030 -o qi8.hipfb
  "$BIN/tosac" q16.mlir --offload-arch=gfx1200 -o q16.hipfb
  # bf16 on gfx1030 (no bf16 dot): staged into LDS as f32 (rows and their padding twice as wide: 61440 bytes)
  "$BIN/tosac" qb16.mlir --offload-arch=gfx1030 -o qb16.hipfb
  # i8 on gfx1200: the n-contiguous B is staged by k pairs (one v_perm_b32 per two n)
  "$BIN/tosac" qi8.mlir --offload-arch=gfx1200 -o qw8.hipfb
  for q in q32 qi8 q16 qb16 qw8; do
    "$BIN/tosac-bundle" quality $q.hipfb --no-mca | tail -n 1 > $q.txt
  done
  grep -q " 61440 " qb16.txt
  run /usr/bin/python3 - <<'PY'
# the RDNA estimate's tiles (codegen/tuning.c; on gfx1030 the defaults: its FMA candidates are
# at most 512 instructions per K tile)
for q, tile in (("q32", "128x64x16/64x32"), ("qi8", "128x64x64/64x32"), ("q16", "256x128x32/64x64"),
                ("qb16", "128x64x32/64x32"), ("qw8", "256x128x64/64x64")):
    f = open(f"{q}.txt").read().split()
    # target problem type tile instruction vgpr agpr lds w/s spill loop cycles model mma% ...
    assert f[3] == tile and f[9] == "0", (q, f)
    assert float(f[13]) >= 80.0, (q, f)
    print(q, f[12], f[13])
PY
  assert_success
  assert_line --partial "q32 fma "
  assert_line --partial "q16 wmma "
  assert_line --partial "qb16 fma "
  assert_line --partial "qw8 wmma "
}

@test "WMMA i8 with an n-contiguous B: k-pair staging (v_perm_b32, 2-byte LDS writes, no byte writes) matches the oracle" {
  mm w8 1 256 256 256 i8
  oracle w8 gfx1100,gfx1200
  # a tile whose B staging gives every thread two k rows (the heuristic's 8-wave tile gives one)
  cfg=bm=128,bn=128,bk=64,wm=64,wn=32,mma=16
  oracle w8 gfx1100,gfx1200 "$BATS_FILE_TMPDIR/tosac-pairs"
  "$BIN/tosac" "$BATS_FILE_TMPDIR/w8.mlir" --offload-arch=gfx1200 --perf-config=$cfg -o "$BATS_FILE_TMPDIR/w8.hipfb"
  disasm w8 gfx1200
  # one v_perm_b32 per two n of each k pair
  n=$(grep -c 'v_perm_b32' "$BATS_FILE_TMPDIR/w8_gfx1200.dis")
  [ "$n" -ge 8 ]
  run grep -c 'ds_store_b8 ' "$BATS_FILE_TMPDIR/w8_gfx1200.dis"
  assert_output 0
}

@test "seeded random shapes off the tile grid match the oracle: default paths on gfx1030, gfx1100, gfx1200" {
  # seed 13: five shapes per run, every type
  read -r -a S <<< "$(/usr/bin/python3 -c "
import random
r = random.Random(13)
print(' '.join(f'{r.randint(1,2)},{r.randint(17,90)},{r.randint(9,120)},{r.randint(17,90)}' for _ in range(4)))")"
  local i=0
  for et in f32 f16 bf16 i8; do
    IFS=, read -r b m k n <<< "${S[$i]}"
    mm r_$et "$b" "$m" "$k" "$n" $et
    oracle r_$et gfx1030,gfx1100,gfx1200
    i=$((i + 1))
  done
}

@test "the FMA path forced on gfx1100/gfx1200 and wave64 gfx90a (dots, 16-byte reads) and i8 zero points match the oracle" {
  mm x_f16 1 45 77 39 f16
  oracle x_f16 gfx90a,gfx1100,gfx1200 "$BATS_FILE_TMPDIR/tosac-fma"
  mm x_bf16 2 33 50 21 bf16
  oracle x_bf16 gfx90a,gfx1100,gfx1200 "$BATS_FILE_TMPDIR/tosac-fma"  # gfx90a: no bf16 dot, widened in LDS
  mm x_i8 1 29 70 43 i8
  oracle x_i8 gfx90a,gfx1100,gfx1200 "$BATS_FILE_TMPDIR/tosac-fma"
  mm x_i8zp 1 23 37 31 i8 3
  oracle x_i8zp gfx1030,gfx1200
}

@test "odd sizes match the oracle with clamped edge rows: 127x255x63 f16 and a 7x7x12->10 conv on gfx950, gfx1030, gfx1100, gfx1200" {
  mm o_f16 1 127 255 63 f16
  # 255 products of [-2, 2]^2 summed in f32: gfx12's WMMA adds each 16 k in its own order
  # (fragments read k permuted alike in A and B), which moves a sum by ~1e-5 (f32 rounding)
  sed -i '1i // oracle: result 0 err 4e-5' "$BATS_FILE_TMPDIR/o_f16.mlir"
  oracle o_f16 gfx950,gfx1030,gfx1100,gfx1200
  cat > "$BATS_FILE_TMPDIR/o_cv.mlir" <<'M'
// oracle: arg 0 -2 2
// oracle: arg 1 -2 2
// oracle: arg 2 -2 2
func.func @main(%x: tensor<1x7x7x12xf16>, %w: tensor<10x3x3x12xf16>, %b: tensor<10xf16>) -> tensor<1x7x7x10xf16> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x7x7x12xf16>, tensor<10x3x3x12xf16>, tensor<10xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x7x7x10xf16>
  return %0 : tensor<1x7x7x10xf16>
}
M
  oracle o_cv gfx950,gfx1030,gfx1100,gfx1200
  # bf16 on gfx1030: both operands widened to f32 in LDS, the weights as k-contiguous vectors
  sed 's/xf16>/xbf16>/g' "$BATS_FILE_TMPDIR/o_cv.mlir" > "$BATS_FILE_TMPDIR/o_cvb.mlir"
  oracle o_cvb gfx1030
}

@test "the RDNA estimate's tiles (above 4M multiply-adds, off the tile grid) match the oracle: f16 and bf16 k-pair B staging, gfx12 fragments; BERT tiles" {
  # seed 29: one shape per type with M and N no tile multiples (K and N multiples of 8: whole
  # 16-byte vectors, so that the k pairs apply) and >= 2^22 multiply-adds
  read -r -a S <<< "$(/usr/bin/python3 -c "
import random
r = random.Random(29)
print(' '.join(f'{r.randint(150,260)},{8 * r.randint(19,31)},{8 * r.randint(17,30)}' for _ in range(3)))")"
  local i=0
  for et in f16 bf16 i8; do
    IFS=, read -r m k n <<< "${S[$i]}"
    mm e_$et 1 "$m" "$k" "$n" $et
    oracle e_$et gfx1030,gfx1100,gfx1200
    "$BIN/tosac" "$BATS_FILE_TMPDIR/e_$et.mlir" --offload-arch=gfx1030,gfx1100,gfx1200 -o "$BATS_FILE_TMPDIR/e_$et.hipfb"
    run "$BIN/tosac-bundle" quality "$BATS_FILE_TMPDIR/e_$et.hipfb" --no-mca
    assert_success
    # three kernels, no spills (column 10)
    [ "$(echo "$output" | tail -n +2 | awk '$10 == 0' | wc -l)" -eq 3 ]
    i=$((i + 1))
  done
  # the 16-bit n-contiguous B goes to LDS as k pairs: 4-byte writes, no 2-byte ones (on a tile
  # with two k rows per thread: the heuristic's tiles here give one)
  for et in f16 bf16; do
    oracle e_$et gfx1100,gfx1200 "$BATS_FILE_TMPDIR/tosac-pairs16"
    "$BATS_FILE_TMPDIR/tosac-pairs16" "$BATS_FILE_TMPDIR/e_$et.mlir" --offload-arch=gfx1200 -o "$BATS_FILE_TMPDIR/e_$et.hipfb"
    disasm e_$et gfx1200
    run grep -c 'ds_store_b16' "$BATS_FILE_TMPDIR/e_${et}_gfx1200.dis"
    assert_output 0
    grep -q 'ds_store_2addr_b32\|ds_store_b32' "$BATS_FILE_TMPDIR/e_${et}_gfx1200.dis"
  done
  # BERT-base: the projection on gfx1030 takes a 128-byte K tile (bk 64, 4x4 micro-tiles); the FFN
  # 64x64 WMMA waves on 256x128 tiles
  mm e_proj 1 512 768 768 f16
  "$BIN/tosac" "$BATS_FILE_TMPDIR/e_proj.mlir" --offload-arch=gfx1030 -o "$BATS_FILE_TMPDIR/e_proj.hipfb"
  run "$BIN/tosac-bundle" quality "$BATS_FILE_TMPDIR/e_proj.hipfb" --no-mca
  assert_line --regexp '^gfx1030 .* 64x64x64/32x16 +fma .* fma +82\.[0-9] '
  mm e_big 1 512 768 3072 f16
  "$BIN/tosac" "$BATS_FILE_TMPDIR/e_big.mlir" --offload-arch=gfx1100,gfx1200 -o "$BATS_FILE_TMPDIR/e_big.hipfb"
  run "$BIN/tosac-bundle" quality "$BATS_FILE_TMPDIR/e_big.hipfb" --no-mca
  assert_success
  assert_line --regexp '^gfx1100 .* 256x128x32/64x64 +v_wmma_f32_16x16x16_f16 .* wmma +91\.[0-9] '
  assert_line --regexp '^gfx1200 .* 256x128x32/64x64 +v_wmma_f32_16x16x16_f16 .* wmma +88\.[0-9] '
}

@test "gfx12 WMMA fragments read with k permuted alike in A and B: f16 BERT and bf16 GPT attention kernels match the oracle on gfx1200" {
  /usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" bert --seq=7 --dtype=f16 --seed=5 > "$BATS_FILE_TMPDIR/a16.mlir"
  /usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" gpt --seq=13 --dtype=bf16 --seed=6 > "$BATS_FILE_TMPDIR/abf.mlir"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$BATS_FILE_TMPDIR/a16.mlir" "$BATS_FILE_TMPDIR/abf.mlir" --targets=gfx1200
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
  "$BIN/tosac" "$BATS_FILE_TMPDIR/a16.mlir" --offload-arch=gfx1200 -o "$BATS_FILE_TMPDIR/a16.hipfb"
  run /usr/bin/python3 -c 'import json, sys; print(*sorted({k["matrix_instruction"] for k in json.load(open(sys.argv[1]))["targets"][0]["kernels"] if k["family"] == "attention"}))' "$BATS_FILE_TMPDIR/a16.json"
  assert_output "v_wmma_f32_16x16x16_f16"
}
