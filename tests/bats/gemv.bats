#!/usr/bin/env bats
# The skinny-GEMM kernel (M <= 16, src/codegen/kernel_gemv.c): oracle agreement on random shapes
# on an MFMA, a WMMA and the FMA target, its selection by the tuning layer, overrides, split-K
# and its rating by the quality report's memory model.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export ROOT
  export TOSAC_BUILD="${TOSAC_BUILD:-build}"
  export TOSAC="$ROOT/$TOSAC_BUILD/bin/tosac"
  export BUNDLE="$ROOT/$TOSAC_BUILD/bin/tosac-bundle"
  export TUNE="$ROOT/$TOSAC_BUILD/bin/tosac-tune"
  export GEN="$BATS_FILE_TMPDIR/gen.py"
  cat > "$GEN" <<'PY'
#!/usr/bin/python3
"""gen.py matmul TYPE B M K N [AZP BZP] [relu] | gen.py fc TYPE M K N [relu]: one TOSA graph
(matmul: TOSA 1.0; fully_connected: the pre-2023 form, for --oracle-via-tosac)."""
import sys
kind, et = sys.argv[1], sys.argv[2]
rest = sys.argv[3:]
relu = rest and rest[-1] == "relu"
dims = [int(x) for x in (rest[:-1] if relu else rest)]
def T(s, e): return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"
out = "i32" if et == "i8" else "f32"
rng = "-8 8" if et == "i8" else "-2 2"
if kind == "matmul":
    B, M, K, N = dims[:4]
    azp, bzp = (dims[4], dims[5]) if len(dims) > 5 else (0, 0)
    z = (lambda v: str(v)) if et == "i8" else (lambda v: f"{float(v)}")
    args = [T([B, M, K], et), T([B, K, N], et)]
    rt = T([B, M, N], out)
    body = (f'    %az = "tosa.const"() <{{values = dense<{z(azp)}> : tensor<1x{et}>}}> : () -> tensor<1x{et}>\n'
            f'    %bz = "tosa.const"() <{{values = dense<{z(bzp)}> : tensor<1x{et}>}}> : () -> tensor<1x{et}>\n'
            f"    %r = tosa.matmul %arg0, %arg1, %az, %bz : ({args[0]}, {args[1]}, tensor<1x{et}>, "
            f"tensor<1x{et}>) -> {rt}\n")
else:
    M, K, N = dims[:3]
    args = [T([M, K], et), T([N, K], et), T([N], out)]
    rt = T([M, N], out)
    body = f'    %r = "tosa.fully_connected"(%arg0, %arg1, %arg2) : ({", ".join(args)}) -> {rt}\n'
res = "%r"
if relu:
    lo, hi = ("0", "2147483647") if out == "i32" else ("0.0", "6.0")
    body += f"    %c = tosa.clamp %r {{min_val = {lo} : {out}, max_val = {hi} : {out}}} : ({rt}) -> {rt}\n"
    res = "%c"
argl = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(args))
ann = "".join(f"// oracle: arg {i} {rng}\n" for i in range(len(args)))
print(f"{ann}func.func @main({argl}) -> {rt} {{\n{body}    return {res} : {rt}\n}}")
PY
}

setup() {
  cd "$BATS_TEST_TMPDIR"
}

# kind of each kernel of target $2 in manifest $1: gemv or the tile's instruction, and split_k
kernels() {
  /usr/bin/python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))
for t in m['targets']:
    if t['processor'] == sys.argv[2]:
        for k in t['kernels']:
            tu = k.get('tuning', {})
            if 'bm' in tu:
                print(tu.get('kernel', k['matrix_instruction']), tu['bm'], tu['bn'], tu['bk'], tu.get('split_k', 1), tu['source'])
" "$1" "$2"
}

