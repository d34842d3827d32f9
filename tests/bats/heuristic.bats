#!/usr/bin/env bats
# The default tile and split-K heuristic of codegen/tuning.c (docs/gemm.md "Defaults",
# docs/bench.md#heuristic-against-the-tuner): its choice for named shapes as the manifest's tuning object
# shows it, and the kernels it now picks against the MLIR oracle on MFMA, WMMA and FMA targets.
bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
}

load lib/matmul
# tiles FILE: per target, the GEMM kernel's tile, instruction, split and source from the manifest
tiles() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    k = [k for k in t["kernels"] if "bm" in k["tuning"]][0]["tuning"]
    print(t["processor"], "%dx%dx%d/%dx%d" % tuple(k[x] for x in ("bm", "bn", "bk", "wm", "wn")),
          k["mma"], "s%d" % k.get("split_k", 1), k["source"])
PY
}

@test "BERT-base shapes: 32x64 tiles of 16x16 MFMAs with 256-byte K tiles on gfx942, 64x128 on gfx90a, RDNA by the RDNA estimate" {
  matmul proj f16 1 512 768 768
  run "$TOSAC" proj.mlir --offload-arch=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200 -o proj.hipfb
  assert_success
  run tiles proj.json
  # 128-byte K tiles where a 64-byte one has less MFMA work than a load's latency (tuning.c
  # load_wait_cycles); 256-byte ones on gfx942/gfx950, whose 96-192 work-groups leave each CU
  # one whatever the LDS (groups_needed: gfx942's 52 KiB tile holds 1 wave per SIMD); gfx950's
  # 16x32 waves stay below the load floor, which pays where the grid cannot fill the CUs anyway
  assert_line "gfx908 64x128x64/32x32 32x32x8 s1 heuristic"
  assert_line "gfx90a 64x128x64/32x32 32x32x8 s1 heuristic"
  assert_line "gfx942 32x64x128/16x32 16x16x16 s1 heuristic"
  assert_line "gfx950 64x64x128/16x32 16x16x32 s1 heuristic"
  # RDNA (docs/gemm.md "The RDNA estimate"): 128-byte K tiles on the FMA path, 64x64 WMMA waves
  # on gfx1200, in 256x64 tiles since the estimate carries Little's law (24 work-groups of
  # 256x128 keep too little in flight: docs/decisions.md#one-latency-aware-bound-everywhere)
  assert_line "gfx1030 64x64x64/32x16 32x16x8 s1 heuristic"
  assert_line "gfx1100 128x128x32/32x64 16x16x16 s1 heuristic"
  assert_line "gfx1200 256x64x32/64x64 16x16x16 s1 heuristic"
  # that tile on a 256x128x96 copy (edge-free K loop of 3 tiles) against the oracle
  matmul pc f16 1 256 96 128
  eighths a.npy float16 51 1 256 96
  eighths b.npy float16 52 1 96 128
  run "${CHECK[@]}" pc.mlir --targets=gfx1200 --tosac-arg=--perf-config=bm=256,bn=64,bk=32,wm=64,wn=64,mma=16 \
    --input=@a.npy --input=@b.npy
  assert_success
  assert_output --partial "ok pc.mlir [gfx1200]: 1 results match"
  # the FFN up-projection has 4x the columns: 8 waves of 32x64 on gfx942
  matmul ffn1 f16 1 512 768 3072
  run "$TOSAC" ffn1.mlir --offload-arch=gfx942 -o ffn1.hipfb
  assert_success
  run tiles ffn1.json
  assert_output "gfx942 128x128x32/32x64 32x32x8 s1 heuristic"
  # the down-projection (K 3072) splits K in 3 on gfx942 only (304 CUs, 64x64 tiles), reduced by
  # each tile's last work-group (48 arrival counters ahead of the partials)
  matmul ffn2 f16 1 512 3072 768
  run "$TOSAC" ffn2.mlir --offload-arch=gfx90a,gfx942 --emit=partitions
  assert_success
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  assert_line "target gfx942: 1 kernels, 1 launches, workspace 4718848 bytes"
  assert_line "  buffer 3 workspace tensor<3x1x512x768xf32> 4718592 bytes at workspace+256"
  assert_line "  buffer 4 workspace tensor<48xi32> 192 bytes at workspace+0"
}

