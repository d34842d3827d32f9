"""The main loop of a disassembled GEMM kernel, shared by the loop suites (gfx908_loop,
gemm_loop, conv_runs): of the backward conditional branches' bodies, the one with the most
matrix instructions. As a program: main_loop.py FILE.dis SPEC... prints, per SPEC, how many of
the loop's instructions start with it; SPEC `a-b-c` counts those starting with a but with
neither b nor c (`v_-v_mfma-v_accvgpr`: VALU other than MFMAs and accumulator copies)."""
import re
import sys


def loop_body(path, matrix="v_mfma"):
    """The main loop's instructions (mnemonic and operands) in FILE.dis (llvm-objdump-22 -d)."""
    text = open(path).read()
    sym = {m.group(2): int(m.group(1), 16) for m in re.finditer(r"^([0-9a-f]+) <(\S+)>:$", text, re.M)}
    ins = [(int(m.group(2), 16), m.group(1).strip(), m.group(3)) for m in
           re.finditer(r"^\s+(\S.*?)\s*// ([0-9A-F]+):(.*)$", text, re.M)]
    best = []
    for a, s, rest in ins:
        m = re.search(r"<(\S+)\+0x([0-9a-f]+)>", rest)
        if s.startswith("s_cbranch") and m and sym[m.group(1)] + int(m.group(2), 16) < a:
            start = sym[m.group(1)] + int(m.group(2), 16)
            body = [x for b, x, _ in ins if start <= b < a]
            if sum(x.startswith(matrix) for x in body) > sum(x.startswith(matrix) for x in best):
                best = body
    return best


def count(body, spec):
    first, *not_ = spec.split("-")
    ops = [x.split()[0] for x in body]
    return sum(o.startswith(first) and not any(o.startswith(n) for n in not_) for o in ops)


if __name__ == "__main__":
    body = loop_body(sys.argv[1])
    print(" ".join(str(count(body, s)) for s in sys.argv[2:]))
