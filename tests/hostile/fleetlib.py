"""fleetlib.py - hostile fleet folders for scripts/slurm/merge.py (the
hostile: tests of tests/hostile/): a task.json as task.sh writes it, a copy
of a run, and merge.py run with a time limit, its fleet.json and fleet.md."""
import json
import os
import shutil
import subprocess
import sys


def task_json(run_dir_, status="ok", exit_code=0, message=None, **extra):
    t = {"format": "softmax-evidence-slurm-task", "version": 1, "slurm_job_id": "7",
         "slurm_array_job_id": "6", "slurm_array_task_id": "0", "slurm_node": "n1",
         "hostname": "n1", "cuda_visible_devices": "0", "slurm_job_gpus": "0",
         "command": "test", "stand_in": None, "started": "2026-12-01T00:00:00Z",
         "finished": "2026-12-01T00:01:00Z", "status": status, "exit_code": exit_code,
         "run_dir": run_dir_, "message": message}
    t.update(extra)
    return t


def write_task(fleet, i, t):
    d = os.path.join(fleet, f"task-{i}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "task.json"), "w", encoding="utf-8") as f:
        f.write(t if isinstance(t, str) else json.dumps(t, indent=2))
    return d


def copy_run(run, dest):
    shutil.copytree(run, dest, symlinks=True)
    return dest


def merge(src, fleet, binary, n, timeout=120):
    """(exit status, stdout+stderr, fleet.json or None, fleet.md or None);
    exit status 'timeout' where merge.py did not end within timeout s."""
    try:
        p = subprocess.run([sys.executable, os.path.join(src, "scripts/slurm/merge.py"), fleet,
                            binary, str(n), "1"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        rc, out = p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        rc, out = "timeout", (e.stdout or b"").decode("utf-8", "replace")
    fj = fm = None
    try:
        with open(os.path.join(fleet, "fleet.json"), encoding="utf-8") as f:
            fj = json.load(f)
    except (OSError, ValueError):
        pass
    try:
        with open(os.path.join(fleet, "fleet.md"), "rb") as f:
            fm = f.read()
    except OSError:
        pass
    return rc, out, fj, fm


class Checks:
    def __init__(self):
        self.fails = 0
        self.passes = 0

    def want(self, cond, what, detail=""):
        if cond:
            self.passes += 1
            print(f"ok: {what}")
        else:
            self.fails += 1
            print(f"FAIL: {what}")
            if detail:
                print("  " + detail[-800:].replace("\n", "\n  "))

    def end(self):
        print(f"{self.passes} passed, {self.fails} failed")
        return 1 if self.fails else 0
