#!/usr/bin/env python3
"""merge_input.py BIN SOURCE_DIR RUN - hostile: scripts/slurm/merge.py on bad
task.json files (issue 34, L8): wrong-typed fields give a fleet.json and a
fleet.md that say what is wrong (no traceback); a FIFO task.json does not
block the merge; ESC, BEL and CR from a task.json or a run's
environment.json are escaped in fleet.md."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleetlib  # noqa: E402

binary, src, run = (os.path.abspath(a) for a in sys.argv[1:4])
c = fleetlib.Checks()
tmp = tempfile.mkdtemp(prefix="se-hostile-merge-input-")

# Wrong-typed fields, one per task.
wrong = [("exit_code", "0"), ("status", 5), ("run_dir", 7), ("hostname", ["n1"]),
         ("message", {"a": 1}), ("exit_code", True), ("stand_in", 3), ("run_dir", ["x"])]
f = os.path.join(tmp, "types")
os.makedirs(f)
for i, (field, value) in enumerate(wrong):
    fleetlib.write_task(f, i, fleetlib.task_json(None, **{field: value}))
# A task.json that is not an object, and one with a version of true.
fleetlib.write_task(f, len(wrong), "[1, 2]")
fleetlib.write_task(f, len(wrong) + 1, json.dumps(fleetlib.task_json(None, version=True)))
n = len(wrong) + 2
rc, out, fj, fm = fleetlib.merge(src, f, binary, n)
c.want(rc == 1 and "Traceback" not in out, "wrong-typed fields: merge exits 1 without a traceback",
       f"exit {rc}\n{out[-2000:]}")
c.want(fj is not None and fm is not None, "wrong-typed fields: fleet.json and fleet.md are written")
if fj:
    c.want(fj["ok"] is False and len(fj["tasks"]) == n, "wrong-typed fields: fleet.json says FAIL "
           "and lists every task", str(fj.get("verdict")))
    for i, (field, value) in enumerate(wrong):
        t = fj["tasks"][i]
        c.want(t["status"] == "unreadable" and f"field '{field}'" in (t["message"] or ""),
               f"task {i}: {field} = {value!r} is named as the wrong field", str(t))

# A FIFO task.json: merge must not wait for a writer.
f = os.path.join(tmp, "fifo")
os.makedirs(os.path.join(f, "task-0"))
os.mkfifo(os.path.join(f, "task-0", "task.json"))
rc, out, fj, fm = fleetlib.merge(src, f, binary, 1, timeout=30)
c.want(rc == 1 and fj is not None and fj["tasks"][0]["status"] == "unreadable",
       "a FIFO task.json is refused as not a regular file, without blocking",
       f"exit {rc}\n{out[-1500:]}")

# Control characters copied from task.json and from the run's environment.json.
f = os.path.join(tmp, "escapes")
d = fleetlib.write_task(f, 0, fleetlib.task_json(
    os.path.join(f, "task-0", "r"), hostname="n\x1b[2J1\x07", message="m\r\x1b]0;title\x07"))
r = fleetlib.copy_run(run, os.path.join(d, "r"))
fleetlib.write_task(f, 1, fleetlib.task_json(None, status="failed", exit_code=6,
                                             message="bad\x1b[31mred\rover\x07"))
rc, out, fj, fm = fleetlib.merge(src, f, binary, 2)
c.want(fm is not None and not any(b in fm for b in (b"\x1b", b"\x07", b"\r")),
       "fleet.md holds no raw ESC, BEL or CR", repr(fm[:600]) if fm else f"no fleet.md\n{out}")
c.want(fm is not None and b"\\x1b" in fm, "fleet.md shows them escaped (\\x1b)")
sys.exit(c.end())
