#!/usr/bin/python3
"""oracle.py: run a TOSA 1.0 graph on the CPU with upstream MLIR (mlir-opt-22 + mlir-runner-22).

The graph function keeps its name; an argument-free entry function is appended that builds each
input as a constant, calls the graph and prints every result as raw bits (so the comparison with
tosac is exact, not limited to the 6 digits printMemrefF32 shows). The printed text is parsed back
into numpy arrays of the result element type.

Element types as numpy arrays (the same convention check.py and the .npy files use):
  f32 float32, f16 float16, f64 float64, i1 bool, i8 int8, i16 int16, i32 int32, i48 and i64 int64,
  ui8 uint8, ui16 uint16,
  bf16 uint16 holding the raw bfloat16 bits (numpy has no bfloat16).

Library:  results = oracle.run_file("g.mlir", [a, b])      CLI:  oracle.py g.mlir --input=@a.npy --output=@r.npy
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

LLVM_LIB = "/usr/lib/llvm-22/lib"
MLIR_OPT = os.environ.get("TOSAC_MLIR_OPT", "mlir-opt-22")
MLIR_RUNNER = os.environ.get("TOSAC_MLIR_RUNNER", "mlir-runner-22")

# TOOLCHAIN.md §6, plus convert-elementwise-to-linalg (so arith.bitcast on whole tensors
# bufferizes, for the bit-exact printing) and convert-bufferization-to-memref (a graph that returns
# one of its arguments leaves a bufferization.clone behind that mlir-runner cannot parse).
PIPELINE = ("builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,"
            "tosa-to-arith{include-apply-rescale=true},tosa-to-tensor,convert-elementwise-to-linalg),"
            "one-shot-bufferize{bufferize-function-boundaries},buffer-deallocation-pipeline,"
            "convert-bufferization-to-memref,convert-linalg-to-loops,convert-scf-to-cf,"
            "math-extend-to-supported-types,convert-math-to-llvm,convert-math-to-libm,"
            "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-to-llvm,"
            "reconcile-unrealized-casts)")

DTYPES = {
    "f32": np.dtype("<f4"), "f16": np.dtype("<f2"), "f64": np.dtype("<f8"),
    "bf16": np.dtype("<u2"), "i1": np.dtype("bool"), "i8": np.dtype("i1"),
    "i16": np.dtype("<i2"), "i32": np.dtype("<i4"), "i64": np.dtype("<i8"),
    "i48": np.dtype("<i8"),  # sign-extended into 64 bits
    "ui8": np.dtype("u1"), "ui16": np.dtype("<u2"),
    # 8-bit floats travel as raw bits (as tosac-run's .npy files do)
    "f8E4M3FN": np.dtype("u1"), "f8E5M2": np.dtype("u1"),
    "f8E4M3FNUZ": np.dtype("u1"), "f8E5M2FNUZ": np.dtype("u1"),
}

# (exponent bits, mantissa bits, kind) of the 8-bit floats: OCP "fn" (E4M3: no Inf, S.1111.111
# NaN), OCP "ieee" (E5M2: Inf and NaN at exponent 31), AMD "fnuz" (bias 2^(e-1), 0x80 the only NaN).
F8 = {"f8E4M3FN": (4, 3, "fn"), "f8E5M2": (5, 2, "ieee"),
      "f8E4M3FNUZ": (4, 3, "fnuz"), "f8E5M2FNUZ": (5, 2, "fnuz")}


class OracleError(Exception):
    """The graph could not be run (bad signature, bad input, MLIR failure)."""


class TensorType:
    """A static tensor type: element type name and shape."""

    def __init__(self, elem, shape):
        self.elem = elem
        self.shape = tuple(shape)

    @staticmethod
    def parse(s):
        m = re.fullmatch(r"\s*tensor<\s*([^,>]*?)\s*(?:,[^>]*)?>\s*", s)
        if not m:
            raise OracleError("not a tensor type: %r" % s)
        parts = m.group(1).split("x")
        elem = parts[-1]
        if elem not in DTYPES:
            raise OracleError("element type %s is not supported by the oracle" % elem)
        dims = []
        for d in parts[:-1]:
            if not d.isdigit():
                raise OracleError("dynamic or malformed dimension in %s" % s.strip())
            dims.append(int(d))
        return TensorType(elem, dims)

    def with_elem(self, elem):
        return TensorType(elem, self.shape)

    def __str__(self):
        return "tensor<" + "".join("%dx" % d for d in self.shape) + self.elem + ">"

    @property
    def dtype(self):
        return DTYPES[self.elem]

    @property
    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n


def _strip_comments(text):
    return re.sub(r"//[^\n]*", "", text)


def _balanced(text, start, open_ch="(", close_ch=")"):
    """Index just past the bracket that closes the one at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
    raise OracleError("unbalanced %s in the graph" % open_ch)


