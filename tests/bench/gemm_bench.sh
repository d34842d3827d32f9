#!/bin/bash
# gemm_bench.sh [SHAPE...]: for a fixed set of GEMM-family shapes, per target and type, the default
# GEMM kernel's registers, spills, LDS bytes, occupancy, matrix instructions per K step and
# llvm-mca-22's matrix-pipe utilisation of the main loop. Formulas: docs/gemm.md.
# Shapes (default: all): sq1024 sq4096 sq8192 bert rn<i> (ResNet-18 conv2d shapes, rn0..rn10).
# TYPES="f16 f32" restricts the element types; TARGETS="gfx90a gfx942" the targets.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
exec /usr/bin/python3 - "$TOSAC" "$TMP" "${TYPES:-}" "${TARGETS:-}" "$@" <<'PY'
import json, re, subprocess, sys

tosac, tmp, types_env, targets_env = sys.argv[1:5]
want = sys.argv[5:]
TARGETS = targets_env.split() or ["gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1200"]

# --------------------------------------------------------------------------- shapes
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
    ot = "i32" if et == "i8" else et
    x, w, bt, r = (f"tensor<1x{h}x{h}x{ic}x{et}>", f"tensor<{oc}x{kk}x{kk}x{ic}x{et}>",
                   f"tensor<{oc}x{ot}>", f"tensor<1x{o}x{o}x{oc}x{ot}>")
    return f"""func.func @main(%x: {x}, %w: {w}, %b: {bt}) -> {r} {{
  %0 = "tosa.conv2d"(%x, %w, %b) {{dilation = array<i64: 1, 1>, pad = array<i64: {p}, {p}, {p}, {p}>, stride = array<i64: {s}, {s}>}} : ({x}, {w}, {bt}) -> {r}
  return %0 : {r}
}}
"""

# (name, description, graph builder, types): squares in every type, the distinct conv2d shapes of
# /work/shared/testdata/rocmlir_resnet18.mlir (f32 as in the model, and f16), BERT-base attention
# scores Q x K^T (12 heads, sequence 512, head size 64)
ALL = ["f32", "f16", "bf16", "i8"]
RESNET = [(224, 3, 64, 7, 2, 3), (56, 64, 64, 3, 1, 1), (56, 64, 128, 3, 2, 1), (56, 64, 128, 1, 2, 0),
          (28, 128, 128, 3, 1, 1), (28, 128, 256, 3, 2, 1), (28, 128, 256, 1, 2, 0),
          (14, 256, 256, 3, 1, 1), (14, 256, 512, 3, 2, 1), (14, 256, 512, 1, 2, 0), (7, 512, 512, 3, 1, 1)]
SHAPES = [(f"sq{n}", f"matmul {n}^3", (lambda et, n=n: matmul(1, n, n, n, et)), ALL) for n in (1024, 4096, 8192)]
SHAPES.append(("bert", "matmul 12x512x64x512", lambda et: matmul(12, 512, 64, 512, et), ["f32", "f16", "bf16"]))
for i, (h, ic, oc, kk, s, p) in enumerate(RESNET):
    SHAPES.append((f"rn{i}", f"conv {h}x{h}x{ic}->{oc} {kk}x{kk}/{s}",
                   (lambda et, a=(h, ic, oc, kk, s, p): conv(*a, et)), ["f32", "f16"]))

