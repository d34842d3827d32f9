#!/usr/bin/env bats
# The migraphx dialect as MIGraphX emits it now and did before (docs/migraphx.md): signed and
# unsigned element types, comparisons, convert's target_type and zero extension, int4 unpack,
# backwards_data_convolution, multibroadcast placed by the result's strides, rock.arch as the
# default target, MIGraphX's 2022 `func @main` form. Each graph compiles for the 7 default
# targets; its --emit=tosa form passes mlir-opt-22 and matches the numpy evaluation of
# tests/oracle/mgx_ref.py through the MLIR oracle and tosac-run on gfx90a, gfx1100, gfx1030.

load lib/migraphx

setup() { migraphx_setup; }

@test "the new graphs compile for all seven targets into a verified bundle" {
  for g in mask unsigned unpack_int4 bwd_conv main_2022 bcast_result conv_grouped; do
    run "$TOSAC" "$DATA/$g.mlir" --offload-arch=$ALL7 -o "$g.hipfb"
    assert_success
    run clang-offload-bundler-22 --list --type=o --input="$g.hipfb"
    assert_success
    [ "$(echo "$output" | grep -c '^hipv4-amdgcn-amd-amdhsa--gfx')" -eq 7 ]
    run "$BIN/tosac-bundle" verify "$g.hipfb" --manifest "$g.json"
    assert_success
  done
  # without rock.arch, the default targets are the seven
  run "$TOSAC" "$DATA/unsigned.mlir" -o u.hipfb
  assert_success
  run clang-offload-bundler-22 --list --type=o --input=u.hipfb
  [ "$(echo "$output" | grep -c '^hipv4-amdgcn-amd-amdhsa--gfx')" -eq 7 ]
}

@test "rock.arch is the default target; --offload-arch overrides it; an unknown one warns" {
  run "$TOSAC" "$DATA/mask.mlir" -o m.hipfb
  assert_success
  run clang-offload-bundler-22 --list --type=o --input=m.hipfb
  assert_line "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
  [ "$(echo "$output" | grep -c '^hipv4-amdgcn-amd-amdhsa--gfx')" -eq 1 ]
  run "$TOSAC" "$DATA/mask.mlir" --offload-arch=gfx1100 -o m2.hipfb
  run clang-offload-bundler-22 --list --type=o --input=m2.hipfb
  assert_line "hipv4-amdgcn-amd-amdhsa--gfx1100"
  [ "$(echo "$output" | grep -c '^hipv4-amdgcn-amd-amdhsa--gfx')" -eq 1 ]
  sed 's/rock.arch = "gfx90a:sramecc+:xnack-"/rock.arch = "gfx803"/' "$DATA/mask.mlir" > u.mlir
  run "$TOSAC" u.mlir -o u.hipfb
  assert_success
  assert_output --partial "warning: the entry function's rock.arch 'gfx803' is not a target tosac compiles for"
  run clang-offload-bundler-22 --list --type=o --input=u.hipfb
  [ "$(echo "$output" | grep -c '^hipv4-amdgcn-amd-amdhsa--gfx')" -eq 7 ]
}

@test "si32 mask: multibroadcast placed by strides, greater, convert to bool (target_type 0), where, less" {
  numeric mask
  # <4xsi32, 1> -> <4x16xsi32, 1x0>: the input lands on dimension 0 (stride 1), not at the right
  run "$TOSAC" "$DATA/mask.mlir" --emit=tosa -o -
  assert_output --partial '"tosa.reshape"(%arg1, %'
  assert_output --partial "(tensor<4xi32>, !tosa.shape<2>) -> tensor<4x1xi32>"
}

@test "ui8 operands: zero-extending convert and dequantizelinear, division, comparison, clip" {
  numeric unsigned
  # signless storage: the memory tensors are i8
  run "$TOSAC" "$DATA/unsigned.mlir" --emit=tosa -o -
  assert_line --partial "func.func @mlir_unsigned(%arg0: tensor<4x8xi8>, %arg1: tensor<4x8xi8>, %arg2: tensor<4xf32>)"
}