@test "ResNet-18's last 3x3 convolution (49x512x4608 f32) splits K on CDNA; GEMMs under 1M multiply-adds keep the defaults" {
  cat > c.mlir <<'EOF'
func.func @main(%x: tensor<1x7x7x512xf32>, %w: tensor<512x3x3x512xf32>, %b: tensor<512xf32>) -> tensor<1x7x7x512xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x7x7x512xf32>, tensor<512x3x3x512xf32>, tensor<512xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x7x7x512xf32>
  return %0 : tensor<1x7x7x512xf32>
}
EOF
  run "$TOSAC" c.mlir --offload-arch=gfx90a,gfx942,gfx1030 -o c.hipfb
  assert_success
  run tiles c.json
  assert_line "gfx90a 64x64x32/16x32 16x16x4 s6 heuristic"
  # 256-byte K tiles (16 f32 MFMAs of 32 cycles: twice the load floor) on gfx942
  assert_line "gfx942 32x64x64/16x16 16x16x4 s9 heuristic"
  # RDNA splits by its estimate too (docs/gemm.md "The RDNA estimate"; tests/bats/rdna_splitk.bats)
  assert_line "gfx1030 32x128x16/32x32 32x16x4 s5 heuristic"
  # 64x64x64 (262144 multiply-adds): below the estimate's threshold, one kernel with
  # gemm_tiles.c's default tile
  matmul small f32 1 64 64 64
  run "$TOSAC" small.mlir --offload-arch=gfx90a,gfx942 -o small.hipfb
  assert_success
  run tiles small.json
  assert_line "gfx90a 64x64x4/64x64 32x32x2 s1 heuristic"
  assert_line "gfx942 64x64x4/64x64 32x32x2 s1 heuristic"
}

@test "a split the heuristic picks (49x2300x200 f32: S 8 on gfx90a, 18 on gfx942, 5 on the FMA path of gfx1100 and gfx1030) matches the oracle" {
  matmul s f32 1 49 2300 200
  run "$TOSAC" s.mlir --offload-arch=gfx90a,gfx942,gfx1100,gfx1030 -o s.hipfb
  assert_success
  run tiles s.json
  assert_line "gfx90a 32x16x32/16x16 16x16x4 s8 heuristic"
  assert_line "gfx942 32x32x32/16x16 16x16x4 s18 heuristic"
  assert_line "gfx1100 32x64x32/32x16 32x16x4 s5 heuristic"
  assert_line "gfx1030 64x64x32/32x16 32x16x4 s5 heuristic"
  eighths a.npy float32 11 1 49 2300
  eighths b.npy float32 12 1 2300 200
  run "${CHECK[@]}" s.mlir --targets=gfx90a,gfx942,gfx1100,gfx1030 --input=@a.npy --input=@b.npy
  assert_success
  assert_output --partial "ok s.mlir [gfx90a]: 1 results match"
  assert_output --partial "ok s.mlir [gfx942]: 1 results match"
  assert_output --partial "ok s.mlir [gfx1100]: 1 results match"
  assert_output --partial "ok s.mlir [gfx1030]: 1 results match"
}

@test "the new tiles (16x16 MFMA waves, small WMMA waves) match the oracle on sizes that are no tile multiple" {
  matmul m f16 1 100 300 200
  matmul w f16 1 200 300 136
  run "$TOSAC" m.mlir --offload-arch=gfx90a,gfx942 -o m.hipfb
  assert_success
  run tiles m.json
  # K = 300 loads A in 8-byte vectors, which 4 waves of 16x16 share (tosac-tune's best on both:
  # 20.3 % and 8.3 % of the roofline)
  assert_line "gfx90a 16x64x64/16x16 16x16x16 s1 heuristic"
  assert_line "gfx942 16x64x64/16x16 16x16x16 s1 heuristic"
  run "$TOSAC" w.mlir --offload-arch=gfx1100,gfx1200 -o w.hipfb
  assert_success
  run tiles w.json
  # 200x136 outputs: small waves fill more of the 96 (64) CUs; K = 300 loads A in 8-byte
  # vectors; with Little's law in the estimate, tiles of more work-groups (gfx1100 52 of 16x64,
  # gfx1200 26 of 16x128) keep more loads in flight
  assert_line "gfx1100 16x64x32/16x16 16x16x16 s1 heuristic"
  assert_line "gfx1200 16x128x32/16x32 16x16x16 s1 heuristic"
  eighths a.npy float16 21 1 100 300
  eighths b.npy float16 22 1 300 200
  run "${CHECK[@]}" m.mlir --targets=gfx90a,gfx942,gfx1030 --input=@a.npy --input=@b.npy
  assert_success
  assert_output --partial "ok m.mlir [gfx90a]: 1 results match"
  assert_output --partial "ok m.mlir [gfx942]: 1 results match"
  assert_output --partial "ok m.mlir [gfx1030]: 1 results match"
  eighths c.npy float16 23 1 200 300
  eighths d.npy float16 24 1 300 136
  run "${CHECK[@]}" w.mlir --targets=gfx1100,gfx1200 --input=@c.npy --input=@d.npy
  assert_success
  assert_output --partial "ok w.mlir [gfx1100]: 1 results match"
  assert_output --partial "ok w.mlir [gfx1200]: 1 results match"
}