check() { # graph, targets, extra check.py options
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$1" --targets="$2" "${@:3}"
  echo "$output" | tail -5
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "random skinny matmuls (M 1..16, odd N and K, batch, f32/f16/bf16/i8 with zero points) match the oracle on gfx942, gfx1100, gfx1030" {
  seed="${GEMV_SEED:-$(date +%s)}"
  echo "GEMV_SEED=$seed"
  /usr/bin/python3 - "$seed" > shapes <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
for et in ("f32", "f16", "bf16", "i8"):
    b, m = r.randint(1, 2), r.randint(1, 16)
    k, n = 2 * r.randint(8, 150) + 1, 2 * r.randint(8, 150) + 1
    zp = f" {r.randint(-5, 5)} {r.randint(-5, 5)}" if et == "i8" else ""
    print(f"{et} {b} {m} {k} {n}{zp}")
PY
  cat shapes
  i=0
  while read -r et b m k n zp; do
    i=$((i + 1))
    /usr/bin/python3 "$GEN" matmul $et $b $m $k $n $zp > g$i.mlir
    "$TOSAC" g$i.mlir --offload-arch=gfx942 -o g$i.hipfb
    run kernels g$i.json gfx942
    assert_output --regexp "^gemv $m "
    check g$i.mlir gfx942,gfx1100,gfx1030 --seed="$seed" --atol 1e-3
  done < shapes
}

@test "skinny fully_connected (weights [N][K]) + bias + relu, odd and even K, on gfx90a, gfx1100, gfx1030" {
  /usr/bin/python3 "$GEN" fc f32 5 77 33 relu > fc1.mlir
  check fc1.mlir gfx90a,gfx1100,gfx1030 --oracle-via-tosac --atol 1e-4
  /usr/bin/python3 "$GEN" fc f16 16 128 70 relu > fc2.mlir
  check fc2.mlir gfx90a,gfx1100,gfx1030 --oracle-via-tosac --atol 1e-3
  /usr/bin/python3 "$GEN" fc i8 3 48 19 > fc3.mlir
  check fc3.mlir gfx90a,gfx1100,gfx1030 --oracle-via-tosac
  # the bias and relu run in the kernel's epilogue: one kernel
  "$TOSAC" fc2.mlir --offload-arch=gfx90a -o fc2.hipfb
  run kernels fc2.json gfx90a
  assert_output "gemv 16 64 32 1 heuristic"
}

@test "small grids: random skinny matmuls (M 1..4, odd N and K, batch, f32/f16/bf16) that take two or four base blocks per lane on gfx942, gfx1100 and gfx1030 match the oracle" {
  seed="${GEMV_SEED:-$(date +%s)}"
  echo "GEMV_SEED=$seed"
  export TOSAC_GEMV_FORM=wide # the wide form's longer blocks (the sliced form's bk counts its lane groups)
  # candidates per type; the first one whose kernel has the unrolled block (bk 16 or 32: the base
  # block is 8 rows) and no split on all three targets runs through the oracle
  /usr/bin/python3 - "$seed" > shapes <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
for et in ("f32", "f16", "bf16"):
    for _ in range(32):
        b, m = r.randint(1, 2), r.randint(1, 2 if et == "f32" else 4)
        k, n = 2 * r.randint(150, 500) + 1, 2 * r.randint(8, 31) + 1
        print(f"{et} {b} {m} {k} {n}")
PY
  done_types=""
  i=0
  while read -r et b m k n; do
    case " $done_types " in *" $et "*) continue ;; esac
    i=$((i + 1))
    /usr/bin/python3 "$GEN" matmul $et $b $m $k $n > u$i.mlir
    "$TOSAC" u$i.mlir --offload-arch=gfx942,gfx1100,gfx1030 -o u$i.hipfb
    unrolled=$(for t in gfx942 gfx1100 gfx1030; do kernels u$i.json $t; done | grep -cE "^gemv $m [0-9]+ (16|32) 1 heuristic$" || true)
    [ "$unrolled" = 3 ] || continue
    echo "$et $b $m $k $n"
    check u$i.mlir gfx942,gfx1100,gfx1030 --seed="$seed" --atol 1e-3
    done_types="$done_types $et"
  done < shapes
  [ "$done_types" = " f32 f16 bf16" ]
}

