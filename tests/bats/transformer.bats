#!/usr/bin/env bats
# Transformers (docs/partitioning.md, "Attention" and "Row-wise normalisation"): seeded BERT
# encoders and GPT decoders from tests/oracle/gen_transformer.py match the MLIR oracle on an
# MFMA (gfx90a, gfx942), a WMMA (gfx1100) and an FMA (gfx1030) target; attention is one kernel,
# layer norm / RMS norm / softmax one kernel each; the fallbacks stay correct.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  GEN=(/usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py")
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run")
  FOUR=gfx90a,gfx942,gfx1100,gfx1030
  ALL=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200
  cd "$BATS_TEST_TMPDIR"
}

# kernels of one target's plan, and how many of them have family $2 (manifest)
count_family() {
  /usr/bin/python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]
print(t["kernel_count"], sum(k["family"] == sys.argv[2] for k in t["kernels"]), t["workspace"]["bytes"])' "$1" "$2"
}

@test "2-layer BERT (padding mask) and GPT (causal) match the oracle on gfx90a, gfx942, gfx1100, gfx1030" {
  "${GEN[@]}" bert --layers=2 --seq=8 --mask --seed=1 > bert.mlir
  "${GEN[@]}" gpt --layers=2 --seq=13 --seed=2 > gpt.mlir
  run "${CHECK[@]}" bert.mlir gpt.mlir --targets=$FOUR
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 8
}

@test "grouped QKV GEMM: f16 with 77 rows (a partial row tile) matches the oracle; TOSAC_NO_GEMM_GROUPING=1 too" {
  "${GEN[@]}" bert --seq=77 --hidden=64 --heads=4 --dtype=f16 --seed=12 > g16.mlir
  run "$TOSAC" g16.mlir --offload-arch=gfx1100 -o g16.hipfb
  assert_success
  run /usr/bin/python3 -c '
import json
k = [k for k in json.load(open("g16.json"))["targets"][0]["kernels"] if k["name"].endswith("_matmul_group3")]
print(len(k), k[0]["family"])'
  assert_output "1 gemm"
  run "${CHECK[@]}" g16.mlir --targets=gfx90a,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  TOSAC_NO_GEMM_GROUPING=1 run "${CHECK[@]}" g16.mlir --targets=gfx90a
  assert_success
  # weights as arguments with 8 tokens: the skinny kernel streams each B, the projections stay
  # three GEMMs (constant weights group there too, into the grouped tile kernel)
  "${GEN[@]}" bert --seq=8 --weights=args > wa.mlir
  run "$TOSAC" wa.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 9 kernels, 9 launches, workspace 6144 bytes"
  refute_output --partial "_group"
}

# "processor kernel_count launches names-of-the-grouped-launches" per target of manifest $1
grouped_kernels() {
  /usr/bin/python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    ks = {k["id"]: k["name"] for k in t["kernels"]}
    names = [ks[n["kernel"]] for n in t["launches"] if n["kind"] == "kernel"]
    print(t["processor"], t["kernel_count"], len(names), *[n for n in names if "_group" in n])' "$1"
}

@test "grouped QKV GEMM with weights as arguments: seeded shapes (bias adds, attention after) match the oracle on gfx942, gfx1100, gfx1030, machine code and IR" {
  # shapes from seeded draws: more than 16 tokens (the tile kernel; fewer stay three skinny
  # GEMMs, above), 2-4 heads of 8 or 16; BERT f32 (bias adds, a padding mask) and GPT f16 (RMS
  # norm before, no bias), two layers each; the oracle's weights span what the constants would
  read -r s1 d1 n1 s2 d2 n2 <<< "$(/usr/bin/python3 -c '
import random
r = random.Random(20)
print(*[x for _ in range(2) for x in (r.randint(17, 72), r.choice((8, 16)), r.randint(2, 4))])')"
  "${GEN[@]}" bert --layers=2 --seq=$s1 --hidden=$((d1 * n1)) --heads=$n1 --mask --weights=args --seed=21 > ba.mlir
  "${GEN[@]}" gpt --layers=2 --seq=$s2 --hidden=$((d2 * n2)) --heads=$n2 --dtype=f16 --weights=args --seed=22 > ga.mlir
  for f in ba ga; do
    run "$TOSAC" $f.mlir --offload-arch=gfx942,gfx1100,gfx1030 -o $f.hipfb
    assert_success
  done
  # per layer one tosac_kN_matmul_group3 launch (Q, K, V and their biases) beside attention,
  # out-projection, norms and the MLP: BERT 7 kernels, GPT 7 (its gate and up a dual-B GEMM)
  run grouped_kernels ba.json
  assert_output "$(printf '%s\n' 'gfx942 14 14 tosac_k0_matmul_group3 tosac_k0_matmul_group3' \
    'gfx1100 14 14 tosac_k0_matmul_group3 tosac_k0_matmul_group3' 'gfx1030 14 14 tosac_k0_matmul_group3 tosac_k0_matmul_group3')"
  run grouped_kernels ga.json
  assert_output "$(printf '%s\n' 'gfx942 14 14 tosac_k1_matmul_group3 tosac_k1_matmul_group3' \
    'gfx1100 14 14 tosac_k1_matmul_group3 tosac_k1_matmul_group3' 'gfx1030 14 14 tosac_k1_matmul_group3 tosac_k1_matmul_group3')"
  TOSAC_NO_GEMM_GROUPING=1 run "$TOSAC" ba.mlir --offload-arch=gfx942 --emit=partitions
  assert_line --regexp "^target gfx942: 18 kernels, 18 launches"
  # tolerance: check.py's (f32 1e-5 relative and absolute, f16 2 ulps) plus the generator's
  # bound per result (f32 1e-4, f16 4e-2 per layer)
  run "${CHECK[@]}" ba.mlir ga.mlir --targets=gfx942,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
  TOSAC_EXEC=ir run "${CHECK[@]}" ba.mlir ga.mlir --targets=gfx942,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
}

