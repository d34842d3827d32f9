#!/bin/bash
# gemm_bench.sh [SIZE]: per target and type, the default GEMM configuration of a SIZE^3 matmul:
# registers, spills, LDS bytes, occupancy (waves/SIMD), matrix instructions per K step, and
# llvm-mca-22's matrix-pipe (or, without one, VALU) utilisation of the main loop.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
N="${1:-512}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
printf '%-8s %-5s %-28s %5s %5s %6s %6s %6s %7s %7s %s\n' target type instruction vgpr agpr spills lds waves mma/kst mca% tuning
for et in f32 f16 bf16 i8; do
  acc=f32; [ $et = i8 ] && acc=i32; out=$acc
  cat > "$TMP/g.mlir" <<G
func.func @main(%a: tensor<1x${N}x${N}x$et>, %b: tensor<1x${N}x${N}x$et>) -> tensor<1x${N}x${N}x$out> {
  %z = "tosa.const"() <{values = dense<0$( [ $et = i8 ] || echo .0)> : tensor<1x$et>}> : () -> tensor<1x$et>
  %r = tosa.matmul %a, %b, %z, %z : (tensor<1x${N}x${N}x$et>, tensor<1x${N}x${N}x$et>, tensor<1x$et>, tensor<1x$et>) -> tensor<1x${N}x${N}x$out>
  return %r : tensor<1x${N}x${N}x$out>
}
G
  for t in gfx908 gfx90a gfx942 gfx950 gfx1030 gfx1100 gfx1200; do
    "$TOSAC" "$TMP/g.mlir" --offload-arch=$t -o "$TMP/x.hipfb" --manifest="$TMP/x.json"
    "$TOSAC" "$TMP/g.mlir" --offload-arch=$t --emit=asm -o "$TMP/x.s"
    /usr/bin/python3 - "$TMP" $t $et <<'PY'
import json, re, subprocess, sys
tmp, t, et = sys.argv[1:4]
k = json.load(open(f"{tmp}/x.json"))["targets"][0]["kernels"][0]
r = k["registers"]
wave = 64 if t.startswith("gfx9") else 32
if t == "gfx908":
    waves = min(8, 512 // max(8, -(-max(r["vgpr"], r["agpr"]) // 4) * 4)) if max(r["vgpr"], r["agpr"]) else 8
    waves = min(8, 256 // max(4, -(-max(r["vgpr"], r["agpr"]) // 4) * 4))
elif t.startswith("gfx9"):
    waves = min(8, 512 // max(8, -(-(r["vgpr"] + r["agpr"]) // 8) * 8))
else:  # wave32 RDNA: 1024 (gfx1030) / 1536 (gfx11/12) VGPRs per lane per SIMD, granule 8/16
    total = 1024 if t == "gfx1030" else 1536
    waves = min(16, total // max(8, -(-r["vgpr"] // 8) * 8))
asm = open(f"{tmp}/x.s").read()
# main loop: from the label that a later conditional branch jumps back to, to that branch
lines = asm.splitlines()
labels = {l[:-1]: i for i, l in enumerate(lines) if re.match(r"^\.LBB\d+_\d+:$", l)}
loop_lines = []
for i, l in enumerate(lines):
    m = re.match(r"^\s+s_cbranch_\w+\s+(\.LBB\d+_\d+)", l)
    if m and m.group(1) in labels and labels[m.group(1)] < i:
        cand = lines[labels[m.group(1)] + 1:i + 1]
        if len(re.findall(r"v_(mfma|wmma|fma|dot)", "\n".join(cand))) > len(re.findall(r"v_(mfma|wmma|fma|dot)", "\n".join(loop_lines))):
            loop_lines = cand
body = "\n".join(l for l in loop_lines if l.startswith("\t") and not l.lstrip().startswith((".", ";"))) + "\n"
open(f"{tmp}/loop.s", "w").write(body)
nmma = len(re.findall(r"\tv_(mfma|wmma)", body))
try:
    mca = subprocess.run(["llvm-mca-22", "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={t}", "-iterations=10",
                          f"{tmp}/loop.s"], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         timeout=30).stdout
except subprocess.TimeoutExpired:  # seen with some loop bodies: report, do not hang the table
    mca = ""
util = "-"
m = re.search(r"Resource pressure per iteration:\n(.*)\n(.*)\n", mca)
cyc = re.search(r"Total Cycles:\s+(\d+)", mca)
res = re.search(r"Resources:\n((?:\[\d+\].*\n)+)", mca)
if m and cyc and res:
    names = [l.split()[1] for l in res.group(1).splitlines()]
    vals = m.group(2).split()
    c = int(cyc.group(1)) / 10
    pick = next((i for i, n in enumerate(names) if "XDL" in n or "WMMA" in n.upper()), None)
    if pick is None:
        pick = next((i for i, n in enumerate(names) if "VALU" in n.upper()), None)
    if pick is not None and vals[pick] != "-":
        util = f"{100 * float(vals[pick]) / c:.1f}"
tun = k["tuning"]
print(f"{t:<8} {et:<5} {k['matrix_instruction']:<28} {r['vgpr']:>5} {r['agpr']:>5} "
      f"{r['vgpr_spills'] + r['sgpr_spills']:>6} {k['lds_bytes']:>6} {waves:>6} {nmma:>7} {util:>7} "
      f"{tun['bm']}x{tun['bn']}x{tun['bk']}/{tun['wm']}x{tun['wn']}")
PY
  done
done