def _split_top(s):
    """Split on commas not nested in <>, (), [], {}."""
    out, depth, cur = [], 0, []
    for c in s:
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


SOFTMAX_DECOMPOSITION = """
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose_interface %s : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
"""


def _reprint(text, timeout):
    opt = subprocess.run([MLIR_OPT, "-"], input=text, capture_output=True, text=True, timeout=timeout)
    if opt.returncode != 0:
        raise OracleError("mlir-opt-22 cannot read the graph:\n" + opt.stderr[-4000:])
    return opt.stdout


def custom_form(text, timeout=600):
    """The text as the wrapping below needs it, printed again by mlir-opt-22 when it is not: a
    module in MLIR's generic op form ("builtin.module"() ({...}), "func.func"() <{...}>) in the
    custom form (functions are found by their custom syntax), and linalg.softmax decomposed into
    linalg.generic ops by upstream's own decomposition (the TOSA pipeline has no pass that lowers
    it)."""
    generic = re.search(r'"(builtin\.module|func\.func)"', text)
    softmax = "linalg.softmax" in text
    if not generic and not softmax:
        return text
    args = [MLIR_OPT, "-"]
    if softmax:
        if generic:
            text = _reprint(text, timeout)
        res = text.find("{-#")  # a resource section stays after the module
        tail = text[res:] if res >= 0 else ""
        body = text[:res] if res >= 0 else text
        alias = re.compile(r"^[#!][\w$.-]+\s*=.*$", re.M)  # aliases stay at the top level
        aliases = "\n".join(alias.findall(body))
        body = alias.sub("", body)
        m = re.search(r"^module\b[^{]*\{", body, re.M)
        if m:  # the schedule goes inside the one module
            body = body[m.end():body.rindex("}")]
        text = aliases + "\nmodule attributes {transform.with_named_sequence} {\n" + body + SOFTMAX_DECOMPOSITION + \
            "}\n" + tail
        args += ["--transform-interpreter", "--test-transform-dialect-erase-schedule"]
    opt = subprocess.run(args, input=text, capture_output=True, text=True, timeout=timeout)
    if opt.returncode != 0:
        raise OracleError("mlir-opt-22 cannot read the graph:\n" + opt.stderr[-4000:])
    return opt.stdout.replace("module attributes {transform.with_named_sequence} {", "module {")


def functions(text):
    """{name: is_private} for every func.func in the text."""
    return {m.group(2): (m.group(1) or "").strip() == "private"
            for m in re.finditer(r"func\.func\s+(private\s+|public\s+)?@([\w$.]+)\s*\(", text)}


def signature(text, entry=None):
    """(name, [arg TensorType], [result TensorType]) of the graph function."""
    code = _strip_comments(text)
    funcs = functions(code)
    if entry is None:
        if "main" in funcs:
            entry = "main"
        else:
            public = [n for n, priv in funcs.items() if not priv]
            if len(public) != 1:
                raise OracleError("cannot tell which function is the graph (%s); pass entry="
                                  % ", ".join(sorted(funcs)) if funcs else "no func.func in the graph")
            entry = public[0]
    m = re.search(r"func\.func\s+(?:private\s+|public\s+)?@" + re.escape(entry) + r"\s*\(", code)
    if not m:
        raise OracleError("no function @%s in the graph" % entry)
    end = _balanced(code, m.end() - 1)
    args = []
    for a in _split_top(code[m.end():end - 1]):
        t = re.search(r"tensor<[^>]*>", a)
        if not t:
            raise OracleError("argument %r of @%s is not a tensor" % (a.strip(), entry))
        args.append(TensorType.parse(t.group(0)))
    results = []
    rm = re.match(r"\s*->\s*", code[end:])
    if rm:
        p = end + rm.end()
        if code[p] == "(":
            q = _balanced(code, p)
            for r in _split_top(code[p + 1:q - 1]):
                t = re.search(r"tensor<[^>]*>", r)
                if not t:
                    raise OracleError("result %r of @%s is not a tensor" % (r.strip(), entry))
                results.append(TensorType.parse(t.group(0)))
        else:
            t = re.match(r"tensor<[^>]*>", code[p:])
            if not t:
                raise OracleError("result of @%s is not a tensor" % entry)
            results.append(TensorType.parse(t.group(0)))
    return entry, args, results


