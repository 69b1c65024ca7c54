#!/usr/bin/env python3
"""check_sweep.py RUN FIGURES_DIR GOALS_MD - checks fig8's data file, the
report's row-length tables and `softmax-evidence goals --format md` against
a second implementation, here, of docs/PERFORMANCE.md's rules ("The sweep's
goals"): the groups, the fractions of copy (read from summary.json and
peers.json), our fastest, the best peer, the goals and G5's pairs. Prints
one line per check and exits 1 on the first wrong number."""
import json
import math
import os
import sys

run, figdir, goals_md = sys.argv[1:4]
summary = json.load(open(os.path.join(run, "summary.json")))
validation = json.load(open(os.path.join(run, "validation.json")))
peers = json.load(open(os.path.join(run, "peers.json")))["peers"]
shapes_spec = json.load(open(os.path.join(run, "protocol.json")))["workload"]["shapes"]
REFERENCE = {"cudnn"}
TILED = ["stream", "graph", "stream-pdl", "graph-pdl", "fusion", "fusion-graph", "megakernel",
         "megakernel-graph"]
passed = {c["case"]: c["pass"] for c in validation["cases"]}
fails = 0


def check(what, cond):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails += 1


shapes = []  # (id, rows, cols)
for c in summary["cases"]:
    sid = "%dx%d" % (c["rows"], c["cols"])
    if sid not in [s[0] for s in shapes]:
        shapes.append((sid, c["rows"], c["cols"]))
check("the run has %d shapes, as its protocol" % len(shapes), len(shapes) == len(shapes_spec))

# Items per shape: name -> (peer, validated, [median warm, cold], [fraction warm, cold]).
items = {s[0]: {} for s in shapes}
copy = {}
for c in summary["cases"]:
    sid = "%dx%d" % (c["rows"], c["cols"])
    sc = c["scopes"]
    if c["what"] == "copy":
        copy[sid] = (sc["device"]["median_ns"], sc["device_cold"]["median_ns"])
    elif c["what"] != "megakernel_init":
        items[sid][c["what"]] = (False, passed.get(c["case"], False),
                                 [sc["device"]["median_ns"], sc["device_cold"]["median_ns"]],
                                 [sc["device"]["fraction_of_copy"], sc["device_cold"]["fraction_of_copy"]])
for p in peers:
    if p.get("summary"):
        sid = "%dx%d" % (p["rows"], p["cols"])
        items[sid][p["peer"]] = (True, p["status"] == "ok", [p["summary"]["median_ns"], None],
                                 [p["summary"]["fraction_of_copy"], None])
# Independently: the fraction is the copy's median over the item's, per scope.
for sid, its in items.items():
    for name, (peer, _, med, fr) in its.items():
        for k in range(1 if peer else 2):
            if abs(fr[k] - copy[sid][k] / med[k]) > 1e-12 * fr[k]:
                check("%s %s: fraction_of_copy is median(copy) / median" % (sid, name), False)

# Groups: launch-bound (moves < 1e6 bytes) by rows; families by input, span 4.
moved = {s[0]: 8.0 * s[1] * s[2] for s in shapes}
group_of, groups = {}, []
fam = sorted((s for s in shapes if moved[s[0]] >= 1e6), key=lambda s: s[1] * s[2])
while fam:
    first = fam[0][1] * fam[0][2]
    g = [s for s in fam if s[1] * s[2] <= 4 * first]
    fam = fam[len(g):]
    groups.append(("family", g))
for r in sorted({s[1] for s in shapes if moved[s[0]] < 1e6}):
    groups.append(("launch", [s for s in shapes if moved[s[0]] < 1e6 and s[1] == r]))
for gi, (_, g) in enumerate(groups):
    g.sort(key=lambda s: (s[2], s[1]))
    for s in g:
        group_of[s[0]] = gi
drawn = [gi for gi, (_, g) in enumerate(groups) if len({s[2] for s in g}) >= 4]
print("info: %d groups, %d drawn" % (len(groups), len(drawn)))

# ---- fig8's data file ---------------------------------------------------
blocks, cur = [], None
for line in open(os.path.join(figdir, "data", "fig8_rowlength.tsv")):
    line = line.rstrip("\n")
    if line.startswith("# block "):
        cur = []
        blocks.append((line, cur))
    elif line and not line.startswith("#"):
        cur.append(line.split("\t"))
want = []
names = []
for sid, _, _ in shapes:
    for n, v in items[sid].items():
        if not v[0] and n not in names:
            names.append(n)
for sid, _, _ in shapes:
    for n, v in items[sid].items():
        if v[0] and n not in names:
            names.append(n)
for gi in drawn:
    for k in range(2):
        for n in names:
            rows = []
            for sid, r, c in groups[gi][1]:
                v = items[sid].get(n)
                if v and v[3][k] is not None:
                    rows.append([str(c), v[3][k], v[2][k], str(r), sid, str(int(v[1]))])
            if rows:
                want.append((k, n, rows))
check("fig8 data: %d blocks, one per (drawn group, scope, item with a value)" % len(want),
      len(blocks) == len(want))
good = len(blocks) == len(want)
for (head, got), (k, n, rows) in zip(blocks, want):
    scope = "device_cold" if k else "device"
    if not head.endswith(", %s, %s" % (scope, n)) or len(got) != len(rows):
        good = False
        print("  block %s: want %s %s, %d rows; got %d" % (head, scope, n, len(rows), len(got)))
        continue
    for g, w in zip(got, rows):
        if (g[0], g[3], g[4], g[5]) != (w[0], w[3], w[4], w[5]) or float(g[1]) != w[1] or float(g[2]) != w[2]:
            good = False
            print("  %s: got %s, want %s" % (head, g, w))
