#!/usr/bin/env python3
"""two_level_check.py BINARY SET_FILE [SHAPE...] - a second implementation
of the answer over several runs, written from docs/TIMING.md ("Several
runs": the two-level bootstrap, the answer's interval and the leave-one-out
calibration), Python
standard library only, draw by draw (Stream of independent_bootstrap.py).

For the named shapes (default: the first shape of the set's first run) it
recomputes every ratio of the answer (each mechanism over stream, graph-pdl
over graph, megakernel over graph-pdl): the point value, the 95 % interval
and, leaving each run out, whether that run's ratio lies in the interval of
the others; then it runs `BINARY answer --set SET_FILE` and compares the
printed grid row, head-to-head entries (3 decimals) and the footnote's
per-shape calibration counts. Exits 1 on any difference.
"""
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from independent_bootstrap import Stream, fnv1a, mix64, percentile, interval, read_samples  # noqa: E402

MECHS = ["graph", "stream-pdl", "graph-pdl", "fusion", "fusion-graph", "megakernel",
         "megakernel-graph"]
VS = [("graph-pdl", "graph"), ("megakernel", "graph-pdl")]


def median(v):
    return percentile(sorted(v), 50.0)


def two_level(runs, resamples, seed):
    """runs: [(a, b)] sample lists of each run; (point, lo, hi)."""
    k = len(runs)
    point = median([median(a) / median(b) for a, b in runs])
    if resamples == 0:
        return point, point, point
    g = Stream(seed)
    stats = []
    for _ in range(resamples):
        pick = [g.next() % k for _ in range(k)]
        for j in pick:
            a, b = runs[j]
            if len(a) == len(b):
                idx = [g.next() % len(a) for _ in range(len(a))]
                ra, rb = [a[i] for i in idx], [b[i] for i in idx]
            else:
                ra = [a[g.next() % len(a)] for _ in range(len(a))]
                rb = [b[g.next() % len(b)] for _ in range(len(b))]
            stats.append(median(ra) / median(rb))
    lo, hi = interval(stats)
    return point, lo, hi


def t975_table(stats_c):
    """Student's t 97.5th percentiles of src/model/stats.c (checked on their
    own by t_quantiles.py)."""
    m = re.search(r"t975_table\[100\] = \{(.*?)\};", open(stats_c).read(), re.S)
    return [float(x) for x in m.group(1).replace("\n", " ").split(",") if x.strip()]


T975 = []


def t975(df):
    if df <= 100:
        return T975[df - 1]
    z, v = 1.959963984540054, float(df)
    z2 = z * z
    return (z + z * (z2 + 1.0) / (4.0 * v) + z * ((5.0 * z2 + 16.0) * z2 + 3.0) / (96.0 * v * v)
            + z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / (384.0 * v * v * v))


def answer_interval(runs, resamples, seed):
    """The answer's interval (docs/TIMING.md): the two-level bounds, widened
    where k >= 2 to the run-level prediction interval of one more run."""
    point, lo, hi = two_level(runs, resamples, seed)
    k = len(runs)
    if k >= 2 and resamples > 0:
        logs = [math.log(median(a) / median(b)) for a, b in runs]
        m = 0.0
        for x in logs:
            m += x
        m /= k
        ss = 0.0
        for x in logs:
            ss += (x - m) * (x - m)
        h = t975(k - 1) * math.sqrt(ss / (k - 1)) * math.sqrt(1.0 + 1.0 / k)
        lo, hi = min(lo, math.exp(m - h)), max(hi, math.exp(m + h))
    return point, lo, hi


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, set_file, shapes = argv[1], argv[2], argv[3:]
    T975.extend(t975_table(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                        "src", "model", "stats.c")))
    folder = os.path.dirname(os.path.abspath(set_file))
    runs = [os.path.join(folder, r) for r in json.load(open(set_file))["runs"]]
    proto = json.load(open(os.path.join(runs[0], "protocol.json")))
    base = proto["analysis"]["bootstrap_seed"]
    resamples = proto["analysis"]["bootstrap_resamples"]
    if not shapes:
        summary = json.load(open(os.path.join(runs[0], "summary.json")))
        c = summary["cases"][0]
        shapes = ["%dx%d" % (c["rows"], c["cols"])]
    out = subprocess.run([binary, "answer", "--set", set_file], capture_output=True, text=True)
    if out.returncode != 0:
        print("FAIL: answer --set exited %d: %s" % (out.returncode, out.stderr.strip()))
        return 1
    text = out.stdout
    problems = 0
    for shape in shapes:
        def samples(run, what):
            return read_samples(os.path.join(run, "samples", "%s.%s.csv" % (shape, what)),
                                ["device"])["device"]
        cells, covered, checked = {}, 0, 0
        for a, b in [(m, "stream") for m in MECHS] + VS:
            pairs = [(samples(r, a), samples(r, b)) for r in runs]
            seed = mix64(base ^ fnv1a("runs:%s.%s/%s.%s/device" % (shape, a, shape, b)))
            cells[(a, b)] = answer_interval(pairs, resamples, seed)
            for h in range(len(pairs) if len(pairs) > 1 else 0):
                _, lo, hi = answer_interval(pairs[:h] + pairs[h + 1:], resamples, seed)
                own = median(pairs[h][0]) / median(pairs[h][1])
                checked += 1
                covered += lo <= own <= hi
        row = re.search(r"^%s\s+(.*)$" % re.escape(shape), text, re.M)
        want = " ".join("%.3f (%.3f-%.3f)" % cells[(m, "stream")] for m in MECHS)
        got = " ".join(row.group(1).split()) if row else None
        if got != want:
            print("FAIL %s grid: printed %r, recomputed %r" % (shape, got, want))
            problems += 1
        for a, b in VS:
            entry = "%s %.3f (%.3f-%.3f)" % ((shape,) + cells[(a, b)])
            line = next((l for l in text.splitlines() if l.startswith("%s over %s" % (a, b))), "")
            if (" " + entry + " ") not in line:
                print("FAIL %s: %s over %s: %r not in %r" % (shape, a, b, entry, line[:200]))
                problems += 1
        if len(runs) > 1:
            m = re.search(r"[:;] %s (\d+)/(\d+)[;.]" % re.escape(shape), text)
            if not m or (int(m.group(1)), int(m.group(2))) != (covered, checked):
                print("FAIL %s calibration: printed %s, recomputed %d/%d" %
                      (shape, m.group(0) if m else None, covered, checked))
                problems += 1
        print("%s %s: %d ratios and their intervals over %d runs, calibration %d/%d" %
              ("ok" if not problems else "checked", shape, len(cells), len(runs), covered, checked))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
