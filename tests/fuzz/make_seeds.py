#!/usr/bin/env python3
"""make_seeds.py REFERENCE_RUN SOURCE_DIR OUT_DIR [--finish] - the fuzzers'
inputs, made at configure time from the committed reference run (nothing
large is committed); --finish, at build time after minirun_resummarize has
rewritten the mini run's summaries with few bootstrap resamples, updates
its run.json and manifest and writes fuzz_verify's seeds:

  OUT_DIR/minirun/            the reference run cut down to one shape (1x7):
                              its protocol, records, samples, traces, peers
                              and arrays for that shape, a fresh manifest.
                              It verifies; fuzz_verify replaces one of its
                              files with the fuzz input.
  OUT_DIR/corpus/<harness>/   seed inputs per harness: small files of the
                              reference run (at most 4 KB each for the
                              readers; the mini run's JSON files for verify;
                              the committed remote.json files for remote).
                              fuzz_archive and fuzz_sign make theirs at
                              start (scripts/fuzz.sh collects them).
"""
import hashlib
import json
import os
import shutil
import sys

SHAPE = "1x7"
MAX_SEED = 4096

# fuzz_verify's selector: the input's first byte modulo this list's length
# picks the file it replaces (tests/fuzz/fuzz_verify.c has the same list).
VERIFY_TARGETS = ["protocol.json", "summary.json", "validation.json", "traces.json",
                  "peers.json", "run.json", "environment.json", "resources.json",
                  "MANIFEST.sha256"]


def dump(obj):
    return (json.dumps(obj, indent=2) + "\n").encode()


def of_shape(x):
    return isinstance(x, dict) and (x.get("shape") in (SHAPE,) or
                                    str(x.get("case", "")).startswith(SHAPE + ".") or
                                    x.get("id") == SHAPE)


def minirun(ref, out):
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    load = lambda name: json.load(open(os.path.join(ref, name)))
    files = {}
    prot = load("protocol.json")
    prot["workload"]["shapes"] = [SHAPE]
    files["protocol.json"] = dump(prot)
    summ = load("summary.json")
    summ["cases"] = [c for c in summ["cases"] if of_shape(c)]
    summ["derived"]["shapes"] = [s for s in summ["derived"]["shapes"] if s.get("id") == SHAPE]
    files["summary.json"] = dump(summ)
    val = load("validation.json")
    val["cases"] = [c for c in val["cases"] if of_shape(c)]
    files["validation.json"] = dump(val)
    tr = load("traces.json")
    for k in ("traces", "overlap", "tracing_cost"):
        if isinstance(tr.get(k), list):
            tr[k] = [t for t in tr[k] if of_shape(t)]
    files["traces.json"] = dump(tr)
    peers = load("peers.json")
    peers["peers"] = [p for p in peers["peers"] if of_shape(p)]
    files["peers.json"] = dump(peers)
    run = load("run.json")
    run["source_files"] = []
    files["run.json"] = dump(run)
    for name in ("environment.json", "resources.json"):
        files[name] = open(os.path.join(ref, name), "rb").read()
    for sub in ("samples", "traces", "arrays"):
        if not os.path.isdir(os.path.join(ref, sub)):
            continue  # a run that saved no arrays (or took no traces)
        for f in sorted(os.listdir(os.path.join(ref, sub))):
            if f.startswith(SHAPE + ".") or f.startswith("control.") or f == "outputs.csv":
                data = open(os.path.join(ref, sub, f), "rb").read()
                if f == "outputs.csv":
                    lines = data.decode().splitlines(True)
                    data = "".join(l for l in lines if l.startswith("case") or
                                   l.startswith(SHAPE + ".")).encode()
                files[sub + "/" + f] = data
    for f in os.listdir(os.path.join(ref, "peers")):
        files["peers/" + f] = open(os.path.join(ref, "peers", f), "rb").read()
    for rel, data in files.items():
        os.makedirs(os.path.dirname(os.path.join(out, rel)) or out, exist_ok=True)
        open(os.path.join(out, rel), "wb").write(data)
    write_manifest(out)
    return files


def write_manifest(out):
    """run.json's protocol hash and a fresh MANIFEST.sha256 over the mini run."""
    run = json.load(open(os.path.join(out, "run.json")))
    prot = open(os.path.join(out, "protocol.json"), "rb").read()
    run["protocol"]["bundle_copy_sha256"] = hashlib.sha256(prot).hexdigest()
    open(os.path.join(out, "run.json"), "wb").write(dump(run))
    rels = []
    for d, _, names in os.walk(out):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), out)
            if rel != "MANIFEST.sha256":
                rels.append(rel)
    with open(os.path.join(out, "MANIFEST.sha256"), "w") as m:
        for rel in sorted(rels):
            data = open(os.path.join(out, rel), "rb").read()
            m.write("%s  %s\n" % (hashlib.sha256(data).hexdigest(), rel))


def verify_seeds(out, corpus):
    d = os.path.join(corpus, "verify")
    if os.path.exists(d):
        shutil.rmtree(d)
    for i, name in enumerate(VERIFY_TARGETS):
        path = os.path.join(out, "minirun", name)
        seed(corpus, "verify", "%d-%s" % (i, name), bytes([i]) + open(path, "rb").read())


def seed(corpus, harness, name, data):
    d = os.path.join(corpus, harness)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, name), "wb").write(data)


def main():
    ref, src, out = sys.argv[1:4]
    corpus = os.path.join(out, "corpus")
    if sys.argv[4:] == ["--finish"]:
        write_manifest(os.path.join(out, "minirun"))
        verify_seeds(out, corpus)
        return 0
    files = minirun(ref, os.path.join(out, "minirun"))
    if os.path.exists(corpus):
        shutil.rmtree(corpus)
    seed(corpus, "protocol", "reference.json", open(os.path.join(ref, "protocol.json"), "rb").read())
    for d in ("protocol", "bench", "tests/gpu"):
        for f in sorted(os.listdir(os.path.join(src, d))):
            p = os.path.join(src, d, f)
            if f.endswith(".json") and os.path.getsize(p) <= MAX_SEED:
                seed(corpus, "protocol", d.replace("/", "_") + "_" + f, open(p, "rb").read())
    lines = open(os.path.join(ref, "MANIFEST.sha256"), "rb").read().splitlines(True)
    for i in range(0, min(len(lines), 120), 20):
        seed(corpus, "manifest", "lines%03d" % i, b"".join(lines[i:i + 20]))
    seed(corpus, "manifest", "minirun",
         open(os.path.join(out, "minirun", "MANIFEST.sha256"), "rb").read()[:MAX_SEED])
    for rel, data in sorted(files.items()):
        base = os.path.basename(rel)
        if rel.startswith("samples/") and len(data) <= 2 * MAX_SEED:
            seed(corpus, "samples", base, data[:MAX_SEED])
        if rel.startswith("traces/") and base.count(".") == 2 and len(data) <= 2 * MAX_SEED:
            seed(corpus, "trace", base, data[:MAX_SEED])
    # remote.json: the committed selected bundles' (fuzz_remote).
    for root, dirs, names in sorted(os.walk(os.path.join(src, "runs"))):
        if "remote.json" in names:
            p = os.path.join(root, "remote.json")
            seed(corpus, "remote", os.path.relpath(root, src).replace("/", "_") + ".json",
                 open(p, "rb").read())
    verify_seeds(out, corpus)
    return 0


if __name__ == "__main__":
    sys.exit(main())
