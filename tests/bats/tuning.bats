#!/usr/bin/env bats
# Kernel quality report (tosac-bundle quality), the tuning database (tosac --tuning-db,
# TOSAC_TUNING_DB) and tosac-tune (docs/gemm.md "Tuning database", docs/quality.md,
# docs/bench.md#kernel-quality). Numbers are the static models' on the current kernels: a change to the GEMM
# generator that moves them must update them here and in docs/bench.md.
bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
  TUNE="$BUILD/bin/tosac-tune"
}

load lib/matmul
# tuning FILE TARGET: the manifest's tuning object of TARGET's GEMM kernel as k=v pairs
tuning() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    if t["processor"] == sys.argv[2]:
        k = [k for k in t["kernels"] if "bm" in k["tuning"]][0]["tuning"]
        print(" ".join(f"{x}={k[x]}" for x in ("bm", "bn", "bk", "wm", "wn", "problem", "source")))
PY
}

@test "quality: resources, loop model, matrix share and roofline of a 512^3 f16 GEMM on MFMA, WMMA and FMA targets" {
  matmul m512 f16 1 512 512 512
  run "$TOSAC" m512.mlir --offload-arch=gfx942,gfx1100,gfx1030 -o m512.hipfb
  assert_success
  run "$BUNDLE" quality m512.hipfb
  assert_success
  assert_line --index 0 --regexp '^target +problem +type +tile +instruction +vgpr +agpr +lds +w/s +spill +loop +cycles +model +mma% +est_us +roofline +ceiling$'
  # llvm-mca-22 on gfx9 (the heuristic's 16x64 tile of 16x16 waves with 256-byte K tiles fills
  # more CUs, one work-group each, 1 wave per SIMD; its K loop is the pipelined MFMA loop); the
  # WMMA and FMA-slot static models on RDNA (the RDNA estimate's
  # tiles: small WMMA waves fill gfx1100's 96 CUs; gfx1030 keeps its default); the 1.5 MB that
  # gfx942's kernel moves take one memory latency (0.7 us: Little's law, cg_tune_memory_cycles),
  # which bounds any kernel of this problem there (the ceiling, 57 %: latency)
  assert_line --regexp '^gfx942 +matmul:1x512x512x512:f16:a512:b512n +f16 +16x64x128/16x16 +v_mfma_f32_16x16x16_f16 +84 +0 +43520 +1 +0 +120 +588\.0 +mca +43\.5 +0\.7 +57% mem +57% lat$'
  assert_line --regexp '^gfx1100 +matmul:1x512x512x512:f16:a512:b512n +f16 +64x64x32/16x32 +v_wmma_f32_16x16x16_f16 +83 +0 +20480 +12 +0 +55 +171\.0 +wmma +74\.9 +3\.3 +67% mma +100% -$'
  assert_line --regexp '^gfx1030 +matmul:1x512x512x512:f16:a512:b512n +f16 +128x64x32/64x32 +fma +173 +0 +30720 +4 +0 +1191 +1134\.0 +fma +90\.3 +8\.1 +72% mma +100% -$'
  # the issue model: the loop's 452 issue cycles for two 256-byte K tiles, above the load floor
  # of 224 each (cg_tune_kernel_cycles: 448 per iteration): below one memory latency, which sets
  # the time (0.4 us before the latency-aware bound)
  run "$BUNDLE" quality m512.hipfb --no-mca
  assert_line --regexp '^gfx942 .* 120 +452\.0 +issue +56\.6 +0\.7 +57% mem +57% lat$'
}

