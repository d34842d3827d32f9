#!/usr/bin/env bats
# mxfp4 block-scaled GEMMs as MIGraphX's GPU target writes them (docs/migraphx.md, "MX types"):
# f4E2M1FN operands packed two per byte, f8E8M0FNU scales broadcast from one per block of 32
# along K, `quant_dot %a scaled by %sa, %b scaled by %sb`, and dequantizelinear with an e8m0
# scale. Each graph compiles for the 7 default targets; its --emit=tosa form passes mlir-opt-22 and
# matches tests/oracle/mgx_ref.py (which decodes the bytes from the OCP MX definitions) through the
# MLIR oracle, and tosac-run on gfx950, gfx90a (MFMA), gfx1100 (WMMA) and gfx1030 (FMA) matches it.

load lib/migraphx

setup() { migraphx_setup; }

# numeric on gfx950 too (the target with scaled MFMA in hardware).
numeric_mx() {
  numeric "$1"
  run "${CHECK[@]}" "$1.tosa.mlir" $(echo "$opts" | tr ' ' '\n' | grep -- --input) --targets=gfx950
  assert_success
  assert_output --partial "ok $1.tosa.mlir [gfx950]"
}

@test "the mxfp4 graphs compile for all seven targets into a verified bundle" {
  for g in mxfp4_dot mxfp4_dequant; do
    run "$TOSAC" "$DATA/$g.mlir" --offload-arch=$ALL7 -o "$g.hipfb"
    assert_success
    run clang-offload-bundler-22 --list --type=o --input="$g.hipfb"
    [ "$(echo "$output" | grep -c '^hipv4-amdgcn-amd-amdhsa--gfx')" -eq 7 ]
    run "$BIN/tosac-bundle" verify "$g.hipfb" --manifest "$g.json"
    assert_success
  done
}

@test "fp4 arguments are their bytes: two values per byte along the innermost memory dimension" {
  run "$TOSAC" "$DATA/mxfp4_dot.mlir" --emit=tosa -o -
  assert_success
  # <16x64xf4E2M1FN, 64x1> is 16x32 bytes; the transposed <2x12x96, ...> weight is 2x12x48 bytes
  assert_line --partial "func.func @mlir_mxfp4_dot(%arg0: tensor<16x32xi8>, %arg1: tensor<64x12xi8>, %arg2: tensor<16x2x1xi8>"
  assert_output --partial "%arg6: tensor<2x12x48xi8>"
  assert_output --partial '"tosa.gather"'
}

@test "scaled quant_dot (2-D with bias, batched with a transposed B) matches" {
  numeric_mx mxfp4_dot
}

@test "dequantizelinear of fp4 weights with an e8m0 scale before a dot, and convert to f16, match" {
  numeric_mx mxfp4_dequant
}

@test "seeded random mxfp4 GEMMs match on gfx950, gfx90a, gfx1100 and gfx1030" {
  for seed in 3 11 29; do
    $PY "$ROOT/tests/oracle/mgx_gen_mxfp4.py" $seed > r$seed.mlir
    run "$TOSAC" r$seed.mlir --emit=tosa -o r$seed.tosa.mlir
    assert_success
    mkdir -p r$seed.ref
    opts=$($PY "$ROOT/tests/oracle/mgx_ref.py" r$seed.mlir r$seed.tosa.mlir r$seed.ref --seed=$seed)
    run "${CHECK[@]}" r$seed.tosa.mlir $opts
    assert_success
    assert_output --partial "PASSED: 1 graph(s)"
    run "${CHECK[@]}" r$seed.tosa.mlir $(echo "$opts" | tr ' ' '\n' | grep -- --input) --targets=gfx950,gfx90a,gfx1100,gfx1030
    assert_success
    assert_output --partial "PASSED: 1 graph(s)"
  done
}

