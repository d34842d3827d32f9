#!/usr/bin/env bats
# Data movement kernels (transpose, reshape, slice, pad, concat, tile, reverse, identity, gather,
# scatter, resize) on every default target: seeded random graphs against the MLIR oracle
# (tests/oracle/check.py; exact for integers and moves, check.py's float tolerances for resize),
# and scatter, which the oracle cannot lower, against numpy.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$BATS_TEST_DIRNAME/../.."
  export BUILD="${TOSAC_BUILD:-build}"
  case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
  export TOSAC="${TOSAC:-$BUILD/bin/tosac}" RUN="${TOSAC_RUN:-$BUILD/bin/tosac-run}"
  export TARGETS=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200
  export GEN="$BATS_FILE_TMPDIR/gen_data.py" SCATTER="$BATS_FILE_TMPDIR/scatter.py"
  cat >"$GEN" <<'PY'
#!/usr/bin/python3
"""Seeded random data movement graphs in TOSA 1.0 syntax: gen.py SEED OPS... > graph.mlir"""
import random
import sys

TYPES = ["i1", "i8", "i16", "i32", "f16", "bf16", "f32"]
DIMS = [1, 1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17]


def T(shape, et):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), et)


def prod(s):
    p = 1
    for d in s:
        p *= d
    return p


def shape(r, rank, limit=1500):
    while True:
        s = [r.choice(DIMS) for _ in range(rank)]
        if prod(s) <= limit:
            return s


class G:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.args, self.lines, self.results, self.notes, self.n = [], [], [], [], 0

    def arg(self, t, rng=None):
        self.args.append(t)
        if rng:
            self.notes.append("// oracle: arg %d %d %d" % (len(self.args) - 1, rng[0], rng[1]))
        return "%%a%d" % (len(self.args) - 1)

    def tmp(self):
        self.n += 1
        return "%%v%d" % self.n

    def shape_const(self, vals):
        v = self.tmp()
        self.lines.append("%s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} : () -> !tosa.shape<%d>"
                          % (v, ", ".join(map(str, vals)), len(vals), len(vals)))
        return v

    def result(self, v, t):
        self.results.append((v, t))

    def text(self):
        out = list(self.notes)
        out.append("func.func @main(%s) -> (%s) {" % (", ".join("%%a%d: %s" % (i, t) for i, t in enumerate(self.args)),
                                                     ", ".join(t for _, t in self.results)))
        out += ["  " + l for l in self.lines]
        out.append("  return %s : %s" % (", ".join(v for v, _ in self.results), ", ".join(t for _, t in self.results)))
        out.append("}")
        return "\n".join(out) + "\n"


def op_transpose(g, et, rank=None):
    r = g.r
    s = shape(r, rank or r.randint(1, 5))
    p = list(range(len(s)))
    r.shuffle(p)
    x = g.arg(T(s, et))
    o = [s[i] for i in p]
    v = g.tmp()
    g.lines.append("%s = tosa.transpose %s {perms = array<i32: %s>} : (%s) -> %s"
                   % (v, x, ", ".join(map(str, p)), T(s, et), T(o, et)))
    g.result(v, T(o, et))


def factor(n):
    f, d = [], 2
    while n > 1:
        while n % d == 0:
            f.append(d)
            n //= d
        d += 1
    return f


def op_reshape(g, et):
    r = g.r
    s = shape(r, r.randint(1, 4))
    rank = r.randint(1, 4)
    o = [1] * rank
    for f in factor(prod(s)):
        o[r.randrange(rank)] *= f
    x = g.arg(T(s, et))
    c = g.shape_const(o)
    v = g.tmp()
    g.lines.append("%s = tosa.reshape %s, %s : (%s, !tosa.shape<%d>) -> %s" % (v, x, c, T(s, et), rank, T(o, et)))
    g.result(v, T(o, et))


def op_slice(g, et):
    r = g.r
    s = shape(r, r.randint(1, 4))
    size = [r.randint(1, d) for d in s]
    start = [r.randint(0, d - z) for d, z in zip(s, size)]
    x = g.arg(T(s, et))
    a, b = g.shape_const(start), g.shape_const(size)
    v = g.tmp()
    n = len(s)
    g.lines.append("%s = tosa.slice %s, %s, %s : (%s, !tosa.shape<%d>, !tosa.shape<%d>) -> %s"
                   % (v, x, a, b, T(s, et), n, n, T(size, et)))
    g.result(v, T(size, et))


