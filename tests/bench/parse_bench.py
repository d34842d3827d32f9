#!/usr/bin/python3
"""parse_bench.py: frontend speed on a generated graph with ~100 MB of hex weights and 10,000
ops. Usage: parse_bench.py TOSAC [WORKDIR]. Prints hex MB/s and ops/s (wall and CPU time, best
of 3) and peak RSS (getrusage of each run) of `tosac --syntax-only`, also relative to the same
command on a one-op graph."""
import os, subprocess, sys, time

tosac = sys.argv[1]
work = sys.argv[2] if len(sys.argv) > 2 else "/tmp"
path = os.path.join(work, "parse_bench.mlir")
NCONST, ROWS, COLS, NOPS = 100, 256, 1024, 10000  # 100 x 1 MiB f32 constants
T = "tensor<%dx%dxf32>" % (ROWS, COLS)
if not os.path.exists(path):
    row = os.urandom(COLS * 4).hex().upper()
    with open(path, "w") as f:
        f.write("func.func @main(%%x: %s) -> %s {\n" % (T, T))
        for c in range(NCONST):
            f.write('  %%c%d = "tosa.const"() <{values = dense<"0x' % c)
            for _ in range(ROWS):
                f.write(row)
            f.write('"> : %s}> : () -> %s\n' % (T, T))
        prev = "%x"
        for i in range(NOPS - NCONST):
            f.write("  %%%d = tosa.add %s, %%c%d : (%s, %s) -> %s\n" % (i, prev, i % NCONST, T, T, T))
            prev = "%%%d" % i
        f.write("  return %s : %s\n}\n" % (prev, T))
hex_mb = NCONST * ROWS * COLS * 4 * 2 / 1e6
const_mb = NCONST * ROWS * COLS * 4 / 1e6
def run(args):
    """Wall seconds, CPU seconds (user + sys) and peak RSS in MB (10^6 bytes) of one run."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args)
    _, status, ru = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
    if status != 0:
        sys.exit("tosac failed: %s" % " ".join(args))
    return dt, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024 / 1e6  # ru_maxrss is in KiB

# The fixed cost of any tosac process (libLLVM mapped and initialised at start-up): the same
# command on a one-op graph.
small = os.path.join(work, "parse_bench_small.mlir")
with open(small, "w") as f:
    f.write("func.func @main(%%x: %s) -> %s {\n  return %%x : %s\n}\n" % (T, T, T))
base = min(run([tosac, "--syntax-only", small])[2] for _ in range(3))
os.remove(small)
runs = [run([tosac, "--syntax-only", path]) for _ in range(3)]
best = min(r[0] for r in runs)
cpu = min(r[1] for r in runs)
peak = max(r[2] for r in runs)
print("command: %s --syntax-only %s" % (tosac, path))
print("file %.1f MB, hex %.1f MB (constant bytes %.1f MB), %d ops" % (os.path.getsize(path) / 1e6, hex_mb, const_mb, NOPS))
print("best of 3: %.3f s wall  ->  %.0f MB/s of hex, %.0f ops/s" % (best, hex_mb / best, NOPS / best))
print("best of 3: %.3f s CPU (user + sys)  ->  %.0f MB/s of hex, %.0f ops/s" % (cpu, hex_mb / cpu, NOPS / cpu))
print("peak RSS %.1f MB = %.2fx the constant bytes" % (peak, peak / const_mb))
print("peak RSS above the %.1f MB of a one-op graph: %.1f MB = %.2fx the constant bytes" % (base, peak - base, (peak - base) / const_mb))