# mx_gfx950 SEED [GEN OPTIONS]: the seeded random mxfp4 GEMM compiles for gfx950 into one mxgemm
# kernel whose machine code is the block-scaled MFMA (no other matrix instruction); gfx90a (MFMA),
# gfx1100 (WMMA) and gfx1030 (FMA) decode to bf16 (a plain matmul kernel). Every target's result,
# run as machine code and as IR, is within f32 summation's error bound of mgx_ref.py's exact
# (float64) sum: |got - exact| <= K 2^-24 sum_k |a_k b_k| (the products are exact; only the
# order and rounding of the f32 sums differ), by sum_check.py.
mx_gfx950() {
  local seed=$1 g=m$1
  shift
  $PY "$ROOT/tests/oracle/mgx_gen_mxfp4.py" $seed "$@" > $g.mlir
  local k=$(head -1 $g.mlir | sed 's/.* K=\([0-9]*\).*/\1/')
  run "$TOSAC" $g.mlir --emit=tosa -o $g.tosa.mlir
  assert_success
  mkdir -p $g.ref
  inputs=$($PY "$ROOT/tests/oracle/mgx_ref.py" $g.mlir $g.tosa.mlir $g.ref --seed=$seed --sum-bound=$k | tr ' ' '\n' | grep -- --input)
  run "$TOSAC" $g.tosa.mlir --offload-arch=gfx950,gfx90a,gfx1100,gfx1030 --embed-ir -o $g.hipfb
  assert_success
  run $PY -c 'import json, sys; t = json.load(open(sys.argv[1]))["targets"][0]; print(t["processor"], " ".join("%s:%s" % (k["family"], k.get("matrix_instruction", "")) for k in t["kernels"]))' $g.json
  assert_output "gfx950 mxgemm:v_mfma_scale_f32_16x16x128_f8f6f4"
  run "$BIN/tosac-bundle" extract $g.hipfb hipv4-amdgcn-amd-amdhsa--gfx950 -o $g.co
  assert_success
  llvm-objdump-22 -d --mcpu=gfx950 $g.co > $g.dis
  grep -q "v_mfma_scale_f32_16x16x128_f8f6f4" $g.dis
  [ "$(grep -c 'v_mfma' $g.dis)" -eq "$(grep -c 'v_mfma_scale_f32_16x16x128_f8f6f4' $g.dis)" ]
  for t in gfx90a gfx1100 gfx1030; do
    run "$TOSAC" $g.tosa.mlir --offload-arch=$t --emit=partitions -o -
    assert_output --partial "_matmul over"
    refute_output --partial "mxgemm"
  done
  for t in gfx950 gfx90a gfx1100 gfx1030; do
    for mode in isa ir; do
      run "$BIN/tosac-run" $g.hipfb --target=$t --exec=$mode $inputs --output=@$g.$t.$mode.npy
      assert_success
      run $PY "$ROOT/tests/oracle/sum_check.py" $g.$t.$mode.npy $g.ref/exact0.npy $g.ref/bound0.npy
      assert_success
      assert_output --partial "ok "
    done
  done
}

@test "gfx950: seeded random mxfp4 GEMMs ([K, N] B packed along N) run on the block-scaled MFMA, both exec modes" {
  # K of 1..4 blocks of 32 (K = 32, 64, 96: not multiples of 128), then up to 9 blocks (K steps)
  for seed in 3 11 29; do mx_gfx950 $seed; done
  mx_gfx950 17 --kblocks=9
}

@test "gfx950: seeded random mxfp4 GEMMs with a transposed [N, K] B (odd N) run on the block-scaled MFMA, both exec modes" {
  mx_gfx950 5 --bt --kblocks=12
  mx_gfx950 8 --bt --kblocks=12
  mx_gfx950 23 --bt
}

@test "gfx950: the fixed mxfp4 graph's two scaled dots are mxgemm kernels, the bias add its own kernel" {
  run "$TOSAC" "$DATA/mxfp4_dot.mlir" --offload-arch=gfx950 --emit=partitions -o -
  assert_success
  assert_line "  kernel 0 tosac_k0_mxgemm over tensor<1x16x24xf32>"
  assert_line "  kernel 1 tosac_k1_mxgemm over tensor<2x8x12xf32>"
  assert_line "  kernel 2 tosac_k2_add over tensor<16x24xf32>"
  assert_line --partial "target gfx950: 3 kernels"
  run "$TOSAC" "$DATA/mxfp4_dot.mlir" --offload-arch=gfx90a --emit=partitions -o -
  refute_output --partial "mxgemm"
  TOSAC_NO_MX_GEMM=1 run "$TOSAC" "$DATA/mxfp4_dot.mlir" --offload-arch=gfx950 --emit=partitions -o -
  refute_output --partial "mxgemm"
  assert_output --partial "_matmul over tensor<1x16x24xf32>"
}

