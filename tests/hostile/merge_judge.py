#!/usr/bin/env python3
"""merge_judge.py BIN SOURCE_DIR RUN - hostile: scripts/slurm/merge.py is a
judge (issue 34, M2): a task's run_dir must be a real folder inside that
task's own folder, given to verify and answer after "--". A run_dir of
--help, two tasks naming one run, a run named from outside the fleet, a
task folder that links to another task's, a run_dir that is a link: each
must make fleet.json say FAIL (merge exit 1). A clean fleet still passes."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleetlib  # noqa: E402

binary, src, run = (os.path.abspath(a) for a in sys.argv[1:4])
c = fleetlib.Checks()
tmp = tempfile.mkdtemp(prefix="se-hostile-merge-")


def fleet_of(name):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    return d


def expect_fail(name, fleet, n, why):
    rc, out, fj, _ = fleetlib.merge(src, fleet, binary, n)
    c.want(rc == 1 and fj is not None and fj.get("ok") is False
           and str(fj.get("verdict", "")).startswith("FAIL"),
           f"{name}: fleet.json says FAIL, merge exits 1 ({why})",
           f"exit {rc}, verdict {fj and fj.get('verdict')}\n{out[-1500:]}")


# The control: one task with its own run passes.
f = fleet_of("clean")
d = fleetlib.write_task(f, 0, fleetlib.task_json(os.path.join(f, "task-0", "r")))
fleetlib.copy_run(run, os.path.join(d, "r"))
rc, out, fj, _ = fleetlib.merge(src, f, binary, 1)
c.want(rc == 0 and fj and fj["ok"] is True, "a clean fleet of one task passes",
       f"exit {rc}\n{out[-1500:]}")

# run_dir "--help": verify would print its usage and exit 0.
f = fleet_of("dash")
fleetlib.write_task(f, 0, fleetlib.task_json("--help"))
expect_fail("run_dir --help", f, 1, "an option is no run")

# Two tasks naming one run (task 1 names task 0's).
f = fleet_of("twice")
d = fleetlib.write_task(f, 0, fleetlib.task_json(os.path.join(f, "task-0", "r")))
fleetlib.copy_run(run, os.path.join(d, "r"))
fleetlib.write_task(f, 1, fleetlib.task_json(os.path.join(f, "task-0", "r")))
expect_fail("two tasks naming one run", f, 2, "task 1's run is task 0's")

# A run named from outside the fleet.
f = fleet_of("outside")
outside = fleetlib.copy_run(run, os.path.join(tmp, "elsewhere"))
fleetlib.write_task(f, 0, fleetlib.task_json(outside))
expect_fail("a run from outside the fleet", f, 1, "not in the task's folder")

# A task folder that is a link to another task's folder.
f = fleet_of("linked-task")
d = fleetlib.write_task(f, 0, fleetlib.task_json(os.path.join(f, "task-0", "r")))
fleetlib.copy_run(run, os.path.join(d, "r"))
os.symlink("task-0", os.path.join(f, "task-1"))
expect_fail("a task folder linking to another task's", f, 2, "task-1 -> task-0")

# A run_dir inside the task's folder that is a link to a run elsewhere.
f = fleet_of("linked-run")
d = fleetlib.write_task(f, 0, fleetlib.task_json(os.path.join(f, "task-0", "r")))
os.symlink(outside, os.path.join(d, "r"))
expect_fail("a run_dir that is a link", f, 1, "task-0/r -> a run elsewhere")

# A run_dir below a link in the task's folder.
f = fleet_of("below-link")
d = fleetlib.write_task(f, 0, fleetlib.task_json(os.path.join(f, "task-0", "l", "elsewhere")))
os.symlink(tmp, os.path.join(d, "l"))
expect_fail("a run_dir below a link", f, 1, "task-0/l -> the folder of a run elsewhere")

# A relative run_dir that climbs out of the task's folder.
f = fleet_of("dotdot")
fleetlib.write_task(f, 0, fleetlib.task_json(os.path.join(f, "task-0", "..", "..", "elsewhere")))
expect_fail("a run_dir with ..", f, 1, "task-0/../../elsewhere")

# status ok with no run at all.
f = fleet_of("no-run")
d = fleetlib.write_task(f, 0, fleetlib.task_json(os.path.join(f, "task-0", "r")))
fleetlib.copy_run(run, os.path.join(d, "r"))
fleetlib.write_task(f, 1, fleetlib.task_json(None))
expect_fail("a task ok without a run", f, 2, "status ok, run_dir null")

sys.exit(c.end())
