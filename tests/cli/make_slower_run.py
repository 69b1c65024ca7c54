#!/usr/bin/env python3
"""make_slower_run.py RESUMMARIZE SRC DST FACTOR [SCOPES] - a doctored copy of
a run that still verifies: the samples of one case in SCOPES (comma
separated; default device, the L2-warm scope) are multiplied by FACTOR, summary.json and peers.json are recomputed from the
samples by RESUMMARIZE (tests/fuzz/minirun_resummarize.c, protocol kept), and
the manifest lines of the changed files are rewritten, as tests/bundle/
tamper.sh does. The case is the run's first one that is neither stream nor
copy (so no other case's ratio to stream moves), read from the run's own
summary.json; its id (<rows>x<cols>.<what>) is printed on stdout."""
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys

resummarize, src, dst, factor = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
scopes = set((sys.argv[5] if len(sys.argv) > 5 else "device").split(","))
shutil.copytree(src, dst)
for root, dirs, files in os.walk(dst):
    for n in dirs + files:
        os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
summary = json.load(open(os.path.join(dst, "summary.json")))
case = next(c for c in summary["cases"] if c["what"] not in ("stream", "copy"))
rel = case["samples_file"]
path = os.path.join(dst, rel)
text = open(path, newline="").read()
rows = list(csv.reader(io.StringIO(text)))
header = rows[0]
ns, scope = header.index("ns"), header.index("scope")
for r in rows[1:]:
    if r[scope] in scopes:
        r[ns] = repr(float(r[ns]) * factor)
out = io.StringIO()
csv.writer(out, lineterminator="\n").writerows(rows)
open(path, "w", newline="").write(out.getvalue())
subprocess.run([resummarize, dst, "keep"], check=True)
changed = {rel, "summary.json", "peers.json"}
lines = []
for line in open(os.path.join(dst, "MANIFEST.sha256")):
    h, name = line.rstrip("\n").split("  ", 1)
    if name in changed:
        h = hashlib.sha256(open(os.path.join(dst, name), "rb").read()).hexdigest()
    lines.append("%s  %s\n" % (h, name))
open(os.path.join(dst, "MANIFEST.sha256"), "w").writelines(lines)
sig = os.path.join(dst, "MANIFEST.sha256.sig")
if os.path.exists(sig):
    os.remove(sig)
print("%dx%d.%s" % (case["rows"], case["cols"], case["what"]))
