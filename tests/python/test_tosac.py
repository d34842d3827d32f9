"""The tosac Python module (python/tosac, docs/python.md), run by unittest from
tests/bats/python.bats: compile text and files, the manifest as a dict, diagnostics as
exceptions with file:line:col, bad options, and run() on the emulator against numpy."""

import os
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
import tosac  # noqa: E402

CONV = """func.func @main(%x: tensor<2x7x9x4xf32>, %w: tensor<6x3x3x4xf32>) -> tensor<2x4x5x6xf32> {
  %b = "tosa.const"() <{values = dense<0.5> : tensor<6xf32>}> : () -> tensor<6xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x7x9x4xf32>, tensor<6x3x3x4xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x5x6xf32>
  %r = tosa.clamp %y {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<2x4x5x6xf32>) -> tensor<2x4x5x6xf32>
  return %r : tensor<2x4x5x6xf32>
}
"""

BAD = """func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.add %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
"""


def reference(x, w):
    """conv2d NHWC/OHWI, stride 2, padding 1, bias 0.5, then clamp to [0, 6]: the definition."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.full((2, 4, 5, 6), 0.5)
    for ky in range(3):
        for kx in range(3):
            win = xp[:, ky:ky + 7:2, kx:kx + 9:2, :]
            out += np.einsum("nhwc,oc->nhwo", win, w[:, ky, kx, :].astype(np.float64))
    return np.clip(out, 0, 6)


class Compile(unittest.TestCase):
    def test_text_gives_bundle_and_manifest(self):
        r = tosac.compile(CONV, targets=["gfx90a", "gfx1100"])
        self.assertEqual(r.bundle[:24], b"__CLANG_OFFLOAD_BUNDLE__")
        self.assertEqual(r.targets, ["gfx90a", "gfx1100"])
        self.assertEqual(r.manifest["inputs"][0]["shape"], [2, 7, 9, 4])
        self.assertEqual(r.manifest["targets"][1]["processor"], "gfx1100")
        self.assertEqual(len(r.kernels("gfx90a")), r.manifest["targets"][0]["kernel_count"])
        self.assertEqual(len(r.weights), r.manifest["constants"]["bytes"])  # the bias, padded
        self.assertEqual(r.weights[:4], b"\x00\x00\x00\x3f")  # 0.5f

    def test_path_and_options(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "conv.mlir")
            with open(p, "w") as f:
                f.write(CONV)
            r = tosac.compile(p, targets=["gfx1030"], init="kernel", opt_level=2, embed_ir=True)
            self.assertTrue(r.manifest["ir_embedded"])
            self.assertEqual(r.manifest["source"], p)

    def test_diagnostics_are_exceptions_with_location(self):
        with self.assertRaises(tosac.CompileError) as c:
            tosac.compile(BAD, targets=["gfx90a"])
        first = str(c.exception).splitlines()[0]
        self.assertRegex(first, r"^input\.mlir:2:8: error: ")
        d = c.exception.diagnostics[0]
        self.assertEqual((d.file, d.line, d.column, d.severity), ("input.mlir", 2, 8, "error"))

    def test_bad_options(self):
        with self.assertRaisesRegex(tosac.UsageError, "gfx9999"):
            tosac.compile(CONV, targets=["gfx9999"])
        with self.assertRaisesRegex(TypeError, "unknown option 'speed'"):
            tosac.compile(CONV, targets=["gfx90a"], speed=3)
        with self.assertRaisesRegex(tosac.UsageError, "init must be"):
            tosac.compile(CONV, targets=["gfx90a"], init="zero")
        with self.assertRaises(OSError):
            tosac.compile("/nonexistent/model.mlir", targets=["gfx90a"])


class Run(unittest.TestCase):
    def test_run_matches_numpy_on_three_targets(self):
        rng = np.random.default_rng(5)
        x = rng.standard_normal((2, 7, 9, 4)).astype(np.float32)
        w = rng.standard_normal((6, 3, 3, 4)).astype(np.float32)
        r = tosac.compile(CONV, targets=["gfx90a", "gfx1100", "gfx1030"], embed_ir=True)
        ref = reference(x, w)
        for t in ("gfx90a", "gfx1100", "gfx1030"):
            # the machine code (the default) and the kernel IR
            for mode in ("isa", "ir"):
                (y,) = tosac.run(r, t, [x, w], exec=mode)
                self.assertEqual(y.dtype, np.float32)
                np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5, err_msg=t + " " + mode)

    def test_run_needs_ir_only_for_exec_ir_and_right_inputs(self):
        r = tosac.compile(CONV, targets=["gfx90a"])
        self.assertEqual(tosac.run(r, "gfx90a", [np.zeros((2, 7, 9, 4)), np.zeros((6, 3, 3, 4))])[0].shape,
                         (2, 4, 5, 6))
        with self.assertRaisesRegex(ValueError, "embed_ir=True"):
            tosac.run(r, "gfx90a", [], exec="ir")
        with self.assertRaisesRegex(ValueError, "exec must be"):
            tosac.run(r, "gfx90a", [], exec="gpu")
        r = tosac.compile(CONV, targets=["gfx90a"], embed_ir=True)
        with self.assertRaisesRegex(ValueError, "takes 2 inputs"):
            tosac.run(r, "gfx90a", [np.zeros((2, 7, 9, 4))])
        with self.assertRaisesRegex(ValueError, "no target 'gfx942'"):
            tosac.run(r, "gfx942", [])


if __name__ == "__main__":
    unittest.main()
