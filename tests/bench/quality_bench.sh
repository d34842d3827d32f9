#!/bin/bash
# quality_bench.sh [SET...]: the kernel quality report (tosac-bundle quality, docs/quality.md,
# docs/bench.md#kernel-quality) over shape sets: squares (4096^3 f16/bf16/i8/f8), ResNet-18 (the testdata
# graph), ResNet-50 and BERT-base layer shapes, skinny GEMMs (M <= 16) and odd sizes; on request
# resnet50_bwd: ResNet-50's layers backward (data and weight) as libtosac-miir's kernel groups.
# Sets: square resnet18 resnet50 bert skinny odd (default: all), resnet50_bwd. TARGETS="gfx90a gfx942" picks the
# targets; MCA_TIMEOUT (default 20) bounds each llvm-mca-22 run; TOSAC_FLAGS adds tosac options
# (e.g. --perf-config=kernel=tile: the tile kernel where the heuristic takes the skinny one).
# TUNE=1 instead prints the default choice against tosac-tune's best, one table row per kernel
# and target (`tosac-tune --all`: both scored by the issue model, at the split-K factor of the
# default; docs/bench.md); JOBS (default: the cores) is tosac-tune's -j; TUNE_LOG=FILE appends
# tosac-tune's lines (every compiled configuration) to FILE.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${TOSAC_BUILD:-build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
BIN="$BUILD/bin"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
exec /usr/bin/python3 - "$BIN" "$TMP" "${TARGETS:-}" "${TUNE:-0}" "${MCA_TIMEOUT:-20}" "${TOSAC_FLAGS:-}" "${JOBS:-$(nproc)}" "${TUNE_LOG:-}" "$@" <<'PY'
import os, subprocess, sys

bin_dir, tmp, targets_env, tune, mca_timeout, flags, jobs, log = sys.argv[1:9]
flags = flags.split()
want = sys.argv[9:]
TARGETS = targets_env.split() or ["gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1200"]

def matmul(b, m, k, n, et):
    acc = "i32" if et == "i8" else et if et == "f32" else "f32"
    zero = "0" if et == "i8" else "0.0"
    return f"""func.func @main(%a: tensor<{b}x{m}x{k}x{et}>, %b: tensor<{b}x{k}x{n}x{et}>) -> tensor<{b}x{m}x{n}x{acc}> {{
  %z = "tosa.const"() <{{values = dense<{zero}> : tensor<1x{et}>}}> : () -> tensor<1x{et}>
  %r = tosa.matmul %a, %b, %z, %z : (tensor<{b}x{m}x{k}x{et}>, tensor<{b}x{k}x{n}x{et}>, tensor<1x{et}>, tensor<1x{et}>) -> tensor<{b}x{m}x{n}x{acc}>
  return %r : tensor<{b}x{m}x{n}x{acc}>
}}
"""

def conv(h, ic, oc, kk, s, p, et):
    o = (h + 2 * p - kk) // s + 1
    x, w, bt, r = (f"tensor<1x{h}x{h}x{ic}x{et}>", f"tensor<{oc}x{kk}x{kk}x{ic}x{et}>",
                   f"tensor<{oc}x{et}>", f"tensor<1x{o}x{o}x{oc}x{et}>")
    z = f"tensor<1x{et}>"
    return f"""func.func @main(%x: {x}, %w: {w}, %b: {bt}) -> {r} {{
  %z = "tosa.const"() <{{values = dense<0.0> : {z}}}> : () -> {z}
  %0 = tosa.conv2d %x, %w, %b, %z, %z {{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: {p}, {p}, {p}, {p}>, stride = array<i64: {s}, {s}>}} : ({x}, {w}, {bt}, {z}, {z}) -> {r}
  return %0 : {r}
}}
"""

def fc(m, k, n, et):  # the pre-2023 fully_connected: [N][K] weights
    x, w, bt, r = f"tensor<{m}x{k}x{et}>", f"tensor<{n}x{k}x{et}>", f"tensor<{n}x{et}>", f"tensor<{m}x{n}x{et}>"
    return f"""func.func @main(%x: {x}, %w: {w}, %b: {bt}) -> {r} {{
  %0 = "tosa.fully_connected"(%x, %w, %b) : ({x}, {w}, {bt}) -> {r}
  return %0 : {r}
}}
"""

