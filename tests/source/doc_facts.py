#!/usr/bin/env python3
"""doc_facts.py SOURCE_DIR - facts that docs state about committed runs,
read back from the runs' own files:
  - docs/BUNDLE.md names the repeat run's GPU UUID and the reference's, and
    both runs' start times (environment.json gpu.uuid, run.json started_utc);
  - docs/BUNDLE.md's count of the kernels resources.json lists (runs/reference)
    against those its own sources (runs/reference/source) define;
  - docs/SLURM.md's largest difference between the fleet's two GPUs, 1x1
    stream, gives the percentage and the microseconds that the two tasks'
    printed tables (logs/task-*.out.gz) give."""
import glob
import gzip
import json
import os
import re
import sys

src = sys.argv[1]
fails = []


def load(path):
    with open(os.path.join(src, path)) as f:
        return json.load(f)


bundle = open(os.path.join(src, "docs/BUNDLE.md")).read()
bundle = " ".join(bundle.split())
repeats = [os.path.relpath(d, src) for d in sorted(glob.glob(os.path.join(src, "runs/repeat/*/")))]
for run in ["runs/reference"] + repeats:
    uuid = load(run + "/environment.json")["gpu"]["uuid"]
    start = load(run + "/run.json")["started_utc"]
    if uuid not in bundle:
        fails.append("docs/BUNDLE.md does not name %s's GPU %s" % (run, uuid))
    if start not in bundle and start[11:19] not in bundle:
        fails.append("docs/BUNDLE.md does not give %s's start %s" % (run, start))

# resources.json lists every launched kernel; the doc says how many of how many,
# both of runs/reference: the kernels its own sources (source/, embedded at
# build time) define, not today's, so a kernel added since changes no fact.
kernels = len(load("runs/reference/resources.json")["kernels"])
m = re.search(r"(\d+) of the (\d+) in runs/reference", bundle)
defined = set()
for cu in glob.glob(os.path.join(src, "runs/reference/source/src/gpu/*.cu")):
    text = open(cu).read()
    defined |= set(re.findall(r"__global__ void(?: __launch_bounds__\([A-Z_0-9, ]+\))? (se_k_[a-z_0-9]+)\(", text))
    # the macros of rowblock*.cu (as tests/source/kernel_table.sh counts them):
    # SE_RB_..._KERNEL(name, ...), and SE_RB_SPAN_KERNEL also defines name_direct
    defined |= set(re.findall(r"^SE_RB_[A-Z_]*KERNEL\((se_k_[a-z_0-9]+)", text, re.M))
    defined |= {k + "_direct" for k in re.findall(r"^SE_RB_SPAN_KERNEL\((se_k_[a-z_0-9]+)", text, re.M)}
if not m or int(m.group(1)) != kernels or int(m.group(2)) != len(defined):
    fails.append("docs/BUNDLE.md's resources.json count is not '%d of the %d in runs/reference'"
                 % (kernels, len(defined)))

slurm = " ".join(open(os.path.join(src, "docs/SLURM.md")).read().split())
fleet = sorted(glob.glob(os.path.join(src, "runs/fleet/*/logs")))[0]
med = []
for t in (0, 1):
    with gzip.open(os.path.join(fleet, "task-%d.out.gz" % t), "rt") as f:
        rows = [l.split() for l in f if re.match(r"^1x1 +stream +[0-9.]+ +\[", l)]
    med.append(float(rows[0][2]))
pct = (1 - med[1] / med[0]) * 100
want = "1x1 stream (GPU 1 %.1f %% faster, %.2f us" % (pct, med[0] - med[1])
if want not in slurm:
    fails.append("docs/SLURM.md does not say '%s' (from the tasks' tables: %.2f and %.2f us)"
                 % (want, med[0], med[1]))

for f in fails:
    print("FAIL: " + f)
print("docs' facts about committed runs: %d wrong" % len(fails))
sys.exit(1 if fails else 0)