def _nested_bools(a):
    if a.ndim == 0:
        return "true" if a else "false"
    return "[" + ", ".join(_nested_bools(x) for x in a) + "]"


def dense_literal(arr, t):
    """The dense<...> attribute text holding arr as a value of type t."""
    if t.elem == "i1":
        # hex dense data for i1 is bit-packed; a nested literal list is unambiguous.
        a = np.asarray(arr, dtype=bool).reshape(t.shape)
        if a.size == 0:
            return "dense<> : %s" % t
        if a.ndim == 0:
            return "dense<%s> : %s" % (_nested_bools(a), t)
        return "dense<%s> : %s" % (_nested_bools(a), t)
    raw = np.ascontiguousarray(arr, dtype=t.dtype).tobytes()
    return 'dense<"0x%s"> : %s' % (raw.hex().upper(), t)


def coerce_input(arr, t, index):
    """Check an input against its argument type; bf16 may come as uint16 bits or as floats."""
    a = np.asarray(arr)
    if a.shape != t.shape:
        raise OracleError("input %d has shape %s; the graph expects %s" % (index, a.shape, t))
    if t.elem == "bf16" and a.dtype.kind == "f":
        bits = a.astype(np.float32).view(np.uint32)
        # round to nearest even, as a producer converting f32 to bf16 would
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return bits.astype(np.uint16)
    if a.dtype != t.dtype:
        ok = (a.dtype.kind == t.dtype.kind and a.dtype.itemsize == t.dtype.itemsize) or \
             (t.elem == "bf16" and a.dtype.kind in "uiV" and a.dtype.itemsize == 2)
        if not ok:
            raise OracleError("input %d has dtype %s; the graph expects %s (%s)"
                              % (index, a.dtype, t, t.dtype))
        a = a.view(t.dtype) if a.dtype.kind == "V" else a.astype(t.dtype)
    return a


def f8_decode(bits, elem):
    """float64 values of 8-bit float bit patterns."""
    eb, mb, kind = F8[elem]
    b = np.asarray(bits, dtype=np.uint8).astype(np.int64)
    bias = (1 << (eb - 1)) - (0 if kind == "fnuz" else 1)
    e, m = (b >> mb) & ((1 << eb) - 1), b & ((1 << mb) - 1)
    mag = np.where(e == 0, np.ldexp(m.astype(np.float64), 1 - bias - mb),
                   np.ldexp((m | (1 << mb)).astype(np.float64), e - bias - mb))
    v = np.where(b & 0x80, -mag, mag)
    if kind == "fnuz":
        v = np.where(b == 0x80, np.nan, v)
    elif kind == "fn":  # OCP NaNs keep their sign (a cast to another format writes it back)
        v = np.where((b & 0x7F) == 0x7F, np.copysign(np.nan, v), v)
    else:
        v = np.where(e == (1 << eb) - 1, np.where(m == 0, np.copysign(np.inf, v), np.copysign(np.nan, v)), v)
    return v


def f8_encode(values, elem):
    """8-bit float codes of float values that lie on elem's grid (as a cast to elem leaves them):
    NaN becomes FNUZ's 0x80 or OCP's S.1111.111 (sign kept), -0 is kept in OCP."""
    eb, mb, kind = F8[elem]
    v = np.asarray(values, dtype=np.float64).ravel()
    table = {}
    for c in range(256):
        d = float(f8_decode(c, elem))
        if not np.isnan(d):
            table[(d, bool(np.signbit(d)))] = c
    out = np.zeros(v.size, np.uint8)
    for i, x in enumerate(v):
        if np.isnan(x):
            out[i] = 0x80 if kind == "fnuz" else (0x80 if np.signbit(x) else 0) | 0x7F
        elif kind == "fnuz" and x == 0:
            out[i] = 0
        elif (x, bool(np.signbit(x))) in table:
            out[i] = table[(x, bool(np.signbit(x)))]
        else:
            raise OracleError("%r is not a %s value" % (x, elem))
    return out.reshape(np.shape(values))


