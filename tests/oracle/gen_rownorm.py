#!/usr/bin/python3
"""Row-norm kernel graphs (kernel_rownorm.c) for tests/bats/rownorm.bats: layer norms and
softmaxes whose rows do or do not split into 16-byte chunks. Writes NAME.mlir into the current
directory for every graph below; each carries its oracle tolerance (tests/oracle/README.md).
f16 layer norms get 0.1: the oracle sums 768 f16 squares in f16, tosac in f32."""
def ln(name, dt, shape, residual, outs_extra, err):
    r = len(shape); h = shape[-1]
    T = "tensor<%sx%s>" % ("x".join(map(str, shape)), dt)
    rs = list(shape[:-1]) + [1]
    R = "tensor<%sx%s>" % ("x".join(map(str, rs)), dt)
    one = "tensor<%sx%s>" % ("x".join(["1"] * r), dt)
    G = "tensor<%sx%d x%s>".replace(" ", "") % ("x".join(["1"] * (r - 1)), h, dt)
    args = ["%%x: %s" % T] + (["%%y: %s" % T] if residual else []) + ["%%g: %s" % G, "%%b: %s" % G]
    L = ["// oracle: result 0 err %g" % err]
    for i in range(1, 3): L.append("// oracle: result %d err %g" % (i, err))
    rets = [("%o", T)] + ([("%d", T)] if "d" in outs_extra else []) + ([("%m", R)] if "m" in outs_extra else [])
    L.append("func.func @main(%s) -> (%s) {" % (", ".join(args), ", ".join(t for _, t in rets)))
    L.append('  %%inv = "tosa.const"() <{values = dense<%r> : %s}> : () -> %s' % (1.0 / h, one, one))
    L.append('  %%eps = "tosa.const"() <{values = dense<1.0e-5> : %s}> : () -> %s' % (one, one))
    L.append('  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
    src = "%x"
    if residual:
        L.append("  %%s = tosa.add %%x, %%y : (%s, %s) -> %s" % (T, T, T)); src = "%s"
    L.append("  %%su = tosa.reduce_sum %s {axis = %d : i32} : (%s) -> %s" % (src, r - 1, T, R))
    L.append("  %%m = tosa.mul %%su, %%inv, %%sh : (%s, %s, tensor<1xi8>) -> %s" % (R, one, R))
    L.append("  %%d = tosa.sub %s, %%m : (%s, %s) -> %s" % (src, T, R, T))
    L.append("  %%d2 = tosa.mul %%d, %%d, %%sh : (%s, %s, tensor<1xi8>) -> %s" % (T, T, T))
    L.append("  %%vs = tosa.reduce_sum %%d2 {axis = %d : i32} : (%s) -> %s" % (r - 1, T, R))
    L.append("  %%v = tosa.mul %%vs, %%inv, %%sh : (%s, %s, tensor<1xi8>) -> %s" % (R, one, R))
    L.append("  %%ve = tosa.add %%v, %%eps : (%s, %s) -> %s" % (R, one, R))
    L.append("  %%rs = tosa.rsqrt %%ve : (%s) -> %s" % (R, R))
    L.append("  %%n = tosa.mul %%d, %%rs, %%sh : (%s, %s, tensor<1xi8>) -> %s" % (T, R, T))
    L.append("  %%ng = tosa.mul %%n, %%g, %%sh : (%s, %s, tensor<1xi8>) -> %s" % (T, G, T))
    L.append("  %%o = tosa.add %%ng, %%b : (%s, %s) -> %s" % (T, G, T))
    L.append("  return %s : %s" % (", ".join(v for v, _ in rets), ", ".join(t for _, t in rets)))
    L.append("}")
    open(name + ".mlir", "w").write("\n".join(L) + "\n")

def softmax(name, dt, shape, err):
    r = len(shape)
    T = "tensor<%sx%s>" % ("x".join(map(str, shape)), dt)
    R = "tensor<%sx%s>" % ("x".join(map(str, list(shape[:-1]) + [1])), dt)
    L = ["// oracle: result 0 err %g" % err, "func.func @main(%%x: %s) -> %s {" % (T, T),
         '  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>',
         "  %%mx = tosa.reduce_max %%x {axis = %d : i32} : (%s) -> %s" % (r - 1, T, R),
         "  %%d = tosa.sub %%x, %%mx : (%s, %s) -> %s" % (T, R, T),
         "  %%e = tosa.exp %%d : (%s) -> %s" % (T, T),
         "  %%s = tosa.reduce_sum %%e {axis = %d : i32} : (%s) -> %s" % (r - 1, T, R),
         "  %%rc = tosa.reciprocal %%s : (%s) -> %s" % (R, R),
         "  %%p = tosa.mul %%e, %%rc, %%sh : (%s, %s, tensor<1xi8>) -> %s" % (T, R, T),
         "  return %%p : %s" % T, "}"]
    open(name + ".mlir", "w").write("\n".join(L) + "\n")

# name, type, shape, residual add first, extra outputs (d: x - mean, m: the mean), tolerance
ln("ln16", "f16", [3, 768], True, "", 0.1)        # 8-element chunks
ln("ln32", "f32", [2, 3, 20], False, "dm", 1e-5)    # rank 3, 4-element chunks, a row output
ln("ln32odd", "f32", [3, 771], True, "", 1e-5)      # not a whole number of chunks: element walks
softmax("sm16", "f16", [3, 4096], 2e-3)            # 512 chunks: two steps of 256 work-items
softmax("sm32", "f32", [5, 1030], 1e-6)