SETS = {
    # the issue's goal shapes: 4096^3 in every matrix type (f8 only where the target has it)
    "square": [(f"4096^3 {et}", matmul(1, 4096, 4096, 4096, et), tg) for et, tg in
               (("f16", None), ("bf16", None), ("i8", None), ("f8E4M3FNUZ", ["gfx942"]),
                ("f8E4M3FN", ["gfx950"]))],
    # BERT-base, sequence 512: QKV/output projections, FFN up/down, attention scores and context
    "bert": [(d, matmul(b, m, k, n, "f16"), None) for d, b, m, k, n in (
        ("proj 512x768x768", 1, 512, 768, 768), ("ffn1 512x768x3072", 1, 512, 768, 3072),
        ("ffn2 512x3072x768", 1, 512, 3072, 768), ("qk 12x512x64x512", 12, 512, 64, 512),
        ("pv 12x512x512x64", 12, 512, 512, 64))],
    # ResNet-50 bottleneck convolutions (NHWC, f16)
    "resnet50": [(f"conv {h}x{h}x{ic}->{oc} {k}x{k}/{s}", conv(h, ic, oc, k, s, p, "f16"), None)
                 for h, ic, oc, k, s, p in ((56, 64, 64, 1, 1, 0), (56, 64, 64, 3, 1, 1),
                                            (56, 64, 256, 1, 1, 0), (28, 128, 128, 3, 1, 1),
                                            (14, 256, 256, 3, 1, 1), (7, 512, 512, 3, 1, 1),
                                            (7, 512, 2048, 1, 1, 0))],
    # decode-time GEMMs: M <= 16
    "skinny": [(d, matmul(1, m, k, n, "f16"), None) for d, m, k, n in (
        ("1x4096x4096", 1, 4096, 4096), ("8x4096x4096", 8, 4096, 4096),
        ("16x768x3072", 16, 768, 3072))] + [("fc 1x1000x512 f32 (ResNet-18)", fc(1, 512, 1000, "f32"), None)],
    # not multiples of any tile
    "odd": [("1000^3", matmul(1, 1000, 1000, 1000, "f16"), None),
            ("127x255x63", matmul(1, 127, 255, 63, "f16"), None),
            ("conv 13x13x96->200 3x3", conv(13, 96, 200, 3, 1, 1, "f16"), None)],
}
def miir_graph(op, h, ic, oc, kk, s, p, et):
    """The TOSA graph libtosac-miir builds for MIOpen's NHWC problem (batch 32), or None."""
    o = (h + 2 * p - kk) // s + 1
    opts = (f"--operation {op} --arch gfx90a --fil_layout GNHWC --in_layout NHWGC --out_layout NHWGC "
            f"--fil_type {et} --in_type {et} --out_type {et} --batchsize 32 --in_channels {ic} "
            f"--out_channels {oc} --in_h {h} --in_w {h} --out_h {o} --out_w {o} --fil_h {kk} --fil_w {kk} "
            f"--conv_stride_h {s} --conv_stride_w {s} --padding_h {p} --padding_w {p}")
    g = f"{tmp}/miir.mlir"
    r = subprocess.run([f"{bin_dir}/miir-client", "--create", opts], capture_output=True, text=True,
                       env=dict(os.environ, TOSAC_MIIR_GRAPH=g))
    return open(g).read() if r.returncode == 0 and os.path.exists(g) else None

# ResNet-50's layers backward (libtosac-miir's kernel groups, NHWC f16, batch 32): backward data
# (transpose_conv2d, per output phase where the estimate says so) and backward weight
RESNET50_BWD = ((56, 64, 64, 1, 1, 0), (56, 64, 64, 3, 1, 1), (56, 64, 256, 1, 1, 0),
                (56, 256, 512, 1, 2, 0), (56, 128, 128, 3, 2, 1), (28, 128, 128, 3, 1, 1),
                (14, 256, 256, 3, 1, 1), (7, 512, 512, 3, 1, 1), (7, 512, 2048, 1, 1, 0))
if "resnet50_bwd" in want:
    SETS["resnet50_bwd"] = [(f"{op[7:]} {h}x{h}x{ic}->{oc} {k}x{k}/{s}", miir_graph(op, h, ic, oc, k, s, p, "fp16"), None)
                            for op in ("conv2d_bwd_data", "conv2d_bwd_weight")
                            for h, ic, oc, k, s, p in RESNET50_BWD]