def _f8_limits(elem):
    """(mantissa bits, smallest normal exponent, largest finite value, overflow value) of elem."""
    eb, mb, kind = F8[elem]
    bias = (1 << (eb - 1)) - (0 if kind == "fnuz" else 1)
    emax = (1 << eb) - 1 - bias - (1 if kind == "ieee" else 0)
    top = ((1 << (mb + 1)) - 1 - (1 if kind == "fn" else 0)) * 2.0 ** (emax - mb)
    return mb, 1 - bias, emax, top, "0x7F800000" if kind == "ieee" else "0x7FC00000"


def _cast_to_f8(name, src, st, elem, ind):
    """MLIR lines computing `name` (a tensor of f16 holding the f8 values exactly) from `src` of
    type st (f8 already widened to f16): TOSA's CAST to an 8-bit float. The source as f32, then
    rounded to nearest even onto elem's grid by adding and subtracting 2^(q + 23) in f32 (q the
    grid's exponent at the value, from its f32 exponent: a correctly rounded f32 addition does
    the rounding); past the largest finite value Inf (E5M2) or NaN (the others), NaN stays NaN,
    the sign is kept (FNUZ: not on 0 and NaN)."""
    mb, emin, emax, top, over = _f8_limits(elem)
    fnuz = F8[elem][2] == "fnuz"
    f32, i32, i1 = st.with_elem("f32"), st.with_elem("i32"), st.with_elem("i1")
    n = re.sub(r"\W", "_", name.lstrip("%"))
    k = [0]
    lines = []

    def v(op, ty=None):
        k[0] += 1
        t = "%%f8c_%s_%d" % (n, k[0])
        lines.append("%s%s = %s" % (ind, t, op if ty is None else op % ty))
        return t

    def ci(x):
        return v("arith.constant dense<%d> : %s" % (x, i32))

    def cf(x):
        return v("arith.constant dense<%s> : %s" % (x, f32))

    x = src if st.elem == "f32" else v("tosa.cast %s : (%s) -> %s" % (src, st, f32))
    u = v("arith.bitcast %s : %s to %s" % (x, f32, i32))
    a = v("arith.andi %s, %s : %s" % (u, ci(0x7FFFFFFF), i32))
    sign = v("arith.andi %s, %s : %s" % (u, ci(-0x80000000), i32))
    e = v("arith.shrui %s, %s : %s" % (a, ci(23), i32))
    e = v("arith.maxui %s, %s : %s" % (e, ci(127 + emin), i32))
    e = v("arith.minui %s, %s : %s" % (e, ci(127 + emax + 1), i32))
    cb = v("arith.shli %s, %s : %s" % (v("arith.addi %s, %s : %s" % (e, ci(23 - mb), i32)), ci(23), i32))
    c = v("arith.bitcast %s : %s to %s" % (cb, i32, f32))
    af = v("arith.bitcast %s : %s to %s" % (a, i32, f32))
    am = v("arith.minimumf %s, %s : %s" % (af, cf(repr(2.0 ** (emax + 2))), f32))
    r = v("arith.subf %s, %s : %s" % (v("arith.addf %s, %s : %s" % (am, c, f32)), c, f32))
    ovf = v("arith.cmpf ogt, %s, %s : %s" % (r, cf(repr(top)), f32))
    r = v("arith.select %s, %s, %s : %s, %s" % (ovf, cf(over), r, i1, f32))
    isnan = v("arith.cmpf uno, %s, %s : %s" % (af, af, f32))
    r = v("arith.select %s, %s, %s : %s, %s" % (isnan, cf("0x7FC00000"), r, i1, f32))
    if fnuz:  # no -0, one unsigned NaN
        nz = v("arith.cmpf one, %s, %s : %s" % (r, cf("0.0"), f32))
        sign = v("arith.select %s, %s, %s : %s, %s" % (nz, sign, ci(0), i1, i32))
    rb = v("arith.ori %s, %s : %s" % (v("arith.bitcast %s : %s to %s" % (r, f32, i32)), sign, i32))
    rf = v("arith.bitcast %s : %s to %s" % (rb, i32, f32))
    lines.append("%s%s = tosa.cast %s : (%s) -> %s" % (ind, name, rf, f32, st.with_elem("f16")))
    return lines


