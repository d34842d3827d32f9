#!/usr/bin/env bats
# Split-K on RDNA by the RDNA estimate (codegen/tuning.c rdna_est at S splits, docs/gemm.md "The
# RDNA estimate"): the split each target picks for ResNet-18's last 3x3 convolution (a GEMM
# kernel into the partials' workspace, then the combine), tosac-bundle quality and tosac-tune
# scoring that split, and split GEMM + combine against the oracle on the FMA path (gfx1030, f32
# on gfx1100/gfx1200) and on WMMA (f16 on gfx1100/gfx1200). Inputs are multiples of 1/8, so
# every partial sum is exact in f32: any split must give the oracle's values (atol 1e-6 on top
# of check.py's own tolerance). The suite is about the combine kernel: it forces that form
# (TOSAC_SPLIT_K_FORM=combine; the estimate's own choice, the last work-group's reduction, is
# splitk_form.bats').
bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
  export TOSAC_SPLIT_K_FORM=combine
}

load lib/matmul

# splits JSON: per target the GEMM's tile, split, the kernels, their grids, the workspace and the
# launches with their dependencies
splits() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    ks = t["kernels"]
    tu = ks[0]["tuning"]
    print(t["processor"], "%dx%dx%d/%dx%d" % tuple(tu[x] for x in ("bm", "bn", "bk", "wm", "wn")),
          "s%d" % tu.get("split_k", 1), " ".join(k["name"] for k in ks),
          " ".join("%d" % k["grid"][0] for k in ks), "ws", t["workspace"]["bytes"],
          " ".join("%s%d<%s" % (l["kind"][0], l["kernel"], ",".join(map(str, l["deps"])))
                   for l in t["launches"]))
PY
}

@test "ResNet-18's 7x7x512 3x3 conv (49x512x4608) splits K on RDNA: GEMM + combine, S 5 / 3 / 2 (f32), 4 / 3 / 2 (f16)" {
  conv7 c.mlir f32
  conv7 h.mlir f16
  run "$TOSAC" c.mlir --offload-arch=gfx1030,gfx1100,gfx1200 -o c.hipfb
  assert_success
  run splits c.json
  # f32 on the FMA path: one kernel of 16 (gfx1100) work-groups left 176 of 192 SIMDs idle;
  # the partials (S x 49 x 512 x 4 bytes) are the workspace, the combine waits for the GEMM
  assert_line "gfx1030 32x128x16/32x32 s5 tosac_k0_conv2d_splitk tosac_k1_conv2d_combine 40 98 ws 501760 k0< k1<0"
  assert_line "gfx1100 32x64x32/32x16 s3 tosac_k0_conv2d_splitk tosac_k1_conv2d_combine 48 98 ws 301056 k0< k1<0"
  assert_line "gfx1200 32x64x32/32x16 s2 tosac_k0_conv2d_splitk tosac_k1_conv2d_combine 32 98 ws 200704 k0< k1<0"
  run "$TOSAC" h.mlir --offload-arch=gfx1030,gfx1100,gfx1200 -o h.hipfb
  assert_success
  run splits h.json
  # f16: WMMA on gfx1100/gfx1200, the FMA path (dot) on gfx1030
  assert_line "gfx1030 32x128x32/32x32 s4 tosac_k0_conv2d_splitk tosac_k1_conv2d_combine 32 98 ws 401408 k0< k1<0"
  assert_line "gfx1100 16x64x32/16x32 s3 tosac_k0_conv2d_splitk tosac_k1_conv2d_combine 96 98 ws 301056 k0< k1<0"
  assert_line "gfx1200 16x64x32/16x32 s2 tosac_k0_conv2d_splitk tosac_k1_conv2d_combine 64 98 ws 200704 k0< k1<0"
  # TOSAC_SPLIT_K still decides: 0 keeps one kernel, 4 forces four chunks
  TOSAC_SPLIT_K=0 run "$TOSAC" c.mlir --offload-arch=gfx1100 --emit=partitions
  assert_line "target gfx1100: 1 kernels, 1 launches, workspace 0 bytes"
  TOSAC_SPLIT_K=4 run "$TOSAC" c.mlir --offload-arch=gfx1100 --emit=partitions
  assert_line "target gfx1100: 2 kernels, 2 launches, workspace 401408 bytes"
}

@test "tosac-bundle quality and tosac-tune score the RDNA split kernel at its split (its row: 10.7 us + the combine's launch on gfx1100)" {
  conv7 c.mlir f32
  run "$TOSAC" c.mlir --offload-arch=gfx1100 -o c.hipfb
  assert_success
  run bash -c "'$BUILD/bin/tosac-bundle' quality c.hipfb --manifest c.json | awk 'NF == 0 {exit} NR > 1 {print \$1, \$4, \$(NF-4), \$(NF-3), \$(NF-2)}'"
  assert_success
  # 24.5 us (41 % of the roofline) unsplit; the split's partials are in the kernel's bytes; the
  # row adds the combine (its launch, the target table's 3.8 us launch_ns, and its pass), as the
  # estimate does
  assert_output "gfx1100 32x64x32/32x16/s3 14.5 69% mem"
  run bash -c "'$BUILD/bin/tosac-tune' c.mlir --offload-arch=gfx1100 --all -j 1 | grep 'default\$' | cut -f 3,5,11,12"
  assert_success
  # quality's time and the heuristic's estimate, the same (3.8 us of each the combine's launch:
  # the target table's launch_ns, one price for both), the split
  assert_output "$(printf 'bm=32,bn=64,bk=32,wm=32,wn=16\t14.467\t14.467\t3')"
}

