#!/usr/bin/python3
"""check.py: compare tosac + tosac-run with the upstream MLIR oracle on one graph, every target.

  check.py graph.mlir [--seed=N] [--targets=gfx908,...]        a graph file (samples/*.mlir)
  check.py --gen=3,4,5 [--seed=N]                               random graphs (merged into one)
  check.py ... --exec=ir                                        run the embedded kernel IR (default:
                                                                the machine code, --exec=isa; env TOSAC_EXEC)

Steps: seeded random inputs (ranges from `// oracle: arg K LO HI` comments, else per-type
defaults) -> oracle results (oracle.py) -> `tosac G --offload-arch=T1,... -o x.hipfb` (+ `--embed-ir` with --exec=ir)
-> per target `tosac-run x.hipfb --target=T --input=@in0.npy ... --output=@out0.npy ...` ->
element-wise comparison. Prints one line per target and result, the first mismatches with index,
values and tolerance; exit status 0 if everything matched, 1 on any mismatch or failure.

Tolerances (|got - ref| <= tol; NaN matches NaN, infinities must be equal):
  f32, f64  1e-5 + 1e-5*|ref|            (measured: the oracle's own f32 transcendentals are within
                                          1.7 ulp of exact; 1e-5 relative is ~80 ulp)
  f16       2 ulp of f16 at |ref|        bf16  2 ulp of bf16 at |ref|
  integers, i1: exact
plus, per result, `// oracle: result K err E` (gen_graph's bound on how far two correct
implementations drift after inexact ops; added as an absolute tolerance).
"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_graph  # noqa: E402
import oracle  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
DEFAULT_TARGETS = "gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200"
# make check-isa's sweep: TOSAC_SWEEP_TARGETS adds its targets to every --targets list (not to
# that of a --corrupt self-test); an added target that refuses the graph is dropped and recorded
# as refused; an added target's verdict lines start with "sweep: ". TOSAC_SWEEP_LOG collects one "TARGET ok|fail|refused LABEL" line per target.
SWEEP_TARGETS = os.environ.get("TOSAC_SWEEP_TARGETS", "")
SWEEP_LOG = os.environ.get("TOSAC_SWEEP_LOG", "")
DEFAULT_RANGE = {"f32": (-4.0, 4.0), "f16": (-4.0, 4.0), "bf16": (-4.0, 4.0), "f64": (-4.0, 4.0),
                 "i32": (-1000, 1000), "i16": (-1000, 1000), "i8": (-128, 127), "i64": (-1000, 1000),
                 "ui8": (0, 255), "ui16": (0, 65535),
                 "i1": (0, 1), "f8E4M3FN": (-4.0, 4.0), "f8E5M2": (-4.0, 4.0),
                 "f8E4M3FNUZ": (-4.0, 4.0), "f8E5M2FNUZ": (-4.0, 4.0)}
MAX_SHOWN = 5


def annotations(text):
    """({arg: (lo, hi)}, {result: extra abs tolerance}) from `// oracle:` comments."""
    ranges, errs = {}, {}
    for m in re.finditer(r"//\s*oracle:\s*arg\s+(\d+)\s+(\S+)\s+(\S+)", text):
        ranges[int(m.group(1))] = (float(m.group(2)), float(m.group(3)))
    for m in re.finditer(r"//\s*oracle:\s*result\s+(\d+)\s+err\s+(\S+)", text):
        errs[int(m.group(1))] = float(m.group(2))
    return ranges, errs


def make_inputs(args, ranges, seed):
    rng = np.random.default_rng(seed)
    out = []
    for k, t in enumerate(args):
        lo, hi = ranges.get(k, DEFAULT_RANGE[t.elem])
        if t.elem in ("f32", "f16", "f64"):
            a = rng.uniform(lo, hi, t.shape).astype(t.dtype)
        elif t.elem == "bf16":
            a = oracle.coerce_input(rng.uniform(lo, hi, t.shape).astype(np.float32), t, k)
        elif t.elem == "i1":
            a = rng.random(t.shape) < 0.5
        elif t.elem in oracle.F8:  # uniform values rounded to the nearest finite code (bits)
            codes = oracle.f8_decode(np.arange(256), t.elem)
            codes = np.where(np.isfinite(codes), codes, np.inf)
            v = rng.uniform(lo, hi, t.shape)
            a = np.abs(v[..., None] - codes).argmin(axis=-1).astype(np.uint8)
        else:
            a = rng.integers(int(lo), int(hi) + 1, t.shape).astype(t.dtype)
        out.append(np.asarray(a, dtype=t.dtype).reshape(t.shape))
    return out


def as_float(a, elem):
    """Values as float64 (bf16 arrays hold bits)."""
    if elem == "bf16":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


# --atol/--rtol widen every float tolerance, for results that accumulate many terms (a conv
# with a K of hundreds differs from the oracle by its summation order, not by an error).
EXTRA_ATOL = 0.0
EXTRA_RTOL = 0.0


def tolerance(ref, elem, extra):
    r = np.abs(ref)
    extra = extra + EXTRA_ATOL + EXTRA_RTOL * r
    if elem in ("f32", "f64"):
        return 1e-5 + 1e-5 * r + extra
    if elem == "f16":
        return 2 * np.spacing(r.astype(np.float16)).astype(np.float64) + extra
    # bf16: ulp = 2^(exponent - 7), at least the smallest normal's
    e = np.floor(np.log2(np.maximum(r, 2.0 ** -126)))
    return 2 * 2.0 ** (e - 7) + extra


def normalise(got, t):
    """A tosac-run output as the oracle's dtype for t (bf16 as bits)."""
    got = np.asarray(got)
    if t.elem == "bf16" and got.dtype.kind == "f":
        return oracle.coerce_input(got, t, 0)
    if t.elem == "bf16" and got.dtype.itemsize == 2:
        return got.view(np.uint16)
    return got.astype(t.dtype) if got.dtype != t.dtype else got