@test "gfx950: the mxgemm kernel's quality row is a GEMM row of the block-scaled MFMA, and the bundle verifies" {
  $PY "$ROOT/tests/oracle/mgx_gen_mxfp4.py" 5 --bt --kblocks=12 > q.mlir
  run "$TOSAC" q.mlir --offload-arch=gfx950 -o q.hipfb
  assert_success
  run "$BIN/tosac-bundle" verify q.hipfb --manifest q.json
  assert_success
  run "$BIN/tosac-bundle" quality q.hipfb --no-mca --model
  assert_success
  assert_line --regexp '^gfx950 +mxgemm:3x17x23x384:fp4 +fp4 +16x16x128/16x16 +v_mfma_scale_f32_16x16x128_f8f6f4 '
  assert_output --partial "model gfx950: 1 launches"
  refute_output --partial "unaccounted"
}

@test "gfx950: operands of up to 2^20 elements are traced (mxgemm), larger ones dequantize" {
  for s in "1,1024,1024,32 mxgemm" "1,1056,1024,32 matmul"; do
    $PY "$ROOT/tests/oracle/mgx_gen_mxfp4.py" 1 --bt --shape=${s% *} > big.mlir
    run "$TOSAC" big.mlir --offload-arch=gfx950 --emit=partitions -o -
    assert_success
    assert_line --regexp "^  kernel [0-9]+ tosac_k[0-9]+_${s#* } over tensor<1x${s:2:4}x1024xf32>"
  done
}