@test "split GEMM + combine match the oracle: the 7x7x512 conv (FMA path f32, WMMA f16) on gfx1030, gfx1100, gfx1200" {
  conv7 c.mlir f32
  conv7 h.mlir f16
  eighths x.npy float32 31 1 7 7 512
  eighths w.npy float32 32 512 3 3 512
  eighths b.npy float32 33 512
  run "${CHECK[@]}" c.mlir --targets=gfx1030,gfx1100,gfx1200 --atol 1e-6 --input=@x.npy --input=@w.npy --input=@b.npy
  assert_success
  assert_output --partial "ok c.mlir [gfx1030]: 1 results match"
  assert_output --partial "ok c.mlir [gfx1100]: 1 results match"
  assert_output --partial "ok c.mlir [gfx1200]: 1 results match"
  eighths xh.npy float16 34 1 7 7 512
  eighths wh.npy float16 35 512 3 3 512
  eighths bh.npy float16 36 512
  run "${CHECK[@]}" h.mlir --targets=gfx1030,gfx1100,gfx1200 --atol 1e-6 --input=@xh.npy --input=@wh.npy --input=@bh.npy
  assert_success
  assert_output --partial "ok h.mlir [gfx1030]: 1 results match"
  assert_output --partial "ok h.mlir [gfx1100]: 1 results match"
  assert_output --partial "ok h.mlir [gfx1200]: 1 results match"
}

@test "seeded random long-K matmuls (f32 and f16, odd sizes, batches) split on every RDNA target and match the oracle" {
  # shapes drawn with a fixed seed: M 17-96, N 24-200 (few tiles), K 1500-5000 (no tile multiple),
  # in the estimate's own form (the last work-group's reduction: the combine's launch would not
  # pay for the split of the shorter ones)
  unset TOSAC_SPLIT_K_FORM
  run /usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng(1313)
for i in range(4):
    print(i, 'f32' if i % 2 == 0 else 'f16', 1 + i // 2, r.integers(17, 97), r.integers(1500, 5001), r.integers(24, 201))"
  assert_success
  local shapes=("${lines[@]}")
  for l in "${shapes[@]}"; do
    set -- $l
    matmul g$1 $2 $3 $4 $5 $6
    "$TOSAC" g$1.mlir --offload-arch=gfx1030,gfx1100,gfx1200 -o g$1.hipfb
    run splits g$1.json
    echo "$l: $output"
    # every target splits (the test would prove nothing otherwise)
    [ "${#lines[@]}" -eq 3 ] && [ "$(grep -c ' s1 ' <<< "$output")" -eq 0 ]
    local np=float32
    [ $2 = f16 ] && np=float16
    eighths a$1.npy $np 4$1 $3 $4 $5
    eighths b$1.npy $np 5$1 $3 $5 $6
    run "${CHECK[@]}" g$1.mlir --targets=gfx1030,gfx1100,gfx1200 --atol 1e-6 --input=@a$1.npy --input=@b$1.npy
    assert_success
    assert_output --partial "PASSED: 1 graph(s)"
  done
}

@test "split i8 (i32 partials; dot4 on gfx1030, WMMA on gfx1100/gfx1200) and bf16 matmuls match the oracle on RDNA" {
  matmul q8 i8 1 40 4000 100
  matmul bf bf16 2 33 3000 70
  for g in q8 bf; do
    "$TOSAC" $g.mlir --offload-arch=gfx1030,gfx1100,gfx1200 -o $g.hipfb
  done
  splits q8.json | cut -d' ' -f1-3 > s.txt
  splits bf.json | cut -d' ' -f1-3 >> s.txt
  run cat s.txt
  assert_output "gfx1030 64x64x128/32x16 s8
gfx1100 64x16x64/32x16 s13
gfx1200 64x16x64/32x16 s9
gfx1030 64x16x32/32x16 s8
gfx1100 16x64x32/16x32 s8
gfx1200 32x128x32/32x64 s8"
  # i8: the oracle's integers in [-8, 8], exact; bf16: eighths (exact in bf16 and in the sums)
  run "${CHECK[@]}" q8.mlir --targets=gfx1030,gfx1100,gfx1200
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  eighths a.npy float32 61 2 33 3000
  eighths b.npy float32 62 2 3000 70
  run "${CHECK[@]}" bf.mlir --targets=gfx1030,gfx1100,gfx1200 --atol 1e-6 --input=@a.npy --input=@b.npy
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}