# x [24, 40] times w0 (+ bias) and times B = u v, another GEMM's value; $1: N of the second
# product, $2 = first: B's GEMM before the other one
b_from_gemm() {
  local n=$1 m0="" mb
  m0='  %m0 = "tosa.matmul"(%x, %w0, %z, %z) : (tensor<1x24x40xf32>, tensor<1x40x56xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x24x56xf32>
  %y0 = "tosa.add"(%m0, %bias) : (tensor<1x24x56xf32>, tensor<1x1x56xf32>) -> tensor<1x24x56xf32>'
  mb="  %b = \"tosa.matmul\"(%u, %v, %z, %z) : (tensor<1x40x16xf32>, tensor<1x16x${n}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x40x${n}xf32>"
  printf '%s\n' '// oracle: arg 0 -1 1' '// oracle: arg 1 -0.25 0.25' '// oracle: arg 2 -0.25 0.25' \
    '// oracle: arg 3 -0.25 0.25' '// oracle: arg 4 -0.25 0.25'
  echo "func.func @main(%x: tensor<1x24x40xf32>, %w0: tensor<1x40x56xf32>, %u: tensor<1x40x16xf32>, %v: tensor<1x16x${n}xf32>, %bias: tensor<1x1x56xf32>) -> (tensor<1x24x56xf32>, tensor<1x24x${n}xf32>) {"
  echo '  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>'
  if [ "$2" = first ]; then printf '%s\n' "$mb" "$m0"; else printf '%s\n' "$m0" "$mb"; fi
  echo "  %m2 = \"tosa.matmul\"(%x, %b, %z, %z) : (tensor<1x24x40xf32>, tensor<1x40x${n}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x24x${n}xf32>"
  echo "  %y2 = \"tosa.tanh\"(%m2) : (tensor<1x24x${n}xf32>) -> tensor<1x24x${n}xf32>"
  echo "  return %y0, %y2 : tensor<1x24x56xf32>, tensor<1x24x${n}xf32>"
  echo "}"
}

@test "grouped GEMM B operands: an earlier kernel's value groups; a later kernel's value or another N stays apart" {
  b_from_gemm 56 first > earlier.mlir
  b_from_gemm 56 between > later.mlir
  b_from_gemm 48 first > othern.mlir
  for f in earlier later othern; do
    "$TOSAC" $f.mlir --offload-arch=gfx942 --emit=partitions | grep -E '^target|^  kernel'
  done > kernels.txt
  run cat kernels.txt
  # B's value is ready at the group's launch when its GEMM comes first; between the two
  # products it is not (the group would launch before it)
  assert_output "$(printf '%s\n' 'target gfx942: 2 kernels, 2 launches, workspace 8960 bytes' \
    '  kernel 0 tosac_k0_matmul over tensor<1x40x56xf32>' '  kernel 1 tosac_k1_matmul_group2 over tensor<1x24x56xf32>' \
    'target gfx942: 3 kernels, 3 launches, workspace 8960 bytes' \
    '  kernel 0 tosac_k0_matmul_add over tensor<1x24x56xf32>' '  kernel 1 tosac_k1_matmul over tensor<1x40x56xf32>' \
    '  kernel 2 tosac_k2_matmul_tanh over tensor<1x24x56xf32>' \
    'target gfx942: 3 kernels, 3 launches, workspace 7680 bytes' \
    '  kernel 0 tosac_k0_matmul over tensor<1x40x48xf32>' '  kernel 1 tosac_k1_matmul_add over tensor<1x24x56xf32>' \
    '  kernel 2 tosac_k2_matmul_tanh over tensor<1x24x48xf32>')"
  run "${CHECK[@]}" earlier.mlir later.mlir othern.mlir --targets=gfx942,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 3 graph(s)"
  TOSAC_EXEC=ir run "${CHECK[@]}" earlier.mlir later.mlir othern.mlir --targets=gfx942,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 3 graph(s)"
}