resnet18 = "/work/shared/testdata/rocmlir_resnet18.mlir"
if os.path.exists(resnet18):
    SETS["resnet18"] = [("rocmlir_resnet18.mlir (f32)", open(resnet18).read(), None)]

def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)

def tile(cfg, split):
    """bm=64,bn=32,bk=32,wm=32,wn=32[,mma=16] -> 64x32x32/32x32[/16][/sS]"""
    if "gemv" in cfg:
        return "gemv"
    kv = dict(x.split("=") for x in cfg.split(","))
    t = f"{kv['bm']}x{kv['bn']}x{kv['bk']}/{kv['wm']}x{kv['wn']}"
    return t + ("/16" if kv.get("mma") == "16" else "") + (f"/s{split}" if int(split) > 1 else "")

def compare(name, desc, g, tg):
    """tosac-tune --all: the default against the best, one markdown row per kernel and target."""
    t = run([f"{bin_dir}/tosac-tune", g, f"--offload-arch={','.join(tg)}", "--all", "-j", jobs])
    if t.returncode:
        print(f"| {name} | {desc} | tosac-tune failed: {(t.stderr.strip().splitlines() or ['?'])[0]} |")
        return
    if log:
        with open(log, "a") as f:
            f.write("".join(f"{name}\t{desc}\t{l}\n" for l in t.stdout.splitlines()))
    best, dflt = {}, {}
    for l in t.stdout.splitlines():
        f = l.split("\t")
        k, sc, us, free = (f[0], f[1]), round(float(f[3]) * 1e4), float(f[4]), int(f[9]) == 0
        b = best.get(k)
        # tosac-tune's order of the best: no spills, score, time, text
        if not b or (free, sc, -us) > (b[3], b[0], -b[1]) or \
                ((free, sc, us) == (b[3], b[0], b[1]) and f[2] < b[2]):
            best[k] = (sc, us, f[2], free)
        if f[12] == "default":
            dflt[k] = (float(f[3]), f[2], f[11])
    order = {x: i for i, x in enumerate(tg)}
    for k in sorted(best, key=lambda k: (order.get(k[0], 99), k[1])):
        sc, _, cfg, _ = best[k]
        hs, hcfg, split = dflt.get(k, (0.0, "?", "1"))
        key = k[1].split(":")
        shape = desc if len({x[1] for x in best}) == 1 else key[0] + " " + key[1]
        ok = "yes" if hs >= 0.95 * sc / 1e4 else "**no**"
        print(f"| {name} | {shape} | {k[0]} | `{tile(hcfg, split)}` | {100 * hs:.1f}% | {sc / 100:.1f}% | "
              f"`{cfg}` | {ok} |")
        sys.stdout.flush()

header_done = False
if tune == "1":
    print("| set | shape | target | heuristic tile | heuristic | tuned | tuned perf-config | within 5 % |")
    print("|---|---|---|---|---|---|---|---|")
for name in ("square", "resnet18", "resnet50", "resnet50_bwd", "bert", "skinny", "odd"):
    if name not in SETS or (want and name not in want):
        continue
    if tune != "1":
        print(f"\n-- {name}")
    for desc, text, only in SETS[name]:
        tg = [t for t in TARGETS if not only or t in only]
        if not tg:
            continue
        g = f"{tmp}/g.mlir"
        open(g, "w").write(text)
        if tune == "1":
            compare(name, desc, g, tg)
            continue
        bwd = name == "resnet50_bwd"  # MIOpen's kernels only: init kernels, the model summary
        if text is None:
            print(f"{desc}: libtosac-miir built no graph")
            continue
        r = run([f"{bin_dir}/tosac", g, f"--offload-arch={','.join(tg)}", "-o", f"{tmp}/g.hipfb"] + flags +
                (["--init=kernel"] if bwd else []))
        if r.returncode:
            print(f"{desc}: compile failed: {(r.stderr.strip().splitlines() or ['?'])[0]}")
            continue
        q = run([f"{bin_dir}/tosac-bundle", "quality", f"{tmp}/g.hipfb", "--mca-timeout", mca_timeout] +
                (["--model"] if bwd else []))
        lines = q.stdout.splitlines()
        print(f"{desc}")
        if not header_done:
            print("  " + lines[0])
            header_done = True
        for l in lines[1:]:
            print("  " + l)
        sys.stdout.flush()
PY
