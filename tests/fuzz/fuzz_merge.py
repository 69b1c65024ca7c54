#!/usr/bin/env python3
"""fuzz_merge.py SECONDS SOURCE_DIR DB - Hypothesis harness of
scripts/slurm/merge.py's inputs (docs/FUZZING.md): fleets of 1 to 3 tasks
whose task folders are missing, links, or hold a task.json that is random
bytes, a FIFO, or JSON with every field of any type (text with control
characters included), and a run_dir inside or outside the task's folder.
merge.py's main runs in-process with a stand-in binary (verify and answer
print control characters and exit 0). It must never raise, must return 0 or
1, must write a fleet.json that lists every task and a fleet.md with no
control character but the newline, and may say PASS only when every task is
ok with its own run folder."""
import importlib.util
import io
import json
import os
import shutil
import stat
import sys
import tempfile
import contextlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyfuzz  # noqa: E402

seconds, src, db = float(sys.argv[1]), sys.argv[2], sys.argv[3]
pyfuzz.need_hypothesis("fuzz_merge")
from hypothesis import given, strategies as st  # noqa: E402

spec = importlib.util.spec_from_file_location("merge", os.path.join(src, "scripts/slurm/merge.py"))
merge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(merge)

work = tempfile.mkdtemp(prefix="se-fuzz-merge-")
fake = os.path.join(work, "se")
with open(fake, "w") as f:
    f.write("#!/bin/sh\nprintf 'verify: OK \\033[2J\\007\\r\\n| a | b |\\n'\nexit 0\n")
os.chmod(fake, 0o755)

text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x2FF), max_size=12)
scalar = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(), text)
value = st.recursive(scalar, lambda c: st.one_of(st.lists(c, max_size=3),
                                                 st.dictionaries(text, c, max_size=3)), max_leaves=6)
FIELDS = ["format", "version", "status", "exit_code", "run_dir", "hostname", "message",
          "cuda_visible_devices", "slurm_job_id", "stand_in"]
GOOD = {"format": "softmax-evidence-slurm-task", "version": 1, "status": "ok", "exit_code": 0,
        "hostname": "n1", "message": None}
task = st.one_of(
    st.just(("missing",)), st.just(("link",)), st.just(("fifo",)),
    st.tuples(st.just("bytes"), st.binary(max_size=64)),
    st.tuples(st.just("json"), st.dictionaries(st.sampled_from(FIELDS), value, max_size=6),
              st.sampled_from(["own", "outside", "none", "dash", "other", "fuzzed"]),
              st.booleans()))


def build(fleet, i, t):
    d = os.path.join(fleet, f"task-{i}")
    if t[0] == "missing":
        return
    if t[0] == "link":
        os.symlink(os.path.join(fleet, "task-0"), d)
        return
    os.makedirs(d)
    p = os.path.join(d, "task.json")
    if t[0] == "fifo":
        os.mkfifo(p)
    elif t[0] == "bytes":
        open(p, "wb").write(t[1])
    else:
        fields, where, with_run = t[1], t[2], t[3]
        doc = dict(GOOD)
        run = os.path.join(d, "r")
        if with_run:
            os.makedirs(run)
        doc["run_dir"] = {"own": run, "outside": work, "none": None, "dash": "--help",
                          "other": os.path.join(fleet, "task-0", "r"),
                          "fuzzed": fields.get("run_dir")}[where]
        doc.update({k: v for k, v in fields.items() if k != "run_dir"})
        open(p, "w").write(json.dumps(doc, allow_nan=True))


@given(st.lists(task, min_size=1, max_size=3))
def judge(tasks):
    pyfuzz.Counter.n += 1
    fleet = tempfile.mkdtemp(dir=work)
    try:
        for i, t in enumerate(tasks):
            build(fleet, i, t)
        with contextlib.redirect_stdout(io.StringIO()):
            rc = merge.main(["merge.py", fleet, fake, str(len(tasks)), "1"])
        assert rc in (0, 1), rc
        fj = json.load(open(os.path.join(fleet, "fleet.json")))
        assert len(fj["tasks"]) == len(tasks) and isinstance(fj["ok"], bool)
        md = open(os.path.join(fleet, "fleet.md"), "rb").read()
        assert not any(b < 0x20 and b != 0x0A or b == 0x7F for b in md), md
        if fj["ok"]:
            assert rc == 0
            for i, e in enumerate(fj["tasks"]):
                assert e["status"] == "ok" and e["verify"]["status"] == "ok", e
                own = os.path.realpath(os.path.join(fleet, f"task-{i}"))
                assert os.path.dirname(os.path.realpath(e["run_dir"])) == own, e
                assert not os.path.islink(os.path.join(fleet, f"task-{i}")), e
    finally:
        shutil.rmtree(fleet, ignore_errors=True)


try:
    pyfuzz.run_for("fuzz_merge", seconds, db, judge)
finally:
    shutil.rmtree(work, ignore_errors=True)