# conv NAME H C O K S: an NHWC f32 tosa.conv2d graph, C -> O channels, KxK kernel, stride S,
# padding K/2 at the top and left, less at the bottom and right where the stride needs it (as
# MLIR's verifier wants the window to end on the last row)
conv() {
  local p=$(($5 / 2)) q r o
  r=$((($2 - 1 + 2 * p - ($5 - 1)) % $6))
  q=$((p - r))
  o=$((($2 - 1 + p + q - ($5 - 1)) / $6 + 1))
  local x="tensor<1x$2x$2x$3xf32>" w="tensor<$4x$5x$5x$3xf32>" b="tensor<$4xf32>" r="tensor<1x${o}x${o}x$4xf32>"
  cat > "$1.mlir" <<EOF
func.func @main(%x: $x, %w: $w, %b: $b) -> $r {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: $p, $q, $p, $q>, stride = array<i64: $6, $6>} : ($x, $w, $b, tensor<1xf32>, tensor<1xf32>) -> $r
  return %0 : $r
}
EOF
}

@test "refitted estimate on ResNet-18 rows (docs/bench.md 'Heuristic against the tuner'): the stem, the stride-2 1x1 convolution" {
  # the stem (12544x64x147, a 3-channel gather): 128x64 tiles of 32x64 waves, K tiles of 16 on
  # gfx90a (the estimate counts one load per 3-channel run; 61 -> 66 % of the roofline)
  # gfx90a (TOSAC_IM2COL=0 TOSAC_CONV_RUNS=0: the implicit GEMM's per-element gather, which the
  # MFMA targets replace by the run gather by default, conv_runs.bats)
  conv stem 224 3 64 7 2
  TOSAC_IM2COL=0 TOSAC_CONV_RUNS=0 run "$TOSAC" stem.mlir --offload-arch=gfx90a,gfx942 -o stem.hipfb
  assert_success
  run tiles stem.json
  assert_line "gfx90a 128x64x16/32x64 32x32x2 s1 heuristic"
  # gfx942: 64x64 tiles of 32x32 waves; no 128-byte K tile for a gather of 3-channel runs (their
  # gather grows with the K tile: tuning.c heur_try_long_k)
  assert_line "gfx942 64x64x16/32x32 32x32x2 s1 heuristic"
  # that tile on a small 3-channel 7x7 stride-2 convolution (M 256 = 4 work-groups, K 147 past
  # the K tiles) against the oracle
  conv st 32 3 64 7 2
  eighths x.npy float32 41 1 32 32 3
  eighths w.npy float32 42 64 7 7 3
  eighths b.npy float32 43 64
  run "${CHECK[@]}" st.mlir --targets=gfx942 --input=@x.npy --input=@w.npy --input=@b.npy \
    --tosac-arg=--perf-config=bm=64,bn=64,bk=16,wm=32,wn=32,mma=32
  assert_success
  assert_output --partial "ok st.mlir [gfx942]: 1 results match"
  # the stride-2 1x1 downsample (196x256x128): two 16x16 waves, the pipelined loop's 4 iterations
  # MFMA-bound (gfx90a 34 -> 65 %); gfx908, whose s_barrier drains memory: one 16x16 wave per
  # work-group, no barrier (llvm-mca 69 -> 83 %)
  conv down 27 128 256 1 2
  run "$TOSAC" down.mlir --offload-arch=gfx908,gfx90a,gfx942,gfx950 -o down.hipfb
  assert_success
  run tiles down.json
  assert_line "gfx908 16x16x32/16x16 16x16x4 s1 heuristic"
  assert_line "gfx90a 32x32x32/16x16 16x16x4 s1 heuristic"
  assert_line "gfx942 32x32x32/16x16 16x16x4 s1 heuristic"
  assert_line "gfx950 32x32x32/16x16 16x16x4 s1 heuristic"
  eighths x.npy float32 31 1 27 27 128
  eighths w.npy float32 32 256 1 1 128
  eighths b.npy float32 33 256
  run "${CHECK[@]}" down.mlir --targets=gfx908,gfx90a,gfx942 --input=@x.npy --input=@w.npy --input=@b.npy
  assert_success
  assert_output --partial "ok down.mlir [gfx908]: 1 results match"
  assert_output --partial "ok down.mlir [gfx90a]: 1 results match"
  assert_output --partial "ok down.mlir [gfx942]: 1 results match"
}

