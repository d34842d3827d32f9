#!/usr/bin/env bats
# GEMM family (matmul, fully_connected, conv2d): oracle agreement on every default target,
# fusion, matrix instructions in the code objects, tuning records and resource limits.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export ROOT
  export TOSAC_BUILD="${TOSAC_BUILD:-build}"
  export TOSAC="$ROOT/$TOSAC_BUILD/bin/tosac"
  export GEN="$BATS_FILE_TMPDIR/gen.py"
  cat > "$GEN" <<'PY'
#!/usr/bin/python3
"""gen.py KIND TYPE SHAPE... : one TOSA 1.0 GEMM-family graph on stdout."""
import sys
kind, et = sys.argv[1], sys.argv[2]
a = [int(x) for x in sys.argv[3].split(",")]
epi = sys.argv[4] if len(sys.argv) > 4 else ""
acc = "i32" if et == "i8" else "f32"
def T(s, e): return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"
def zp(name, e):
    v = "0" if e == "i8" else "0.0"
    return f'    %{name} = "tosa.const"() <{{values = dense<{v}> : tensor<1x{e}>}}> : () -> tensor<1x{e}>\n'
lines = []
if kind == "matmul":
    B, M, K, N = a[:4]
    out = "f32" if et in ("f16", "bf16") else acc
    azp, bzp = (a[4], a[5]) if len(a) > 5 else (0, 0)
    args = [T([B, M, K], et), T([B, K, N], et)]
    rt = T([B, M, N], out)
    body = zp("az", et).replace("dense<0>", f"dense<{azp}>") + zp("bz", et).replace("dense<0>", f"dense<{bzp}>")
    body += f"    %r = tosa.matmul %arg0, %arg1, %az, %bz : ({args[0]}, {args[1]}, tensor<1x{et}>, tensor<1x{et}>) -> {rt}\n"
else:  # conv2d: N,IH,IW,IC,OC,KH,KW,sy,sx,dy,dx,pt,pb,pl,pr
    N, IH, IW, IC, OC, KH, KW, sy, sx, dy, dx, pt, pb, pl, pr = a[:15]
    izp, wzp = (a[15], a[16]) if len(a) > 16 else (0, 0)
    OH = (IH - 1 + pt + pb - (KH - 1) * dy) // sy + 1
    OW = (IW - 1 + pl + pr - (KW - 1) * dx) // sx + 1
    out = et if et != "i8" else "i32"
    bt = "i32" if et == "i8" else et
    args = [T([N, IH, IW, IC], et), T([OC, KH, KW, IC], et), T([OC], bt)]
    rt = T([N, OH, OW, OC], out)
    body = zp("iz", et).replace("dense<0>", f"dense<{izp}>") + zp("wz", et).replace("dense<0>", f"dense<{wzp}>")
    body += (f"    %r = tosa.conv2d %arg0, %arg1, %arg2, %iz, %wz {{acc_type = {acc}, dilation = array<i64: {dy}, {dx}>, "
             f"pad = array<i64: {pt}, {pb}, {pl}, {pr}>, stride = array<i64: {sy}, {sx}>}} : "
             f"({args[0]}, {args[1]}, {args[2]}, tensor<1x{et}>, tensor<1x{et}>) -> {rt}\n")
res = "%r"
if epi == "relu":
    lo, hi = ("0", "2147483647") if out == "i32" else ("0.0", "6.0")
    attrs = f"min_val = {lo} : {out}, max_val = {hi} : {out}"
    body += f"    %c = tosa.clamp %r {{{attrs}}} : ({rt}) -> {rt}\n"
    res = "%c"
argl = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(args))
rng = "-2 2" if et != "i8" else "-8 8"
ann = "".join(f"// oracle: arg {i} {rng}\n" for i in range(len(args)))
print(f"{ann}func.func @main({argl}) -> {rt} {{\n{body}    return {res} : {rt}\n}}")
PY
}

# graph NAME KIND TYPE SHAPE [relu]: write $BATS_FILE_TMPDIR/NAME.mlir
graph() {
  /usr/bin/python3 "$GEN" "$2" "$3" "$4" ${5:-} > "$BATS_FILE_TMPDIR/$1.mlir"
}