@test "int4 unpack (unsigned and signed) with dequantization and a dot matches" {
  numeric unpack_int4
}

@test "grouped 1-D and 3-D convolutions match" {
  numeric conv_grouped
}

@test "MIGraphX's 2022 form (func @main, tensor operands in parentheses) matches" {
  numeric main_2022
}

@test "results with broadcast (stride 0) dimensions are written once per broadcast index and match" {
  numeric bcast_result
  run "$TOSAC" "$DATA/bcast_result.mlir" --emit=tosa -o -
  assert_line --partial "func.func @mlir_bcast_result(%arg0: tensor<3xf32>, %arg1: tensor<4x3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>)"
}

@test "backwards_data_convolution (2-D strided, 1-D) is transpose_conv2d and matches numpy on three targets" {
  # the MLIR oracle cannot lower transpose_conv2d with a negative out_pad (the padding), so
  # tosac-run is compared with numpy directly; f32 sums of at most 12 products of values in
  # [-2, 2]: 1e-5
  run "$TOSAC" "$DATA/bwd_conv.mlir" --emit=tosa -o b.tosa.mlir
  assert_success
  run mlir-opt-22 b.tosa.mlir -o /dev/null
  assert_success
  assert_equal "$(grep -c tosa.transpose_conv2d b.tosa.mlir)" 2
  mkdir -p ref
  opts=$($PY "$ROOT/tests/oracle/mgx_ref.py" "$DATA/bwd_conv.mlir" b.tosa.mlir ref)
  run "$TOSAC" "$DATA/bwd_conv.mlir" --embed-ir --offload-arch=gfx90a,gfx1100,gfx1030 -o b.hipfb
  assert_success
  for t in gfx90a gfx1100 gfx1030; do
    run "$BIN/tosac-run" b.hipfb --target=$t $(echo "$opts" | tr ' ' '\n' | grep -- --input) --output=@g0_$t.npy --output=@g1_$t.npy
    assert_success
    run $PY -c '
import sys, numpy as np
t = sys.argv[1]
for i in (0, 1):
    g, r = np.load(f"g{i}_{t}.npy").astype(np.float64), np.load(f"ref/ref{i}.npy").astype(np.float64)
    assert g.shape == r.shape, (g.shape, r.shape)
    err = np.abs(g - r).max()
    print(i, "max abs error", err, "within 1e-5" if err <= 1e-5 else "TOO LARGE")' $t
    assert_line --partial "0 max abs error"
    refute_output --partial "TOO LARGE"
    assert_equal "$(echo "$output" | grep -c 'within 1e-5')" 2
  done
}

