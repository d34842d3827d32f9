#!/usr/bin/python3
"""sweep_summary.py SWEEP_LOG [OPCODES_FILE]: make check-isa's per-target figures. SWEEP_LOG holds
check.py's "TARGET ok|fail|refused LABEL" lines (TOSAC_SWEEP_LOG), OPCODES_FILE the emulator's
"PROCESSOR MNEMONIC" lines (TOSAC_ISA_OPCODES). Prints one line per target: graphs checked,
matched, failed, refused by the compiler for that target (a type or option the target lacks),
distinct opcodes executed."""
import collections
import sys


def main(argv):
    runs = collections.defaultdict(collections.Counter)
    try:
        with open(argv[0]) as f:
            for line in f:
                target, verdict = line.split()[:2]
                runs[target][verdict] += 1
    except FileNotFoundError:
        pass
    ops = collections.defaultdict(set)
    if len(argv) > 1:
        try:
            with open(argv[1]) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2:
                        ops[parts[0].split(":")[0]].add(parts[1])
        except FileNotFoundError:
            pass
    order = "gfx908 gfx90a gfx942 gfx950 gfx1030 gfx1100 gfx1200".split()
    for t in sorted(set(runs) | set(ops), key=lambda t: (order.index(t) if t in order else len(order), t)):
        c = runs[t]
        print("%-8s %5d checked, %5d match, %4d fail, %4d refused, %4d distinct opcodes" %
              (t, c["ok"] + c["fail"], c["ok"], c["fail"], c["refused"], len(ops[t])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