_CAST = re.compile(r"^(\s*)(%[\w.$-]+) = tosa\.cast (%[\w.$#-]+) : \((tensor<[^>]*>)\) -> (tensor<[^>]*>)\s*$")


def _rewrite_f8_casts(text):
    """The text with each tosa.cast to or from an 8-bit float replaced by ops on f16 and f32
    tensors (8-bit float types still present elsewhere: widen_f8 replaces them by f16)."""
    out = []
    for line in text.split("\n"):
        m = _CAST.match(line)
        if not m:
            out.append(line)
            continue
        ind, name, src, st, dt = m.group(1), m.group(2), m.group(3), TensorType.parse(m.group(4)), \
            TensorType.parse(m.group(5))
        if st.elem not in F8 and dt.elem not in F8:
            out.append(line)
            continue
        if any(not isinstance(d, int) or d < 0 for d in st.shape):
            raise OracleError("a cast to or from an 8-bit float needs a static shape: %s" % line.strip())
        wide = st.with_elem("f16") if st.elem in F8 else st
        if dt.elem in F8:
            out += _cast_to_f8(name, src, wide, dt.elem, ind)
        elif st.elem in F8 and dt.elem == "f16":  # exact
            out.append("%s%s = tosa.identity %s : (%s) -> %s" % (ind, name, src, wide, dt))
        elif st.elem in F8 and dt.elem != "f32":  # through f32, where every f8 value is exact
            f32 = wide.with_elem("f32")
            w = "%f8w_" + re.sub(r"\W", "_", name.lstrip("%"))
            out.append("%s%s = tosa.cast %s : (%s) -> %s" % (ind, w, src, wide, f32))
            out.append("%s%s = tosa.cast %s : (%s) -> %s" % (ind, name, w, f32, dt))
        else:
            out.append("%s%s = tosa.cast %s : (%s) -> %s" % (ind, name, src, wide, dt))
    return "\n".join(out)


def f8_round(values, elem):
    """Codes of float values rounded as MLIR reads a decimal literal of an 8-bit float type, which
    is TOSA's CAST (docs/ops.md, "8-bit floats"): to the nearest code, ties to the even one, where
    one unit past the largest finite value stands for overflow: E5M2's infinity, E4M3FN's NaN
    S.1111.111, FNUZ's NaN 0x80; NaN to NaN; -0 stays -0 in OCP."""
    kind = F8[elem][2]
    grid = f8_decode(np.arange(128), elem)
    codes = [c for c in range(128) if np.isfinite(grid[c])]
    top = max(codes, key=lambda c: grid[c])
    over = grid[top] + (grid[top] - grid[top - 1])
    out = []
    for x in np.asarray(values, dtype=np.float64).ravel():
        neg = bool(np.signbit(x))
        if np.isnan(x):
            out.append(0x80 if kind == "fnuz" else 0x7F | (0x80 if neg else 0))
            continue
        a = abs(x)
        cand = [(abs(grid[c] - a), c & 1, c) for c in codes] + [(abs(over - a), (top + 1) & 1, -1)]
        c = min(cand)[2] if np.isfinite(a) else -1
        if c < 0:
            out.append(0x80 if kind == "fnuz" else (0x7C if kind == "ieee" else 0x7F) | (0x80 if neg else 0))
        else:
            out.append(c | (0x80 if neg and not (kind == "fnuz" and c == 0) else 0))
    return np.array(out, np.uint8)


_F8_DENSE = re.compile(r"dense<([^<>]*)>(\s*:\s*)tensor<([^<>]*?)(f8E(?:4M3FNUZ|4M3FN|5M2FNUZ|5M2))>")


