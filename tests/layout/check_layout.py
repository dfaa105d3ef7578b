#!/usr/bin/env python3
"""The layout rules of issue 12, checked on the tree and on the built objects.

  check_layout.py SRC BUILD [--report]

Rules (each failure is one line, naming the files):
  size      no product file over 800 lines, no function over 80
  includes  no include cycle between files of one folder; a file and its
            header are one node, a private `x_i.h` is its own node
  calls     no call cycle between object files of one folder (from nm: who
            defines what, who needs it)
  readme    every product .c file is named in its folder's README.md
  folders   calls between folders follow the pipeline: fs -> store ->
            dedupe -> tiers and meta -> common; faults reaches only common
            (the datastore and the model reach faults through hook tables);
            tools may call anything; nothing calls tools
Without --report the exit status is 1 when any rule fails.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

PRODUCT = ["common", "dedupe", "faults", "fs", "meta", "replication", "store", "tiers", "tools"]
# Which folders a folder's objects may call into (besides itself).
ALLOWED = {
    "common": set(),
    "tiers": {"common"},
    "faults": {"common"},
    "meta": {"common"},
    "dedupe": {"common", "meta", "tiers"},
    "store": {"common", "meta", "dedupe", "tiers", "faults"},
    "replication": {"common", "meta", "store", "dedupe", "tiers", "faults"},
    "fs": {"common", "meta", "store", "dedupe", "tiers", "faults", "replication"},
    "tools": set(PRODUCT),
}
MAX_FILE_LINES = 800
MAX_FUNC_LINES = 80


def product_sources(src):
    for top in PRODUCT:
        for root, _, files in os.walk(os.path.join(src, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(root, f), src)


def folder_of(rel):
    return os.path.dirname(rel)


def node_of(rel):
    """A file and its header are one node; a private x_i.h is its own."""
    stem = os.path.splitext(rel)[0]
    return rel if stem.endswith("_i") else stem


def own_private(a, b):
    """A file and its own x_i.h may include each other."""
    return a + "_i.h" == b or b + "_i.h" == a


def check_sizes(src, fails):
    for rel in product_sources(src):
        lines = open(os.path.join(src, rel), encoding="utf-8").read().split("\n")
        if len(lines) - 1 > MAX_FILE_LINES:
            fails.append(f"size: {rel} has {len(lines) - 1} lines (max {MAX_FILE_LINES})")
        start = None
        for i, line in enumerate(lines):
            if line == "{" and start is None:
                # The signature starts at the last line not indented.
                start = i - 1
                while start > 0 and (not lines[start] or lines[start][0].isspace()):
                    start -= 1
            elif line == "}" and start is not None:
                n = i - start + 1
                if n > MAX_FUNC_LINES:
                    name = re.sub(r"\(.*", "", lines[start]).split()[-1].lstrip("*")
                    fails.append(f"size: {rel}:{start + 1} {name}() has {n} lines (max {MAX_FUNC_LINES})")
                start = None


def check_readmes(src, fails):
    for rel in product_sources(src):
        if not rel.endswith(".c"):
            continue
        readme = os.path.join(src, folder_of(rel), "README.md")
        text = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""
        if not re.search(r"(?<![\w.])" + re.escape(os.path.basename(rel)) + r"\b", text):
            fails.append(f"readme: {folder_of(rel)}/README.md does not name `{os.path.basename(rel)}`")


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_includes(src, fails):
    graph = defaultdict(set)
    inc = re.compile(r'^#include "([^"]+)"')
    for rel in product_sources(src):
        for line in open(os.path.join(src, rel), encoding="utf-8"):
            m = inc.match(line)
            if not m or folder_of(m.group(1)) != folder_of(rel):
                continue
            a, b = node_of(rel), node_of(m.group(1))
            if a != b and not own_private(a, b):
                graph[a].add(b)
    for comp in cycles(graph):
        fails.append("includes: cycle " + " <-> ".join(comp))


def objects(build):
    """{object: folder} of every product object in the build tree."""
    objs = {}
    for top in PRODUCT:
        for root, _, files in os.walk(os.path.join(build, top)):
            for f in files:
                if f.endswith(".c.o"):
                    path = os.path.join(root, f)
                    objs[path] = top
    return objs


def check_calls(build, fails):
    objs = objects(build)
    defined, needs = {}, defaultdict(set)
    out = subprocess.run(["nm", "-A", "--defined-only", "-g"] + sorted(objs),
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        path, rest = line.split(":", 1)
        sym = rest.split()[-1]
        defined.setdefault(sym, path)
    out = subprocess.run(["nm", "-A", "-u"] + sorted(objs),
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        path, rest = line.split(":", 1)
        needs[path].add(rest.split()[-1])

    def name(path):
        return os.path.relpath(path, build).replace(".p/", "/").replace(".c.o", ".c")

    graph = defaultdict(set)
    for path, syms in needs.items():
        for sym in syms:
            dst = defined.get(sym)
            if dst is None or dst == path:
                continue
            a, b = objs[path], objs[dst]
            if a == b:
                graph[name(path)].add(name(dst))
            elif b not in ALLOWED[a]:
                fails.append(f"folders: {name(path)} calls {sym}() of {name(dst)} ({a} -> {b})")
    for comp in cycles(graph):
        fails.append("calls: cycle " + " <-> ".join(comp))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: check_layout.py SRC BUILD [--report]")
    src, build = sys.argv[1], sys.argv[2]
    fails = []
    check_sizes(src, fails)
    check_readmes(src, fails)
    check_includes(src, fails)
    check_calls(build, fails)
    for f in fails:
        print(f)
    print(f"layout: {len(fails)} problems")
    if fails and "--report" not in sys.argv:
        sys.exit(1)


if __name__ == "__main__":
    main()
