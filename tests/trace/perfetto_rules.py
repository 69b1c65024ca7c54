#!/usr/bin/env python3
"""perfetto_rules.py - checks Chrome trace-event JSON files the way Perfetto's
trace processor imports them (its JSON importer: src/trace_processor/
importers/json), since the trace processor itself cannot be installed here.

    perfetto_rules.py [--edges N] FILE.json...
    perfetto_rules.py --self-test

Per file:
  - ts and dur are microseconds; Perfetto converts them to integer
    nanoseconds with llround(value * 1000), and so does this check;
  - nesting: the complete slices ("ph":"X") of one track (pid, tid) either
    nest fully or do not overlap. Perfetto keeps a stack per track; a slice
    that starts inside the open slice and ends after it is a partial overlap
    ("misplaced end event" in its stats), which it reports as an error and
    draws wrongly. A slice starting exactly where another ends does not
    overlap it;
  - flows: every flow id has one start ("s") and one end ("f"), each inside
    a slice of its own track (Perfetto binds a flow event to the slice open
    on its track at its timestamp; one that finds none is dropped);
  - names: every track with slices has a thread_name, every pid a
    process_name.
--edges N: the file must hold exactly N flow arrows (the run's
traces.json dependency_edges_checked of the case).
Prints one line per file; exits 1 if any file breaks a rule.
"""
import bisect
import json
import sys
from collections import defaultdict


def to_ns(value):
    # std::llround(value * 1000.0): halves away from zero.
    x = float(value) * 1000.0
    return int(x + 0.5) if x >= 0 else -int(-x + 0.5)


def check(doc, want_edges=None):
    """Returns (problems, stats) for one parsed trace."""
    problems = []
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    tracks = defaultdict(list)
    thread_names, process_names = set(), set()
    flows = defaultdict(list)
    for e in events:
        ph = e.get("ph")
        if ph == "M":
            if e.get("name") == "thread_name":
                thread_names.add((e.get("pid"), e.get("tid")))
            elif e.get("name") == "process_name":
                process_names.add(e.get("pid"))
        elif ph == "X":
            s = to_ns(e["ts"])
            d = to_ns(e["dur"])
            if d < 0:
                problems.append("slice %s has a negative duration" % e.get("name"))
                continue
            tracks[(e.get("pid"), e.get("tid"))].append((s, s + d, e.get("name")))
        elif ph in ("s", "f", "t"):
            flows[e.get("id")].append(e)
    partial = 0
    slices = 0
    for key, sl in tracks.items():
        sl.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for s, end, name in sl:
            slices += 1
            while stack and stack[-1][1] <= s:
                stack.pop()
            if stack and end > stack[-1][1]:
                partial += 1
                if partial <= 5:
                    problems.append(
                        "track pid %s tid %s: %s [%d, %d] ns partly overlaps %s [%d, %d] ns"
                        % (key[0], key[1], name, s, end, stack[-1][2], stack[-1][0], stack[-1][1]))
                continue
            stack.append((s, end, name))
    if partial > 5:
        problems.append("... %d partly overlapping slices in all" % partial)
    for key in tracks:
        if key not in thread_names:
            problems.append("track pid %s tid %s has slices but no thread_name" % key)
        if key[0] not in process_names:
            problems.append("pid %s has slices but no process_name" % key[0])

    # A sorted start list per track makes "is ts inside a slice" a bisection.
    index = {}
    for key, sl in tracks.items():
        starts = [x[0] for x in sl]
        prefix_max_end = []
        m = -1
        for x in sl:
            m = max(m, x[1])
            prefix_max_end.append(m)
        index[key] = (starts, prefix_max_end)

    def inside(e):
        key = (e.get("pid"), e.get("tid"))
        if key not in index:
            return False
        starts, pme = index[key]
        i = bisect.bisect_right(starts, to_ns(e["ts"])) - 1
        return i >= 0 and pme[i] >= to_ns(e["ts"])

    bad_flows = 0
    for fid, evs in flows.items():
        kinds = sorted(x["ph"] for x in evs)
        if kinds != ["f", "s"]:
            bad_flows += 1
            if bad_flows <= 5:
                problems.append("flow id %s has events %s, want one s and one f" % (fid, kinds))
            continue
        for x in evs:
            if not inside(x):
                bad_flows += 1
                if bad_flows <= 5:
                    problems.append("flow id %s: its %s event at %s us is in no slice of its track"
                                    % (fid, x["ph"], x["ts"]))
    if bad_flows > 5:
        problems.append("... %d bad flow events in all" % bad_flows)
    if want_edges is not None and len(flows) != want_edges:
        problems.append("%d flow arrows, want %d (the dependency edges the checks tested)"
                        % (len(flows), want_edges))
    stats = {"slices": slices, "tracks": len(tracks), "partial_overlaps": partial,
             "flows": len(flows), "groups": len(process_names)}
    return problems, stats