def scalar_lit(r, et):
    if et == "i1":
        return r.choice(["true", "false"])
    if et.startswith("i"):
        return str(r.randint(-100, 100))
    return repr(r.choice([-2.5, -1.0, 0.5, 3.25]))


def op_pad(g, et):
    r = g.r
    s = shape(r, r.randint(1, 4), 800)
    pads = [r.choice([0, 0, 1, 2, 3]) for _ in range(2 * len(s))]
    o = [d + pads[2 * i] + pads[2 * i + 1] for i, d in enumerate(s)]
    x = g.arg(T(s, et))
    c = g.shape_const(pads)
    pv = g.tmp()
    g.lines.append('%s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s'
                   % (pv, scalar_lit(r, et), T([1], et), T([1], et)))
    v = g.tmp()
    g.lines.append("%s = tosa.pad %s, %s, %s : (%s, !tosa.shape<%d>, %s) -> %s"
                   % (v, x, c, pv, T(s, et), 2 * len(s), T([1], et), T(o, et)))
    g.result(v, T(o, et))


def op_concat(g, et, axis=None):
    r = g.r
    rank = r.randint(1, 4)
    s = shape(r, rank, 400)
    ax = r.randrange(rank) if axis is None else axis % rank
    ins = []
    for _ in range(r.randint(2, 4)):
        t = list(s)
        t[ax] = r.choice(DIMS)
        ins.append(t)
    o = list(s)
    o[ax] = sum(t[ax] for t in ins)
    xs = [g.arg(T(t, et)) for t in ins]
    if r.random() < 0.3:  # the same value twice
        xs[-1], ins[-1] = xs[0], ins[0]
        o[ax] = sum(t[ax] for t in ins)
    v = g.tmp()
    g.lines.append("%s = tosa.concat %s {axis = %d : i32} : (%s) -> %s"
                   % (v, ", ".join(xs), ax, ", ".join(T(t, et) for t in ins), T(o, et)))
    g.result(v, T(o, et))


def op_tile(g, et):
    r = g.r
    s = shape(r, r.randint(1, 4), 300)
    m = [r.choice([1, 1, 2, 3]) for _ in s]
    o = [d * k for d, k in zip(s, m)]
    x = g.arg(T(s, et))
    c = g.shape_const(m)
    v = g.tmp()
    g.lines.append("%s = tosa.tile %s, %s : (%s, !tosa.shape<%d>) -> %s" % (v, x, c, T(s, et), len(s), T(o, et)))
    g.result(v, T(o, et))


def op_reverse(g, et):
    r = g.r
    s = shape(r, r.randint(1, 4))
    ax = r.randrange(len(s))
    x = g.arg(T(s, et))
    v = g.tmp()
    g.lines.append("%s = tosa.reverse %s {axis = %d : i32} : (%s) -> %s" % (v, x, ax, T(s, et), T(s, et)))
    g.result(v, T(s, et))


def op_identity(g, et):
    s = shape(g.r, g.r.randint(1, 4))
    x = g.arg(T(s, et))
    v = g.tmp()
    g.lines.append("%s = tosa.identity %s : (%s) -> %s" % (v, x, T(s, et), T(s, et)))
    g.result(v, T(s, et))


def op_gather(g, et):
    r = g.r
    n, k, c, w = r.choice([1, 2, 3]), r.choice([1, 2, 5, 9]), r.choice([1, 3, 4, 8, 16]), r.choice([1, 2, 4, 7])
    vals = g.arg(T([n, k, c], et))
    idx = g.arg(T([n, w], "i32"), (0, k - 1))
    v = g.tmp()
    g.lines.append("%s = tosa.gather %s, %s : (%s, %s) -> %s"
                   % (v, vals, idx, T([n, k, c], et), T([n, w], "i32"), T([n, w, c], et)))
    g.result(v, T([n, w, c], et))


def resize_axis(r, size, no_negative):
    while True:
        sn, sd = r.randint(1, 6), r.randint(1, 6)
        lo = 0 if no_negative else -sn + 1
        off = r.randint(lo, sn - 1)
        num = (size - 1) * sn - off
        if num < 0:
            continue
        out = num // sd + 1
        border = (out - 1) * sd - (size - 1) * sn + off
        return sn, sd, off, border, out


