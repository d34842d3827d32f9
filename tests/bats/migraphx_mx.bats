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