def self_test():
    """The check must fail on what it is meant to catch."""
    def x(name, ts, dur, tid=1):
        return {"name": name, "ph": "X", "pid": 1, "tid": tid, "ts": ts, "dur": dur}
    meta = [{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "p"}},
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "t"}},
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "t2"}}]
    cases = [
        ("disjoint and touching", meta + [x("a", 0, 1), x("b", 1, 1), x("c", 3, 0.5)], True),
        ("fully nested", meta + [x("a", 0, 10), x("b", 2, 3), x("c", 2, 3), x("d", 10, 1)], True),
        ("partial overlap (two blocks on one SM track)", meta + [x("a", 0, 2), x("b", 1, 2)], False),
        ("partial overlap only after rounding to ns", meta + [x("a", 0.0005, 0.9995), x("b", 1.0004, 1)],
         False),
        ("same slices on two tracks", meta + [x("a", 0, 2), x("b", 1, 2, tid=2)], True),
        ("unnamed track", meta + [x("a", 0, 2, tid=3)], False),
        ("flow bound to slices", meta + [x("a", 0, 2), x("b", 3, 2, tid=2),
                                         {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 1},
                                         {"ph": "f", "bp": "e", "id": 1, "pid": 1, "tid": 2, "ts": 4}],
         True),
        ("flow end outside any slice", meta + [x("a", 0, 2), x("b", 3, 2, tid=2),
                                               {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 1},
                                               {"ph": "f", "bp": "e", "id": 1, "pid": 1, "tid": 2,
                                                "ts": 9}], False),
        ("flow without end", meta + [x("a", 0, 2), {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 1}],
         False),
    ]
    fails = 0
    for name, events, want_ok in cases:
        problems, _ = check({"traceEvents": events})
        ok = not problems
        print("%s: %s: %s" % ("ok" if ok == want_ok else "FAIL", name,
                              "accepted" if ok else "refused (%s)" % problems[0]))
        fails += ok != want_ok
    print("self-test: %d of %d cases as expected" % (len(cases) - fails, len(cases)))
    return 1 if fails else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    args = argv[1:]
    want = None
    if len(args) >= 2 and args[0] == "--edges":
        want = int(args[1])
        args = args[2:]
    if not args:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    bad = 0
    for path in args:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("FAIL %s: cannot be read as JSON: %s" % (path, e))
            bad += 1
            continue
        problems, st = check(doc, want)
        if problems:
            bad += 1
            print("FAIL %s: %d slices on %d tracks, %d partly overlapping; %d flows" %
                  (path, st["slices"], st["tracks"], st["partial_overlaps"], st["flows"]))
            for p in problems:
                print("  " + p)
        else:
            print("ok %s: %d slices on %d tracks in %d groups, none partly overlapping; %d flow "
                  "arrows, each bound to slices" % (path, st["slices"], st["tracks"],
                                                     st["groups"], st["flows"]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
