#!/usr/bin/env bats
# The pipelined MFMA main loop (docs/gemm.md "Main loop"): two K tiles per iteration, staging by
# raw buffer loads, fragments read one k group ahead; its code on gfx942/gfx950, its llvm-mca
# matrix share (docs/quality.md, docs/bench.md#kernel-quality), and the oracle on odd tile counts, masked
# edges, convolutions and every matrix type.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
}

load lib/matmul

oracle() {
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$1.mlir" --targets="$2"
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "2048^3 on gfx942/gfx950: buffer loads and two K tiles per loop iteration, no spills, 2 waves/SIMD, >= 90 % matrix pipe" {
  for t in f16 i8; do
    matmul sq_$t $t 1 2048 2048 2048
    run "$TOSAC" sq_$t.mlir --offload-arch=gfx90a,gfx942,gfx950 -o sq_$t.hipfb
    assert_success
    for g in gfx942 gfx950; do
      clang-offload-bundler-22 -type=o -unbundle -input=sq_$t.hipfb \
        -targets="hipv4-amdgcn-amd-amdhsa--$g" -output=sq_${t}_$g.co
      llvm-objdump-22 -d sq_${t}_$g.co > sq_${t}_$g.dis
    done
  done
  # the main loop (the backward branch): staging by buffer_load_dwordx4 (SGPR tile offset, no
  # 64-bit address arithmetic), no FLAT global loads, the MFMAs of exactly two K tiles
  run /usr/bin/python3 - "$BATS_TEST_DIRNAME/lib" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from main_loop import loop_body
for t in ("f16", "i8"):
    man = {g["processor"]: g for g in json.load(open(f"sq_{t}.json"))["targets"]}
    for g in ("gfx942", "gfx950"):
        body = loop_body(f"sq_{t}_{g}.dis")
        k = man[g]["kernels"][0]
        tun, reg = k["tuning"], k["registers"]
        steps = tun["bk"] // int(tun["mma"].split("x")[2]) * (tun["wm"] // 32) * (tun["wn"] // 32)
        n_mfma = sum(b.startswith("v_mfma") for b in body)
        other = [b for b in body if not b.startswith(("v_mfma", "s_waitcnt", "s_nop", "s_barrier"))]
        assert n_mfma == 2 * steps, (t, g, n_mfma, steps)
        assert sum(b.startswith("buffer_load_dwordx4") for b in body) == 2 * (k["tuning"]["bm"] + k["tuning"]["bn"]) * tun["bk"] // (16 // (1 if t == "i8" else 2)) // (tun["waves"] * 64), (t, g)
        assert not any(b.startswith("global_load") for b in body), (t, g)
        # at most 3.25 other instructions per MFMA (waits, nops, barriers left out; today f16 51
        # and 86, i8 82 and 100 for 32 MFMAs on gfx942 and gfx950); gfx950's 8-bit B tile
        # (two 16-byte loads per thread) is transposed by k pairs: v_perm_b32 +
        # ds_write_b16(_d16_hi), no single-byte writes (gfx942's one load per thread keeps them)
        assert len(other) <= 13 * n_mfma // 4, (t, g, len(other), n_mfma)
        if (t, g) == ("i8", "gfx950"):
            assert not any(b.startswith("ds_write_b8") for b in body), (t, g)
            assert any(b.startswith("v_perm_b32") for b in body), (t, g)
        assert reg["vgpr_spills"] == 0 and k["private_bytes"] == 0, (t, g, reg)
        print(t, g, n_mfma, len(other))
PY
  assert_success
  # llvm-mca-22's steady state (tosac-bundle quality): >= 90 % matrix pipe on gfx942/gfx950,
  # 2 waves/SIMD, no spills; gfx90a stays >= 95 %
  for t in f16 i8; do
    run "$BUNDLE" quality sq_$t.hipfb
    assert_success
    echo "$output" > q_$t.txt
  done
  run /usr/bin/python3 - <<'PY'
for t in ("f16", "i8"):
    for line in open(f"q_{t}.txt").read().splitlines()[1:]:
        f = line.split()
        g, ws, spill, model, share = f[0], int(f[8]), int(f[9]), f[12], float(f[13])
        need = {"gfx90a": 95, "gfx942": 90, "gfx950": 90}[g]
        assert model == "mca" and ws >= 2 and spill == 0 and share >= need, line
        print(g, t, share)
PY
  assert_success
}

@test "pipelined loop against the oracle on gfx942 and gfx950: 1 to 5 K tiles (odd counts start with a zero tile), masked edges, batches" {
  # f16 128x128 tiles take 32 k per tile: K = 32 (1 tile), 96 (3), 100 (4, masked tail), 160 (5)
  matmul k1 f16 1 70 32 66
  oracle k1 gfx942,gfx950
  matmul k3 f16 2 130 96 129
  oracle k3 gfx942,gfx950
  matmul k4 bf16 1 64 100 96
  oracle k4 gfx942,gfx950
  matmul k5 f16 1 33 160 200
  oracle k5 gfx942,gfx950
  # i8: 64 k per tile; K = 200 (4 tiles, masked tail, N = 75: byte-wide B loads, transposed
  # byte by byte), a tile-multiple unmasked case (16-byte B loads staged as k pairs), and a
  # masked one with k pairs
  matmul i8a i8 1 100 200 75
  oracle i8a gfx942,gfx950
  matmul i8b i8 2 128 192 128
  oracle i8b gfx942,gfx950
  matmul i8c i8 1 90 130 112
  oracle i8c gfx942,gfx950
}

@test "pipelined loop against the oracle: seeded random shapes on gfx942 and gfx950, f32 on gfx90a" {
  # shapes drawn once from random.Random(13) in [1, 300] (M, N) and [1, 400] (K)
  local shapes="157,77,215 42,391,9 263,12,188 5,150,270"
  local i=0
  for s in $shapes; do
    IFS=, read -r m k n <<< "$s"
    matmul r$i f16 1 "$m" "$k" "$n"
    oracle r$i gfx942,gfx950
    i=$((i + 1))
  done
  matmul rf f32 2 90 130 70
  oracle rf gfx90a
}

@test "pipelined loop: conv2d (implicit GEMM gather, k-contiguous weights) on gfx942 and gfx950" {
  cat > conv.mlir <<'M'
// oracle: arg 0 -2 2
// oracle: arg 1 -2 2
// oracle: arg 2 -2 2
func.func @main(%x: tensor<2x13x11x40xf16>, %w: tensor<72x3x3x40xf16>, %b: tensor<72xf16>) -> tensor<2x7x6x72xf16> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x13x11x40xf16>, tensor<72x3x3x40xf16>, tensor<72xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x7x6x72xf16>
  return %0 : tensor<2x7x6x72xf16>
}
M
  # K = 360 products in f32 in another order than the oracle's: a result near 0 (cancellation)
  # is off by a few 1e-6, beyond 2 f16 ulp of itself; allow 1e-4 absolute for the order
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" conv.mlir --targets=gfx942,gfx950 --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}