@test "gfx908 convolutions: the pipelined loop (no accumulator copies) with 128-byte K tiles (docs/gemm.md)" {
  export TOSAC_SPLIT_K_FORM=combine # the tiles under the combine form this test is about
  # 3x3 (49x512x4608, taps) and the stride-2 1x1 (49x512x256): wave tiles of two or one 16x16
  # MFMA tiles run the pipelined loop, which has no v_accvgpr copies (the single-tile loop
  # rotated the accumulators through 16 per iteration); 128-byte K tiles give a K tile more MFMA
  # work than a load's latency (llvm-mca 65 -> 92 % on the 3x3)
  conv c3 7 512 512 3 1
  run "$TOSAC" c3.mlir --offload-arch=gfx908 -o c3.hipfb
  assert_success
  run tiles c3.json
  assert_line "gfx908 64x64x32/16x32 16x16x4 s7 heuristic"
  conv c1 13 256 512 1 2
  run "$TOSAC" c1.mlir --offload-arch=gfx908 -o c1.hipfb
  assert_success
  run tiles c1.json
  # 256 bytes: the 49 output rows leave each CU at most one work-group
  assert_line "gfx908 32x64x64/16x16 16x16x4 s1 heuristic"
}

@test "127x255x63 f16 (2M multiply-adds): the estimate counts single-element staging loads and picks tosac-tune's tiles; oracle on MFMA, WMMA, FMA" {
  # K = 255 and N = 63 stage one element per load: 8 waves of 16x16 share them (gemm_tiles.c's
  # 128x64 default: 1.3 % of the roofline on gfx90a, this tile 10.1 %; gfx1200 11.1 -> 61.3 %);
  # gfx908: one-wave 16x16 work-groups split 4 ways, no barrier (4 waves of 16x32: 3.2 us by the
  # quality model, this 1.3 us)
  matmul odd f16 1 127 255 63
  run "$TOSAC" odd.mlir --offload-arch=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200 -o odd.hipfb
  assert_success
  run tiles odd.json
  assert_line "gfx908 16x16x16/16x16 16x16x16 s4 heuristic"
  # CDNA2+: this 0.13 MB problem is bound by what its few work-groups keep in flight (Little's
  # law: 4 work-groups of 32x64 move it in 2.6 latencies), so a 16x64 tile's 8 take it (gfx90a
  # 1.9 -> 1.5 us by the estimate, 1.8 -> 1.2 us by tosac-tune, whose best, 64x16 or 32x16, scores
  # 5-20 % more: misses of the 5 % rule, at 2-7 % of the roofline)
  assert_line "gfx90a 16x64x32/16x16 16x16x16 s1 heuristic"
  assert_line "gfx942 16x64x32/16x16 16x16x16 s1 heuristic"
  assert_line "gfx950 16x64x32/16x16 16x16x32 s1 heuristic"
  # RDNA with Little's law: tiles of more work-groups (gfx1030 8 of 64x32 for 4 of 64x64; WMMA
  # 32 of 32x16 for 8 of 64x32); an n-contiguous B of single elements costs a write and a shift
  # per load: the narrow side stays N
  assert_line "gfx1030 64x32x64/32x16 32x16x8 s1 heuristic"
  assert_line "gfx1100 32x16x32/16x16 16x16x16 s1 heuristic"
  assert_line "gfx1200 32x16x32/16x16 16x16x16 s1 heuristic"
  eighths a.npy float16 41 1 127 255
  eighths b.npy float16 42 1 255 63
  run "${CHECK[@]}" odd.mlir --targets=gfx908,gfx90a,gfx1100,gfx1200,gfx1030 --input=@a.npy --input=@b.npy
  assert_success
  assert_output --partial "ok odd.mlir [gfx1200]: 1 results match"
  assert_output --partial "ok odd.mlir [gfx908]: 1 results match"
  assert_output --partial "ok odd.mlir [gfx90a]: 1 results match"
  assert_output --partial "ok odd.mlir [gfx1100]: 1 results match"
  assert_output --partial "ok odd.mlir [gfx1030]: 1 results match"
}