@test "ResNet-18's classifier (fc 1x512 -> 1000 f32): two base blocks of loads in flight per lane, issued before the first use; the memory model's one-latency floor" {
  /usr/bin/python3 "$GEN" fc f32 1 512 1000 > cls.mlir
  "$TOSAC" cls.mlir --offload-arch=gfx942,gfx90a --emit=asm -o cls.s
  "$TOSAC" cls.mlir --offload-arch=gfx942,gfx90a -o cls.hipfb
  run kernels cls.json gfx942
  assert_output "gemv 1 64 32 1 heuristic"
  # the loop's eight 16-byte loads of B (128 bytes per lane) all precede its first wait on them
  run /usr/bin/python3 -c "
import re, sys
s = open(sys.argv[1]).read()
s = s[s.index('gfx942'):] if 'gfx942' in s else s
body = s.split('global_load_dwordx4', 1)[1].split('s_waitcnt vmcnt', 1)[0]
print(body.count('global_load_dwordx4') + 1)" cls.s
  assert_output "8"
  # 16 work-groups x 16 waves x 64 lanes x 128 bytes = all of B in flight at once, but 16 CUs
  # bring in at most 16 x 64 bytes per clock: 1.0 us, 40 % of the bandwidth roofline on gfx942
  # (one memory latency, 0.7 us, is the ceiling: 55 %)
  run "$BUNDLE" quality cls.hipfb --no-mca
  assert_line --regexp '^gfx942 +fully_connected:1x1x1000x512:f32:a512:b512k +f32 +1x64x32/1x64 +fma +.* gemv +[0-9.]+ +1\.0 +40% mem +55% lat$'
  assert_line --regexp '^gfx90a +fully_connected:1x1x1000x512:f32:a512:b512k +f32 +1x64x32/1x64 +fma +.* gemv +[0-9.]+ +1\.3 +100% mem +100% -$'
  check cls.mlir gfx942,gfx1100,gfx1030 --oracle-via-tosac --atol 1e-4
}

@test "long K: split-K of the skinny kernel, reduced by the last work-group of each column block (one kernel) or by a combine kernel, K not a multiple of the block (masked tail)" {
  /usr/bin/python3 "$GEN" matmul f16 1 2 6001 96 > sk.mlir
  "$TOSAC" sk.mlir --offload-arch=gfx942,gfx1100 -o sk.hipfb
  run kernels sk.json gfx942
  assert_output --regexp '^gemv 2 512 8 [0-9]+ heuristic$'
  split=$(echo "$output" | cut -d' ' -f5)
  [ "$split" -ge 2 ]
  names() {
    /usr/bin/python3 -c "import json; print([(k['name'], k['tuning'].get('split_k_form', '-')) for t in json.load(open('sk.json'))['targets'] if t['processor'] == 'gfx942' for k in t['kernels']])"
  }
  run names
  assert_output "[('tosac_k0_matmul_splitk', 'lastwg')]"
  check sk.mlir gfx942,gfx1100,gfx1030 --atol 1e-3
  TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir check sk.mlir gfx942 --atol 1e-3
  TOSAC_SPLIT_K_FORM=combine "$TOSAC" sk.mlir --offload-arch=gfx942 -o sk.hipfb
  run names
  assert_output "[('tosac_k0_matmul_splitk', '-'), ('tosac_k1_matmul_combine', '-')]"
  TOSAC_SPLIT_K_FORM=combine check sk.mlir gfx942 --atol 1e-3
  # batch 2: the column block's tile index counts the batch too
  /usr/bin/python3 "$GEN" matmul f16 2 3 5001 80 > bm.mlir
  "$TOSAC" bm.mlir --offload-arch=gfx942 -o bm.hipfb
  run kernels bm.json gfx942
  assert_output --regexp '^gemv 3 [0-9]+ [0-9]+ [0-9]+ heuristic$'
  [ "$(echo "$output" | cut -d' ' -f5)" -ge 2 ]
  check bm.mlir gfx942 --atol 1e-3
  # fully_connected: the bias and the ReLU in the last work-group's epilogue, M = 3
  /usr/bin/python3 "$GEN" fc f16 3 4099 200 relu > fc.mlir
  "$TOSAC" fc.mlir --offload-arch=gfx942 -o fc.hipfb
  run kernels fc.json gfx942
  assert_output --regexp '^gemv 3 [0-9]+ [0-9]+ [0-9]+ heuristic$'
  [ "$(echo "$output" | cut -d' ' -f5)" -ge 2 ]
  check fc.mlir gfx942 --oracle-via-tosac --atol 1e-3
  TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir check fc.mlir gfx942 --oracle-via-tosac --atol 1e-3
}

