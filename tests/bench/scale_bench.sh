#!/bin/bash
# scale_bench.sh [BUILD]: (1) frontend and partitioner time on generated graphs of 1,000, 10,000 and
# 20,000 ops, to show that no stage grows quadratically (20x the ops should cost about 20x, not
# 400x). The graph is a chain of 10-op blocks that exercises every partitioner rule: a transpose
# kernel, a transpose fused as an index map into an add, a reduction, a [8,1] reciprocal
# recomputed in its consumer's kernel, a multiply + exp chain, and two reshapes (views) that
# the next block reads from memory. Each block becomes 5 kernels.
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
B="${1:-${TOSAC_BUILD:-build}}"  # a directory, absolute or relative to the repository root
case "$B" in /*) ;; *) B="$ROOT/$B" ;; esac
TOSAC="$B/bin/tosac"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
gen() { # gen N FILE: N ops in blocks of 10
  /usr/bin/python3 - "$1" > "$2" <<'PY'
import sys
n = int(sys.argv[1]) // 10
T, TT, R, F = "tensor<8x16xf32>", "tensor<16x8xf32>", "tensor<8x1xf32>", "tensor<128xf32>"
S1, S2 = "!tosa.shape<1>", "!tosa.shape<2>"
print("func.func @main(%%x: %s) -> %s {" % (T, T))
print('  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
print('  %%flat = "tosa.const_shape"() <{values = dense<[128]> : tensor<1xindex>}> : () -> %s' % S1)
print('  %%back = "tosa.const_shape"() <{values = dense<[8, 16]> : tensor<2xindex>}> : () -> %s' % S2)
p = "%x"
for i in range(n):
    ops = [
        ('t', '"tosa.transpose"(%s) <{perms = array<i32: 1, 0>}> : (%s) -> %s' % (p, T, TT)),
        ('u', '"tosa.transpose"(%%t%d) <{perms = array<i32: 1, 0>}> : (%s) -> %s' % (i, TT, T)),
        ('a', '"tosa.add"(%%u%d, %s) : (%s, %s) -> %s' % (i, p, T, T, T)),
        ('r', '"tosa.reduce_sum"(%%a%d) <{axis = 1 : i32}> : (%s) -> %s' % (i, T, R)),
        ('q', '"tosa.reciprocal"(%%r%d) : (%s) -> %s' % (i, R, R)),
        ('m', '"tosa.mul"(%%a%d, %%q%d, %%z) : (%s, %s, tensor<1xi8>) -> %s' % (i, i, T, R, T)),
        ('e', '"tosa.exp"(%%m%d) : (%s) -> %s' % (i, T, T)),
        ('f', '"tosa.reshape"(%%e%d, %%flat) : (%s, %s) -> %s' % (i, T, S1, F)),
        ('g', '"tosa.reshape"(%%f%d, %%back) : (%s, %s) -> %s' % (i, F, S2, T)),
        ('h', '"tosa.tanh"(%%g%d) : (%s) -> %s' % (i, T, T)),
    ]
    for name, text in ops:
        print('  %%%s%d = %s' % (name, i, text))
    p = "%%h%d" % i
print("  return %s : %s\n}" % (p, T))
PY
}
for n in ${CHAIN_OPS-1000 10000 20000}; do  # CHAIN_OPS= skips the op chains
  gen $n "$TMP/g$n.mlir"
  for arch in gfx90a "gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200"; do
    echo "\$ $TOSAC g$n.mlir --offload-arch=$arch --emit=partitions --time-report -o /dev/null   # $n ops"
    /usr/bin/time -o "$TMP/t" -f '%e %M' "$TOSAC" "$TMP/g$n.mlir" --offload-arch=$arch \
      --emit=partitions --time-report -o "$TMP/plan.txt" 2> "$TMP/r"
    read -r wall peak < "$TMP/t"
    parse=$(awk '/parse and verify/{print $4}' "$TMP/r")
    part=$(awk '/^  partition /{print $2}' "$TMP/r")
    kernels=$(awk 'NR == 1 {print $3}' "$TMP/plan.txt")
    printf '   %s targets: %s kernels per target, parse %s ms, partition %s ms, wall %s s, peak RSS %s KiB\n' \
      "$(echo "$arch" | tr ',' '\n' | wc -l)" "$kernels" "$parse" "$part" "$wall" "$peak"
  done
done

# Model scale (issue: compile speed at model scale): ResNet-50 (hex weights), BERT-base (12
# layers, sequence 128, hex weights) and a Stable-Diffusion-sized UNet (3,865 ops, weights as
# arguments), cold, 7 default targets, -j 2; each stage's share of the total from --time-report,
# then the cold time against the number of distinct kernels (smaller variants of the same
# models give the curve). MODELS=0 skips this part; CURVE=0 skips the curve.
[ "${MODELS:-1}" = 0 ] && exit 0
GEN=(/usr/bin/python3 "$ROOT/tests/bench/gen_model.py")
model_run() { # label, graph: one cold compile, stage shares, distinct kernels
  /usr/bin/time -o "$TMP/t" -f '%e %U %M' "$TOSAC" "$2" -j 2 --time-report -o "$TMP/m.hipfb" 2> "$TMP/r" ||
    { echo "   $1: compile failed"; sed 's/^/     /' "$TMP/r" | head -5; return; }
  read -r wall user peak < "$TMP/t"
  distinct=$(/usr/bin/python3 -c 'import json,sys; print(sum(t["distinct_kernels"] for t in json.load(open(sys.argv[1]))["targets"]))' "$TMP/m.json")
  shares=$(sed -n '/time report/,/^  total/p' "$TMP/r" | awk 'BEGIN { n = 0 } /^  [a-z]/ && $NF ~ /^[0-9.]+$/ {
      s = $0; sub(/ +[0-9.]+$/, "", s); sub(/^ +/, "", s); name[n] = s; ms[n++] = $NF }
    END { for (i = 0; i < n - 1; i++) printf "%s %.1f%%; ", name[i], 100 * ms[i] / ms[n - 1] }')
  printf '   %-34s %5d distinct kernels (7 targets), wall %6.2f s, user %6.2f s, peak %d MiB\n     %s\n' \
    "$1" "$distinct" "$wall" "$user" "$((peak / 1024))" "$shares"
}
echo "   load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"${GEN[@]}" resnet50 > "$TMP/r50.mlir"
/usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" bert --layers=12 --seq=128 --hidden=768 --heads=12 \
  --seed=11 > "$TMP/bert.mlir"
"${GEN[@]}" unet > "$TMP/unet.mlir"
for m in r50:"ResNet-50, batch 1, f32" bert:"BERT-base, 12 layers, seq 128" unet:"SD UNet, 64x64 latents, f16"; do
  echo "\$ tosac ${m%%:*}.mlir -j 2 --time-report   ($(grep -c '= "tosa\.' "$TMP/${m%%:*}.mlir") ops)"
  model_run "${m#*:}" "$TMP/${m%%:*}.mlir"
done
[ "${CURVE:-1}" = 0 ] && exit 0
echo "   cold time against distinct kernels (smaller variants):"
for v in "resnet50 --stages 1" "resnet50 --stages 2" "resnet50 --stages 3" "unet --levels 1" "unet --levels 2" "unet --levels 3"; do
  # shellcheck disable=SC2086
  "${GEN[@]}" $v > "$TMP/v.mlir"
  model_run "$v" "$TMP/v.mlir"
done
echo "   load average: $(cut -d' ' -f1-3 /proc/loadavg)"
