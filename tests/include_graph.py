#!/usr/bin/env python3
"""tests/include_graph.py [ROOT] - core's folders as a graph of includes,
checked the plain way (no tool's reading of the code): every quoted
#include of a file under core/ (.c, .h, .cu, .cc; resolved beside the file,
then under core/ as the compiler's -Icore does) is an arrow from the
including file's folder to the included file's folder. Checks:
  - no circle between folders (a folder that includes another which,
    through any chain, includes it back), naming the files that close it;
  - every folder of core holds at least 100 lines of code, unless its
    README.md says why it is smaller in a line starting "Small on purpose:".
Prints ok / not ok lines. Run by tests/e2e_include_graph.sh."""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORE = os.path.join(ROOT, "core")
SOURCES = (".c", ".h", ".cu", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room(path):
    """core/<folder> of a path under core/ (core/cuda/emu/x.cc -> cuda)."""
    rel = os.path.relpath(path, CORE)
    return rel.split(os.sep)[0] if os.sep in rel else None


def files():
    for top, _, names in os.walk(CORE):
        for n in names:
            if n.endswith(SOURCES):
                yield os.path.join(top, n)


def arrows():
    """{(from_room, to_room): [(file, included file)]}."""
    out = {}
    for f in files():
        text = open(f, encoding="utf-8", errors="replace").read()
        for inc in INCLUDE.findall(text):
            for base in (os.path.dirname(f), CORE):
                target = os.path.normpath(os.path.join(base, inc))
                if os.path.isfile(target):
                    break
            else:
                continue
            a, b = room(f), room(target)
            if a and b and a != b:
                out.setdefault((a, b), []).append((os.path.relpath(f, ROOT), os.path.relpath(target, ROOT)))
    return out


def circles(edges):
    """Each strongly connected set of more than one room (Tarjan)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, found, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def small_rooms():
    out = []
    for r in sorted(os.listdir(CORE)):
        folder = os.path.join(CORE, r)
        if not os.path.isdir(folder):
            continue
        lines = sum(sum(1 for _ in open(f, encoding="utf-8", errors="replace")) for f in files()
                    if room(f) == r)
        readme = os.path.join(folder, "README.md")
        why = [ln for ln in open(readme, encoding="utf-8")] if os.path.isfile(readme) else []
        if lines < 100 and not any(ln.startswith("Small on purpose:") for ln in why):
            out.append(f"core/{r} ({lines} lines)")
    return out


def main():
    edges = arrows()
    failed = 0
    loops = circles(edges)
    if loops:
        for group in loops:
            ties = [f"{f} -> {t}" for (a, b), pairs in sorted(edges.items()) if a in group and b in group
                    for f, t in pairs[:2]]
            print(f"not ok - include graph: a circle between core/{', core/'.join(group)}: {'; '.join(ties)}")
        failed = 1
    else:
        print(f"ok - include graph: no circle between core's {len({a for a, _ in edges} | {b for _, b in edges})} "
              f"folders ({len(edges)} folder-to-folder arrows)")
    small = small_rooms()
    print(("not ok" if small else "ok") + " - every core folder holds 100 lines or says why it is smaller" +
          (": " + ", ".join(small) if small else ""))
    return 1 if failed or small else 0


if __name__ == "__main__":
    sys.exit(main())