@test "selection: the skinny kernel for M <= 16 only; the manifest and the quality report say so" {
  for m in 1 16 17 64; do
    /usr/bin/python3 "$GEN" matmul f16 1 $m 256 512 > m$m.mlir
    "$TOSAC" m$m.mlir --offload-arch=gfx942,gfx1100,gfx1030 -o m$m.hipfb
  done
  run kernels m1.json gfx942
  assert_output "gemv 1 128 32 1 heuristic" # the sliced form: four lane groups, 128 columns, no split
  # narrower columns put more bytes in flight: on gfx1100 the sliced form's two lane groups of 16
  # columns (32 work-groups), on gfx1030 one column per lane (16 work-groups)
  run kernels m16.json gfx1100
  assert_output "gemv 16 16 16 1 heuristic"
  run kernels m16.json gfx1030
  assert_output "gemv 16 32 8 1 heuristic"
  run kernels m16.json gfx942 # the sliced form: two lane groups of 32 columns, no split
  assert_output "gemv 16 32 16 1 heuristic"
  check m16.mlir gfx942,gfx1100,gfx1030 --atol 1e-3
  run kernels m17.json gfx942
  assert_output --regexp '^v_mfma_'
  run kernels m64.json gfx942
  assert_output --regexp '^v_mfma_f32_(32x32x8|16x16x16)_f16 (64|32|16) '
  run kernels m64.json gfx1100
  assert_output --regexp '^v_wmma_'
  # the manifest (with "kernel": "gemv") stays valid against the schema
  run /usr/bin/python3 -c "
import json, sys, jsonschema
jsonschema.validate(json.load(open('m1.json')), json.load(open(sys.argv[1])))
print('valid')" "$ROOT/schema/manifest.schema.json"
  assert_output "valid"
  # the report rates it with the memory model (`gemv`), bound by memory
  run "$BUNDLE" quality m1.hipfb --no-mca
  assert_success
  # (gemv-all: each wave runs its one block, no loop left; the whole kernel is rated)
  assert_line --regexp '^gfx942 +matmul:1x1x512x256:f16:a256:b512n +f16 +1x128x32/1x128 +fma +.* gemv(-all)? +[0-9.]+ +[0-9.]+ +[0-9]+% mem +[0-9]+% lat$'
  assert_line --regexp '^gfx1100 +matmul:1x1x512x256:f16:a256:b512n +f16 +1x128x16/1x128 +fma +.* gemv(-all)? +[0-9.]+ +[0-9.]+ +[0-9]+% mem +[0-9]+% lat$'
  run "$BUNDLE" quality m64.hipfb --no-mca
  refute_output --partial " gemv "
}

@test "overrides: --perf-config kernel=tile/kernel=gemv and tuning-database entries; a misfit is an error or a warning" {
  /usr/bin/python3 "$GEN" matmul f16 1 4 96 80 > s.mlir
  run "$TOSAC" s.mlir --offload-arch=gfx942 --perf-config=kernel=tile -o t.hipfb
  assert_success
  run kernels t.json gfx942
  assert_output --regexp '^v_mfma_.* perf-config$'
  # a tile perf-config without kernel= means the tile kernel too
  run "$TOSAC" s.mlir --offload-arch=gfx942 --perf-config=bm=32,bn=32,bk=32,wm=32,wn=32 -o u.hipfb
  run kernels u.json gfx942
  assert_output --regexp '^v_mfma_f32_[0-9x]+_f16 32 32 32 1 perf-config$'
  /usr/bin/python3 "$GEN" matmul f16 1 64 96 80 > l.mlir
  run "$TOSAC" l.mlir --offload-arch=gfx942 --perf-config=kernel=gemv -o l.hipfb
  assert_failure 1
  assert_output --partial "error: --perf-config: kernel=gemv needs a matmul or fully_connected with M <= 16 and f32, f16, bf16 or i8 operands (this one: M = 64, f16)"
  [ ! -e l.hipfb ]
  # the database: an entry for the tile kernel replaces the skinny one on its target only
  printf 'gfx942\tmatmul:1x4x80x96:f16:a96:b80n\tkernel=tile,bm=32,bn=32,bk=32,wm=32,wn=32\t0.5\n' > db.tsv
  printf 'gfx942\tmatmul:1x64x80x96:f16:a96:b80n\tkernel=gemv\t0.5\n' >> db.tsv
  run "$TOSAC" s.mlir --offload-arch=gfx942,gfx1100 --tuning-db=db.tsv -o d.hipfb
  assert_success
  run kernels d.json gfx942
  assert_output --regexp '^v_mfma_f32_[0-9x]+_f16 32 32 32 1 db$'
  run kernels d.json gfx1100
  assert_output "gemv 4 256 8 1 heuristic"
  check s.mlir gfx942 --atol 1e-3
  # kernel=gemv for an M = 64 problem: a warning, the heuristic's tile kernel
  run "$TOSAC" l.mlir --offload-arch=gfx942 --tuning-db=db.tsv -o e.hipfb
  assert_success
  assert_output --partial "warning: tuning database entry for matmul:1x64x80x96:f16:a96:b80n on gfx942 is not usable (kernel=gemv needs a matmul or fully_connected with M <= 16"
  run kernels e.json gfx942
  assert_output --regexp '^v_mfma_.* heuristic$'
}