@test "multibroadcast: out_lens that disagrees with the result type warns, the result type wins; strides place the input" {
  printf 'func.func @k(%%a: !migraphx.shaped<8xf32, 1>) -> !migraphx.shaped<8x2x16xf32, 32x16x1> {\n  %%0 = migraphx.multibroadcast %%a {out_dyn_dims = [], out_lens = [8, 2, 8]} : <8xf32, 1> -> <8x2x16xf32, 1x0x0>\n  return %%0 : !migraphx.shaped<8x2x16xf32, 32x16x1>\n}\n' > w.mlir
  run "$TOSAC" w.mlir --emit=tosa -o w.tosa.mlir
  assert_success
  assert_line "w.mlir:2:55: warning: 'migraphx.multibroadcast' out_lens does not match its result type !migraphx.shaped<8x2x16xf32, 1x0x0>; the result type is used"
  run grep -c "(tensor<8xf32>, !tosa.shape<3>) -> tensor<8x1x1xf32>" w.tosa.mlir
  assert_output 1
  run "${CHECK[@]}" w.tosa.mlir --targets=gfx90a,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# one graph line in a kernel, compiled with --syntax-only; prints the diagnostics
diag() {
  printf 'func.func @k(%%arg0: !migraphx.shaped<2x4xui8, 4x1>, %%arg1: !migraphx.shaped<2x4xui32, 4x1>, %%arg2: !migraphx.shaped<1x2x4x4xf32, 32x16x4x1>, %%arg3: !migraphx.shaped<2x1x3x3xf32, 9x9x3x1>) -> !migraphx.shaped<2x4xf32, 4x1> {\n  %s\n  return %%0 : !migraphx.shaped<2x4xf32, 4x1>\n}\n' "$1" > d.mlir
  run "$TOSAC" d.mlir --syntax-only -o d.out
  [ ! -e d.out ]
}

@test "unsigned forms tosac cannot compute are refused at the op, not computed wrong" {
  diag '%0 = migraphx.abs %arg0 : <2x4xui8, 4x1> -> <2x4xui8, 4x1>'
  assert_failure 1
  assert_line "d.mlir:2:8: error: 'migraphx.abs' on the unsigned type !migraphx.shaped<2x4xui8, 4x1> is not supported (tosac computes it on signed integers)"
  diag '%0 = migraphx.div %arg1, %arg1 : <2x4xui32, 4x1>, <2x4xui32, 4x1> -> <2x4xui32, 4x1>'
  assert_failure 1
  assert_line "d.mlir:2:8: error: 'migraphx.div' of unsigned 32-bit integers is not supported (TOSA's intdiv is signed)"
  diag '%0 = migraphx.convert %arg1 : <2x4xui32, 4x1> to <2x4xf32, 4x1>'
  assert_failure 1
  assert_line "d.mlir:2:8: error: 'migraphx.convert' zero-extending a 32-bit integer is not supported (tosac's integers end at i32)"
  diag '%0 = migraphx.quant_dot %arg0, %arg0 : <2x4xui8, 4x1>, <2x4xui8, 4x1> -> <2x4xi32, 4x1>'
  assert_failure 1
  assert_line --partial "d.mlir:2:8: error: 'migraphx.quant_dot' on the unsigned type !migraphx.shaped<2x4xui8, 4x1>"
}

@test "bad unpack, backwards convolution and element types are diagnosed at the token" {
  diag '%0 = migraphx.unpack %arg0 {axis = 1 : i64} : <2x4xui8, 4x1> -> <2x4xui8, 4x1>'
  assert_failure 1
  assert_line "d.mlir:2:8: error: 'migraphx.unpack' unpacks bytes into twice as many 8-bit integers along axis 1: tensor<2x4xi8> cannot give tensor<2x4xi8>"
  diag '%0 = migraphx.unpack %arg0 {axis = 3 : i64} : <2x4xui8, 4x1> -> <2x8xui8, 8x1>'
  assert_failure 1
  assert_line "d.mlir:2:31: error: 'migraphx.unpack' attribute 'axis': axis 3 is out of range for rank 2"
  diag '%0 = migraphx.backwards_data_convolution %arg2, %arg3 {dilation = [2, 2], group = 1 : i64, padding = [0, 0, 0, 0], stride = [1, 1]} : <1x2x4x4xf32, 32x16x4x1>, <2x1x3x3xf32, 9x9x3x1> -> <1x1x8x8xf32, 64x64x8x1>'
  assert_failure 1
  assert_line "d.mlir:2:58: error: 'migraphx.backwards_data_convolution' attribute 'dilation': only 1 is supported (tosa.transpose_conv2d has none)"
  diag '%0 = migraphx.relu %arg0 : <2x4xsi1, 4x1> -> <2x4xsi1, 4x1>'
  assert_failure 1
  assert_line "d.mlir:2:35: error: unknown element type 'si1' in '!migraphx.shaped'"
  diag '%0 = migraphx.literal (dense<300> : tensor<1xui8>) : <1xui8, 0>'
  assert_failure 1
  assert_line --partial "d.mlir:2:32: error: integer 300 does not fit in i8"
}
