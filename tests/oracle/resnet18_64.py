# resnet18_64.py R18.tosa.mlir > r18_64.mlir: ResNet-18 (rocmlir_resnet18.mlir after
# tosac --emit=tosa) at 64x64 instead of 224x224, with oracle hints (input range, tolerance):
# every spatial size scaled, the final 7x7 average pool made 2x2 (weights, channels and op
# sequence unchanged). models.bats, host.bats.
import re, sys
M = {224: 64, 112: 32, 56: 16, 55: 15, 28: 8, 27: 7, 14: 4, 13: 3, 7: 2}
CH = {3, 64, 128, 256, 512}
def fix(d):
    if len(d) != 4 or d[0] != 1: return d
    if d[1] in CH and d[2] == d[3] and d[2] in M: return [1, d[1], M[d[2]], M[d[3]]]
    if d[1] == d[2] and d[1] in M and d[3] in CH: return [1, M[d[1]], M[d[2]], d[3]]
    return d
t = open(sys.argv[1]).read()
t = re.sub(r"tensor<([0-9x]+)xf32>", lambda m: "tensor<%sxf32>" % "x".join(
    map(str, fix([int(x) for x in m.group(1).split("x")]))), t)
t = re.sub(r"dense<\[([0-9, ]+)\]> : tensor<4xindex>", lambda m: "dense<[%s]> : tensor<4xindex>" % ", ".join(
    map(str, fix([int(x) for x in m.group(1).split(",")]))), t)
sys.stdout.write("// oracle: arg 0 -1 1\n// oracle: result 0 err 1e-3\n" +
                 t.replace("kernel = array<i64: 7, 7>", "kernel = array<i64: 2, 2>"))