@test "VOPD on gfx11/gfx12: the stem's f32 FMA path pairs its FMAs whatever the micro-tile, so it keeps gfx1030's 64x16 waves (8x4 accumulators per lane)" {
  conv stem 224 3 64 7 2
  run "$TOSAC" stem.mlir --offload-arch=gfx1030,gfx1100,gfx1200 -o stem.hipfb
  assert_success
  run tiles stem.json
  # gfx1030 has no VOPD: 64x16 waves, K tiles of 16; gfx11/gfx12 pair 93 % of the FMAs in the
  # estimate (gemm_mma.pair; 64x32 waves of 8x8 were chosen while pairing grew with the
  # accumulators)
  assert_line "gfx1030 128x64x16/64x16 64x16x4 s1 heuristic"
  assert_line "gfx1100 128x64x16/64x16 64x16x4 s1 heuristic"
  assert_line "gfx1200 128x64x16/64x16 64x16x4 s1 heuristic"
}

@test "4096^3 f16: gfx908 takes 128x128 tiles of 64x64 waves (5 rounds of 256x256 tiles -> 9 of half the work), the others keep 256x256" {
  matmul sq f16 1 4096 4096 4096
  run "$TOSAC" sq.mlir --offload-arch=gfx908,gfx90a,gfx942,gfx950 -o sq.hipfb
  assert_success
  run tiles sq.json
  assert_line "gfx908 128x128x16/64x64 32x32x8 s1 heuristic"
  assert_line "gfx90a 256x256x16/128x64 32x32x8 s1 heuristic"
  assert_line "gfx942 256x256x16/128x64 32x32x8 s1 heuristic"
  assert_line "gfx950 256x256x32/128x64 32x32x16 s1 heuristic"
  # the section 2 goal on gfx908: >= 90 % main-loop matrix share by llvm-mca, no spills, 2 waves/SIMD
  run "$TOSAC" sq.mlir --offload-arch=gfx908 -o sq908.hipfb
  assert_success
  run timeout 300 "$BUILD/bin/tosac-bundle" quality sq908.hipfb --mca-timeout 60
  assert_success
  assert_line --regexp '^gfx908 +matmul:1x4096x4096x4096:f16:a4096:b4096n +f16 +128x128x16/64x64 .* 2 +0 +[0-9]+ +[0-9.]+ +mca +(9[0-9]|100)\.[0-9] '
}

@test "BERT's batched 12x512x64x512 at the memory floor: the estimate judges the 256x256 default (48 work-groups), oracle on gfx942 and gfx950" {
  matmul qk f16 12 512 64 512
  run "$TOSAC" qk.mlir --offload-arch=gfx942,gfx950 -o qk.hipfb
  assert_success
  run tiles qk.json
  # 256x256 scored 42.4 / 84.3 % of tosac-tune's best (its 128x128x16/32x64); these 100 %
  assert_line "gfx942 64x128x16/64x64 32x32x8 s1 heuristic"
  assert_line "gfx950 32x128x16/32x64 32x32x16 s1 heuristic"
  eighths a.npy float16 61 12 512 64
  eighths b.npy float16 62 12 64 512
  run "${CHECK[@]}" qk.mlir --targets=gfx942,gfx950 --input=@a.npy --input=@b.npy
  assert_success
  assert_output --partial "ok qk.mlir [gfx942]: 1 results match"
  assert_output --partial "ok qk.mlir [gfx950]: 1 results match"
}

