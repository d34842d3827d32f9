#!/usr/bin/env bats
# --emit=tosa: every shared testdata graph prints as TOSA 1.0 that mlir-opt-22 accepts, printing
# the printed text again gives the same text, and the oracle computes the same numbers from the
# printed graph as from the original (or as a numpy reference for the older generations).

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  TESTDATA="$ROOT/../shared/testdata"
  ORACLE="$ROOT/tests/oracle/oracle.py"
  cd "$BATS_TEST_TMPDIR"
}

@test "testdata models: printed TOSA 1.0 is accepted by mlir-opt-22 and is a fixed point" {
  [ -d "$TESTDATA" ] || skip "no ../shared/testdata"
  command -v mlir-opt-22 >/dev/null || skip "no mlir-opt-22"
  for f in rocmlir_bert_part_0 rocmlir_bert_part_37 rocmlir_bert_part_48 rocmlir_resnet18 \
           rocmlir_resnet50_blk rocmlir_resnet50_part_0 torq_mbv2_softmax_i8; do
    run "$TOSAC" --emit=tosa "$TESTDATA/$f.mlir" -o "$f.1.mlir"
    assert_success
    run mlir-opt-22 "$f.1.mlir" -o /dev/null
    assert_success
    "$TOSAC" --emit=tosa "$f.1.mlir" -o "$f.2.mlir"
    cmp "$f.1.mlir" "$f.2.mlir"
  done
  # ResNet-18: the strided 7x7 stem trims its padding, the three strided 1x1 convs slice.
  run grep -c '"tosa.slice"' rocmlir_resnet18.1.mlir
  assert_output 3
  run grep -c 'pad = array<i64: 3, 2, 3, 2>, stride = array<i64: 2, 2>' rocmlir_resnet18.1.mlir
  assert_output 1
}

@test "llvm_ops.mlir: every function tosac accepts prints as TOSA 1.0 mlir-opt-22 accepts" {
  [ -d "$TESTDATA" ] || skip "no ../shared/testdata"
  command -v mlir-opt-22 >/dev/null || skip "no mlir-opt-22"
  local n=0
  # Two at a time: each tosac run is short but loads LLVM.
  grep -o 'func.func @[A-Za-z0-9_]*' "$TESTDATA/llvm_ops.mlir" | sed 's/func.func @//' |
    xargs -P 2 -I{} sh -c '"$0" --emit=tosa --entry {} "$1" -o {}.mlir 2>/dev/null || rm -f {}.mlir' "$TOSAC" "$TESTDATA/llvm_ops.mlir"
  for f in test_*.mlir; do
    { cat "$f"; echo '// -----'; } >> all.mlir
    n=$((n + 1))
  done
  echo "accepted: $n"
  run mlir-opt-22 --split-input-file all.mlir -o /dev/null
  assert_success
  refute_output --partial error
  # 120 since result types written with `?` take the inferred shape (test_transpose_half_dynamic_dim)
  [ "$n" -eq 120 ]
}

@test "oracle: the printed torq int8 softmax gives the original's numbers exactly" {
  [ -d "$TESTDATA" ] || skip "no ../shared/testdata"
  command -v mlir-runner-22 >/dev/null || skip "no mlir-runner-22"
  /usr/bin/python3 -c "import numpy as np; np.save('x.npy', np.random.default_rng(7).integers(-128, 128, (1,1,1,1000)).astype(np.int8))"
  "$TOSAC" --emit=tosa "$TESTDATA/torq_mbv2_softmax_i8.mlir" -o t.mlir
  /usr/bin/python3 "$ORACLE" "$TESTDATA/torq_mbv2_softmax_i8.mlir" --input=@x.npy --output=@a.npy
  /usr/bin/python3 "$ORACLE" t.mlir --input=@x.npy --output=@b.npy
  run /usr/bin/python3 -c "import numpy as np; a=np.load('a.npy'); b=np.load('b.npy'); print(a.shape, a.dtype, int((a!=b).sum()), int(a.min()) < int(a.max()))"
  assert_output "(1, 1000) int8 0 True"
}

@test "oracle: up-converted floor-geometry convs equal a numpy floor-division reference" {
  command -v mlir-runner-22 >/dev/null || skip "no mlir-runner-22"
  cat > g.mlir <<'M'
func.func @main(%x: tensor<1x10x10x3xf32>, %w: tensor<4x7x7x3xf32>, %v: tensor<4x1x1x3xf32>, %b: tensor<4xf32>) -> (tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>) {
  %0 = "tosa.conv2d"(%x, %w, %b) {dilation = [1, 1], pad = [3, 3, 3, 3], stride = [2, 2]} : (tensor<1x10x10x3xf32>, tensor<4x7x7x3xf32>, tensor<4xf32>) -> tensor<1x5x5x4xf32>
  %1 = "tosa.conv2d"(%x, %v, %b) {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x10x10x3xf32>, tensor<4x1x1x3xf32>, tensor<4xf32>) -> tensor<1x5x5x4xf32>
  return %0, %1 : tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>
}
M
  "$TOSAC" --emit=tosa g.mlir -o g1.mlir
  /usr/bin/python3 - <<'PY'
import numpy as np, sys
rng=np.random.default_rng(1)
x=rng.standard_normal((1,10,10,3)).astype(np.float32); w=rng.standard_normal((4,7,7,3)).astype(np.float32)
v=rng.standard_normal((4,1,1,3)).astype(np.float32); b=rng.standard_normal(4).astype(np.float32)
for n,a in zip("xwvb",(x,w,v,b)): np.save(n+".npy",a)
def conv(x,w,b,pad,s):
    xp=np.pad(x,((0,0),(pad,pad),(pad,pad),(0,0))).astype(np.float64)
    k=w.shape[1]; oh=(x.shape[1]+2*pad-k)//s+1
    out=np.zeros((1,oh,oh,w.shape[0]))
    for i in range(oh):
        for j in range(oh):
            out[0,i,j]=np.einsum('hwc,ohwc->o',xp[0,i*s:i*s+k,j*s:j*s+k],w)+b
    return out
np.save("ref0.npy",conv(x,w,b,3,2).astype(np.float32)); np.save("ref1.npy",conv(x,v,b,0,2).astype(np.float32))
PY
  /usr/bin/python3 "$ORACLE" g1.mlir --input=@x.npy --input=@w.npy --input=@v.npy --input=@b.npy --output=@o0.npy --output=@o1.npy
  # f32 sums of at most 147 products: within 1e-5 + 1e-5*|ref|.
  run /usr/bin/python3 -c "
import numpy as np
for k in (0, 1):
    o, r = np.load('o%d.npy' % k), np.load('ref%d.npy' % k)
    print(o.shape, bool(np.all(np.abs(o - r) <= 1e-5 + 1e-5 * np.abs(r))))"
  assert_output "(1, 5, 5, 4) True
(1, 5, 5, 4) True"
}