def compare(ref, got, t, extra):
    """List of mismatch lines (empty: match)."""
    if got.shape != ref.shape:
        return ["shape %s, expected %s" % (got.shape, ref.shape)]
    if t.elem in ("f32", "f64", "f16", "bf16"):
        r, g = as_float(ref, t.elem).ravel(), as_float(got, t.elem).ravel()
        tol = tolerance(r, t.elem, extra)
        both_nan = np.isnan(r) & np.isnan(g)
        inf = np.isinf(r) | np.isinf(g)
        with np.errstate(invalid="ignore"):
            ok = both_nan | np.where(inf, r == g, np.abs(g - r) <= tol)
        bad = np.flatnonzero(~ok)
        lines = ["%d of %d elements differ (max |d| %.3g)" % (bad.size, r.size,
                 float(np.nanmax(np.abs(g[bad] - r[bad])))) if bad.size else ""]
        for i in bad[:MAX_SHOWN]:
            idx = np.unravel_index(i, ref.shape)
            lines.append("  at %s: got %.9g, expected %.9g, |d| %.3g > tol %.3g"
                         % (list(map(int, idx)), g[i], r[i], abs(g[i] - r[i]), tol[i]))
        return lines if bad.size else []
    r, g = ref.ravel(), got.ravel()
    bad = np.flatnonzero(r != g)
    if not bad.size:
        return []
    lines = ["%d of %d elements differ (exact match required)" % (bad.size, r.size)]
    for i in bad[:MAX_SHOWN]:
        idx = np.unravel_index(i, ref.shape)
        lines.append("  at %s: got %s, expected %s" % (list(map(int, idx)), g[i], r[i]))
    return lines


def tool(name, override):
    if override:
        return override
    build = os.environ.get("TOSAC_BUILD", "build")
    return os.path.join(ROOT, build, "bin", name) if not os.path.isabs(build) else \
        os.path.join(build, "bin", name)


def run_cmd(cmd, timeout=900):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except OSError as e:
        return 127, "", "cannot run %s: %s" % (cmd[0], e)
    except subprocess.TimeoutExpired:
        return 124, "", "timed out after %d s" % timeout
    if p.returncode < 0:  # killed by a signal: say which, a crash is not an exit status
        import signal
        sig = signal.Signals(-p.returncode).name if -p.returncode in signal.valid_signals() else "?"
        return p.returncode, p.stdout, p.stderr + "\n(killed by signal %d, %s)" % (-p.returncode, sig)
    return p.returncode, p.stdout, p.stderr


def sweep_record(target, ok, label):
    if SWEEP_LOG:
        with open(SWEEP_LOG, "a") as f:
            verdict = "refused" if ok is None else "ok" if ok else "fail"
            f.write("%s %s %s\n" % (target.split(":")[0], verdict, label))


def with_targets(cmd, targets):
    return [("--offload-arch=" + ",".join(targets)) if a.startswith("--offload-arch=") else a for a in cmd]


