#!/usr/bin/env python3
"""doctor_samples.py RESUMMARIZE SRC DST WHAT MODE - a copy of run SRC whose
first case of WHAT (e.g. stream) has impossible device-scope samples, for
tests/hostile/samples_times.sh. MODE "scale:F" multiplies every one by F
(-1 negates them), "first:V" sets the first to V. The summaries are then
recomputed from the samples by RESUMMARIZE (tests/fuzz/minirun_resummarize.c,
whose reader takes any time) where they can be (a zero median has no
ratio: that copy keeps its summaries), and the manifest lines of the changed
files are rewritten, so that nothing but the times is wrong."""
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys

resummarize, src, dst, what, mode = sys.argv[1:6]
shutil.copytree(src, dst)
for root, dirs, files in os.walk(dst):
    for n in dirs + files:
        os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
summary = json.load(open(os.path.join(dst, "summary.json")))
case = next(c for c in summary["cases"] if c["what"] == what)
rel = case["samples_file"]
rows = list(csv.reader(io.StringIO(open(os.path.join(dst, rel), newline="").read())))
ns, scope = rows[0].index("ns"), rows[0].index("scope")
kind, value = mode.split(":", 1)
device = [r for r in rows[1:] if r[scope] == "device"]
for r in device if kind == "scale" else device[:1]:
    r[ns] = repr(float(r[ns]) * float(value)) if kind == "scale" else value
out = io.StringIO()
csv.writer(out, lineterminator="\n").writerows(rows)
open(os.path.join(dst, rel), "w", newline="").write(out.getvalue())
r = subprocess.run([resummarize, dst, "keep"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
if r.returncode != 0:
    print(f"doctor_samples: summaries not recomputed: {r.stdout.decode().strip()}", file=sys.stderr)
lines = []
for line in open(os.path.join(dst, "MANIFEST.sha256")):
    h, name = line.rstrip("\n").split("  ", 1)
    if name in (rel, "summary.json", "peers.json"):
        h = hashlib.sha256(open(os.path.join(dst, name), "rb").read()).hexdigest()
    lines.append("%s  %s\n" % (h, name))
open(os.path.join(dst, "MANIFEST.sha256"), "w").writelines(lines)
print(rel)
