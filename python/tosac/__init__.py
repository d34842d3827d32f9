"""tosac for Python: compile TOSA graphs with libtosac, run them on tosac's emulator.

    import tosac
    r = tosac.compile("model.mlir", targets=["gfx90a", "gfx1100"])
    r.bundle, r.manifest, r.weights       # bytes, dict, bytes or None
    y, = tosac.run(r, "gfx90a", [x])      # numpy arrays in, numpy arrays out

compile() takes TOSA/MLIR text (str or bytes) or a path. A failed compile raises CompileError,
whose message is the diagnostics as tosac prints them ("file:line:col: error: ...") and whose
.diagnostics lists them (file, line, column, severity, message). Options are libtosac's
(docs/library.md): opt_level, code_object_version, init ("memset" or "kernel"), perf_config,
tuning_db (list), jobs, entry, embed_ir, compress, specialize (list of "ARG:DIM=V1,..."),
cache_dir. run() runs the bundle's launch graph through tosac-run (the CPU emulator,
docs/tosac-run.md; the machine code, or with exec="ir" the kernel IR, which needs embed_ir=True)
and returns the results as numpy arrays.

The module is ctypes over libtosac.so (no compiled extension); docs/python.md.
"""

import ctypes
import json
import os
import subprocess
import tempfile
from collections import namedtuple

try:  # written by make install: where the library and tosac-run were installed
    from ._paths import LIBRARY as _LIBRARY, BINDIR as _BINDIR
except ImportError:  # a build tree: python/tosac -> build/lib, build/bin
    _here = os.path.dirname(os.path.abspath(__file__))
    _build = os.path.join(_here, "..", "..", os.environ.get("TOSAC_BUILD", "build"))
    _LIBRARY = os.path.join(_build, "lib", "libtosac.so.0")
    _BINDIR = os.path.join(_build, "bin")

__all__ = ["compile", "run", "Result", "CompileError", "Diagnostic", "version"]

Diagnostic = namedtuple("Diagnostic", "file line column severity message")


class CompileError(Exception):
    """A compile that failed: str() is the diagnostics text, .diagnostics the list."""

    def __init__(self, text, diagnostics):
        super().__init__(text)
        self.diagnostics = diagnostics


class UsageError(ValueError):
    """An invalid option (libtosac's TOSAC_ERROR_USAGE)."""


_lib = None