def op_resize(g, et, mode=None):
    r = g.r
    mode = mode or r.choice(["BILINEAR", "NEAREST_NEIGHBOR"])
    ot = et
    if et == "i8":
        ot = "i32" if mode == "BILINEAR" else "i8"
    n, h, w, c = r.choice([1, 2]), r.choice([1, 2, 3, 5, 8]), r.choice([1, 2, 3, 4, 7]), r.choice([1, 2, 3, 4, 8])
    # The oracle's integer bilinear lowering truncates (not floors) a negative x / scale_n and its
    # f16/bf16 one keeps a negative remainder (an extra rounding): no negative offsets there.
    ib = mode == "BILINEAR" and et != "f32"
    yn, yd, yo, yb, oh = resize_axis(r, h, ib)
    xn, xd, xo, xb, ow = resize_axis(r, w, ib)
    x = g.arg(T([n, h, w, c], et))
    sc, of, bo = g.shape_const([yn, yd, xn, xd]), g.shape_const([yo, xo]), g.shape_const([yb, xb])
    v = g.tmp()
    g.lines.append('%s = tosa.resize %s, %s, %s, %s {mode = %s} : (%s, !tosa.shape<4>, !tosa.shape<2>, '
                   '!tosa.shape<2>) -> %s' % (v, x, sc, of, bo, mode, T([n, h, w, c], et), T([n, oh, ow, c], ot)))
    g.result(v, T([n, oh, ow, c], ot))


OPS = {"transpose": op_transpose, "reshape": op_reshape, "slice": op_slice, "pad": op_pad,
       "concat": op_concat, "tile": op_tile, "reverse": op_reverse, "identity": op_identity,
       "gather": op_gather, "resize": op_resize}


def main(argv):
    """gen.py SEED SPEC...; SPEC = op[/param][:type] (param: transpose rank, concat axis, resize mode)."""
    seed = int(argv[0])
    g = G(seed)
    for spec in argv[1:]:
        name, _, et = spec.partition(":")
        name, _, param = name.partition("/")
        et = et or g.r.choice(TYPES)
        if name == "transpose" and param:
            op_transpose(g, et, int(param))
        elif name == "concat" and param:
            op_concat(g, et, int(param))
        elif name == "resize" and param:
            op_resize(g, et, param)
        else:
            OPS[name](g, et)
    sys.stdout.write(g.text())


if __name__ == "__main__":
    main(sys.argv[1:])
PY
  cat >"$SCATTER" <<'PY'
#!/usr/bin/python3
"""scatter.py SEED TARGETS TOSAC TOSAC_RUN WORKDIR: tosa.scatter on every target against numpy
(the MLIR oracle cannot lower tosa.scatter). Prints one line per case; exit 1 on any mismatch."""
import os
import subprocess
import sys

import numpy as np

TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "f32": np.float32, "f16": np.float16, "i1": np.bool_}


def main(seed, targets, tosac, run, work):
    rng = np.random.default_rng(seed)
    cases, args, lines, rets = [], [], [], []
    for c, et in enumerate(["f32", "i8", "f16", "i32", "i1", "i16", "f32"]):
        n, k, ch = int(rng.choice([1, 2, 3])), int(rng.choice([1, 3, 5, 9])), int(rng.choice([1, 3, 4, 8, 16]))
        w = int(rng.integers(1, k + 1))
        dt = TYPES[et]
        vin = (rng.random((n, k, ch)) < 0.5) if et == "i1" else rng.integers(-100, 100, (n, k, ch)).astype(dt)
        inp = (rng.random((n, w, ch)) < 0.5) if et == "i1" else rng.integers(-100, 100, (n, w, ch)).astype(dt)
        idx = np.stack([rng.permutation(k)[:w] for _ in range(n)]).astype(np.int32)  # unique per batch
        ref = vin.copy()
        for b in range(n):
            for j in range(w):
                ref[b, idx[b, j]] = inp[b, j]
        t = lambda s, e: "tensor<%s%s>" % ("".join("%dx" % d for d in s), e)
        base = len(args)
        args += [(vin, t((n, k, ch), et)), (idx, t((n, w), "i32")), (inp, t((n, w, ch), et))]
        lines.append("%%r%d = tosa.scatter %%a%d, %%a%d, %%a%d : (%s, %s, %s) -> %s" % (
            c, base, base + 1, base + 2, args[base][1], args[base + 1][1], args[base + 2][1], args[base][1]))
        rets.append(("%%r%d" % c, args[base][1]))
        cases.append(ref)
    text = "func.func @main(%s) -> (%s) {\n  %s\n  return %s : %s\n}\n" % (
        ", ".join("%%a%d: %s" % (i, a[1]) for i, a in enumerate(args)), ", ".join(r[1] for r in rets),
        "\n  ".join(lines), ", ".join(r[0] for r in rets), ", ".join(r[1] for r in rets))
    g = os.path.join(work, "scatter.mlir")
    open(g, "w").write(text)
    ins = []
    for i, (a, _) in enumerate(args):
        p = os.path.join(work, "s_in%d.npy" % i)
        np.save(p, a)
        ins.append("--input=@" + p)
    bundle = os.path.join(work, "scatter.hipfb")
    p = subprocess.run([tosac, g, "--embed-ir", "--offload-arch=" + targets, "-o", bundle], capture_output=True, text=True)
    if p.returncode:
        print("FAIL tosac: " + p.stderr)
        return 1
    bad = 0
    for tg in targets.split(","):
        outs = [os.path.join(work, "s_%s_out%d.npy" % (tg, i)) for i in range(len(cases))]
        p = subprocess.run([run, bundle, "--target=" + tg] + ins + ["--output=@" + o for o in outs],
                           capture_output=True, text=True)
        if p.returncode:
            print("FAIL tosac-run [%s]: %s" % (tg, p.stderr))
            bad += 1
            continue
        for i, (o, ref) in enumerate(zip(outs, cases)):
            got = np.load(o)
            if got.shape != ref.shape or not np.array_equal(got, ref):
                print("MISMATCH scatter %d [%s]: got %s expected %s" % (i, tg, got.ravel()[:8], ref.ravel()[:8]))
                bad += 1
        if not bad:
            print("ok scatter [%s]: %d results match" % (tg, len(cases)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]))
