#!/usr/bin/env bats
# The WMMA flash variant of the attention kernel (gfx11, gfx12; docs/kernels-attention.md "The
# WMMA flash variant"): scores in registers, P fed to the second WMMA from the accumulators
# (gfx11 through the other half-wave), K and V double-buffered in LDS. Oracle checks at odd
# lengths with padding and causal masks in both execution modes, the causal block skip, the
# variant choice, and the matrix-pipe share of its main loop in the quality report.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  GENT=(/usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py")
  GENM=(/usr/bin/python3 "$ROOT/tests/oracle/gen_masked_attention.py")
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run")
  unset TOSAC_ATTENTION_FMA TOSAC_ATTENTION_LDS TOSAC_TUNING_DB
  export TOSAC_SPLIT_KV=0 # one kernel over all keys
  cd "$BATS_TEST_TMPDIR"
}

# "target instruction block_rows block_keys" of the attention kernels in manifest $1
variant() {
  /usr/bin/python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    for k in t["kernels"]:
        if k["family"] == "attention":
            print(t["processor"], k["matrix_instruction"], k["tuning"]["block_rows"], k["tuning"]["block_keys"])' "$1"
}

@test "WMMA flash attention matches the oracle at odd lengths: padding mask, causal masks, f16 and bf16, head 32 to 128, gfx1100 and gfx1200, both execution modes" {
  # b450: 64-key blocks in pairs with unclamped loads, single blocks and the partial tail;
  # b200: head 128; c2: causal select mask (150 queries, 203 keys, head 32); c3: bf16 causal
  # -inf mask with 37 keys (only the partial block); g131: bf16 GPT (causal), head 32
  "${GENT[@]}" bert --seq=450 --hidden=128 --heads=2 --mask --dtype=f16 --seed=21 > b450.mlir
  "${GENT[@]}" bert --seq=200 --hidden=128 --heads=1 --mask --dtype=f16 --seed=10 > b200.mlir
  "${GENM[@]}" 2 150 203 32 --form=select --reshape --dtype=f16 > c2.mlir
  "${GENM[@]}" 3 37 37 64 --form=neginf --dtype=bf16 > c3.mlir
  "${GENT[@]}" gpt --seq=131 --hidden=64 --heads=2 --dtype=bf16 --seed=11 > g131.mlir
  for mode in isa ir; do
    TOSAC_EXEC=$mode TOSAC_HIPEMU_EXEC=$mode run "${CHECK[@]}" b450.mlir b200.mlir c2.mlir c3.mlir g131.mlir \
      --targets=gfx1100,gfx1200
    assert_success
    assert_equal "$(echo "$output" | grep -c '^ok ')" 10
  done
  # the harness fails on a wrong reference
  run "${CHECK[@]}" c2.mlir --targets=gfx1200 --corrupt
  assert_failure
}

@test "WMMA flash attention with the scale folded: f16 output within 1e-3 of a float64 softmax on gfx1100 and gfx1200, both execution modes" {
  # P is rounded toward zero (v_cvt_pkrtz_f16_f32) while the row sum adds the unrounded values:
  # measured 4.8e-4 at most here (gfx942's MFMA flash kernel: 2.6e-4)
  /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 2 150 64 f16 > a150.mlir
  "$TOSAC" a150.mlir --offload-arch=gfx1100,gfx1200 --embed-ir -o a.hipfb
  run /usr/bin/python3 -c '
import numpy as np, subprocess, sys
rng = np.random.default_rng(5)
q, k, v = [rng.standard_normal((2, 150, 64)).astype(np.float16) for _ in range(3)]
for n, a in zip("qkv", (q, k, v)):
    np.save("in_%s.npy" % n, a)
s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) / 8.0
p = np.exp(s - s.max(-1, keepdims=True)); p /= p.sum(-1, keepdims=True)
ref = p @ v.astype(np.float64)
for t in ("gfx1100", "gfx1200"):
    for mode in ("isa", "ir"):
        subprocess.run([sys.argv[1], "a.hipfb", "--target=" + t, "--exec=" + mode, "--input=@in_q.npy", "--input=@in_k.npy",
                        "--input=@in_v.npy", "--output=@out.npy"], check=True)
        d = np.abs(np.load("out.npy").astype(np.float64) - ref).max()
        print(t, mode, "ok" if d < 1e-3 else "max |d| %g" % d)' "$BIN/tosac-run"
  assert_success
  assert_output "$(printf 'gfx1100 isa ok\ngfx1100 ir ok\ngfx1200 isa ok\ngfx1200 ir ok')"
}