def _f8_dense_as_f16(m):
    """A dense attribute of an 8-bit float type as the f16 one holding the same values exactly (a
    hex string of f16 bits: NaN stays NaN with its sign, -0 stays -0). The body is what MLIR
    prints or reads: a hex string of the codes ("0x3C40...", one byte per element, or one for a
    splat), or (nested lists of) decimal values, rounded onto the grid, and 0x.. bit patterns."""
    body, sep, dims, elem = m.group(1).strip(), m.group(2), m.group(3), m.group(4)
    n = int(np.prod([int(d) for d in dims.split("x") if d])) if dims else 1
    if body.startswith('"'):
        h = body.strip('"')
        if not h.lower().startswith("0x") or len(h) % 2 or not re.fullmatch(r"[0-9a-fA-F]*", h[2:]) \
                or (len(h) - 2) // 2 not in (1, n):
            raise OracleError("cannot read the %s constant dense<%s>" % (elem, body))
        codes = np.frombuffer(bytes.fromhex(h[2:]), np.uint8)
    else:
        codes = []
        for tok in re.findall(r"[^\s,\[\]()]+", body):
            if tok.lower().startswith("0x"):
                codes.append(int(tok, 16) & 0xFF)
            elif tok in ("true", "false"):
                raise OracleError("cannot read the %s constant dense<%s>" % (elem, body))
            else:
                codes.append(int(f8_round([float(tok)], elem)[0]))
        codes = np.array(codes, np.uint8)
        if codes.size not in (1, n):
            raise OracleError("the %s constant dense<%s> has %d values for %d elements" % (elem, body, codes.size, n))
    vals = f8_decode(codes, elem).astype(np.float16)  # NaN keeps its sign through astype
    return 'dense<"0x%s">%stensor<%sf16>' % (vals.astype("<f2").tobytes().hex().upper(), sep, dims)


def widen_f8(text, inputs, entry=None):
    """(text, inputs) with every 8-bit float type replaced by f16 and f8 inputs decoded.

    The oracle's CPU lowering has no 8-bit float conversions (arith.extf/truncf on f8 reach
    mlir-runner unlowered). f16 holds every value of the four f8 types exactly, so f8 arguments
    become f16 tensors of their values and ops that widen their operands first (matmul,
    convolutions) compute the same thing in f16. Each cast to an 8-bit float becomes upstream
    arith ops that round the source (as f32) onto the f8 grid (_cast_to_f8), the result held in
    f16; a cast from one reads the f16 values. f8 results are f16 here and encoded back to codes
    by run_text. f8 constants become f16 constants of the same values (_f8_dense_as_f16)."""
    code = _strip_comments(text)
    if not re.search(r"f8E(4M3FNUZ|4M3FN|5M2FNUZ|5M2)(?!\w)", code):
        return text, inputs
    _, args, results = signature(text, entry)
    if re.search(r"tosa\.cast\b[^\n]*f8E", code):
        text = _rewrite_f8_casts(_reprint(text, 600))
    text = _F8_DENSE.sub(_f8_dense_as_f16, text)
    widened = []
    for i, (a, t) in enumerate(zip(inputs, args)):
        if t.elem in F8:
            a = f8_decode(coerce_input(a, t, i), t.elem).astype(np.float16)
        widened.append(a)
    return re.sub(r"f8E(4M3FNUZ|4M3FN|5M2FNUZ|5M2)(?!\w)", "f16", text), widened


def _print_plan(t):
    """(ops to turn result %r of type t into an integer tensor, printer, int type)."""
    i32, i64 = t.with_elem("i32"), t.with_elem("i64")
    if t.elem == "f32":
        return [("bitcast", t, i32)], "printMemrefI32"
    if t.elem in ("f16", "bf16"):
        f32 = t.with_elem("f32")
        return [("cast", t, f32), ("bitcast", f32, i32)], "printMemrefI32"
    if t.elem == "f64":
        return [("bitcast", t, i64)], "printMemrefI64"
    if t.elem in ("i1", "i8", "i16"):
        return [("cast", t, i32)], "printMemrefI32"
    if t.elem in ("ui8", "ui16"):  # an exact unsigned rescale to i32 (a ui8 tosa.cast does not bufferize)
        return [("unsigned", t, i32)], "printMemrefI32"
    if t.elem == "i32":
        return [], "printMemrefI32"
    if t.elem == "i48":
        return [("cast", t, i64)], "printMemrefI64"
    return [], "printMemrefI64"