@test "tosac-tune scores the skinny kernel against the tiles and its database compiles" {
  /usr/bin/python3 "$GEN" matmul f16 1 1 512 1024 > t.mlir
  run "$TUNE" t.mlir --offload-arch=gfx942,gfx1030 -v -j 2 -o t.tsv
  assert_success
  # kernel=gemv is one of the candidates; on gfx1030 it wins (on gfx942 the tile model's
  # issue-only estimate ties it at 100 %: docs/bench.md)
  run cat t.tsv
  assert_line --index 0 --regexp $'^gfx1030\tmatmul:1x1x1024x512:f16:a512:b1024n\tkernel=gemv\t[01]\\.[0-9]{4}$'
  assert_line --index 1 --regexp $'^gfx942\tmatmul:1x1x1024x512:f16:a512:b1024n\t(kernel=gemv|bm=[0-9]+,bn=[^\t]*)\t[01]\\.[0-9]{4}$'
  run "$TOSAC" t.mlir --offload-arch=gfx942,gfx1030 --tuning-db=t.tsv -o t.hipfb
  assert_success
  run kernels t.json gfx1030
  assert_output --regexp '^gemv 1 256 8 [0-9]+ db$'
  run kernels t.json gfx942
  assert_output --regexp ' db$'
  check t.mlir gfx942,gfx1030 --atol 1e-3
}

@test "decode-sized projections (M = 1, f16, odd K): split by the estimate with the last work-group's reduction counted; oracle on gfx942, gfx1100, gfx1030 in both executors" {
  seed="${GEMV_SEED:-$(date +%s)}"
  echo "GEMV_SEED=$seed"
  read -r k n < <(/usr/bin/python3 -c "
import random, sys
r = random.Random(int(sys.argv[1]))
print(2 * r.randint(700, 1500) + 1, 8 * (2 * r.randint(20, 40) + 1))" "$seed")
  echo "K=$k N=$n"
  /usr/bin/python3 "$GEN" matmul f16 1 1 $k $n > d.mlir
  "$TOSAC" d.mlir --offload-arch=gfx942,gfx1100,gfx1030 -o d.hipfb
  run kernels d.json gfx942
  assert_output --regexp '^gemv 1 512 [0-9]+ [0-9]+ heuristic$'
  [ "$(echo "$output" | cut -d' ' -f5)" -ge 2 ]
  check d.mlir gfx942,gfx1100,gfx1030 --seed="$seed" --atol 2e-3
  TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir check d.mlir gfx942,gfx1100,gfx1030 --seed="$seed" --atol 2e-3
  # GPT-2's second MLP projection (1x3072 -> 768): split 30 ways on gfx942, 60 work-groups with
  # bandwidth x latency in flight, the report's best split (skinny_split.bats); its last
  # work-group's reduction (two coherent-cache latencies and the partials read back) is what
  # remains
  /usr/bin/python3 "$GEN" matmul f16 1 1 3072 768 > fc2.mlir
  "$TOSAC" fc2.mlir --offload-arch=gfx942 -o fc2.hipfb
  run kernels fc2.json gfx942
  assert_output "gemv 1 512 8 30 heuristic"
  run "$BUNDLE" quality fc2.hipfb --no-mca
  assert_line --regexp '^gfx942 +matmul:1x1x768x3072:f16:a3072:b768n +f16 +1x512x8/1x512/s30 +fma +.* gemv +[0-9.]+ +1\.4 +6[2-9]% mem +100% -$'
}
