#!/usr/bin/python3
"""Checks that the documentation agrees with the tree and the tools (tests/bats/docs.bats).

  doccheck.py links FILE...            every relative link resolves (file, and #anchor to a heading)
  doccheck.py manpage TOOL PAGE.1      the options `TOOL --help` prints and PAGE.1 documents agree
  doccheck.py readme README BINDIR     every option README names exists in its tool's --help
  doccheck.py walkthrough README       prints the ```sh blocks of the walkthrough section

Every problem is printed as "FILE:LINE: message"; the exit status is 1 if there was any.
"""
import os
import re
import subprocess
import sys

OPTION = re.compile(r"(?<![\w/.-])(--?[A-Za-z][A-Za-z0-9_-]*)")
TOOLS = ("tosac", "tosac-run", "tosac-bundle", "tosac-tune", "tosac-hip-run")
COMMAND = re.compile(r"(?:^|(?<=[\s;|&(/]))(%s)(?=\s|$)" % "|".join(
    re.escape(t) for t in sorted(TOOLS, key=len, reverse=True)))


def fail(problems, where, msg):
    problems.append("%s: %s" % (where, msg))


def lines_outside_fences(text):
    """(line number, line) of the Markdown text outside fenced code blocks."""
    fenced = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield n, line


def slug(heading):
    """The anchor GitHub gives a Markdown heading."""
    s = heading.strip().lower()
    s = "".join(c for c in s if c.isalnum() or c in " -_")
    return s.replace(" ", "-")


def anchors(path):
    seen = {}
    out = set()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for _, line in lines_outside_fences(text):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        # link text inside a heading counts as its text
        base = slug(re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else "%s-%d" % (base, n))
    return out


def check_links(files):
    problems = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for n, line in lines_outside_fences(text):
            line = re.sub(r"`[^`]*`", "", line)  # code spans hold no links
            for m in re.finditer(r"\]\(([^)\s]+)\)", line):
                target = m.group(1)
                if re.match(r"[a-z][a-z0-9+.-]*:", target):
                    continue  # http:, https:, mailto: are not checked here
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                    if file_part else path
                where = "%s:%d" % (path, n)
                if not os.path.exists(dest):
                    fail(problems, where, "link to missing file '%s'" % target)
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    fail(problems, where, "link to missing heading '%s'" % target)
    return problems


def help_text(binary):
    r = subprocess.run([binary, "--help"], capture_output=True, text=True)
    return r.stdout + r.stderr


def help_options(text):
    """Options of a --help text: every option on the usage lines (the "usage:" line and the
    indented lines after it) and in the option column of the lines that start with an option;
    meanings, continuation and prose lines are not read: they may name another tool's options."""
    opts = set()
    usage = False
    for line in text.split("\n"):
        if line.startswith("usage:"):
            usage = True
        elif not line.startswith(" "):
            usage = False
        if usage:
            opts.update(OPTION.findall(line))
        elif re.match(r"\s+-", line):  # the option column, up to the gap before its meaning
            opts.update(OPTION.findall(re.split(r"\s{2,}", line.strip())[0]))
    return opts


def roff_plain(line):
    line = re.sub(r"\\f[BIRP]|\\f\(..", "", line)
    return line.replace("\\-", "-").replace("\\(em", " ").replace('"', " ")


def manpage_options(path):
    """Options a man page documents: its SYNOPSIS and the tags of its .TP paragraphs."""
    opts = {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    section = ""
    for i, line in enumerate(lines, 1):
        if line.startswith(".SH"):
            section = line[3:].strip().strip('"')
            continue
        tag = i >= 2 and lines[i - 2].startswith(".TP")
        if (section == "SYNOPSIS" or tag) and section != "ENVIRONMENT":
            for o in OPTION.findall(roff_plain(line)):
                opts.setdefault(o, i)
    return opts


def check_manpage(binary, page):
    problems = []
    text = help_text(binary)
    documented = manpage_options(page)
    printed = help_options(text)
    if not printed:
        fail(problems, binary, "--help printed no options")
    for o in sorted(printed - set(documented)):
        fail(problems, page, "'%s' is printed by %s --help but not documented" %
             (o, os.path.basename(binary)))
    everything = set(OPTION.findall(text))
    for o, line in sorted(documented.items()):
        if o not in everything:
            fail(problems, "%s:%d" % (page, line), "'%s' is documented but %s --help does not "
                 "know it" % (o, os.path.basename(binary)))
    return problems


def check_readme(readme, bindir):
    """Every option README names exists: the option table's against tosac --help, options after
    a tool's name (in a code block or a code span) against that tool's --help, a code span that
    is a long option alone (`--cache-dir=DIR`) against every tool's."""
    known = {}
    for t in TOOLS:
        b = os.path.join(bindir, t)
        if os.path.exists(b):
            known[t] = set(OPTION.findall(help_text(b)))
    anywhere = set().union(*known.values())
    problems = []
    with open(readme, encoding="utf-8") as f:
        text = f.read()

    def check(opts, tool, where):
        have = known.get(tool, anywhere) if tool else anywhere
        for o in opts:
            if o not in have:
                fail(problems, where, "'%s' is not an option of %s" % (o, tool or "any tool"))

    def commands(snippet, where):
        """Options in snippet: those following a tool's name up to the end of its command,
        and (if no tool is named) all of them against every tool."""
        pieces = re.split(r"\|\||&&|[|;#)]", snippet)
        named = False
        for piece in pieces:
            m = None
            for m in COMMAND.finditer(piece):
                pass
            if m:
                named = True
                check(OPTION.findall(piece[m.end():]), m.group(1), where)
        return named

    fenced = False
    for n, line in enumerate(text.split("\n"), 1):
        where = "%s:%d" % (readme, n)
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            commands(line, where)
            continue
        if line.startswith("| `-"):  # the option table: its first cell
            check(OPTION.findall(line.split("|")[1]), "tosac", where)
            continue
        for span in re.findall(r"`([^`]+)`", line):
            if not commands(span, where) and span.startswith("--"):
                check(OPTION.findall(span)[:1], None, where)
    return problems


def walkthrough(readme):
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## [^\n]*walkthrough[^\n]*\n(.*?)(?=^## )", text, re.S | re.M | re.I)
    if not m:
        sys.exit("%s: no walkthrough section" % readme)
    blocks = re.findall(r"^```sh\n(.*?)^```", m.group(1), re.S | re.M)
    if not blocks:
        sys.exit("%s: the walkthrough has no ```sh blocks" % readme)
    sys.stdout.write("".join(blocks))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "links":
        problems = check_links(args)
    elif cmd == "manpage":
        problems = check_manpage(*args)
    elif cmd == "readme":
        problems = check_readme(*args)
    elif cmd == "walkthrough":
        walkthrough(*args)
        return 0
    else:
        sys.exit("doccheck.py: unknown command '%s'" % cmd)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