def wrap(text, inputs, entry=None):
    """The graph text with an argument-free entry function appended; (text, entry name, results)."""
    name, args, results = signature(text, entry)
    if len(inputs) != len(args):
        raise OracleError("@%s takes %d inputs; %d given" % (name, len(args), len(inputs)))
    inputs = [coerce_input(a, t, i) for i, (a, t) in enumerate(zip(inputs, args))]
    entry_name = "tosac_oracle_entry"
    while "@" + entry_name in text:
        entry_name += "_"
    lines = []
    for p in ("printMemrefI32", "printMemrefI64"):
        if not re.search(r"func\.func\s+private\s+@" + p + r"\b", text):
            lines.append("func.func private @%s(tensor<*x%s>)" % (p, "i" + p[-2:]))
    lines.append("func.func @%s() {" % entry_name)
    for i, (a, t) in enumerate(zip(inputs, args)):
        lines.append('  %%in%d = "tosa.const"() <{values = %s}> : () -> %s' % (i, dense_literal(a, t), t))
    ins = ", ".join("%%in%d" % i for i in range(len(args)))
    fty = "(%s) -> (%s)" % (", ".join(map(str, args)), ", ".join(map(str, results)))
    if results:
        lines.append("  %%r:%d = func.call @%s(%s) : %s" % (len(results), name, ins, fty))
    else:
        lines.append("  func.call @%s(%s) : %s" % (name, ins, fty))
    prints = []
    for k, t in enumerate(results):
        ops, printer = _print_plan(t)
        cur = "%%r#%d" % k
        for j, (kind, src, dst) in enumerate(ops):
            nxt = "%%p%d_%d" % (k, j)
            if kind == "bitcast":
                lines.append("  %s = arith.bitcast %s : %s to %s" % (nxt, cur, src, dst))
            elif kind == "unsigned":  # x * 2^30 >> 30, rounded: x itself
                z = "tensor<1x%s>" % src.elem
                lines.append('  %s_m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>' % nxt)
                lines.append('  %s_s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>' % nxt)
                lines.append('  %s_z = "tosa.const"() <{values = dense<0> : %s}> : () -> %s' % (nxt, z, z))
                lines.append('  %s_o = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>' % nxt)
                lines.append("  %s = tosa.rescale %s, %s_m, %s_s, %s_z, %s_o {scale32 = true, rounding_mode = SINGLE_ROUND, "
                             "per_channel = false, input_unsigned = true, output_unsigned = false} : (%s, tensor<1xi32>, "
                             "tensor<1xi8>, %s, tensor<1xi32>) -> %s" % (nxt, cur, nxt, nxt, nxt, nxt, src, z, dst))
            else:
                lines.append("  %s = tosa.cast %s : (%s) -> %s" % (nxt, cur, src, dst))
            cur = nxt
        ity = "tensor<*x%s>" % ("i" + printer[-2:])
        dst = ops[-1][2] if ops else t
        lines.append("  %%u%d = tensor.cast %s : %s to %s" % (k, cur, dst, ity))
        prints.append("  func.call @%s(%%u%d) : (%s) -> ()" % (printer, k, ity))
    # every computation happens before the first print (TOOLCHAIN pitfall 11)
    lines += prints
    lines.append("  return")
    lines.append("}")
    extra = "\n".join(lines) + "\n"

    # Insert inside the module: before the resource section, and before an explicit module's '}'.
    res_at = text.find("{-#")
    body, tail = (text, "") if res_at < 0 else (text[:res_at], text[res_at:])
    if re.match(r"\s*(?:[#!][\w$.-]+\s*=.*\n\s*)*module\b", _strip_comments(body)):  # after aliases
        close = body.rstrip().rfind("}")
        body = body[:close] + extra + body[close:]
    else:
        body = body.rstrip() + "\n" + extra
    return body + tail, entry_name, results


def parse_printed(out, results):
    """Numpy arrays from the printMemref text, one per result type."""
    chunks = out.split("Unranked Memref")[1:]
    if len(chunks) != len(results):
        raise OracleError("expected %d printed results, got %d:\n%s" % (len(results), len(chunks), out[:2000]))
    arrays = []
    for k, (chunk, t) in enumerate(zip(chunks, results)):
        m = re.search(r"sizes = \[([^\]]*)\].*?data =", chunk, re.S)
        if not m:
            raise OracleError("result %d: cannot parse the printed memref" % k)
        sizes = tuple(int(x) for x in m.group(1).split(",") if x.strip())
        if sizes != t.shape and not (t.shape == () and sizes in ((), (1,))):
            raise OracleError("result %d: printed shape %s, expected %s" % (k, sizes, t))
        vals = [int(x) for x in re.findall(r"-?\d+", chunk[m.end():])]
        if len(vals) != t.numel:
            raise OracleError("result %d: %d values printed, expected %d" % (k, len(vals), t.numel))
        wide = np.array(vals, dtype=np.int64)
        if t.elem == "f32":
            a = wide.astype(np.uint32).view(np.float32) if wide.size else np.zeros(0, np.float32)
        elif t.elem == "f16":
            a = wide.astype(np.uint32).view(np.float32).astype(np.float16)
        elif t.elem == "bf16":
            a = (wide.astype(np.uint32) >> 16).astype(np.uint16)
        elif t.elem == "f64":
            a = wide.view(np.float64)
        elif t.elem == "i1":
            a = wide != 0
        else:
            a = wide.astype(t.dtype)
        arrays.append(a.reshape(t.shape))
    return arrays