@test "decode with weights as arguments: the skinny Q projection stays alone, K and V over the cache group, block by block" {
  # one new token: Q is a skinny GEMM (M = 1); K and V project the 40 cached rows
  "${GEN[@]}" gpt --seq=1 --decode=40 --hidden=64 --heads=4 --weights=args --seed=23 > dec.mlir
  run "$TOSAC" dec.mlir --offload-arch=gfx942,gfx1100,gfx1030 -o dec.hipfb
  assert_success
  run grouped_kernels dec.json
  assert_output "$(printf '%s\n' 'gfx942 8 8 tosac_k1_matmul_group2' 'gfx1100 8 8 tosac_k1_matmul_group2' 'gfx1030 8 8 tosac_k1_matmul_group2')"
  run "${CHECK[@]}" dec.mlir --targets=gfx942,gfx1100,gfx1030
  assert_success
  TOSAC_EXEC=ir run "${CHECK[@]}" dec.mlir --targets=gfx942,gfx1100,gfx1030
  assert_success
  # twelve blocks project the same cached rows: each block's K and V group before that block's
  # attention reads them (not all 24 into the first block's launch: their results would live
  # from there on), 8 kernels per block and the workspace of the ungrouped plan
  "${GEN[@]}" gpt --layers=12 --seq=1 --decode=40 --hidden=64 --heads=4 --weights=args --seed=24 > d12.mlir
  run "$TOSAC" d12.mlir --offload-arch=gfx942 --emit=partitions
  assert_line "target gfx942: 96 kernels, 96 launches, workspace 21248 bytes"
  assert_equal "$(echo "$output" | grep -c '^  kernel [0-9]* tosac_k1_matmul_group2 ')" 12
  TOSAC_NO_GEMM_GROUPING=1 run "$TOSAC" d12.mlir --offload-arch=gfx942 --emit=partitions
  assert_line "target gfx942: 108 kernels, 108 launches, workspace 21248 bytes"
}