@test "too few work-groups for the CUs: 256-byte K tiles on gfx942/gfx950 (BERT-base's 512x768 projection; tuning.c heur_try_long_k), oracle on a small copy" {
  export TOSAC_SPLIT_K_FORM=combine # the tiles under the combine form this test is about
  # 512x768 outputs give 96-192 work-groups for 256-304 CUs: one per CU whatever the LDS, so the
  # 52 KiB double buffer of a 256-byte K tile costs gfx942 no waves (groups_needed); llvm-mca's
  # loop: 410 cycles per 256-byte K tile against 266 per 128-byte one, 44 -> 57 % of the roofline
  matmul proj f16 1 512 768 768
  run "$TOSAC" proj.mlir --offload-arch=gfx942 -o proj.hipfb
  assert_success
  run timeout 120 "$BUILD/bin/tosac-bundle" quality proj.hipfb --mca-timeout 60
  assert_success
  # 1 wave per SIMD (the grid's), no spills, >= 55 % of the memory roofline
  assert_line --regexp '^gfx942 +matmul:1x512x768x768:f16:a768:b768n +f16 +32x64x128/16x32 .* 1 +0 +[0-9]+ +[0-9.]+ +mca +[0-9.]+ +[0-9.]+ +(5[5-9]|[6-9][0-9])% mem +95% lat$'
  # a 128x768x192 copy takes them too (gfx90a 16x16 waves: 20 -> 32 % of the roofline; 48
  # work-groups: below the load floor too on gfx942/gfx950), and matches the oracle with exact
  # inputs
  matmul p f16 1 128 768 192
  run "$TOSAC" p.mlir --offload-arch=gfx90a,gfx942,gfx950 -o p.hipfb
  assert_success
  run tiles p.json
  assert_line "gfx90a 32x64x128/16x16 16x16x16 s1 heuristic"
  assert_line "gfx942 16x64x128/16x16 16x16x16 s1 heuristic"
  # gfx950: 0.4 MB, one memory latency at best (the ceiling, 11 %); 24 work-groups of 64x64 have
  # too little in flight for it (Little's law: 1.1 us, 7 %), 192 of 16x32 reach it (0.7 us, 11 %
  # by llvm-mca's loop and by tosac-tune, whose best it is)
  assert_line "gfx950 16x32x128/16x16 16x16x32 s1 heuristic"
  eighths a.npy float16 41 1 128 768
  eighths b.npy float16 42 1 768 192
  run "${CHECK[@]}" p.mlir --targets=gfx90a,gfx942,gfx950 --input=@a.npy --input=@b.npy
  assert_success
  assert_output --partial "ok p.mlir [gfx90a]: 1 results match"
  assert_output --partial "ok p.mlir [gfx942]: 1 results match"
  assert_output --partial "ok p.mlir [gfx950]: 1 results match"
}

@test "256-byte K tiles on random shapes (no tile multiples, batches, split-K) match the oracle on gfx942 and gfx950" {
  # three seeded shapes: B in 1-2, M and N in 17-200, K in 300-1100 (K tails, masked rows and
  # columns), each with the f16 tiles the heuristic now picks and f32's 16x16 waves, split 3 ways
  # too (the partial + combine kernels)
  run /usr/bin/python3 -c "
import random
r = random.Random(13)
for i in range(3):
    print(r.randint(1, 2), r.randint(17, 200), r.randint(300, 1100), r.randint(17, 200))"
  assert_success
  assert_equal "${#lines[@]}" 3
  local shapes=("${lines[@]}") i=0
  for s in "${shapes[@]}"; do
    read -r b m k n <<< "$s"
    i=$((i + 1))
    for et in f16 f32; do
      matmul g$i$et $et $b $m $k $n
      local np=float16
      [ $et = f32 ] && np=float32
      eighths a$i$et.npy $np $((50 + i)) $b $m $k
      eighths b$i$et.npy $np $((60 + i)) $b $k $n
    done
    # target(s):type:perf-config:split factors
    for cfg in gfx942:f16:bm=32,bn=64,bk=128,wm=16,wn=32,mma=16:0,3 gfx950:f16:bm=64,bn=64,bk=128,wm=16,wn=32,mma=16:0 \
               gfx942,gfx950:f16:bm=16,bn=64,bk=128,wm=16,wn=16,mma=16:0 \
               gfx942,gfx950:f32:bm=32,bn=64,bk=64,wm=16,wn=16,mma=16:0,3; do
      IFS=: read -r tg et pc splits <<< "$cfg"
      for split in ${splits//,/ }; do
        TOSAC_SPLIT_K=$split run "${CHECK[@]}" g$i$et.mlir --targets=$tg --tosac-arg=--perf-config=$pc \
          --input=@a$i$et.npy --input=@b$i$et.npy
        assert_success
        for t in ${tg//,/ }; do
          assert_output --partial "ok g$i$et.mlir [$t]: 1 results match"
        done
      done
    done
  done
  # the split really happened (3 partials in the workspace)
  TOSAC_SPLIT_K=3 run "$TOSAC" g1f16.mlir --offload-arch=gfx942 --perf-config=bm=32,bn=64,bk=128,wm=16,wn=32,mma=16 --emit=partitions
  assert_success
  assert_line --regexp '^  buffer 3 workspace tensor<3x'
}