def run_text(text, inputs, entry=None, keep=None, timeout=600):
    """Run the graph in `text` with the numpy `inputs`; a list of numpy results."""
    typed = signature(text, entry)[2]  # result types before widen_f8 (f8 results: codes)
    text, inputs = widen_f8(text, inputs, entry)
    wrapped, entry_name, results = wrap(text, inputs, entry)
    if keep:
        with open(keep, "w") as f:
            f.write(wrapped)
    libs = "%s/libmlir_runner_utils.so.22.1,%s/libmlir_c_runner_utils.so.22.1" % (LLVM_LIB, LLVM_LIB)
    opt = subprocess.run([MLIR_OPT, "-", "--pass-pipeline=" + PIPELINE], input=wrapped,
                         capture_output=True, text=True, timeout=timeout)
    if opt.returncode != 0:
        raise OracleError("mlir-opt-22 failed:\n" + opt.stderr[-4000:])
    # math-extend-to-supported-types leaves `#arith.fastmath<contract>` on llvm.fpext/fptrunc,
    # which mlir-runner cannot parse (the arith dialect is gone by then); it means nothing there.
    lowered = re.sub(r" \{fastmath = #arith\.fastmath<[a-z, ]*>\}", "", opt.stdout)
    run = subprocess.run([MLIR_RUNNER, "-e", entry_name, "-entry-point-result=void",
                          "-shared-libs=" + libs], input=lowered, capture_output=True,
                         text=True, timeout=timeout)
    if run.returncode != 0:
        raise OracleError("mlir-runner-22 failed (exit %d):\n%s" % (run.returncode, run.stderr[-4000:]))
    arrays = parse_printed(run.stdout, results)
    return [f8_encode(a, t.elem) if t.elem in F8 else a for a, t in zip(arrays, typed)]


def run_file(path, inputs, entry=None, keep=None):
    with open(path) as f:
        return run_text(f.read(), inputs, entry, keep)


def load_npy(path):
    return np.load(path, allow_pickle=False)


def save_npy(path, a):
    np.save(path, np.asarray(a), allow_pickle=False)


def _main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="Run a TOSA graph in the upstream MLIR CPU oracle.")
    ap.add_argument("graph")
    ap.add_argument("--input", action="append", default=[], help="@file.npy, one per argument")
    ap.add_argument("--output", action="append", default=[], help="@file.npy, one per result")
    ap.add_argument("--entry", default=None, help="graph function (default: @main or the only public one)")
    ap.add_argument("--keep", default=None, help="write the wrapped module here")
    ap.add_argument("--print", action="store_true", help="print the results")
    o = ap.parse_args(argv)
    try:
        ins = []
        for s in o.input:
            if not s.startswith("@"):
                raise OracleError("--input takes @file.npy, got %r" % s)
            ins.append(load_npy(s[1:]))
        res = run_file(o.graph, ins, o.entry, o.keep)
    except (OracleError, OSError, ValueError) as e:
        print("oracle: error: %s" % e, file=sys.stderr)
        return 1
    if len(o.output) > len(res):
        print("oracle: error: %d --output given, the graph has %d results" % (len(o.output), len(res)),
              file=sys.stderr)
        return 2
    for s, a in zip(o.output, res):
        if s:
            save_npy(s.lstrip("@"), a)
    if o.print or not o.output:
        for k, a in enumerate(res):
            print("result[%d]: %s %s" % (k, "x".join(map(str, a.shape)) or "scalar", a.dtype))
            print(np.array2string(a, threshold=64))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