check("fig8 data: every row's length, fraction (bit for bit), median, shape and validation", good)

# ---- the report's table -------------------------------------------------
report = open(os.path.join(figdir, "report.md")).read()
check("report.md has the section 'Fraction of copy by row length'",
      "## Fraction of copy by row length" in report)
good = True
for sid, r, c in shapes:
    cells = []
    for n in names:
        v = items[sid].get(n)
        if not v:
            cells.append("-")
        elif v[0]:
            cells.append("%.3f%s" % (v[3][0], "" if v[1] else " (failed)"))
        else:
            cells.append("%.3f / %.3f%s" % (v[3][0], v[3][1], "" if v[1] else " (failed)"))
    line = "| %d | %s | %s |" % (c, sid, " | ".join(cells))
    if line not in report:
        good = False
        print("  report.md lacks: " + line)
check("report.md: one row per shape with every item's fraction warm / flushed", good)

# ---- goals --------------------------------------------------------------
md = open(goals_md).read()


def fastest(sid, k, keep):
    best = None
    for n, v in items[sid].items():
        if v[1] and keep(n, v) and v[2][k] is not None and (best is None or v[2][k] < best[1][2][k]):
            best = (n, v)
    return best


ours = lambda n, v: not v[0] and n not in REFERENCE
peer = lambda n, v: v[0] or n in REFERENCE
tiled = lambda n, v: not v[0] and n in TILED
met = [0] * 5
of = [0] * 5
good = True
for sid, r, c in shapes:
    w, cold = fastest(sid, 0, ours), fastest(sid, 1, ours)
    bp, bt = fastest(sid, 0, peer), fastest(sid, 0, tiled)
    g = ["-"] * 4
    if moved[sid] >= 64e6:
        g[0] = w[1][3][0] >= 0.90 and cold[1][3][1] >= 0.80
        g[3] = bt is not None and bt[1][3][0] >= 0.40
    if moved[sid] >= 1e6 and bp:
        g[1] = w[1][2][0] < bp[1][2][0]
    if groups[group_of[sid]][0] == "launch" and r <= 8:
        g[2] = w[1][2][0] - copy[sid][0] <= 200.0
    for k in range(4):
        if g[k] != "-":
            of[k] += 1
            met[k] += g[k]
    mark = lambda x: "-" if x == "-" else ("met" if x else "NOT MET")
    frag = "| %s | " % sid
    row = next((l for l in md.split("\n") if l.startswith(frag) and " / " in l), None)
    cells = row.split(" | ") if row else []
    want_cells = {4: "%s %.3f" % (w[0], w[1][3][0]), 5: "%s %.3f" % (cold[0], cold[1][3][1]),
                  6: mark(g[0]), 9: mark(g[1]), 11: mark(g[2]),
                  12: "%s %.3f" % (bt[0], bt[1][3][0]) if bt else "-", 13: mark(g[3]) + " |"}
    for i, v in want_cells.items():
        if len(cells) <= i or cells[i] != v:
            good = False
            print("  goals %s cell %d: got %r, want %r" % (sid, i, cells[i] if len(cells) > i else None, v))
check("goals: per shape, ours warm and flushed, best tiled, G1 to G4", good)

# G5: pairs within a group, nearest aligned length within a factor 1.25,
# among those of as many tiles a row where there is one.
TILE = json.load(open(os.path.join(run, "protocol.json")))["workload"]["tile"]
ntiles = lambda c: (c + TILE - 1) // TILE
pairs, unpaired = [], 0
for gi, (_, g) in enumerate(groups):
    for sid, r, c in g:
        if c % 4 == 0:
            continue
        cand = [(abs(math.log(c2 / c)), s2, ntiles(c2) == ntiles(c)) for s2, _, c2 in g
                if c2 % 4 == 0]
        cand = [x for x in cand if x[0] <= math.log(1.25) * (1 + 1e-12)]
        if not cand:
            unpaired += 1
            continue
        same = [x for x in cand if x[2]]
        a = min(same or cand)[1]
        au = "%dx%d" % (r, c)
        ra, ca = next((x[1], x[2]) for x in shapes if x[0] == a)
        ratios = {}
        for n in TILED:
            if n in items[sid] and n in items[a]:
                ratios[n] = (items[sid][n][2][0] / (r * c)) / (items[a][n][2][0] / (ra * ca))
        ok = all(x <= 1.05 for x in ratios.values())
        pairs.append((au, a, ratios, ok))
        of[4] += 1
        met[4] += ok
good = True
for u, a, ratios, ok in pairs:
    row = next((l for l in md.split("\n") if l.startswith("| %s | %s |" % (u, a))), None)
    want = "| %s | %s | %s | %s |" % (u, a, " | ".join(
        "%.3f%s" % (ratios[n], " (slower)" if ratios[n] > 1.05 else "") for n in TILED),
        "met" if ok else "NOT MET")
    if row != want:
        good = False
        print("  G5 row: got %r\n          want %r" % (row, want))
check("goals: G5's %d pairs (%d unpaired), every ratio" % (len(pairs), unpaired), good and pairs)
for k in range(5):
    line = "met on %d of %d" % (met[k], of[k])
    got = [l for l in md.split("\n") if l.startswith("- G%d:" % (k + 1))]
    check("goals: G%d %s" % (k + 1, line), len(got) == 1 and line in got[0])
check("goals: G5 line counts %d unpaired" % unpaired,
      "(%d unaligned shape" % unpaired in md)
sys.exit(1 if fails else 0)