def sweep_targets(o, cmd, label, log):
    """The sweep's targets for a graph the whole list does not compile for: the test's own targets
    (which must compile) and every added target that compiles it alone. An added target that
    refuses the graph (an fp8 type without an fp8 instruction, say) is recorded as refused."""
    keep = [t for t in o.targets.split(",") if t not in o.sweep_extra]
    for t in o.sweep_extra:
        rc, _, err = run_cmd(with_targets(cmd, [t]))
        if rc == 0:
            keep.append(t)
        else:
            first = next((line for line in err.splitlines() if "error:" in line), err.strip()[:200])
            log("sweep: %s refuses %s: %s" % (t, label, first.split("error:", 1)[-1].strip()))
            sweep_record(t, None, label)
    return keep


def check(text, label, o, log):
    """Run one graph through everything; True if all targets match."""
    ranges, errs = annotations(text)
    custom = oracle.custom_form(text)  # tosac reads `text` as written, the oracle this print of it
    name, args, results = oracle.signature(custom, o.entry)
    inputs = make_inputs(args, ranges, o.seed)
    for k, spec in enumerate(o.input or []):  # given inputs replace the generated ones
        inputs[k] = oracle.coerce_input(np.load(spec.lstrip("@")), args[k], k)
    oracle_text = custom
    if o.oracle_via_tosac:  # older syntax: the oracle runs tosac's canonical TOSA 1.0 print
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
            f.write(text)
        rc, out, err = run_cmd([tool("tosac", o.tosac), f.name, "--emit=tosa", "-O0"])
        os.unlink(f.name)
        if rc != 0:
            log("FAIL %s: tosac --emit=tosa exited %d: %s" % (label, rc, err.strip()[-2000:]))
            return False
        oracle_text = out
    try:
        refs = oracle.run_text(oracle_text, inputs, o.entry)
    except oracle.OracleError as e:
        log("FAIL %s: oracle: %s" % (label, e))
        return False
    if o.corrupt:  # prove the comparison can fail: change one element of the first result
        refs[0] = refs[0].copy()
        flat = refs[0].reshape(-1)
        if flat.dtype == bool:
            flat[0] = not flat[0]
        elif results[0].elem == "bf16":
            flat[0] ^= 0x4000
        else:
            flat[0] = flat[0] * 2 + 3 if flat.dtype.kind == "f" else flat[0] ^ 0x40
    expected_files = o.expected or []
    if expected_files:  # compare the oracle with given arrays instead of running tosac
        n = len(expected_files)  # the first n results
        return report(label, "oracle", refs[:n], [np.load(p.lstrip("@")) for p in expected_files],
                      results[:n], errs, log)
    tmp = tempfile.mkdtemp(prefix="tosac-oracle-")
    try:
        gpath = os.path.join(tmp, "graph.mlir")
        with open(gpath, "w") as f:
            f.write(text)
        ins = []
        for k, a in enumerate(inputs):
            p = os.path.join(tmp, "in%d.npy" % k)
            np.save(p, a, allow_pickle=False)
            ins.append("--input=@" + p)
        bundle = os.path.join(tmp, "x.hipfb")
        # Machine code needs no embedded IR: leaving it out proves the code object alone runs.
        embed = ["--embed-ir"] if o.exec_mode == "ir" else []
        cmd = [tool("tosac", o.tosac), gpath] + embed + ["--offload-arch=" + o.targets, "-o", bundle] + \
            (o.tosac_arg or [])
        rc, out, err = run_cmd(cmd)
        targets = o.targets.split(",")
        if rc != 0 and o.sweep_extra:
            targets = sweep_targets(o, cmd, label, log)
            rc, out, err = run_cmd(with_targets(cmd, targets))
        if rc != 0:
            log("FAIL %s: tosac exited %d: %s\n  %s" % (label, rc, " ".join(cmd), err.strip()[-3000:]))
            for t in targets:
                sweep_record(t, False, label)
            return False
        ok = True
        for t in targets:
            outs = [os.path.join(tmp, "%s-out%d.npy" % (t.replace(":", "_"), k)) for k in range(len(results))]
            cmd = [tool("tosac-run", o.tosac_run), bundle, "--target=" + t, "--exec=" + o.exec_mode] + ins + \
                ["--output=@" + p for p in outs]
            if o.entry:  # a module of several functions is compiled whole; run this one
                cmd.append("--entry=" + o.entry)
            rc, out, err = run_cmd(cmd)
            if rc != 0:
                log("FAIL %s [%s]: tosac-run exited %d\n  %s\n  %s" % (label, t, rc, " ".join(cmd),
                                                                      err.strip()[-3000:]))
                sweep_record(t, False, label)
                ok = False
                continue
            try:
                gots = [np.load(p) for p in outs]
            except OSError as e:
                log("FAIL %s [%s]: cannot read an output: %s" % (label, t, e))
                sweep_record(t, False, label)
                ok = False
                continue
            # an added target's verdict is marked, so a test that counts its own "ok" lines still can
            tlog = (lambda s: log("sweep: " + s)) if t in o.sweep_extra else log
            matched = report(label, t, refs, gots, results, errs, tlog)
            sweep_record(t, matched, label)
            ok &= matched
        return ok
    finally:
        if o.keep:
            log("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def report(label, target, refs, gots, results, errs, log):
    ok = True
    if len(gots) != len(refs):
        log("FAIL %s [%s]: %d results, expected %d" % (label, target, len(gots), len(refs)))
        return False
    for k, (ref, got, t) in enumerate(zip(refs, gots, results)):
        lines = compare(ref, normalise(got, t), t, errs.get(k, 0.0))
        if lines:
            ok = False
            log("MISMATCH %s [%s] result %d (%s):" % (label, target, k, t))
            for line in lines:
                log("  " + line)
    if ok:
        log("ok %s [%s]: %d results match" % (label, target, len(refs)))
    return ok


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="tosac + tosac-run against the MLIR CPU oracle.")
    ap.add_argument("graphs", nargs="*", help="graph files")
    ap.add_argument("--gen", action="append", default=[],
                    help="comma-separated gen_graph seeds, merged into one graph (repeatable)")
    ap.add_argument("--seed", type=int, default=1, help="input seed")
    ap.add_argument("--targets", default=DEFAULT_TARGETS)
    ap.add_argument("--entry", default=None,
                    help="the function to check (tosac compiles every public one; tosac-run --entry)")
    ap.add_argument("--tosac-arg", action="append",
                    help="extra tosac option, repeatable (e.g. --tosac-arg=--specialize=x:0=1,4)")
    ap.add_argument("--tosac", default=None)
    ap.add_argument("--tosac-run", default=None)
    ap.add_argument("--exec", dest="exec_mode", choices=["ir", "isa"], default=os.environ.get("TOSAC_EXEC") or "isa",
                    help="tosac-run --exec: run the machine code (default; env TOSAC_EXEC) or the embedded IR")
    ap.add_argument("--input", action="append", help="@x.npy: use this array for the next argument")
    ap.add_argument("--expected", action="append", help="@ref.npy per result: check the oracle only")
    ap.add_argument("--oracle-via-tosac", action="store_true",
                    help="run the oracle on `tosac --emit=tosa` of the graph (older syntax)")
    ap.add_argument("--atol", type=float, default=0.0, help="added absolute float tolerance")
    ap.add_argument("--rtol", type=float, default=0.0, help="added relative float tolerance")
    ap.add_argument("--corrupt", action="store_true", help="perturb one reference element (self-test)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    o = ap.parse_args(argv)
    global EXTRA_ATOL, EXTRA_RTOL
    EXTRA_ATOL, EXTRA_RTOL = o.atol, o.rtol
    if not o.graphs and not o.gen:
        ap.error("give graph files or --gen=SEEDS")
    global SWEEP_LOG
    if o.corrupt:  # a self-test that must fail is no verdict on the emulator
        SWEEP_LOG = ""
    o.sweep_extra = []
    if SWEEP_TARGETS and not o.corrupt:
        own = o.targets.split(",")
        o.sweep_extra = [t for t in SWEEP_TARGETS.split(",") if t not in own]
        o.targets = ",".join(own + o.sweep_extra)

    def log(s):
        print(s, flush=True)

    jobs = []
    for g in o.graphs:
        with open(g) as f:
            jobs.append((g, f.read()))
    for s in o.gen:
        seeds = [int(x) for x in s.split(",") if x]
        text = gen_graph.generate_text(seeds)
        bad = gen_graph.verify(text)
        if bad:
            log("FAIL gen %s: mlir-opt-22 rejects the generated graph:\n%s" % (s, bad))
            return 1
        jobs.append(("gen:" + s, text))
    fails = [label for label, text in jobs if not check(text, label, o, log)]
    if fails:
        log("FAILED: %s" % ", ".join(fails))
        return 1
    log("PASSED: %d graph(s)" % len(jobs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
