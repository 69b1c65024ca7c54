#!/usr/bin/env python3
"""every_trace_in_perfetto.py BINARY RUN_DIR... - exports every traced case of
each run (the cases its traces.json lists) with `softmax-evidence trace RUN
CASE -o FILE.json` and checks each file with perfetto_rules.py: no two
slices on one track partly overlap, every dependency edge the run's checks
tested (traces.json dependency_edges_checked) is one flow arrow bound to
its two slices, every track and group named.

So that the test can fail, it also counts, from the trace files
themselves, the cases where two tasks on one SM overlap in time: there a
track per SM (the export before block-slot tracks) breaks Perfetto's rule.
The perfetto_rules.py self-test shows the check refuses such a track.
Prints one line per case; exits 1 on any failure.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto_rules  # noqa: E402


def overlapping_on_one_sm(path):
    """Two records of one SM whose [start, end) intervals overlap."""
    by_sm = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            by_sm.setdefault(r["sm"], []).append((int(r["start_ns"]), int(r["end_ns"])))
    for iv in by_sm.values():
        iv.sort()
        reach = None
        for s, e in iv:
            if reach is not None and s < reach:
                return True
            reach = e if reach is None else max(reach, e)
    return False


def main(argv):
    if len(argv) < 3:
        print("usage: every_trace_in_perfetto.py BINARY RUN_DIR...", file=sys.stderr)
        return 2
    binary, runs = argv[1], argv[2:]
    fails = cases = overlapping = remote_only = 0
    with tempfile.TemporaryDirectory() as work:
        for run in runs:
            with open(os.path.join(run, "traces.json")) as f:
                traces = json.load(f)["traces"]
            if not traces:
                print("note: %s has no traced case (its protocol takes no traces)" % run)
            # A selected bundle (docs/ARCHIVE.md) keeps some traces only in its
            # archive, which is not here: those cases are counted, not checked.
            remote = set()
            if os.path.exists(os.path.join(run, "remote.json")):
                with open(os.path.join(run, "remote.json")) as f:
                    remote = set(json.load(f)["files"])
            for t in traces:
                case = t["case"]
                if t["file"] in remote:
                    remote_only += 1
                    continue
                out = os.path.join(work, case + ".json")
                p = subprocess.run([binary, "trace", run, case, "-o", out],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                cases += 1
                if p.returncode != 0 or not os.path.exists(out):
                    print("FAIL %s %s: trace exited %d:\n%s" % (run, case, p.returncode,
                                                               p.stdout[-800:]))
                    fails += 1
                    continue
                with open(out) as f:
                    doc = json.load(f)
                want = t["dependency_edges_checked"] if t.get("kind") != "rows" else 0
                problems, st = perfetto_rules.check(doc, want)
                over = overlapping_on_one_sm(os.path.join(run, t["file"]))
                overlapping += over
                if problems:
                    fails += 1
                    print("FAIL %s: %s" % (case, "; ".join(problems[:3])))
                else:
                    print("ok %s: %d slices on %d block-slot tracks in %d groups, none partly "
                          "overlapping; %d dependency arrows (= edges checked)%s"
                          % (case, st["slices"], st["tracks"], st["groups"], st["flows"],
                             "; tasks overlap on one SM" if over else ""))
                os.unlink(out)
    print("%d traced cases of %d run(s) checked; %d have tasks overlapping on one SM (a track "
          "per SM would break Perfetto's nesting rule there); %d more are remote-only (in their "
          "run's archive, not here)" % (cases, len(runs), overlapping, remote_only))
    if not cases:
        print("FAIL: no traced case in any run given")
        fails += 1
    if cases and not overlapping:
        print("note: no case has tasks overlapping on one SM, so this run cannot tell a track per "
              "SM from a track per block slot")
    print("%d passed, %d failed" % (cases - fails, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