def _load():
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL(os.environ.get("TOSAC_LIBRARY", _LIBRARY))
    c = ctypes
    sig = {
        "tosac_version": (c.c_char_p, []),
        "tosac_options_create": (c.c_void_p, []),
        "tosac_options_dispose": (None, [c.c_void_p]),
        "tosac_options_error": (c.c_char_p, [c.c_void_p]),
        "tosac_options_add_targets": (c.c_int, [c.c_void_p, c.c_char_p]),
        "tosac_options_set_opt_level": (c.c_int, [c.c_void_p, c.c_int]),
        "tosac_options_set_code_object_version": (c.c_int, [c.c_void_p, c.c_int]),
        "tosac_options_set_init_mode": (c.c_int, [c.c_void_p, c.c_int]),
        "tosac_options_set_zeroed_workspace": (c.c_int, [c.c_void_p, c.c_int]),
        "tosac_options_set_workspace_expansions": (c.c_int, [c.c_void_p, c.c_int]),
        "tosac_options_set_perf_config": (c.c_int, [c.c_void_p, c.c_char_p]),
        "tosac_options_add_tuning_db": (c.c_int, [c.c_void_p, c.c_char_p]),
        "tosac_options_set_jobs": (c.c_int, [c.c_void_p, c.c_int]),
        "tosac_options_set_entry": (c.c_int, [c.c_void_p, c.c_char_p]),
        "tosac_options_set_embed_ir": (c.c_int, [c.c_void_p, c.c_int]),
        "tosac_options_set_compress": (c.c_int, [c.c_void_p, c.c_int]),
        "tosac_options_add_specialize": (c.c_int, [c.c_void_p, c.c_char_p]),
        "tosac_options_set_cache_dir": (c.c_int, [c.c_void_p, c.c_char_p]),
        "tosac_options_set_output": (c.c_int, [c.c_void_p, c.c_char_p]),
        "tosac_compile_file": (c.c_void_p, [c.c_void_p, c.c_char_p]),
        "tosac_compile_buffer": (c.c_void_p, [c.c_void_p, c.c_char_p, c.c_char_p, c.c_size_t]),
        "tosac_result_dispose": (None, [c.c_void_p]),
        "tosac_result_status": (c.c_int, [c.c_void_p]),
        "tosac_result_diagnostic_count": (c.c_int, [c.c_void_p]),
        "tosac_result_diagnostic_file": (c.c_char_p, [c.c_void_p, c.c_int]),
        "tosac_result_diagnostic_line": (c.c_int, [c.c_void_p, c.c_int]),
        "tosac_result_diagnostic_column": (c.c_int, [c.c_void_p, c.c_int]),
        "tosac_result_diagnostic_severity": (c.c_char_p, [c.c_void_p, c.c_int]),
        "tosac_result_diagnostic_message": (c.c_char_p, [c.c_void_p, c.c_int]),
        "tosac_result_diagnostics_text": (c.c_char_p, [c.c_void_p]),
        "tosac_result_bundle": (c.POINTER(c.c_uint8), [c.c_void_p, c.POINTER(c.c_size_t)]),
        "tosac_result_weights": (c.POINTER(c.c_uint8), [c.c_void_p, c.POINTER(c.c_size_t)]),
        "tosac_result_manifest": (c.c_char_p, [c.c_void_p]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    _lib = lib
    return lib


def version():
    """libtosac's version string."""
    return _load().tosac_version().decode()


def _enc(s):
    return None if s is None else os.fsencode(s) if isinstance(s, os.PathLike) else s.encode()


def _set(lib, o, status):
    if status != 0:
        raise UsageError(lib.tosac_options_error(o).decode())


def _options(lib, o, targets, opts):
    if targets:
        _set(lib, o, lib.tosac_options_add_targets(o, _enc(",".join(targets))))
    scalar = {
        "opt_level": lib.tosac_options_set_opt_level,
        "code_object_version": lib.tosac_options_set_code_object_version,
        "jobs": lib.tosac_options_set_jobs,
        "compress": lib.tosac_options_set_compress,
    }
    for key, value in opts.items():
        if key in scalar:
            _set(lib, o, scalar[key](o, int(value)))
        elif key == "embed_ir":
            _set(lib, o, lib.tosac_options_set_embed_ir(o, 1 if value else 0))
        elif key == "zeroed_workspace":
            _set(lib, o, lib.tosac_options_set_zeroed_workspace(o, 1 if value else 0))
        elif key == "workspace_expansions":
            _set(lib, o, lib.tosac_options_set_workspace_expansions(o, 1 if value else 0))
        elif key == "init":
            if value not in ("memset", "kernel"):
                raise UsageError("init must be 'memset' or 'kernel', not %r" % (value,))
            _set(lib, o, lib.tosac_options_set_init_mode(o, 1 if value == "kernel" else 0))
        elif key == "perf_config":
            _set(lib, o, lib.tosac_options_set_perf_config(o, _enc(value)))
        elif key == "entry":
            _set(lib, o, lib.tosac_options_set_entry(o, _enc(value)))
        elif key == "cache_dir":
            _set(lib, o, lib.tosac_options_set_cache_dir(o, _enc(value)))
        elif key in ("tuning_db", "specialize"):
            add = lib.tosac_options_add_tuning_db if key == "tuning_db" else lib.tosac_options_add_specialize
            for item in [value] if isinstance(value, str) else value:
                _set(lib, o, add(o, _enc(item)))
        else:
            raise TypeError("compile() got an unknown option %r" % key)


def _bytes(ptr, size):
    return ctypes.string_at(ptr, size.value) if ptr and size.value else None


class Result:
    """A successful compile: bundle (bytes), manifest (dict), weights (bytes or None),
    warnings (Diagnostic list), targets (target IDs in order)."""

    def __init__(self, bundle, manifest, weights, warnings):
        self.bundle, self.manifest, self.weights, self.warnings = bundle, manifest, weights, warnings
        self.targets = [t["target_id"] for t in manifest["targets"]]

    def kernels(self, target):
        """The manifest's kernels of a target (by ID or processor name), in launch order."""
        return [k["name"] for k in _target(self, target)["kernels"]]


def _target(r, target):
    for t in r.manifest["targets"]:
        if t["target_id"] == target or t["processor"] == target:
            return t
    raise ValueError("the result has no target %r (it has %s)" % (target, ", ".join(r.targets)))


def _diagnostics(lib, res):
    out = []
    for i in range(lib.tosac_result_diagnostic_count(res)):
        f = lib.tosac_result_diagnostic_file(res, i)
        out.append(Diagnostic(f.decode() if f else None, lib.tosac_result_diagnostic_line(res, i),
                              lib.tosac_result_diagnostic_column(res, i),
                              lib.tosac_result_diagnostic_severity(res, i).decode(),
                              lib.tosac_result_diagnostic_message(res, i).decode()))
    return out


def compile(source, targets=None, **options):
    """Compile TOSA text (str/bytes containing the module) or a file path; see the module doc."""
    lib = _load()
    o = lib.tosac_options_create()
    res = None
    try:
        _options(lib, o, targets, options)
        if isinstance(source, bytes) or (isinstance(source, str) and ("\n" in source or "func.func" in source)):
            text = source.encode() if isinstance(source, str) else source
            res = lib.tosac_compile_buffer(o, b"input.mlir", text, len(text))
        else:
            path = os.fspath(source)
            _set(lib, o, lib.tosac_options_set_output(o, _enc(os.path.splitext(os.path.basename(path))[0] + ".hipfb")))
            res = lib.tosac_compile_file(o, _enc(path))
        diags = _diagnostics(lib, res)
        status = lib.tosac_result_status(res)
        if status != 0:
            text = lib.tosac_result_diagnostics_text(res).decode()
            if status == 2:
                raise UsageError(text.strip())
            if status == 3:
                raise OSError(text.strip())
            raise CompileError(text.rstrip("\n"), diags)
        size = ctypes.c_size_t()
        bundle = _bytes(lib.tosac_result_bundle(res, ctypes.byref(size)), size)
        wsize = ctypes.c_size_t()
        weights = _bytes(lib.tosac_result_weights(res, ctypes.byref(wsize)), wsize)
        manifest = json.loads(lib.tosac_result_manifest(res).decode())
        return Result(bundle, manifest, weights, [d for d in diags if d.severity != "error"])
    finally:
        if res:
            lib.tosac_result_dispose(res)
        lib.tosac_options_dispose(o)


def run(result, target, inputs, tool=None, exec="isa"):
    """Run a compiled graph on the emulator for one target: inputs are array-likes in the graph's
    argument order (cast to the manifest's types); returns the results as numpy arrays. exec:
    "isa" runs the code objects' machine code, "ir" the kernel IR (compile(..., embed_ir=True))."""
    import numpy as np

    if exec not in ("isa", "ir"):
        raise ValueError("exec must be 'isa' or 'ir', not %r" % (exec,))
    if exec == "ir" and not result.manifest.get("ir_embedded"):
        raise ValueError("run(exec='ir') needs the kernel IR: compile with embed_ir=True")
    _target(result, target)
    ins = result.manifest["inputs"]
    if len(inputs) != len(ins):
        raise ValueError("the graph takes %d inputs, %d given" % (len(ins), len(inputs)))
    tool = tool or os.path.join(os.environ.get("TOSAC_BIN_DIR", _BINDIR), "tosac-run")
    with tempfile.TemporaryDirectory(prefix="tosac-") as d:
        manifest = dict(result.manifest, bundle="model.hipfb")
        if result.weights is not None:
            manifest["constants"] = dict(manifest["constants"], file="model.weights")
            with open(os.path.join(d, "model.weights"), "wb") as f:
                f.write(result.weights)
        with open(os.path.join(d, "model.hipfb"), "wb") as f:
            f.write(result.bundle)
        with open(os.path.join(d, "model.json"), "w") as f:
            json.dump(manifest, f)
        args = [tool, os.path.join(d, "model.hipfb"), "--manifest", os.path.join(d, "model.json"),
                "--target=" + target, "--exec=" + exec]
        for i, (x, spec) in enumerate(zip(inputs, ins)):
            arr = np.asarray(x, dtype=_dtype(spec["element_type"]))
            if list(arr.shape) != list(spec["shape"]):
                raise ValueError("input %d: shape %s, the graph wants %s" % (i, list(arr.shape), spec["shape"]))
            p = os.path.join(d, "in%d.npy" % i)
            np.save(p, arr)
            args.append("--input=@" + p)
        outs = result.manifest["outputs"]
        for i in range(len(outs)):
            args.append("--output=@" + os.path.join(d, "out%d.npy" % i))
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("tosac-run failed:\n" + p.stderr.strip())
        return [np.load(os.path.join(d, "out%d.npy" % i)) for i in range(len(outs))]


def _dtype(et):
    table = {"f32": "float32", "f16": "float16", "f64": "float64", "i8": "int8", "i16": "int16",
             "i32": "int32", "i64": "int64", "i1": "bool", "ui8": "uint8"}
    if et not in table:
        raise ValueError("run() cannot pass %s inputs from numpy" % et)
    return table[et]
