#!/usr/bin/env python3
"""No include or call cycle among tiers/*.c (a file and its own _i.h are one
node). Edge A->B: A.o references a symbol B.o defines, or A includes a
header declaring a function B.o defines (types and inlines are no edge).
Usage: cycles.py SOURCE_ROOT BUILD_ROOT (after libtiers is built)."""
import glob, os, re, subprocess, sys
src, objdir = sys.argv[1], sys.argv[2]
cs = sorted(glob.glob(f"{src}/tiers/*.c"))
stem = lambda p: os.path.basename(p)[:-2]
defs, undef = {}, {}
for c in cs:
    o = glob.glob(f"{objdir}/tiers/libtiers.a.p/{os.path.basename(c)}.o")
    if not o: continue
    out = subprocess.run(["nm", o[0]], capture_output=True, text=True).stdout
    defs[stem(c)] = {l.split()[-1] for l in out.splitlines() if re.search(r" [TDRB] ", l)}
    undef[stem(c)] = {l.split()[-1] for l in out.splitlines() if " U " in l}
missing = [stem(c) for c in cs if stem(c) not in defs]
if missing:
    sys.exit("no object for: " + " ".join(missing))
owner = {s: n for n, ss in defs.items() for s in ss}
def hdr_owners(h, seen):
    if h in seen or not os.path.exists(h): return set()
    seen.add(h)
    txt = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
    words = set(re.findall(r"\b(\w+)\s*\(", txt))
    r = {owner[w] for w in words if w in owner}
    return r
edges = {n: set() for n in defs}
for c in cs:
    a = stem(c)
    if a not in defs: continue
    for s in undef[a]:
        if s in owner and owner[s] != a: edges[a].add((owner[s], "calls " + s))
    for inc in re.findall(r'#include "tiers/(\w+\.h)"', open(c).read()):
        for b in hdr_owners(f"{src}/tiers/{inc}", set()):
            if b != a: edges[a].add((b, "includes " + inc))
adj = {a: {b for b, _ in e} for a, e in edges.items()}
# cycles: SCCs (Tarjan)
idx, low, st, on, sccs, i = {}, {}, [], set(), [], [0]
def sc(v):
    idx[v] = low[v] = i[0]; i[0] += 1; st.append(v); on.add(v)
    for w in adj[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        sccs.append(comp)
for v in adj:
    if v not in idx: sc(v)
bad = [c for c in sccs if len(c) > 1]
for c in bad:
    print("cycle:", " ".join(sorted(c)))
    for a in sorted(c):
        for b, why in sorted(edges[a]):
            if b in c: print(f"  {a} -> {b}: {why}")
print("no cycles" if not bad else f"{len(bad)} cycle(s)")
sys.exit(1 if bad else 0)