# --------------------------------------------------------------------------- target limits
# waves per SIMD = min(register limit, LDS limit); see docs/bench.md
def occupancy(t, md, arch, waves_per_wg):
    ru = lambda x, g: -(-x // g) * g
    if t == "gfx908":  # two separate 256-entry files, granule 4, at most 10 waves
        regs = min(10, 256 // ru(max(arch, md["agpr"], 1), 4))
    elif t.startswith("gfx9"):  # one 512-entry file (arch rounded to 4, then AGPRs), granule 8
        regs = min(8, 512 // ru(max(md["vgpr"], 1), 8))
    elif t == "gfx1030":  # wave32: 1024 VGPRs per SIMD lane, granule 16, at most 16 waves
        regs = min(16, 1024 // ru(max(md["vgpr"], 1), 16))
    else:  # gfx11/gfx12 wave32: 1536, granule 24, at most 16 waves
        regs = min(16, 1536 // ru(max(md["vgpr"], 1), 24))
    pool = {"gfx950": 163840}.get(t, 65536) if t.startswith("gfx9") else 131072  # per CU / WGP
    lds = md["lds"]
    groups = pool // lds if lds else 10 ** 6
    return min(regs, groups * waves_per_wg // 4), regs

# --------------------------------------------------------------------------- code object facts
def split_targets(asm):
    parts, cur = {}, None
    for line in asm.splitlines(keepends=True):
        m = re.match(r"^; target (\S+)", line)
        if m:
            cur = m.group(1)
            parts[cur] = []
        elif cur:
            parts[cur].append(line)
    return {k: "".join(v) for k, v in parts.items()}

def metadata(asm, name):
    """The kernel's entry of the amdhsa.kernels metadata (the code object note) and its descriptor."""
    meta = asm[asm.index(".amdgpu_metadata"):]
    for item in re.split(r"\n  - ", meta):
        if re.search(rf"\.name:\s+{re.escape(name)}\n", item):
            def get(k):
                m = re.search(rf"\.{k}:\s+(\d+)", item)
                return int(m.group(1)) if m else 0  # no .agpr_count before gfx908
            md = {"vgpr": get("vgpr_count"), "agpr": get("agpr_count"), "sgpr": get("sgpr_count"),
                  "spills": get("vgpr_spill_count") + get("sgpr_spill_count"),
                  "scratch": get("private_segment_fixed_size"), "lds": get("group_segment_fixed_size")}
            m = re.search(rf"\.amdhsa_kernel {re.escape(name)}\n(.*?)\.end_amdhsa_kernel", asm, re.S)
            acc = re.search(r"\.amdhsa_accum_offset (\d+)", m.group(1)) if m else None
            md["accum_offset"] = int(acc.group(1)) if acc else None
            return md
    raise SystemExit(f"no metadata for {name}")

def main_loop(asm, name):
    """Body of the kernel's main loop: from the label that a later conditional branch jumps back
    to, to that branch; of several loops the one with the most matrix instructions."""
    m = re.search(rf"^{re.escape(name)}:\n(.*?)^\.Lfunc_end", asm, re.S | re.M)
    lines = m.group(1).splitlines()
    labels = {l[:-1]: i for i, l in enumerate(lines) if re.match(r"^\.LBB\d+_\d+:", l)}
    mma = lambda ls: sum(1 for l in ls if re.match(r"\s+v_(mfma|wmma|smfmac)", l))
    best, nblocks = [], 0
    for i, l in enumerate(lines):
        b = re.match(r"^\s+s_cbranch_\w+\s+(\.LBB\d+_\d+)", l)
        if b and b.group(1) in labels and labels[b.group(1)] < i:
            body = lines[labels[b.group(1)] + 1:i + 1]
            if mma(body) > mma(best) or not best:
                best = body
                nblocks = 1 + sum(1 for x in body if re.match(r"^\.LBB", x))
    insts = [l for l in best if l.startswith("\t") and not l.lstrip().startswith((".", ";"))]
    return insts, mma(insts), nblocks

def mca_run(t, path, it):
    try:
        out = subprocess.run(["llvm-mca-22", "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={t}",
                              f"-iterations={it}", path], stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=30).stdout
    except subprocess.TimeoutExpired:  # llvm-mca-22 hangs on some bodies (docs/bench.md)
        return None
    cyc = re.search(r"Total Cycles:\s+(\d+)", out)
    res = re.search(r"Resources:\n((?:\[\d+\].*\n)+)", out)
    pr = re.search(r"Resource pressure per iteration:\n.*\n(.*)\n", out)
    if not (cyc and res and pr):
        return None
    names = [l.split()[-1] for l in res.group(1).splitlines()]  # "[6]   - HWXDL"
    vals = pr.group(1).split()
    xdl = vals[names.index("HWXDL")] if "HWXDL" in names else "-"
    return int(cyc.group(1)), 0.0 if xdl == "-" else float(xdl)

def mca(t, insts):
    """(utilisation %, cycles per iteration, matrix-pipe cycles per iteration) by llvm-mca-22.
    Steady state: the cycles of 100 more iterations, (C(200) - C(100)) / 100, which leaves out the
    pipeline fill and the last s_barrier's modelled latency."""
    if not insts:
        return None
    path = f"{tmp}/loop.s"
    open(path, "w").write("\n".join(insts) + "\n")
    a, b = mca_run(t, path, 100), mca_run(t, path, 200)
    if not (a and b) or b[0] <= a[0]:
        return None
    per_iter = (b[0] - a[0]) / 100
    return 100.0 * a[1] / per_iter, per_iter, a[1]

# --------------------------------------------------------------------------- run
types = types_env.split() or ALL
print("GEMM kernels, default configuration (tosac --emit=asm; registers from the code object "
      "metadata, mca% = HWXDL cycles / cycles per loop iteration by llvm-mca-22)")
hdr = (f"{'shape':<6} {'type':<5} {'target':<8} {'instruction':<26} {'vgpr':>4} {'agpr':>4} {'sgpr':>4} "
       f"{'spill':>5} {'lds':>6} {'w/simd':>6} {'mma/k':>5} {'loop':>5} {'mca%':>6}  tuning")
print(hdr)
summary = []
for key, desc, build, tys in SHAPES:
    if want and key not in want:
        continue
    for et in tys:
        if et not in types:
            continue
        g = f"{tmp}/{key}_{et}.mlir"
        open(g, "w").write(build(et))
        arch_flags = [f"--offload-arch={','.join(TARGETS)}"]
        r1 = subprocess.run([tosac, g, *arch_flags, "-o", f"{tmp}/x.hipfb", f"--manifest={tmp}/x.json"],
                            capture_output=True, text=True)
        r2 = subprocess.run([tosac, g, *arch_flags, "--emit=asm", "-o", f"{tmp}/x.s"],
                            capture_output=True, text=True)
        if r1.returncode or r2.returncode:
            print(f"{key:<6} {et:<5} compile failed: {(r1.stderr or r2.stderr).strip().splitlines()[0]}")
            continue
        man = {t["processor"]: t for t in json.load(open(f"{tmp}/x.json"))["targets"]}
        asm = split_targets(open(f"{tmp}/x.s").read())
        for t in TARGETS:
            ks = [k for k in man[t]["kernels"] if "tuning" in k]
            if not ks:
                print(f"{key:<6} {et:<5} {t:<8} (no GEMM kernel)")
                continue
            k = ks[0]
            md = metadata(asm[t], k["name"])
            tun = k["tuning"]
            wpw = tun.get("waves", 1)
            # arch VGPRs: the assembler's .num_vgpr symbol (.vgpr_count is max(VGPR, AGPR) on
            # gfx908 and the unified total on gfx90a+)
            nv = re.search(rf"\.set {re.escape(k['name'])}\.num_vgpr, (\d+)", asm[t])
            arch = int(nv.group(1)) if nv else md["vgpr"]
            occ, _ = occupancy(t, md, arch, wpw)
            insts, nmma, nblocks = main_loop(asm[t], k["name"])
            est = mca(t, insts) if t.startswith("gfx9") else None
            # n/a: no matrix-pipe model (RDNA); noloop: the K loop was fully unrolled (few K tiles)
            util = (f"{est[0]:.1f}" if est else "n/a" if not t.startswith("gfx9")
                    else "noloop" if not insts else "hang")
            ksteps = tun.get("unroll", 1)
            tn = f"{tun['bm']}x{tun['bn']}x{tun['bk']}/{tun['wm']}x{tun['wn']}" + (
                f" split{tun['split_k']}" if "split_k" in tun else "")
            print(f"{key:<6} {et:<5} {t:<8} {k['matrix_instruction']:<26} {arch:>4} {md['agpr']:>4} "
                  f"{md['sgpr']:>4} {md['spills'] + md['scratch']:>5} {md['lds']:>6} {occ:>6} "
                  f"{nmma // ksteps:>5} {len(insts):>5} {util:>6}  {tn}" + ("" if nblocks <= 1 else f" ({nblocks} blocks)"))
            summary.append((key, et, t, occ, md["spills"] + md["scratch"], est))
        sys.stdout.flush()

bad_occ = [s for s in summary if s[0].startswith("sq") and s[0] != "sq1024" and s[3] < 2]
bad_spill = [s for s in summary if s[4]]
print(f"\nlarge square GEMMs below 2 waves/SIMD: {len(bad_occ)}; kernels with spills or scratch: {len(bad_spill)}")
for t in ("gfx90a", "gfx942"):
    for et in ("f16", "bf16"):
        u = [s[5][0] for s in summary if s[2] == t and s[1] == et and s[0] in ("sq4096", "sq8192") and s[5]]
        if u:
            print(f"{t} {et} 4096/8192 mca utilisation: {', '.join(f'{x:.1f} %' for x in u)}")
PY