PY
}

# gen SEED SPEC... > file, then check.py on every default target.
check_graph() {
  local seed=$1 name=$2
  shift 2
  local g="$BATS_TEST_TMPDIR/$name.mlir"
  /usr/bin/python3 "$GEN" "$seed" "$@" >"$g"
  mlir-opt-22 "$g" >/dev/null
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$g" --seed="$seed" --targets="$TARGETS" \
    --tosac="$TOSAC" --tosac-run="$RUN"
  echo "$output"
  assert_success
  assert_line "PASSED: 1 graph(s)"
  refute_output --partial MISMATCH
}

@test "transpose of rank 1-5, reshape and identity match the oracle on every target" {
  check_graph 1 perm transpose/1 transpose/2 transpose/3 transpose/4 transpose/5 transpose/3:i1 \
    transpose/4:bf16 reshape reshape:i8 reshape:f16 identity identity:i1
}

@test "slice, pad, tile and reverse of every element type match the oracle" {
  check_graph 2 spt slice:i1 slice:i16 slice:f16 pad:i1 pad:i8 pad:i32 pad:f32 pad:bf16 pad:f16 \
    tile:i8 tile:bf16 tile:f32 reverse:i1 reverse:i16 reverse:f16 reverse:f32
}

@test "concat of 2-4 inputs on each axis matches the oracle" {
  check_graph 3 concat concat/0:f32 concat/1:i8 concat/2:f16 concat/3:i32 concat/0:i1 concat/1:bf16 \
    concat/2:i16 concat/3:i8
}

@test "gather of every element type matches the oracle" {
  check_graph 4 gather gather:i1 gather:i8 gather:i16 gather:i32 gather:f16 gather:bf16 gather:f32 gather:f32
}

@test "resize up and down, bilinear and nearest, f32 / i8 / f16 / bf16 matches the oracle" {
  check_graph 5 resize resize/BILINEAR:f32 resize/NEAREST_NEIGHBOR:f32 resize/BILINEAR:i8 \
    resize/NEAREST_NEIGHBOR:i8 resize/BILINEAR:f16 resize/NEAREST_NEIGHBOR:bf16 resize/BILINEAR:f32 \
    resize/BILINEAR:i8 resize/NEAREST_NEIGHBOR:f32 resize/BILINEAR:bf16
}

@test "scatter of every element type matches numpy on every target" {
  run /usr/bin/python3 "$SCATTER" 6 "$TARGETS" "$TOSAC" "$RUN" "$BATS_TEST_TMPDIR"
  echo "$output"
  assert_success
  assert_line "ok scatter [gfx1200]: 7 results match"
  refute_output --partial MISMATCH
}

@test "a wrong reference element is reported (the comparison can fail)" {
  local g="$BATS_TEST_TMPDIR/c.mlir"
  /usr/bin/python3 "$GEN" 7 transpose/3:f32 >"$g"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$g" --targets=gfx90a --corrupt \
    --tosac="$TOSAC" --tosac-run="$RUN"
  assert_failure
  assert_output --partial "MISMATCH"
  assert_output --partial "1 of"
}