@test "the WMMA flash variant on gfx11/gfx12 (128 query rows, 64-key blocks); TOSAC_ATTENTION_LDS=1 keeps the LDS matrix one; gfx1030 the portable one" {
  "${GENT[@]}" bert --seq=200 --hidden=128 --heads=1 --mask --dtype=f16 --seed=10 > b200.mlir
  "$TOSAC" b200.mlir --offload-arch=gfx1100,gfx1200,gfx1030 -o b200.hipfb
  run variant b200.json
  assert_output "$(printf '%s\n' 'gfx1100 v_wmma_f32_16x16x16_f16 128 64' 'gfx1200 v_wmma_f32_16x16x16_f16 128 64' \
    'gfx1030 fma 64 32')"
  TOSAC_ATTENTION_LDS=1 "$TOSAC" b200.mlir --offload-arch=gfx1100,gfx1200 -o lds.hipfb
  run variant lds.json
  assert_output "$(printf '%s\n' 'gfx1100 v_wmma_f32_16x16x16_f16 16 16' 'gfx1200 v_wmma_f32_16x16x16_f16 16 16')"
  # a short sequence takes fewer waves: 37 queries, 3 waves of 16 rows
  "${GENM[@]}" 3 37 37 64 --form=neginf --dtype=f16 > c3.mlir
  "$TOSAC" c3.mlir --offload-arch=gfx1200 -o c3.hipfb
  run variant c3.json
  assert_output 'gfx1200 v_wmma_f32_16x16x16_f16 48 64'
}

@test "causal WMMA flash attention: the first query block runs 3 of the 4 key blocks (the machine-code trace of its first wave)" {
  "${GENM[@]}" 2 150 203 32 --form=add --dtype=f16 > c.mlir
  "${GENM[@]}" 2 150 203 32 --form=add --dtype=f16 --near > n.mlir
  for t in gfx1100 gfx1200; do
    for g in c n; do
      "$TOSAC" $g.mlir --offload-arch=$t -o $g.$t.hipfb
      TOSAC_EXEC=isa TOSAC_ISA_TRACE=0 "$BIN/tosac-run" $g.$t.hipfb --input="2x150x32xf16=1" --input="2x203x32xf16=1" \
        --input="2x203x32xf16=1" 2> $g.$t.trace > /dev/null
    done
    c=$(grep -c '^0x' c.$t.trace) n=$(grep -c '^0x' n.$t.trace)
    echo "$t causal $c near $n"
    # 128 query rows: the causal end is 128 + 53 = 181 keys (two blocks and the partial one)
    # instead of 203 (three and the partial one)
    [ "$c" -gt 500 ]
    [ $((c * 4)) -lt $((n * 3)) ]
  done
}

# the WMMA model's matrix share of the attention row of target $2 in bundle $1, at least $3
share_at_least() {
  local s
  s=$("$BIN/tosac-bundle" quality "$1" --no-mca | awk -v t="$2" '$1 == t && $2 == "attention" && $13 == "wmma" { print $14 }')
  echo "$1 $2: ${s:-no wmma row}"
  [ -n "$s" ] && awk -v s="$s" -v lo="$3" 'BEGIN { exit !(s >= lo) }'
}

@test "quality: the WMMA flash loop keeps the matrix pipe >= 60 % (head 64) and >= 75 % (head 128) busy on gfx1100 and gfx1200" {
  # docs/kernels-attention.md "The WMMA flash variant": the loop is a pair of 64-key blocks; per
  # block 66 v_exp (64 scores per lane over the two blocks, and alpha)
  for d in 64 128; do
    /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 8 1024 $d f16 > a$d.mlir
    "$TOSAC" a$d.mlir --offload-arch=gfx1100,gfx1200 -o a$d.hipfb
  done
  run "$BIN/tosac-bundle" quality a64.hipfb --no-mca
  assert_success
  assert_line --regexp '^gfx1100 +attention +tosac_k0_attention +8x1024x1024x64x64 +f16 .* wmma +77\.2 +66 +317 '
  assert_line --regexp '^gfx1200 +attention +tosac_k0_attention +8x1024x1024x64x64 +f16 .* wmma +68\.1 +66 +314 '
  run "$BIN/tosac-bundle" quality a128.hipfb --no-mca
  assert_success
  assert_line --regexp '^gfx1100 +attention +tosac_k0_attention +8x1024x1024x128x128 +f16 .* wmma +84\.1 +66 +312 '
  assert_line --regexp '^gfx1200 +attention +tosac_k0_attention +8x1024x1024x128x128 +f16 .* wmma +76\.4 +66 +335 '
  # the goals themselves, so that a change of the exact figures above cannot hide a regression
  share_at_least a64.hipfb gfx1100 60
  share_at_least a64.hipfb gfx1200 60
  share_at_least a128.hipfb gfx1100 75
  share_at_least a128.hipfb gfx1200 75
  # the check fails below its bound; the LDS matrix variant is below the goal
  run share_at_least a64.hipfb gfx1200 70
  assert_failure
  TOSAC_ATTENTION_LDS=1 "$TOSAC" a64.mlir --offload-arch=gfx1100 -o lds.hipfb
  run share_at_least lds.hipfb gfx1100 60
  assert_failure
}