@test "sequence lengths that are no tile multiple (77 with batch 2, 70) match the oracle" {
  # 77 rows = one full and one partial block of 64 query rows, 77 keys = two full tiles of 32
  # and one of 13; 70 keys: two full and one of 6
  "${GEN[@]}" bert --seq=77 --batch=2 --hidden=64 --heads=4 --mask --seed=3 > b77.mlir
  "${GEN[@]}" gpt --seq=70 --hidden=48 --heads=2 --seed=4 > g70.mlir
  run "${CHECK[@]}" b77.mlir g70.mlir --targets=gfx90a,gfx1030
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
  # f16, head size 32: the WMMA kernel with 37 = 2 x 16 + 5 rows and keys
  "${GEN[@]}" gpt --seq=37 --hidden=64 --heads=2 --dtype=f16 --seed=8 > g37.mlir
  run "${CHECK[@]}" g37.mlir --targets=gfx1100,gfx942
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "f16 BERT and bf16 GPT (f32 softmax and accumulation inside) match the oracle" {
  "${GEN[@]}" bert --seq=7 --dtype=f16 --seed=5 > b16.mlir
  "${GEN[@]}" gpt --seq=13 --dtype=bf16 --seed=6 > gbf.mlir
  run "${CHECK[@]}" b16.mlir gbf.mlir --targets=$FOUR
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 8
}

@test "attention kernels use MFMA on CDNA, WMMA on gfx11/gfx12, FMA on gfx1030; TOSAC_ATTENTION_FMA=1" {
  "${GEN[@]}" bert --seq=7 --dtype=f16 --seed=5 > b16.mlir
  run "$TOSAC" b16.mlir --offload-arch=$ALL -o b16.hipfb
  assert_success
  run /usr/bin/python3 -c '
import json
for t in json.load(open("b16.json"))["targets"]:
    print(t["processor"], *[k["matrix_instruction"] for k in t["kernels"] if k["family"] == "attention"])'
  # gfx950's f16 16x16 MFMA has k = 32 > the head size 16: K and Q padded with zeros to 32
  assert_output "$(printf '%s\n' 'gfx908 v_mfma_f32_16x16x16f16' 'gfx90a v_mfma_f32_16x16x16f16' \
    'gfx942 v_mfma_f32_16x16x16_f16' 'gfx950 v_mfma_f32_16x16x32_f16' 'gfx1030 fma' 'gfx1100 v_wmma_f32_16x16x16_f16' \
    'gfx1200 v_wmma_f32_16x16x16_f16')"
  clang-offload-bundler-22 --type=o --input=b16.hipfb --targets=hipv4-amdgcn-amd-amdhsa--gfx1100 --output=g11.co --unbundle
  run llvm-objdump-22 -d g11.co
  assert_output --partial "v_wmma_f32_16x16x16_f16"
  TOSAC_ATTENTION_FMA=1 run "$TOSAC" b16.mlir --offload-arch=gfx90a -o fma.hipfb
  run /usr/bin/python3 -c 'import json; print(*[k["matrix_instruction"] for k in json.load(open("fma.json"))["targets"][0]["kernels"] if k["family"] == "attention"])'
  assert_output "fma"
  TOSAC_ATTENTION_FMA=1 run "${CHECK[@]}" b16.mlir --targets=gfx942
  assert_success
}

@test "flash attention kernel: 150 and 200 keys (64-key blocks and a partial last one), head 128 with a mask, f16 and bf16" {
  # docs/kernels-attention.md: 64-key blocks from 128 keys on, the key bound in the last block
  # only; head 128 f16 with a padding mask; bf16 head 32 (gfx950: the 16x16x32 MFMA). One
  # kernel over all keys: the split-KV estimate would cut b200's keys on gfx950 (one head, 4
  # work-groups on 256 CUs), whose chunks are whole blocks
  export TOSAC_SPLIT_KV=0
  "${GEN[@]}" gpt --seq=150 --hidden=64 --heads=2 --seed=9 > g150.mlir
  "${GEN[@]}" bert --seq=200 --hidden=128 --heads=1 --mask --dtype=f16 --seed=10 > b200.mlir
  "${GEN[@]}" gpt --seq=131 --hidden=64 --heads=2 --dtype=bf16 --seed=11 > g131.mlir
  run "$TOSAC" b200.mlir --offload-arch=gfx942,gfx950,gfx1100 -o b200.hipfb
  assert_success
  run /usr/bin/python3 -c '
import json
for t in json.load(open("b200.json"))["targets"]:
    for k in t["kernels"]:
        if k["family"] == "attention":
            print(t["processor"], k["matrix_instruction"], k["tuning"]["block_rows"], k["tuning"]["block_keys"])'
  assert_output "$(printf '%s\n' 'gfx942 v_mfma_f32_16x16x16_f16 64 64' 'gfx950 v_mfma_f32_16x16x32_f16 64 64' \
    'gfx1100 v_wmma_f32_16x16x16_f16 128 64')"
  run "${CHECK[@]}" g150.mlir b200.mlir --targets=gfx942,gfx950,gfx1100,gfx1030
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 8
  run "${CHECK[@]}" g131.mlir --targets=gfx90a,gfx950
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  # the harness fails on a wrong reference
  run "${CHECK[@]}" g150.mlir --targets=gfx942 --corrupt
  assert_failure
}

@test "flash attention: 450 and 391 keys run the unrolled block pairs, the single blocks and the partial tail (masked, f16 and bf16)" {
  # docs/kernels-attention.md: 64-key blocks go in pairs while the pair's loads stay below L
  # (unclamped, scalar offsets), then one at a time with clamped loads, then the partial block
  "${GEN[@]}" bert --seq=450 --hidden=128 --heads=2 --mask --dtype=f16 --seed=21 > b450.mlir
  "${GEN[@]}" gpt --seq=391 --hidden=64 --heads=1 --dtype=bf16 --seed=22 > g391.mlir
  run "${CHECK[@]}" b450.mlir --targets=gfx942,gfx950,gfx1100,gfx1030
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 4
  run "${CHECK[@]}" g391.mlir --targets=gfx90a,gfx950
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "flash attention on gfx950: 1024 keys take 128-key blocks (the issue-bound loop), f16 with a mask and bf16" {
  # docs/kernels-attention.md: where the issue bounds the loop (gfx950's double-rate MFMAs) and
  # two work-groups' buffers fit the LDS, 1024 keys or more go in blocks of 128; gfx942 keeps 64
  export TOSAC_SPLIT_KV=0
  "${GEN[@]}" bert --seq=1024 --hidden=64 --heads=1 --mask --dtype=f16 --seed=24 > b1024.mlir
  "${GEN[@]}" gpt --seq=1024 --hidden=64 --heads=1 --dtype=bf16 --seed=23 > g1024.mlir
  run "$TOSAC" b1024.mlir --offload-arch=gfx942,gfx950 -o b1024.hipfb
  assert_success
  run /usr/bin/python3 -c '
import json
for t in json.load(open("b1024.json"))["targets"]:
    for k in t["kernels"]:
        if k["family"] == "attention":
            print(t["processor"], k["tuning"]["block_keys"], k["lds_bytes"])'
  assert_output "$(printf '%s\n' 'gfx942 64 32768' 'gfx950 128 65536')"
  run "${CHECK[@]}" b1024.mlir g1024.mlir --targets=gfx950
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
  # K given as Kᵀ ([D][L], no transpose to absorb): element loads, whose 128-key blocks would
  # take twice the staging chunks a lane holds; the kernel keeps 64-key blocks
  /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 1 1024 64 f16 |
    sed -e 's/%k: tensor<1x1024x64xf16>/%kt: tensor<1x64x1024xf16>/' -e '/%kt = tosa.transpose/d' > kt.mlir
  run "$TOSAC" kt.mlir --offload-arch=gfx950 -o kt.hipfb
  assert_success
  run /usr/bin/python3 -c 'import json; print(*[k["tuning"]["block_keys"] for k in json.load(open("kt.json"))["targets"][0]["kernels"] if k["family"] == "attention"])'
  assert_output "64"
}

@test "flash attention: a pure score scale folds into the exponent (no f16 score ops); f16 output within 1e-3 of a float64 softmax" {
  # the f16 graph's softmax (gen_attention.py) is f16 throughout, so the oracle differs from any
  # f32 softmax by its own rounding; the kernel is checked against float64 instead
  /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 2 150 64 f16 > a150.mlir
  run "$TOSAC" a150.mlir --offload-arch=gfx942 --emit=asm -o a150.s
  assert_success
  [ "$(awk '/^tosac_k[0-9]+_attention:/,/s_endpgm/' a150.s | grep -c 'v_mul_f16\|v_cvt_f32_f16')" = 0 ]
  [ "$(awk '/^tosac_k[0-9]+_attention:/,/s_endpgm/' a150.s | grep -c 'v_pk_fma_f32')" -gt 0 ]
  run /usr/bin/python3 -c '
import numpy as np, subprocess, sys
rng = np.random.default_rng(5)
q, k, v = [rng.standard_normal((2, 150, 64)).astype(np.float16) for _ in range(3)]
for n, a in zip("qkv", (q, k, v)):
    np.save("in_%s.npy" % n, a)
s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) / 8.0
p = np.exp(s - s.max(-1, keepdims=True)); p /= p.sum(-1, keepdims=True)
ref = p @ v.astype(np.float64)
tosac, run, mode = sys.argv[1:4]
for t in ("gfx942", "gfx950"):
    subprocess.run([tosac, "a150.mlir", "--offload-arch=" + t, "--embed-ir", "-o", "a.hipfb"], check=True)
    subprocess.run([run, "a.hipfb", "--target=" + t, "--exec=" + mode, "--input=@in_q.npy", "--input=@in_k.npy",
                    "--input=@in_v.npy", "--output=@out.npy"], check=True)
    d = np.abs(np.load("out.npy").astype(np.float64) - ref).max()
    print(t, "ok" if d < 1e-3 else "max |d| %g" % d)' "$TOSAC" "$BIN/tosac-run" "${TOSAC_EXEC:-ir}"
  assert_success
  assert_output "$(printf 'gfx942 ok\ngfx950 ok')"
}

@test "older syntax (2-operand matmul, new_shape, perms operands, shift attributes) fuses the same" {
  "${GEN[@]}" gpt --layers=2 --seq=5 --syntax=old > old.mlir
  "${GEN[@]}" gpt --layers=2 --seq=5 > new.mlir
  run "$TOSAC" old.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 16 kernels, 16 launches, workspace 4096 bytes"
  run "${CHECK[@]}" old.mlir --oracle-via-tosac --targets=gfx942,gfx1100
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "kernels per layer: BERT 7, GPT 8 (grouped QKV GEMM, attention, norms, GEMMs); the counts without each fusion" {
  "${GEN[@]}" bert --layers=2 --seq=8 > bert.mlir
  "${GEN[@]}" gpt --layers=2 --seq=8 > gpt.mlir
  run "$TOSAC" bert.mlir --offload-arch=gfx1100 --emit=partitions
  assert_line "target gfx1100: 14 kernels, 14 launches, workspace 6144 bytes"
  # per layer: one grouped GEMM for the Q, K and V projections (no transpose kernels: index maps
  # of the attention kernel), attention, out-projection + residual, layer norm, FFN1 + GELU,
  # FFN2 + residual, layer norm
  assert_equal "$(echo "$output" | grep -c '^  kernel .*_matmul_group3 over tensor<1x8x32xf32>')" 2
  assert_equal "$(echo "$output" | grep -c '^  kernel .*_attention over tensor<2x8x16xf32>')" 2
  assert_equal "$(echo "$output" | grep -c '^  kernel .*_rownorm over tensor<1x8x32xf32>')" 4
  assert_equal "$(echo "$output" | grep -c '^  kernel .*_matmul')" 8
  TOSAC_NO_GEMM_GROUPING=1 run "$TOSAC" bert.mlir --offload-arch=gfx1100 --emit=partitions
  assert_line "target gfx1100: 18 kernels, 18 launches, workspace 6144 bytes"
  assert_equal "$(echo "$output" | grep -c '_group')" 0
  assert_equal "$(echo "$output" | grep -c '_transpose\|_reduce')" 0
  # without attention fusion the softmax (8 rows per head) runs in the prologue of the skinny
  # P V product that reads it (norm_gemv.bats)
  TOSAC_NO_ATTENTION_FUSION=1 run "$TOSAC" bert.mlir --offload-arch=gfx1100 --emit=partitions
  assert_line "target gfx1100: 24 kernels, 24 launches, workspace 6144 bytes"
  assert_equal "$(echo "$output" | grep -c '^  kernel .*_rownorm_matmul over tensor<2x8x16xf32>')" 2
  TOSAC_NO_ROW_FUSION=1 TOSAC_NO_ATTENTION_FUSION=1 run "$TOSAC" bert.mlir --offload-arch=gfx1100 --emit=partitions
  assert_line "target gfx1100: 44 kernels, 44 launches, workspace 5120 bytes"
  TOSAC_NO_GEMM_GROUPING=1 TOSAC_NO_ROW_FUSION=1 TOSAC_NO_ATTENTION_FUSION=1 run "$TOSAC" bert.mlir --offload-arch=gfx1100 --emit=partitions
  assert_line "target gfx1100: 48 kernels, 48 launches, workspace 5120 bytes"
  # per block: RMS norm, grouped QKV GEMM, attention, out-projection + residual, RMS norm, gate
  # and up GEMMs (8 tokens: two skinny kernels, no dual-B GEMM; longer sequences make them one,
  # dual_gemm.bats), down
  run "$TOSAC" gpt.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 16 kernels, 16 launches, workspace 6144 bytes"
  assert_equal "$(echo "$output" | grep -c '_rownorm over tensor<1x8x32xf32>')" 4
  TOSAC_NO_ATTENTION_FUSION=1 TOSAC_NO_ROW_FUSION=1 run "$TOSAC" gpt.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 39 kernels, 39 launches, workspace 6400 bytes"
  TOSAC_NO_GEMM_GROUPING=1 run "$TOSAC" gpt.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 20 kernels, 20 launches, workspace 6144 bytes"
}

@test "samples/attention.mlir: one attention kernel listing its source ops; 3 and 7 kernels without fusion" {
  run "$TOSAC" "$ROOT/samples/attention.mlir" --offload-arch=gfx90a,gfx1030 -o a.hipfb
  assert_success
  run /usr/bin/python3 -c '
import json
for t in json.load(open("a.json"))["targets"]:
    k = t["kernels"][0]
    print(t["processor"], t["kernel_count"], k["family"], k["matrix_instruction"], k["lds_bytes"],
          " ".join(o["op"][5:] for o in k["ops"] if o["op"] != "tosa.const"))'
  assert_line "gfx90a 1 attention v_mfma_f32_16x16x4f32 8192 transpose matmul mul add reduce_max sub exp reduce_sum reciprocal mul matmul"
  assert_line "gfx1030 1 attention fma 4096 transpose matmul mul add reduce_max sub exp reduce_sum reciprocal mul matmul"
  # the softmax in the prologue of the P V product (8 rows: a skinny GEMM)
  TOSAC_NO_ATTENTION_FUSION=1 run "$TOSAC" "$ROOT/samples/attention.mlir" --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 3 kernels, 3 launches, workspace 1536 bytes"
  assert_line --regexp "^  kernel 2 tosac_k2_rownorm_matmul over tensor<2x8x16xf32>$"
  TOSAC_NO_ATTENTION_FUSION=1 TOSAC_NO_ROW_FUSION=1 run "$TOSAC" "$ROOT/samples/attention.mlir" --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 7 kernels, 7 launches, workspace 1536 bytes"
  run "${CHECK[@]}" "$ROOT/samples/attention.mlir" --targets=$ALL
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 7
  # the harness can fail: a corrupted reference element is reported
  run "${CHECK[@]}" "$ROOT/samples/attention.mlir" --targets=gfx90a --corrupt
  assert_failure
  assert_output --partial "MISMATCH"
}

@test "the unfused paths give the same results (TOSAC_NO_ATTENTION_FUSION=1, TOSAC_NO_ROW_FUSION=1)" {
  "${GEN[@]}" bert --seq=9 --mask --seed=7 > b.mlir
  TOSAC_NO_ATTENTION_FUSION=1 run "${CHECK[@]}" b.mlir --targets=gfx90a,gfx1100
  assert_success
  TOSAC_NO_ROW_FUSION=1 run "${CHECK[@]}" b.mlir --targets=gfx1030
  assert_success
}

@test "a pattern that does not fully match falls back: softmax probabilities also returned" {
  # %p is a graph result as well as the second matmul's input: the chain cannot be one kernel
  sed -e 's/-> tensor<2x8x16xf32> {/-> (tensor<2x8x16xf32>, tensor<2x8x8xf32>) {/' \
      -e 's/return %o : tensor<2x8x16xf32>/return %o, %p : tensor<2x8x16xf32>, tensor<2x8x8xf32>/' \
      "$ROOT/samples/attention.mlir" > p.mlir
  run "$TOSAC" p.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 4 kernels, 4 launches, workspace 1536 bytes"
  refute_output --partial "_attention"
  # a reduction over another axis is no row normalisation either
  sed -e 's/tosa.reduce_max %sm {axis = 2 : i32} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>/tosa.reduce_max %sm {axis = 1 : i32} : (tensor<2x8x8xf32>) -> tensor<2x1x8xf32>/' \
      -e 's/tosa.sub %sm, %m : (tensor<2x8x8xf32>, tensor<2x8x1xf32>)/tosa.sub %sm, %m : (tensor<2x8x8xf32>, tensor<2x1x8xf32>)/' \
      "$ROOT/samples/attention.mlir" > ax.mlir
  run "$TOSAC" ax.mlir --offload-arch=gfx90a --emit=partitions
  refute_output --partial "_attention"
  run "${CHECK[@]}" p.mlir ax.mlir --targets=gfx90a,gfx1030
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
}

@test "decode step (1 query, 2000 cached keys): split-KV partials merged by their last work-group or a combine kernel match the oracle" {
  "${GEN[@]}" gpt --seq=1 --decode=2000 --hidden=64 --heads=2 --seed=9 > dec.mlir
  "${GEN[@]}" bert --seq=3 --decode=1500 --hidden=64 --heads=4 --dtype=f16 --seed=10 > dec16.mlir
  run "$TOSAC" dec.mlir --offload-arch=gfx90a --emit=partitions
  # 2 heads use 2 of 104 CUs: the estimate (codegen/tuning.c cg_tune_splitkv) takes 16 chunks
  # of 128 keys for the decode variant, the least time of the partials' memory and issue with
  # the combine (its 3.8 us launch included); the chunks are merged by the last work-group of
  # each head (its two counters in the zeroed workspace), TOSAC_SPLIT_KV_FORM=combine keeps the
  # combine kernel (8 kernels: the first RMS norm runs in the Q projection's prologue,
  # norm_gemv.bats)
  assert_line "target gfx90a: 8 kernels, 8 launches, workspace 1029120 bytes"
  assert_line "  kernel 2 tosac_k2_attention_splitkv over tensor<2x1x32xf32>"
  assert_line "    split-KV estimate: 16 chunks 5.20 us with the combine, one kernel 10.94 us; merged by the last work-group"
  assert_output --partial "workspace tensor<16x2x1x34xf32> 4352 bytes"
  assert_output --partial "workspace tensor<2xi32> 8 bytes at workspace+0"
  TOSAC_SPLIT_KV_FORM=combine run "$TOSAC" dec.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 9 kernels, 9 launches, workspace 1028608 bytes"
  assert_line "  kernel 3 tosac_k3_attention_combine over tensor<2x1x32xf32>"
  TOSAC_SPLIT_KV=0 run "$TOSAC" dec.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 8 kernels, 8 launches, workspace 1024512 bytes"
  refute_output --partial "splitkv"
  run "${CHECK[@]}" dec.mlir dec16.mlir --targets=gfx90a,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
  TOSAC_SPLIT_KV=3 run "${CHECK[@]}" dec.mlir --targets=gfx942
  assert_success
  TOSAC_SPLIT_KV_FORM=combine run "${CHECK[@]}" dec.mlir dec16.mlir --targets=gfx90a,gfx1030
  assert_success
}

@test "split-KV is chosen per target by the estimate: 24 heads x 1 query over 1024 keys stay one decode kernel on every target" {
  "${GEN[@]}" gpt --seq=1 --decode=1024 --hidden=384 --heads=24 --weights=args > dech.mlir
  for t in gfx908 gfx90a gfx942 gfx950 gfx1030 gfx1100 gfx1200; do
    run "$TOSAC" dech.mlir --offload-arch=$t --emit=partitions
    # the attention partials [S, heads, 1, D + 2] (the decode projections' skinny-GEMM split-K
    # partials have workspaces too)
    echo "$t $(echo "$output" | grep -c '_attention_splitkv') $(echo "$output" | grep -c 'workspace tensor<[0-9]*x24x1x18xf32>')"
  done > choice.txt
  run cat choice.txt
  # the decode variant's 24 work-groups keep 24 x 256 lanes x 128 bytes of K and V loads in
  # flight (786 KB, the 3.1 MB read in 2-4 latencies): a combine's launch (3.8 us) costs more
  # than a split saves on every target (the splits of longer caches: attention_decode.bats)
  assert_output "$(printf '%s\n' 'gfx908 0 0' 'gfx90a 0 0' 'gfx942 0 0' 'gfx950 0 0' 'gfx1030 0 0' 'gfx1100 0 0' 'gfx1200 0 0')"
}

@test "a BERT-base layer (hidden 768, 12 heads, sequence 128, hex weights) compiles for all 7 targets" {
  # the 12-layer graph runs in make bench; one layer against the oracle is the next test
  # (tests/bench/transformer_bench.sh): about a minute of emulation
  "${GEN[@]}" bert --seq=128 --hidden=768 --heads=12 --seed=11 > base.mlir
  run "$TOSAC" base.mlir -o base.hipfb
  assert_success
  run clang-offload-bundler-22 --list --type=o --input=base.hipfb
  assert_equal "$(echo "$output" | grep -c '^hipv4-amdgcn-amd-amdhsa--gfx')" 7
  run /usr/bin/python3 -c '
import json
for t in json.load(open("base.json"))["targets"]:
    fam = [k["family"] for k in t["kernels"]]
    att = [k for k in t["kernels"] if k["family"] == "attention"][0]
    print(t["processor"], t["kernel_count"], fam.count("gemm"), fam.count("rownorm"), att["matrix_instruction"],
          att["registers"]["vgpr_spills"], t["workspace"]["bytes"])
    # layer norms: 1 KiB of reduction tree + the 3 KiB input row cached in LDS
    assert all(k["lds_bytes"] == 4096 for k in t["kernels"] if k["family"] == "rownorm")'
  # the tile heuristic (codegen/tuning.c) splits K of some GEMMs (gfx90a and gfx1100: none,
  # gfx908 and gfx1200: one, gfx1030: two, gfx942 and gfx950: three), each reduced by its last
  # work-group in the same kernel (no combine kernel: splitk_form.bats), the partials and the
  # arrival counters in the workspace (RDNA by the RDNA estimate: rdna_splitk.bats). On gfx950
  # (160 KiB of LDS) the first layer norm's f32 rows fit beside the FFN-up GEMM's tile and run in
  # its prologue (norm_gemm.bats checks that layer against the oracle); on 64 KiB they do not
  assert_output "$(printf '%s\n' 'gfx908 7 4 2 v_mfma_f32_16x16x4f32 0 4325632' 'gfx90a 7 4 2 v_mfma_f32_16x16x4f32 0 2359296' \
    'gfx942 7 4 2 v_mfma_f32_16x16x4_f32 0 7078656' 'gfx950 6 4 1 v_mfma_f32_16x16x4_f32 0 5505792' \
    'gfx1030 7 4 2 fma 0 4325632' 'gfx1100 7 4 2 fma 0 2359296' 'gfx1200 7 4 2 fma 0 3932416')"
}

@test "one BERT-base layer (hidden 768, 12 heads, sequence 128, hex weights) matches the oracle on gfx90a, gfx1030 and gfx1200" {
  # the real size end to end (10 s per target on an idle 2-core machine, about a minute under
  # load); gfx1030 and gfx1200 run split-K GEMMs chosen by the RDNA estimate (the test above)
  "${GEN[@]}" bert --layers=1 --seq=128 --hidden=768 --heads=12 --seed=11 > base1.mlir
  run "${CHECK[@]}" base1.mlir --targets=gfx90a,gfx1030,gfx1200
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "masked_fill (select with -inf) joins the kernel: whole masked tiles and a fully masked row" {
  cat > sel.mlir <<'M'
func.func @main(%q: tensor<2x8x16xf32>, %k: tensor<2x40x16xf32>, %v: tensor<2x40x16xf32>, %keep: tensor<2x8x40xi1>) -> tensor<2x8x16xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x40x16xf32>) -> tensor<2x16x40xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x8x16xf32>, tensor<2x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x40xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x8x40xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x40xf32>
  %sm = tosa.select %keep, %ss, %ninf : (tensor<2x8x40xi1>, tensor<2x8x40xf32>, tensor<1x1x1xf32>) -> tensor<2x8x40xf32>
  %m = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<2x8x40xf32>) -> tensor<2x8x1xf32>
  %d = tosa.sub %sm, %m : (tensor<2x8x40xf32>, tensor<2x8x1xf32>) -> tensor<2x8x40xf32>
  %e = tosa.exp %d : (tensor<2x8x40xf32>) -> tensor<2x8x40xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x8x40xf32>) -> tensor<2x8x1xf32>
  %r = tosa.reciprocal %sum : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x8x40xf32>, tensor<2x8x1xf32>, tensor<1xi8>) -> tensor<2x8x40xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x8x40xf32>, tensor<2x40x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}
M
  run "$TOSAC" sel.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  # the first 20 keys of every row masked (more than a whole key tile of either kernel), one row
  # entirely (NaN, as the oracle gives): a running max of -inf must not turn e^(s - m) into NaN
  /usr/bin/python3 -c '
import numpy as np
r = np.random.default_rng(5)
for name, shape in (("q", (2, 8, 16)), ("k", (2, 40, 16)), ("v", (2, 40, 16))):
    np.save(name + ".npy", r.uniform(-2, 2, shape).astype(np.float32))
keep = np.ones((2, 8, 40), bool)
keep[:, :, :20] = False
keep[1, 3, :] = False
keep[0, 5, 37:] = False
np.save("keep.npy", keep)'
  run "${CHECK[@]}" sel.mlir --input=@q.npy --input=@k.npy --input=@v.npy --input=@keep.npy --targets=gfx90a,gfx1100,gfx1030
  assert_success
  assert_equal "$(echo "$output" | grep -c '^ok ')" 3
}
