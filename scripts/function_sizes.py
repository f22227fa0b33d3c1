#!/usr/bin/env python3
"""function_sizes.py [--max N] [--top K] [ROOT] - the length of every function
in dbtop's C sources (the layer folders; tests/ left out), from the line of its
name to its closing brace.

Prints the K longest (default 10) as "lines  file:line  name". With --max N,
also prints every function longer than N lines and exits 1 when there is one.
A plain reading of the text: comments, strings and character literals are
skipped, a function is a top-level brace block whose opening line follows a
line ending in ')' or has one."""
import os
import re
import sys

LAYERS = ["util", "core", "model", "config", "sources", "record", "tune", "run", "panes", "tui", "app"]


def strip(text):
    """The text with comments, strings and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    lines = strip(open(path, encoding="utf-8", errors="replace").read()).split("\n")
    depth, start, name = 0, None, None
    for no, line in enumerate(lines, 1):
        for ch in line:
            if ch == "{":
                if depth == 0:
                    # the head: this line or the ones above up to a blank / ';' / '}'
                    k, head = no - 1, ""
                    while k >= 1:
                        head = lines[k - 1] + " " + head
                        if "(" in lines[k - 1] and re.match(r"^[A-Za-z_]", lines[k - 1]):
                            break
                        if lines[k - 1].strip() == "" or lines[k - 1].rstrip().endswith((";", "}")):
                            head = ""
                            break
                        k -= 1
                    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\([^;]*\)\s*(__attribute__.*)?$", (head + line.split("{")[0]).strip())
                    if m and not re.search(r"=\s*$|\b(struct|enum|union)\s+\w+\s*$", head.strip()):
                        start, name = k if k >= 1 else no, m.group(1)
                    else:
                        start, name = None, None
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0 and start is not None:
                    yield name, start, no - start + 1
                    start = None


def main(argv):
    mx, top, root = None, 10, "."
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--max":
            mx = int(args.pop(0))
        elif a == "--top":
            top = int(args.pop(0))
        else:
            root = a
    found = []
    for d in LAYERS:
        p = os.path.join(root, d)
        if not os.path.isdir(p):
            continue
        for f in sorted(os.listdir(p)):
            if f.endswith(".c"):
                path = os.path.join(p, f)
                for name, start, size in functions(path):
                    found.append((size, "%s/%s:%d" % (d, f, start), name))
    found.sort(key=lambda t: -t[0])
    print("the %d longest of %d functions:" % (min(top, len(found)), len(found)))
    for size, where, name in found[:top]:
        print("%5d  %-28s %s" % (size, where, name))
    if mx is not None:
        over = [t for t in found if t[0] > mx]
        for size, where, name in over:
            print("over %d lines: %s %s (%d)" % (mx, where, name, size))
        if over:
            return 1
        print("no function over %d lines" % mx)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
