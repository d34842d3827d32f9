#!/usr/bin/env bats
# The skinny kernel's sliced form (docs/gemm.md "Skinny GEMMs", kernel_gemv.c): a wave's lanes in
# kl groups on different k rows, narrow column blocks, all of K in every work-group, no split and
# no reduction. Forced (TOSAC_GEMV_FORM=sliced, TOSAC_GEMV_KL=kl) on seeded random matmuls (M
# 1..16, odd K, N odd or not a multiple of the column block, f32/f16/bf16) with a bias and a
# residual in the epilogue, and with a row-norm prologue (tests/oracle/gen_normgemv.py), against
# the MLIR oracle on gfx942 (MFMA), gfx1100 (WMMA) and gfx1030 (FMA), as machine code and as IR,
# within an absolute 1e-3 on f32 results (the norm graphs: the generator's tolerances); the
# tuner's choice of form for two GPT-2 shapes; a forced split of the sliced form.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
  CHECK+=(--targets gfx942,gfx1100,gfx1030)
}

# gen M K N TYPE SEED: matmul [1,M,K] x [1,K,N] (f32 result) + bias [1,1,N] + residual [1,M,N]
gen() {
  /usr/bin/python3 - "$@" <<'PY'
import sys
m, k, n, et = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
T = lambda s, e: "tensor<" + "x".join(map(str, s)) + "x" + e + ">"
a, b, r, bias = T([1, m, k], et), T([1, k, n], et), T([1, m, n], "f32"), T([1, 1, n], "f32")
print("// oracle: arg 0 -2 2\n// oracle: arg 1 -2 2\n// oracle: arg 2 -2 2\n// oracle: arg 3 -2 2")
print(f"func.func @main(%a: {a}, %b: {b}, %bias: {bias}, %res: {r}) -> {r} {{\n"
      f'  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1x{et}>}}> : () -> tensor<1x{et}>\n'
      f"  %p = tosa.matmul %a, %b, %z, %z : ({a}, {b}, tensor<1x{et}>, tensor<1x{et}>) -> {r}\n"
      f"  %q = tosa.add %p, %bias : ({r}, {bias}) -> {r}\n"
      f"  %o = tosa.add %q, %res : ({r}, {r}) -> {r}\n"
      f"  return %o : {r}\n}}")
PY
}

# "kl bn split" of the (first) skinny kernel of target $2 in manifest $1
form() {
  /usr/bin/python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    if t["processor"] == sys.argv[2]:
        for k in t["kernels"]:
            tu = k.get("tuning", {})
            if tu.get("kernel") == "gemv":
                print(tu.get("kl", 1), tu["bn"], tu.get("split_k", 1)); break' "$1" "$2"
}

# seeded shapes: per type a kl (2, 4 or 8: on wave32 targets 8 is a quarter-wave group), M 1..16,
# K odd, N odd (one column per lane) or a multiple of 8 that is no multiple of the column block
shapes() {
  /usr/bin/python3 - "$1" <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
for et in ("f32", "f16", "bf16"):
    m, k = r.randint(1, 16), 2 * r.randint(20, 400) + 1
    n = 2 * r.randint(20, 300) + 1 if r.random() < 0.5 else 8 * r.randint(9, 120) + 8 * r.choice([1, 3, 5])
    print(et, m, k, n, r.choice([2, 4, 8]))
PY
}

run_shapes() { # seed, exec mode (isa or ir)
  shapes "$1" > shapes
  cat shapes
  local i=0 files=() et m k n kl
  while read -r et m k n kl; do
    i=$((i + 1))
    gen "$m" "$k" "$n" "$et" > s$i.mlir
    files+=(s$i.mlir)
    TOSAC_GEMV_FORM=sliced TOSAC_GEMV_KL=$kl "$TOSAC" s$i.mlir --offload-arch=gfx942,gfx1100 -o s$i.hipfb
    # the forced form: kl lane groups, wave / kl x V columns, no split, one kernel
    run form s$i.json gfx942
    assert_output --regexp "^$kl [0-9]+ 1$"
    run form s$i.json gfx1100
    assert_output --regexp "^$kl [0-9]+ 1$"
    [ "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["targets"][0]["kernel_count"])' s$i.json)" = 1 ]
  done < shapes
  TOSAC_GEMV_FORM=sliced TOSAC_EXEC=$2 TOSAC_HIPEMU_EXEC=$2 run "${CHECK[@]}" --seed="$1" --atol 1e-3 "${files[@]}"
  echo "$output" | tail -4
  assert_success
  assert_output --partial "PASSED: 3 graph(s)"
  # the other kl of each shape too (the estimate's own pick among the sliced candidates)
  TOSAC_GEMV_FORM=sliced TOSAC_EXEC=$2 TOSAC_HIPEMU_EXEC=$2 run "${CHECK[@]}" --seed="$1" --atol 1e-3 "${files[@]}"
  assert_success
}

