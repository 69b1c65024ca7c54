#!/usr/bin/env python3
"""layers.py SRC_DIR - the build's layers hold: every #include "..." in
SRC_DIR points to the same layer or one the layer may depend on
(docs/ARCHITECTURE.md), and no modules (a .c and its .h) include each other
in a cycle. Prints each offence and exits 1 if there is any."""
import os
import re
import sys

# Each layer and the layers it may include, besides itself.
ALLOWED = {
    "model": set(),
    "bundle": {"model"},
    "render": {"bundle", "model"},
    "gpu": {"model"},
    "run": {"gpu", "bundle", "model"},
    "tool": {"run", "render", "gpu", "bundle", "model"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main(src):
    problems = []
    graph = {}
    for layer in sorted(os.listdir(src)):
        path = os.path.join(src, layer)
        if not os.path.isdir(path):
            continue
        if layer not in ALLOWED:
            problems.append(f"src/{layer}/: a folder that is no layer (known: {', '.join(ALLOWED)})")
            continue
        for name in sorted(os.listdir(path)):
            if not re.search(r"\.(c|h|cu|cuh)$", name):
                continue
            rel = f"{layer}/{name}"
            with open(os.path.join(path, name), encoding="utf-8") as f:
                text = f.read()
            module = os.path.splitext(rel)[0]
            graph.setdefault(module, set())
            for inc in INCLUDE.findall(text):
                parts = inc.split("/")
                if len(parts) != 2 or parts[0] not in ALLOWED:
                    problems.append(f"src/{rel}: #include \"{inc}\" is not of the form LAYER/FILE")
                    continue
                if not os.path.exists(os.path.join(src, inc)):
                    problems.append(f"src/{rel}: #include \"{inc}\": no such file")
                    continue
                target = parts[0]
                if target != layer and target not in ALLOWED[layer]:
                    problems.append(f"src/{rel}: #include \"{inc}\" points upward ({layer} may "
                                    f"include {', '.join(sorted(ALLOWED[layer])) or 'nothing'} "
                                    f"besides itself)")
                dep = os.path.splitext(inc)[0]
                if dep != module:
                    graph[module].add(dep)
    for cycle in cycles(graph):
        problems.append("modules include each other in a cycle: " + " -> ".join(cycle + cycle[:1]))
    for p in problems:
        print("FAIL: " + p)
    n_files = sum(1 for _ in graph)
    print(f"{n_files} modules in {len(ALLOWED)} layers: {len(problems)} problem(s)")
    return 1 if problems else 0


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
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


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: layers.py SRC_DIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