@test "quality: the ceiling of ResNet-18's classifier on gfx942 is one memory latency, and no kernel tosac-tune scores exceeds it" {
  cat > cls.mlir <<'EOF'
func.func @main(%x: tensor<1x512xf32>, %w: tensor<1000x512xf32>, %b: tensor<1000xf32>) -> tensor<1x1000xf32> {
  %r = "tosa.fully_connected"(%x, %w, %b) : (tensor<1x512xf32>, tensor<1000x512xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
  return %r : tensor<1x1000xf32>
}
EOF
  run "$TOSAC" cls.mlir --offload-arch=gfx942 -o cls.hipfb
  assert_success
  # 2,058,048 bytes at 5300 GB/s: 815.5 cycles at 2100 MHz, against one 700 ns latency (1470
  # cycles, all of it in flight): 55 % at best, for any kernel (the ceiling: latency). The skinny
  # kernel has all of B in flight, but its 16 work-groups' CUs bring in 64 bytes per clock each:
  # 1.0 us, 40 %.
  run "$BUNDLE" quality cls.hipfb --no-mca
  assert_success
  assert_line --regexp '^gfx942 +fully_connected:1x1x1000x512:f32:a512:b512k +f32 +1x64x32/1x64 +fma .* gemv +[0-9.]+ +1\.0 +40% mem +55% lat$'
  # a tile kernel (8 work-groups) has far less in flight: Little's law, not its 98 % issue share,
  # sets its time (was 8.0 us, 5 %, with the bandwidth floor alone)
  run "$TOSAC" cls.mlir --offload-arch=gfx942 --perf-config=kernel=tile -o tile.hipfb
  assert_success
  run "$BUNDLE" quality tile.hipfb --no-mca
  assert_line --regexp '^gfx942 +fully_connected:1x1x1000x512:f32:a512:b512k +f32 +16x128x8/16x64 .* issue +97\.7 +14\.7 +3% mem +55% lat$'
  # every configuration tosac-tune compiles scores at most the ceiling (1470 cycles for 815.5:
  # 0.5547); the skinny kernel's 0.4049 (held by its CUs' load rate) is the best
  run "$TUNE" cls.mlir --offload-arch=gfx942 --all --no-prune -j 2
  assert_success
  run /usr/bin/python3 -c "
import sys
rows = [l.split('\t') for l in sys.stdin.read().splitlines()]
best = max(rows, key=lambda r: float(r[3]))
print(len(rows) > 20, best[2], best[3], all(float(r[3]) <= 815.5 / 1470 for r in rows))" <<< "$output"
  assert_output "True kernel=gemv 0.4049 True"
}

@test "quality: a K loop unrolled away is modelled whole; llvm-mca-22 hanging is cut by --mca-timeout" {
  matmul small f16 2 64 96 80
  run "$TOSAC" small.mlir --offload-arch=gfx1100 -o small.hipfb
  assert_success
  # a gfx908 wave tile of 128 accumulators keeps the single-tile MFMA loop, which LLVM unrolls
  # whole for these 12 K tiles: the kernel is one "iteration" (-all)
  run "$TOSAC" small.mlir --offload-arch=gfx908 --perf-config=bm=64,bn=128,bk=8,wm=64,wn=128 -o s908.hipfb
  assert_success
  run timeout 120 "$BUNDLE" quality s908.hipfb
  assert_success
  assert_line --regexp '^gfx908 +matmul:2x64x80x96:f16:a96:b80n +f16 +64x128x8/64x128 .* 12288 +1 +0 +1220 +[0-9.]+ +mca-all '
  # a llvm-mca-22 run that outlives --mca-timeout is killed and the issue model answers
  # (llvm-mca-22 never finished on a gfx90a body of the earlier single-tile loop: a
  # ds_read2st64_b64 + s_waitcnt + MFMA pattern); 1 ms cuts this 1220-instruction body's run
  run timeout 60 "$BUNDLE" quality s908.hipfb --mca-timeout 0.001
  assert_success
  assert_line --regexp '^gfx908 +matmul:2x64x80x96:f16:a96:b80n +f16 +64x128x8/64x128 .* 12288 +1 +0 +1220 +[0-9.]+ +issue\(to\)-all '
  run "$BUNDLE" quality small.hipfb
  # the gfx1100 kernel of issue 13 had 256 VGPRs and 74 spilled (its short K loop unrolled whole);
  # WMMA K loops are no longer unrolled: no spills, and still the oracle's result
  assert_line --regexp '^gfx1100 +matmul:2x64x80x96:f16:a96:b80n +f16 +64x128x32/32x64 +v_wmma_f32_16x16x16_f16 +203 +0 +30720 +4 +0 +128 +608\.0 +wmma +84\.2 '
  eighths a.npy float16 3 2 64 96
  eighths b.npy float16 4 2 96 80
  run "${CHECK[@]}" small.mlir --targets=gfx1100 --input=@a.npy --input=@b.npy
  assert_success
  assert_output --partial "ok small.mlir [gfx1100]: 1 results match"
  run "$BUNDLE" quality small.hipfb --mca-timeout 0
  assert_failure 2
  assert_output --partial "--mca-timeout takes a positive number of seconds"
}

@test "tuning database: an entry changes the tile on its target only, and the manifest says db" {
  matmul m f16 2 64 96 80
  printf '# tosac tuning database\ngfx942\tmatmul:2x64x80x96:f16:a96:b80n\tbm=64,bn=64,bk=32,wm=32,wn=32\t0.5\n' > db.tsv
  run "$TOSAC" m.mlir --offload-arch=gfx942,gfx90a --tuning-db=db.tsv -o m.hipfb
  assert_success
  assert_output ""
  run tuning m.json gfx942
  assert_output "bm=64 bn=64 bk=32 wm=32 wn=32 problem=matmul:2x64x80x96:f16:a96:b80n source=db"
  run tuning m.json gfx90a
  assert_output "bm=64 bn=128 bk=8 wm=64 wn=64 problem=matmul:2x64x80x96:f16:a96:b80n source=heuristic"
  # the launch follows: 4 waves of 64 lanes on gfx942, the heuristic's 2 on gfx90a
  run /usr/bin/python3 -c "import json; print([k['block'] for t in json.load(open('m.json'))['targets'] for k in t['kernels']])"
  assert_output "[[256, 1, 1], [128, 1, 1]]"
  # TOSAC_TUNING_DB does the same; without any database the compile is unchanged
  TOSAC_TUNING_DB=db.tsv run "$TOSAC" m.mlir --offload-arch=gfx942 -o e.hipfb
  run tuning e.json gfx942
  assert_output --partial "bm=64 bn=64 bk=32 wm=32 wn=32"
  run "$TOSAC" m.mlir --offload-arch=gfx942 -o n.hipfb
  run tuning n.json gfx942
  assert_output "bm=64 bn=128 bk=8 wm=64 wn=64 problem=matmul:2x64x80x96:f16:a96:b80n source=heuristic"
  # a later file's entry for the same key wins; --perf-config beats the database
  printf 'gfx942\tmatmul:2x64x80x96:f16:a96:b80n\tbm=32,bn=32,bk=32,wm=32,wn=32\t0.7\n' > db2.tsv
  run "$TOSAC" m.mlir --offload-arch=gfx942 --tuning-db=db.tsv --tuning-db=db2.tsv -o w.hipfb
  run tuning w.json gfx942
  assert_output --partial "bm=32 bn=32 bk=32 wm=32 wn=32"
  run "$TOSAC" m.mlir --offload-arch=gfx942 --tuning-db=db.tsv --perf-config=bm=64,bn=64,bk=16 -o p.hipfb
  run tuning p.json gfx942
  assert_output --partial "source=perf-config"
}

@test "tuning database: malformed lines are file:line:col errors and no output is written" {
  matmul m f16 1 32 64 48
  printf 'gfx942\tmatmul:1x32x48x64:f16:a64:b48n\tbm=64,bx=3\t0.5\n' > bad.tsv
  run "$TOSAC" m.mlir --tuning-db=bad.tsv -o m.hipfb
  assert_failure 1
  assert_line --index 0 "bad.tsv:1:39: error: bad entry 'bx=3' (keys: bm, bn, bk, wm, wn, va, vb = positive integers; mma = 32, 16 or fma; kernel = tile or gemv)"
  [ ! -e m.hipfb ] && [ ! -e m.json ]
  printf '# ok\n\ngfx942 matmul bm=64\n' > bad2.tsv
  run "$TOSAC" m.mlir --tuning-db=bad2.tsv -o m.hipfb
  assert_failure 1
  assert_line --index 0 "bad2.tsv:3:1: error: expected 4 tab-separated fields (target, problem key, perf-config, score), found 1"
  printf 'gfx999\tmatmul:1x32x48x64:f16:a64:b48n\tbm=64\t1\n' > bad3.tsv
  TOSAC_TUNING_DB=bad3.tsv run "$TOSAC" m.mlir -o m.hipfb
  assert_failure 1
  assert_line --index 0 "bad3.tsv:1:1: error: unknown target 'gfx999'"
  printf 'gfx942\tmatmul:1x32\tbm=64\t1\ngfx942\tmatmul:1x32x48x64:f16:a64:b48n\tbm=64\tfast\n' > bad4.tsv
  run "$TOSAC" m.mlir --tuning-db=bad4.tsv -o m.hipfb
  assert_failure 1
  assert_line "bad4.tsv:1:8: error: malformed problem key 'matmul:1x32' (expected op:BxMxNxK:type:..., as in the manifest's tuning.problem)"
  assert_line "bad4.tsv:2:45: error: score 'fast' is not a number"
  run "$TOSAC" m.mlir --tuning-db=missing.tsv -o m.hipfb
  assert_failure
  assert_output --partial "missing.tsv"
}

@test "tuning database: an entry infeasible on its target is a warning and the heuristic is used" {
  matmul m f16 2 64 96 80
  printf 'gfx90a\tmatmul:2x64x80x96:f16:a96:b80n\tbm=64,bn=64,bk=32,wm=32,wn=48\t1\n' > inf.tsv
  run "$TOSAC" m.mlir --offload-arch=gfx90a --tuning-db=inf.tsv -o m.hipfb
  assert_success
  assert_line --index 0 "m.mlir:5:8: warning: tuning database entry for matmul:2x64x80x96:f16:a96:b80n on gfx90a is not usable (bm=64,bn=64,bk=32,wm=32,wn=48 is infeasible on gfx90a: the wave tile must be a multiple of the instruction tile); using the heuristic"
  run tuning m.json gfx90a
  assert_output --partial "source=heuristic"
}

@test "tuned kernels match the oracle on an MFMA, a WMMA and the FMA target" {
  matmul m f16 2 64 96 80
  {
    printf 'gfx942\tmatmul:2x64x80x96:f16:a96:b80n\tbm=32,bn=16,bk=32,wm=16,wn=16,mma=16\t0.1\n'
    printf 'gfx1100\tmatmul:2x64x80x96:f16:a96:b80n\tbm=32,bn=32,bk=32,wm=16,wn=32\t0.1\n'
    printf 'gfx1030\tmatmul:2x64x80x96:f16:a96:b80n\tbm=64,bn=64,bk=32,wm=32,wn=16\t0.1\n'
  } > db.tsv
  export TOSAC_TUNING_DB="$PWD/db.tsv"
  run "$TOSAC" m.mlir --offload-arch=gfx942,gfx1100,gfx1030 -o m.hipfb
  assert_success
  for t in gfx942 gfx1100 gfx1030; do
    run tuning m.json $t
    assert_output --partial "source=db"
  done
  eighths a.npy float16 1 2 64 96
  eighths b.npy float16 2 2 96 80
  run "${CHECK[@]}" m.mlir --targets=gfx942,gfx1100,gfx1030 --input=@a.npy --input=@b.npy
  assert_success
  assert_output --partial "ok m.mlir [gfx942]: 1 results match"
  assert_output --partial "ok m.mlir [gfx1100]: 1 results match"
  assert_output --partial "ok m.mlir [gfx1030]: 1 results match"
}

@test "tosac-tune: sorted, deterministic database (any -j) that tosac accepts and follows" {
  matmul s f16 1 32 64 48
  run "$TUNE" s.mlir --offload-arch=gfx1100,gfx942 -j 2 -o a.tsv
  assert_success
  run "$TUNE" s.mlir --offload-arch=gfx942,gfx1100 -j 1 -o b.tsv
  assert_success
  cmp a.tsv b.tsv
  run cat a.tsv
  assert_line --index 0 --regexp $'^gfx1100\tmatmul:1x32x48x64:f16:a64:b48n\tbm=[0-9]+,bn=[0-9]+,bk=[0-9]+,wm=[0-9]+,wn=[0-9]+(,mma=16)?\t0\\.[0-9]{4}$'
  assert_line --index 1 --regexp $'^gfx942\tmatmul:1x32x48x64:f16:a64:b48n\tbm=[0-9]+,bn=[0-9]+,bk=[0-9]+,wm=[0-9]+,wn=[0-9]+(,mma=16)?\t0\\.[0-9]{4}$'
  [ "$(wc -l < a.tsv)" = 2 ]
  sort -c a.tsv
  # the database drives the compile: the manifest has its tile and says db
  run "$TOSAC" s.mlir --offload-arch=gfx942 --tuning-db=a.tsv -o s.hipfb
  assert_success
  cfg=$(awk -F'\t' '$1 == "gfx942" {print $3}' a.tsv)
  run tuning s.json gfx942
  assert_output --partial "source=db"
  bm=$(sed 's/.*bm=\([0-9]*\).*/\1/' <<< "$cfg")
  assert_output --partial "bm=$bm "
  # the tuned score is at least the heuristic's, by the same model
  run "$TUNE" s.mlir --offload-arch=gfx942 -v -o c.tsv
  assert_output --regexp 'gfx942 matmul:1x32x48x64:f16:a64:b48n: [0-9]+ configurations'
  run "$TUNE" --offload-arch=gfx999 s.mlir
  assert_failure 2
  assert_output --partial "unknown target 'gfx999'"
}

@test "tosac-tune: every public function of a module (problems shared once), or the one --entry names" {
  # tests/data/entries/module.mlir without its dynamic function (which, as in tosac, needs
  # --specialize): a matmul and a conv2d
  /usr/bin/python3 - "$ROOT/tests/data/entries/module.mlir" <<'PY'
import sys
s = open(sys.argv[1]).read()
a, b = s.index('  func.func @matmul_dyn'), s.index('  func.func @conv')
open('two.mlir', 'w').write(s[:a] + s[b:])
PY
  run "$TUNE" two.mlir --offload-arch=gfx90a -o two.tsv
  assert_success
  run cut -f1,2 two.tsv
  assert_output $'gfx90a\tconv2d:1x64x32x144:f32:a16:b144k\ngfx90a\tmatmul:1x64x48x32:f32:a32:b48n'
  run "$TUNE" two.mlir --offload-arch=gfx90a --entry=conv
  assert_success
  run cut -f2 <<< "$output"
  assert_output "conv2d:1x64x32x144:f32:a16:b144k"
  # a dynamic function among them is refused as tosac refuses it
  run "$TUNE" "$ROOT/tests/data/entries/module.mlir" --offload-arch=gfx90a
  assert_failure 1
  assert_line --index 0 --partial "error: dynamic dimension 0 of argument '%a' has no value; compile with --specialize="
}

@test "tosac-tune: bounds skip configurations that cannot win (the database of the full search); --compare and --all" {
  matmul m f16 1 256 256 256
  run "$TUNE" m.mlir --offload-arch=gfx942 -j 1 -v -o p.tsv
  assert_success
  # 221 candidates (the range and the heuristic's 128-byte K tile), 71 compiled: the others' bound
  # on the time (MFMA cycles, issue slots, the load floor, the memory floor) exceeds the best time
  # found (with -j 1; threads may compile a few more). This problem (0.4 MB) takes one memory
  # latency whatever the tile (the bound's floor too), so the 71 whose bound is that latency tie
  # with the best and are compiled (8 before the latency-aware bound)
  assert_output "tosac-tune: gfx942 matmul:1x256x256x256:f16:a256:b256n: 221 configurations, 71 compiled"
  run "$TUNE" m.mlir --offload-arch=gfx942 --no-prune -v -o f.tsv
  assert_output "tosac-tune: gfx942 matmul:1x256x256x256:f16:a256:b256n: 221 configurations, 221 compiled"
  cmp p.tsv f.tsv
  run cat p.tsv
  assert_output $'gfx942\tmatmul:1x256x256x256:f16:a256:b256n\tbm=32,bn=64,bk=64,wm=16,wn=32,mma=16\t0.1413'
  # --compare: the default (here the best itself), its score and split-K factor
  run "$TUNE" m.mlir --offload-arch=gfx942 --compare
  assert_output $'gfx942\tmatmul:1x256x256x256:f16:a256:b256n\tbm=32,bn=64,bk=64,wm=16,wn=32,mma=16\t0.1413\tbm=32,bn=64,bk=64,wm=16,wn=32,mma=16\t0.1413\t1'
  # --all: every compiled configuration, the default marked, with the heuristic's estimate
  # (0.721 us against the model's 0.700: one memory latency for both; the ties go to the shorter
  # estimate, then the text)
  run "$TUNE" m.mlir --offload-arch=gfx942 --all -j 1
  assert_equal "${#lines[@]}" 71
  assert_line $'gfx942\tmatmul:1x256x256x256:f16:a256:b256n\tbm=32,bn=64,bk=64,wm=16,wn=32,mma=16\t0.1413\t0.700\t340.0\t85\t66\t2\t0\t0.721\t1\tdefault'
}

@test "tosac-tune: a configuration that spills never wins over one that does not (BERT's 12x512x512x64 on gfx1030)" {
  matmul qk f16 12 512 64 512
  run "$TUNE" qk.mlir --offload-arch=gfx1030 --all -j 2
  assert_success
  # two tiles tie on score and time; the 128x32-wave one spills VGPRs and comes first by text
  assert_line --regexp $'^gfx1030\tmatmul:12x512x512x64:f16:a64:b512n\tbm=128,bn=128,bk=16,wm=128,wn=32\t1.0000\t27.648\t[0-9.]+\t[0-9]+\t[0-9]+\t[0-9]+\t[1-9][0-9]*\t'
  assert_line --regexp $'^gfx1030\tmatmul:12x512x512x64:f16:a64:b512n\tbm=128,bn=128,bk=16,wm=64,wn=32\t1.0000\t27.648\t[0-9.]+\t[0-9]+\t[0-9]+\t[0-9]+\t0\t'
  run "$TUNE" qk.mlir --offload-arch=gfx1030 -j 2
  assert_success
  assert_output $'gfx1030\tmatmul:12x512x512x64:f16:a64:b512n\tbm=128,bn=128,bk=16,wm=64,wn=32\t1.0000'
}
