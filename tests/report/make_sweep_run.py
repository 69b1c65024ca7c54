#!/usr/bin/env python3
"""make_sweep_run.py RESUMMARIZE SRC DST [small] - a small SYNTHETIC run with
several row lengths, for the tests of fig8, the report's row-length tables
and `softmax-evidence goals` (tests/report/sweep_test.sh). It is not a
measurement: each of its shapes takes every samples file, validation record
and peer entry of one shape of the real run SRC (runs/reference) under its
own name, so that the run has the sweep protocol's structure (an input-size
family of 33.5 MB with eight row lengths and two unaligned pairs, one of
268 MB with two, 1-row launch-bound shapes) and still verifies: the protocol
lists the new shapes with traces off, summary.json and the peers' summaries
are recomputed from the samples by RESUMMARIZE (tests/fuzz/
minirun_resummarize.c, 200 bootstrap resamples), and the manifest is
rewritten (tests/fuzz/make_seeds.py). run.json names it synthetic.
With "small", only three shapes of three row lengths (fig8 is not drawn).
The mapping, target <- source, is printed on stdout."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))
import make_seeds  # noqa: E402  (write_manifest)

SWEEP = [
    ("8192x1024", "32x4096"), ("2048x4096", "4096x4096"), ("2047x4097", "4x4194301"),
    ("1024x8192", "4096x4096"), ("256x32768", "1024x32768"), ("32x262144", "64x262144"),
    ("8x1048573", "8x1048573"), ("8x1048576", "8x1048576"),
    ("16384x4096", "4096x4096"), ("16380x4097", "4x4194301"), ("16368x4100", "4096x4096"),
    ("1x1", "1x1"), ("1x7", "1x7"), ("1x4096", "3x4097"), ("1x32768", "5x4097"),
]
SMALL = [("1x1", "1x1"), ("1x7", "1x7"), ("8x1048576", "8x1048576")]


def dims(spec):
    r, c = spec.split("x")
    return int(r), int(c)


def retarget(entry, src, dst):
    """A copy of a record of shape src renamed to shape dst."""
    e = json.loads(json.dumps(entry))
    r, c = dims(dst)
    for k, v in list(e.items()):
        if isinstance(v, str) and (v == src or v.startswith(src + ".") or
                                   v.startswith("samples/" + src + ".")):
            e[k] = v.replace(src, dst, 1)
    if "shape" in e:
        e["shape"] = dst  # the source's may be its spec ("5xT+1")
    if "rows" in e:
        e["rows"], e["cols"] = r, c
    if "elements" in e:
        e["elements"] = r * c
    return e


def of(entry, src):
    if "rows" in entry:
        return (entry["rows"], entry.get("cols")) == dims(src)
    return entry.get("shape") == src


def main():
    resummarize, src, dst = sys.argv[1:4]
    mapping = SMALL if sys.argv[4:] == ["small"] else SWEEP
    if os.path.exists(dst):
        shutil.rmtree(dst)
    os.makedirs(os.path.join(dst, "samples"))
    load = lambda name: json.load(open(os.path.join(src, name)))
    save = lambda name, obj: open(os.path.join(dst, name), "w").write(json.dumps(obj, indent=2) + "\n")
    prot = load("protocol.json")
    prot["name"] = "synthetic-sweep-test"
    prot["workload"]["shapes"] = [t for t, _ in mapping]
    prot["traces"] = False
    save("protocol.json", prot)
    val, peers, res = load("validation.json"), load("peers.json"), load("resources.json")
    vcases, pcases, launches = [], [], []
    for t, s in mapping:
        vcases += [retarget(c, s, t) for c in val["cases"] if of(c, s)]
        pcases += [retarget(c, s, t) for c in peers["peers"] if of(c, s)]
        launches += [retarget(c, s, t) for c in res.get("launches", []) if of(c, s)]
        for f in sorted(os.listdir(os.path.join(src, "samples"))):
            if f.startswith(s + "."):
                shutil.copyfile(os.path.join(src, "samples", f),
                                os.path.join(dst, "samples", t + f[len(s):]))
        print("%s <- %s" % (t, s))
    for f in os.listdir(os.path.join(src, "samples")):
        if f.startswith("control."):
            shutil.copyfile(os.path.join(src, "samples", f), os.path.join(dst, "samples", f))
    val["cases"] = vcases
    peers["peers"] = pcases
    res["launches"] = launches
    save("validation.json", val)
    save("peers.json", peers)
    save("resources.json", res)
    tr = load("traces.json")
    for k in ("traces", "overlap", "tracing_cost"):
        tr[k] = []
    save("traces.json", tr)
    run = load("run.json")
    run["source_files"] = []
    # run.json holds only the fields docs/BUNDLE.md lists: the run id of
    # the year 2000 marks the run as synthetic (and this script's name is
    # in no real run).
    run["run_id"] = "20000101T000000Z"
    # the sampled rows of checks/ are the source shapes' (their rows and
    # columns): the synthetic run has none, as runs made before checks/
    if "checks_saved" in run:
        run["checks_saved"] = False
    save("run.json", run)
    if os.path.exists(os.path.join(src, "strategies.json")):  # the run's own strategy table
        shutil.copyfile(os.path.join(src, "strategies.json"), os.path.join(dst, "strategies.json"))
    shutil.copyfile(os.path.join(src, "environment.json"), os.path.join(dst, "environment.json"))
    shutil.copytree(os.path.join(src, "peers"), os.path.join(dst, "peers"))
    subprocess.run([resummarize, dst, "200"], check=True)
    make_seeds.write_manifest(dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