@test "gfx950: scales that vary inside a block of 32 keep the dequantizing kernels, and match" {
  cat > elem.mlir <<'G'
func.func @mlir_mxfp4_elem(%a: !migraphx.shaped<1x4x64xf4E2M1FN, 256x64x1>, %b: !migraphx.shaped<1x64x6xf4E2M1FN, 384x6x1>, %sa: !migraphx.shaped<1x4x64xf8E8M0FNU, 256x64x1>, %sb: !migraphx.shaped<1x64x6xf8E8M0FNU, 384x6x1>) -> !migraphx.shaped<1x4x6xf32, 24x6x1> {
  %0 = migraphx.quant_dot %a scaled by %sa, %b scaled by %sb : <1x4x64xf4E2M1FN, 256x64x1> scaled by !migraphx.shaped<1x4x64xf8E8M0FNU, 256x64x1>, <1x64x6xf4E2M1FN, 384x6x1> scaled by !migraphx.shaped<1x64x6xf8E8M0FNU, 384x6x1> -> <1x4x6xf32, 24x6x1>
  return %0 : !migraphx.shaped<1x4x6xf32, 24x6x1>
}
G
  run "$TOSAC" elem.mlir --emit=tosa -o elem.tosa.mlir
  assert_success
  run "$TOSAC" elem.tosa.mlir --offload-arch=gfx950 --emit=partitions -o -
  assert_output --partial "_matmul over tensor<1x4x6xf32>"
  refute_output --partial "mxgemm"
  mkdir -p elem.ref
  opts=$($PY "$ROOT/tests/oracle/mgx_ref.py" elem.mlir elem.tosa.mlir elem.ref --seed=7)
  run "${CHECK[@]}" elem.tosa.mlir $opts --targets=gfx950
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# bad NAME.mlir LINE:COL MESSAGE: exit 1, the diagnostic at the token, no output written.
bad() {
  run "$TOSAC" "$1" -o out.hipfb
  assert_failure 1
  assert_output --partial "$1:$2: error: $3"
  [ ! -e out.hipfb ] && [ ! -e out.json ]
}

@test "K that is not a whole number of blocks of 32 is refused at the op" {
  cat > k100.mlir <<'G'
func.func @k100(%a: !migraphx.shaped<1x8x100xf4E2M1FN, 800x100x1>, %b: !migraphx.shaped<1x100x8xf4E2M1FN, 800x8x1>, %sa: !migraphx.shaped<1x8x100xf8E8M0FNU, 800x100x1>, %sb: !migraphx.shaped<1x100x8xf8E8M0FNU, 800x8x1>) -> !migraphx.shaped<1x8x8xf32, 64x8x1> {
  %0 = migraphx.quant_dot %a scaled by %sa, %b scaled by %sb : <1x8x100xf4E2M1FN, 800x100x1> scaled by !migraphx.shaped<1x8x100xf8E8M0FNU, 800x100x1>, <1x100x8xf4E2M1FN, 800x8x1> scaled by !migraphx.shaped<1x100x8xf8E8M0FNU, 800x8x1> -> <1x8x8xf32, 64x8x1>
  return %0 : !migraphx.shaped<1x8x8xf32, 64x8x1>
}
G
  bad k100.mlir 2:8 "'migraphx.quant_dot' K dimension (100) must be a multiple of the block size (32)"
}

@test "scales broadcast in blocks of 16 (a scale shape that is not the operand's) are refused" {
  $PY "$ROOT/tests/oracle/mgx_gen_mxfp4.py" 11 | sed 's/out_lens = \[2, 36, 4, 32\]/out_lens = [2, 36, 4, 16]/; s/<2x36x4x32xf8E8M0FNU, 144x4x1x0>/<2x36x4x16xf8E8M0FNU, 144x4x1x0>/g; s/dims = \[2, 36, 128\]/dims = [2, 36, 64]/; s/<2x36x128xf8E8M0FNU, 4608x128x1>/<2x36x64xf8E8M0FNU, 2304x64x1>/g' > b16.mlir
  bad b16.mlir 7:8 "'migraphx.quant_dot' scale !migraphx.shaped<2x36x64xf8E8M0FNU, 2304x64x1> does not have the shape of its operand !migraphx.shaped<2x36x128xf4E2M1FN, 4608x128x1>"
}

@test "a scale that is not f8E8M0FNU, a scale on one operand only, a missing scale type are refused" {
  sed 's/%arg3: !migraphx.shaped<2x1x24xf8E8M0FNU, 24x24x1>/%arg3: !migraphx.shaped<2x1x24xf32, 24x24x1>/; s/<2x1x24xf8E8M0FNU, 24x24x1> -> <2x32x24xf8E8M0FNU, 24x0x1>/<2x1x24xf32, 24x24x1> -> <2x32x24xf32, 24x0x1>/; s/<2x32x24xf8E8M0FNU, 24x0x1> -> <64x24xf8E8M0FNU, 24x1>/<2x32x24xf32, 24x0x1> -> <64x24xf32, 24x1>/; s/scaled by !migraphx.shaped<64x24xf8E8M0FNU, 24x1>/scaled by !migraphx.shaped<64x24xf32, 24x1>/' "$DATA/mxfp4_dot.mlir" > f32scale.mlir
  bad f32scale.mlir 10:8 "'migraphx.quant_dot' scale of operand 1 has type !migraphx.shaped<64x24xf32, 24x1>; block scales are f8E8M0FNU"
  sed 's/%arg1 scaled by %3 :/%arg1 :/' "$DATA/mxfp4_dot.mlir" > one.mlir
  bad one.mlir 10:8 "'migraphx.quant_dot' scales every operand or none"
  sed 's/<64x24xf4E2M1FN, 24x1> scaled by !migraphx.shaped<64x24xf8E8M0FNU, 24x1> -> /<64x24xf4E2M1FN, 24x1> -> /' "$DATA/mxfp4_dot.mlir" > notype.mlir
  bad notype.mlir 10:8 "'migraphx.quant_dot' scales 2 operands, but its type lists 1 scales"
}

@test "fp4 memory of odd innermost length and MX results are refused" {
  sed 's/%arg1: !migraphx.shaped<64x24xf4E2M1FN, 24x1>/%arg1: !migraphx.shaped<64x23xf4E2M1FN, 23x1>/' "$DATA/mxfp4_dot.mlir" > odd.mlir
  bad odd.mlir 5:81 "!migraphx.shaped<64x23xf4E2M1FN, 23x1> packs two values per byte along its innermost memory dimension, whose length 23 is odd"
  sed 's/-> (!migraphx.shaped<16x24xf32, 24x1>,/-> (!migraphx.shaped<16x64xf4E2M1FN, 64x1>,/; s/return %5, %12 : !migraphx.shaped<16x24xf32, 24x1>/return %arg0, %12 : !migraphx.shaped<16x64xf4E2M1FN, 64x1>/' "$DATA/mxfp4_dot.mlir" > res.mlir
  bad res.mlir 19:10 "results of the MX type !migraphx.shaped<16x64xf4E2M1FN, 64x1> are not supported"
}