# oracle NAME [TARGETS]: tosac + tosac-run against the MLIR oracle
oracle() {
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$BATS_FILE_TMPDIR/$1.mlir" ${2:+--targets=$2}
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

MFMA_FMA=gfx908,gfx90a,gfx942,gfx950,gfx1030

@test "matmul f32, batch 2, sizes off the tile grid, every default target" {
  graph mm_f32 matmul f32 2,37,41,19
  oracle mm_f32
}

@test "matmul f16 -> f32 and bf16 -> f32, several work-groups and K steps" {
  graph mm_f16 matmul f16 1,70,100,66
  oracle mm_f16
  graph mm_bf16 matmul bf16 2,33,45,17
  oracle mm_bf16
}

@test "matmul i8 -> i32 with K smaller than one K step, and with zero points (FMA path)" {
  graph mm_i8 matmul i8 2,37,5,19
  oracle mm_i8 "$MFMA_FMA"
  graph mm_i8zp matmul i8 2,17,23,9,3,-5
  oracle mm_i8zp "$MFMA_FMA"
}

@test "matmul i8 on WMMA targets (gfx1100, gfx1200)" {
  graph mm_i8w matmul i8 1,20,40,24
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$BATS_FILE_TMPDIR/mm_i8w.mlir" --targets=gfx1100,gfx1200
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "conv2d f32 + bias + clamp: stride, dilation, asymmetric padding, batch 2" {
  graph cv_f32 conv2d f32 2,6,6,3,4,3,2,2,1,1,2,1,0,0,1 relu
  oracle cv_f32
}

@test "conv2d f16 and bf16 (f32 accumulation, result cast) + clamp" {
  graph cv_f16 conv2d f16 2,6,6,3,4,3,2,2,1,1,2,1,0,0,1 relu
  oracle cv_f16
  graph cv_bf16 conv2d bf16 1,9,7,8,10,3,3,2,1,1,2,1,1,2,0 relu
  oracle cv_bf16
}

@test "conv2d i8 -> i32, and with input/weight zero points" {
  graph cv_i8 conv2d i8 1,7,7,8,5,3,3,1,1,2,2,2,1,1,2
  oracle cv_i8 "$MFMA_FMA"
  graph cv_i8zp conv2d i8 1,7,7,8,5,3,3,1,1,2,2,2,1,1,2,4,-3
  oracle cv_i8zp gfx90a,gfx1030
}

@test "conv2d + bias + clamp is one kernel on every target" {
  graph one conv2d f16 2,6,6,3,4,3,2,2,1,1,2,1,0,0,1 relu
  for t in gfx908 gfx90a gfx942 gfx950 gfx1030 gfx1100 gfx1200; do
    run "$TOSAC" "$BATS_FILE_TMPDIR/one.mlir" --offload-arch=$t --emit=partitions
    assert_success
    assert_line "target $t: 1 kernels, 1 launches, workspace 0 bytes"
    assert_output --partial "kernel 0 tosac_k0_conv2d_clamp over tensor<2x3x5x4xf16>"
  done
}

# main loop instructions: the disassembly of one target's code object
disasm() {
  local d="$BATS_FILE_TMPDIR/dis_$1"
  mkdir -p "$d"
  "$TOSAC" "$BATS_FILE_TMPDIR/big.mlir" --offload-arch=$1 -o "$d/x.hipfb" --manifest="$d/x.json"
  clang-offload-bundler-22 --type=o --input="$d/x.hipfb" --output="$d/co" --unbundle \
    --targets=hipv4-amdgcn-amd-amdhsa--$1
  llvm-objdump-22 -d "$d/co"
}

@test "gfx90a and gfx942 use MFMA, gfx1100 WMMA, gfx1030 no matrix instruction" {
  graph big matmul f16 1,256,256,256
  # the tile heuristic (codegen/tuning.c) may pick the 32x32 or the 16x16 instruction
  run disasm gfx90a
  assert_output --regexp "v_mfma_f32_(32x32x8|16x16x16)f16"
  run disasm gfx942
  assert_output --regexp "v_mfma_f32_(32x32x8|16x16x16)_f16"
  run disasm gfx1100
  assert_output --partial "v_wmma_f32_16x16x16_f16"
  run disasm gfx1030
  assert_success
  refute_output --partial "v_mfma"
  refute_output --partial "v_wmma"
  # the FMA path multiplies f16 pairs with the dot instruction (target_dot_table)
  assert_output --partial "v_dot2c_f32_f16"
}

@test "manifest records tuning and matrix instruction; --perf-config overrides them" {
  graph pc matmul f16 1,64,64,64
  run "$TOSAC" "$BATS_FILE_TMPDIR/pc.mlir" --offload-arch=gfx942 -o "$BATS_FILE_TMPDIR/pc.hipfb" \
    --manifest="$BATS_FILE_TMPDIR/pc.json" --perf-config=bm=32,bn=64,bk=16,wm=16,wn=32,mma=16
  assert_success
  run /usr/bin/python3 -c "
import json; k = json.load(open('$BATS_FILE_TMPDIR/pc.json'))['targets'][0]['kernels'][0]
t = k['tuning']; print(k['matrix_instruction'], t['bm'], t['bn'], t['bk'], t['wm'], t['wn'], t['waves'], t['block_size'], k['grid'])"
  assert_output "v_mfma_f32_16x16x16_f16 32 64 16 16 32 4 256 [2, 1, 1]"
  cat > "$BATS_FILE_TMPDIR/tosac-pc" <<SH
#!/bin/sh
exec "$TOSAC" "\$@" --perf-config=bm=32,bn=64,bk=16,wm=16,wn=32,mma=16
SH
  chmod +x "$BATS_FILE_TMPDIR/tosac-pc"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$BATS_FILE_TMPDIR/pc.mlir" --targets=gfx942 \
    --tosac="$BATS_FILE_TMPDIR/tosac-pc"
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "a malformed or infeasible --perf-config is an error" {
  graph bad matmul f32 1,64,64,64
  run "$TOSAC" "$BATS_FILE_TMPDIR/bad.mlir" --offload-arch=gfx90a -o "$BATS_FILE_TMPDIR/bad.hipfb" --perf-config=bm=64,zz=3
  assert_failure
  assert_output --partial "error: --perf-config: bad entry 'zz=3' (keys: bm, bn, bk, wm, wn, va, vb = positive integers; mma = 32, 16 or fma; kernel = tile or gemv)"
  run "$TOSAC" "$BATS_FILE_TMPDIR/bad.mlir" --offload-arch=gfx90a -o "$BATS_FILE_TMPDIR/bad.hipfb" --perf-config=bm=48,wm=32
  assert_failure
  assert_output --partial "is infeasible on gfx90a: the work-group tile must be a multiple of the wave tile"
}

@test "default configurations: no spills, no scratch, >= 2 waves/SIMD on CDNA2+ for a large GEMM" {
  for t in f32 f16 bf16 i8; do
    graph l_$t matmul $t 1,512,512,512
    run "$TOSAC" "$BATS_FILE_TMPDIR/l_$t.mlir" -o "$BATS_FILE_TMPDIR/l_$t.hipfb" --manifest="$BATS_FILE_TMPDIR/l_$t.json"
    assert_success
    run /usr/bin/python3 -c "
import json
for tg in json.load(open('$BATS_FILE_TMPDIR/l_$t.json'))['targets']:
    k = tg['kernels'][0]; r = k['registers']
    assert r['vgpr_spills'] == 0 and r['sgpr_spills'] == 0 and k['private_bytes'] == 0, (tg, r)
    if tg['processor'] in ('gfx90a', 'gfx942', 'gfx950'):
        assert r['vgpr'] + r['agpr'] <= 256, (tg['processor'], r)
print('ok')"
    assert_output "ok"
  done
}

@test "ResNet-18's strided 1x1 conv (27x27x128 -> 14x14x256) runs on MFMA targets (fiber stacks hold the host frames)" {
  cat > "$BATS_TEST_TMPDIR/c1.mlir" <<'M'
func.func @main(%x: tensor<1x27x27x128xf32>, %w: tensor<256x1x1x128xf32>, %b: tensor<256xf32>) -> tensor<1x14x14x256xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x27x27x128xf32>, tensor<256x1x1x128xf32>, tensor<256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x14x14x256xf32>
  return %0 : tensor<1x14x14x256xf32>
}
M
  # K = 128 products: allow 1e-4 absolute on top of the f32 default for the summation order.
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$BATS_TEST_TMPDIR/c1.mlir" --targets=gfx90a,gfx942 --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "large-GEMM default (256x256 tile, 8 waves of 128x64, k-packed fragments) matches the oracle, masked and mask-free" {
  # 16 x 260x300 outputs: 64 work-group tiles of 256x256, none a tile multiple (masked loads)
  graph big_f16 matmul f16 16,260,40,300
  oracle big_f16 gfx908,gfx90a,gfx942,gfx950
  # 32 x 256x256 outputs, K = 16: tile multiples, the loads carry no masks
  graph big_bf16 matmul bf16 32,256,16,256
  oracle big_bf16 gfx90a,gfx942
  graph big_f32 matmul f32 32,256,8,256
  oracle big_f32 gfx908,gfx942
  graph big_i8 matmul i8 32,256,32,256
  oracle big_i8 gfx90a,gfx942,gfx950
}

@test "large f16 GEMM on CDNA: 2 waves/SIMD from the code object's registers and LDS, no spills, ds_read_b128 in the loop" {
  graph sq_f16 matmul f16 1,2048,2048,2048
  run "$TOSAC" "$BATS_FILE_TMPDIR/sq_f16.mlir" --offload-arch=gfx908,gfx90a,gfx942,gfx950 \
    -o "$BATS_FILE_TMPDIR/sq.hipfb" --manifest="$BATS_FILE_TMPDIR/sq.json"
  assert_success
  cd "$BATS_FILE_TMPDIR"
  for t in gfx908 gfx90a gfx942 gfx950; do
    clang-offload-bundler-22 -type=o -unbundle -input=sq.hipfb -targets="hipv4-amdgcn-amd-amdhsa--$t" -output=sq_$t.co
    llvm-readelf-22 --notes sq_$t.co > sq_$t.notes
    llvm-objdump-22 -d sq_$t.co > sq_$t.dis
  done
  run /usr/bin/python3 - <<'PY'
import json, re
man = {t["processor"]: t for t in json.load(open("sq.json"))["targets"]}
for t in ("gfx908", "gfx90a", "gfx942", "gfx950"):
    note = open(f"sq_{t}.notes").read()
    get = lambda k: int(re.search(rf"\.{k}:\s+(\d+)", note).group(1))
    v, a, lds = get("vgpr_count"), get("agpr_count"), get("group_segment_fixed_size")
    assert get("vgpr_spill_count") == get("sgpr_spill_count") == get("private_segment_fixed_size") == 0, t
    tun = man[t]["kernels"][0]["tuning"]
    # gfx908: 128x128 tiles of 64x64 waves on the pipelined loop fill its 480 SIMDs' rounds
    # better than 256x256 tiles on the single-tile loop (heuristic.bats)
    want = (128, 128, 64, 64, 4) if t == "gfx908" else (256, 256, 128, 64, 8)
    assert (tun["bm"], tun["bn"], tun["wm"], tun["wn"], tun["waves"]) == want, (t, tun)
    # occupancy: registers (gfx908: two 256-entry files; else one 512-entry file, granule 8) and
    # LDS (64 KiB per CU, gfx950 160 KiB; 8 waves per group on 4 SIMDs)
    regs = 256 // max(v, a) if t == "gfx908" else 512 // (-(-v // 8) * 8)
    pool = 163840 if t == "gfx950" else 65536
    occ = min(regs, pool // lds * tun["waves"] // 4)
    assert occ >= 2, (t, v, a, lds, occ)
    dis = open(f"sq_{t}.dis").read()
    assert "ds_read_b128" in dis and "ds_read2_b64" not in dis, t
    print(t, v, a, lds, occ)
PY
  assert_success
  assert_line --regexp '^gfx908 [0-9]+ 64 24576 2$'
  assert_line --regexp '^gfx942 [0-9]+ 0 49152 2$'
}