@test "sliced form forced: seeded random skinny matmuls + bias + residual match the oracle (machine code)" {
  seed="${GEMV_SEED:-$(date +%s)}"
  echo "GEMV_SEED=$seed"
  run_shapes "$seed" isa
  run_shapes $((seed + 1)) isa
}

@test "sliced form forced: seeded random skinny matmuls + bias + residual match the oracle (IR)" {
  seed="${GEMV_SEED:-$(date +%s)}"
  echo "GEMV_SEED=$seed"
  run_shapes "$seed" ir
}

@test "sliced form forced with a row-norm prologue: seeded norm graphs match the oracle in both modes" {
  for s in 1 2 4 5; do gen_seeded gen_normgemv.py residual $s; done
  gen_seeded gen_normgemv.py arg 3
  TOSAC_GEMV_FORM=sliced TOSAC_GEMV_KL=4 "$TOSAC" residual2.mlir --offload-arch=gfx942 -o r.hipfb
  run /usr/bin/python3 -c 'import json; t = json.load(open("r.json"))["targets"][0]
k = t["kernels"][-1]["tuning"]
print(t["kernel_count"], k["kernel"], k["kl"], k["norm_rows"] > 0, k.get("split_k", 1))'
  assert_output "2 gemv 4 True 1"
  TOSAC_GEMV_FORM=sliced TOSAC_GEMV_KL=4 run "${CHECK[@]}" residual1.mlir residual2.mlir residual4.mlir \
    residual5.mlir arg3.mlir
  assert_success
  assert_output --partial "PASSED: 5 graph(s)"
  TOSAC_GEMV_FORM=sliced TOSAC_GEMV_KL=8 TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir run "${CHECK[@]}" residual1.mlir \
    residual2.mlir arg3.mlir
  assert_success
  assert_output --partial "PASSED: 3 graph(s)"
}

@test "the tuner's form: GPT-2's 1x768 -> 2304 sliced on gfx942 (64 columns, 0.7 us), 3072 -> 768 wide split 30 (1.4 us)" {
  gen 1 768 2304 f16 > a.mlir
  "$TOSAC" a.mlir --offload-arch=gfx942,gfx1100 -o a.hipfb
  run form a.json gfx942
  assert_output "8 64 1"
  run "$BUNDLE" quality a.hipfb --no-mca
  assert_line --regexp '^gfx942 +matmul:1x1x2304x768:f16:a768:b2304n +f16 +1x64x64/1x64 .* gemv +[0-9.]+ +0\.7 +'
  # gfx1100 (GDDR: bandwidth x latency is 480 KB) streams B at the bandwidth either way
  run form a.json gfx1100
  assert_output "1 256 1"
  gen 1 3072 768 f16 > b.mlir
  "$TOSAC" b.mlir --offload-arch=gfx942 -o b.hipfb
  run form b.json gfx942
  assert_output "1 512 30"
  run "$BUNDLE" quality b.hipfb --no-mca
  assert_line --regexp '^gfx942 .*/s30 .* gemv +[0-9.]+ +1\.4 +'
  # forced sliced there: 12 work-groups, so 12 CUs' load rate: slower by the estimate
  TOSAC_GEMV_FORM=sliced "$TOSAC" b.mlir --offload-arch=gfx942 -o c.hipfb
  run "$BUNDLE" quality c.hipfb --no-mca
  assert_line --regexp '^gfx942 +matmul:1x1x768x3072:f16:a3072:b768n +f16 +1x64x[0-9]+/1x64 .* gemv +[0-9.]+ +([2-9]|[1-9][0-9])\.[0-9] +'
}

@test "sliced form with a forced split (TOSAC_SPLIT_K=3): last-work-group and combine reductions match the oracle in both modes" {
  gen 5 1001 200 f16 > sk.mlir
  TOSAC_GEMV_FORM=sliced TOSAC_GEMV_KL=8 TOSAC_SPLIT_K=3 "$TOSAC" sk.mlir --offload-arch=gfx942 -o sk.hipfb
  run form sk.json gfx942
  assert_output "8 64 3"
  for f in lastwg combine; do
    TOSAC_GEMV_FORM=sliced TOSAC_GEMV_KL=8 TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=$f run "${CHECK[@]}" --atol 1e-3 sk.mlir
    assert_success
    TOSAC_GEMV_FORM=sliced TOSAC_GEMV_KL=8 TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=$f TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir \
      run "${CHECK[@]}" --atol 1e-3 sk.mlir
    assert_success
  done
}
