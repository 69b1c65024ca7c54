#!/usr/bin/env python3
"""merge.py - the merge job of scripts/slurm/array.sh (docs/SLURM.md).

Runs after every task of the array has ended (afterany), and judges them
(the runs verified concurrently, at most one per CPU):
reads each FLEET/task-<i>/task.json, verifies each run directory with
`softmax-evidence verify --strict`, and writes FLEET/fleet.json and
FLEET/fleet.md: per task its host, GPU (environment.json gpu.name), status,
exit status and verify result; then the answer across the verified runs of
tasks that passed, one section per GPU model (and per host where a model ran
on several), by `softmax-evidence answer RUN... --format md`: the fleet
comparison and the spread between runs. Exits 1 if any task failed, did not
finish or left no record, or any run failed to verify; 2 on bad arguments.
Python 3 standard library only.

usage: merge.py FLEET BIN TASKS [ARRAY_JOB_ID]
"""
import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import time

TASK_FORMAT = ("softmax-evidence-slurm-task", 1)
FLEET_FORMAT = ("softmax-evidence-slurm-fleet", 1)


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def read_task(path):
    """task.json as a dict, or raises ValueError naming the file and field."""
    with open(path, encoding="utf-8") as f:
        try:
            t = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not valid JSON ({e})") from e
    if not isinstance(t, dict) or (t.get("format"), t.get("version")) != TASK_FORMAT:
        raise ValueError(f"{path}: field 'format'/'version': expected {TASK_FORMAT[0]} "
                         f"version {TASK_FORMAT[1]}")
    for field in ("status", "exit_code", "run_dir", "hostname", "message"):
        if field not in t:
            raise ValueError(f"{path}: field '{field}': missing")
    return t


def gpu_of(run_dir):
    """(gpu name, gpu uuid) from the run's environment.json, or (None, None)."""
    try:
        with open(os.path.join(run_dir, "environment.json"), encoding="utf-8") as f:
            gpu = json.load(f).get("gpu", {})
        return gpu.get("name"), gpu.get("uuid")
    except (OSError, ValueError, AttributeError):
        return None, None


def placement_of(run_dir):
    """environment.json's placement: where the run says it ran (Slurm job,
    array job and task ids, host, CUDA_VISIBLE_DEVICES, --device ordinal), or
    None for a run made before runs recorded it (docs/BUNDLE.md)."""
    try:
        with open(os.path.join(run_dir, "environment.json"), encoding="utf-8") as f:
            p = json.load(f).get("placement")
        return p if isinstance(p, dict) else None
    except (OSError, ValueError, AttributeError):
        return None


def run_tool(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def judge_task(fleet, binary, i):
    """One task's entry of fleet.json, verifying its run where it wrote one."""
    tdir = os.path.join(fleet, f"task-{i}")
    path = os.path.join(tdir, "task.json")
    e = {"task": i, "hostname": None, "cuda_visible_devices": None, "slurm_job_id": None,
         "run_placement": None,
         "stand_in": None, "gpu": None, "gpu_uuid": None, "status": None, "exit_code": None,
         "message": None, "run_dir": None, "verify": {"status": "not run", "exit_code": None,
                                                       "summary": None}}
    log = os.path.join(fleet, "logs", f"task-{i}.out")
    if not os.path.exists(path):
        e["status"] = "missing"
        e["message"] = f"no task-{i}/task.json: the task never started (see {log})"
        return e
    try:
        t = read_task(path)
    except (OSError, ValueError) as err:
        e["status"] = "unreadable"
        e["message"] = str(err)
        return e
    for k in ("hostname", "cuda_visible_devices", "slurm_job_id", "stand_in", "exit_code",
              "message", "run_dir"):
        e[k] = t.get(k)
    e["status"] = t["status"]
    if t["status"] == "started":
        e["status"] = "unfinished"
        e["message"] = ("started but never recorded its end: killed (time limit, "
                        f"cancelled or node failure; see {log})")
    elif t["status"] not in ("ok", "failed"):
        e["status"] = "unreadable"
        e["message"] = f"{path}: field 'status': unknown value {t['status']!r}"
    e["run_placement"] = None
    if e["run_dir"]:
        e["gpu"], e["gpu_uuid"] = gpu_of(e["run_dir"])
        # Where the run itself says it ran wins over the task's side file.
        e["run_placement"] = placement_of(e["run_dir"])
        if e["run_placement"]:
            e["hostname"] = e["run_placement"].get("hostname") or e["hostname"]
            e["cuda_visible_devices"] = e["run_placement"].get("cuda_visible_devices")
        rc, out, err = run_tool([binary, "verify", "--strict", e["run_dir"]])
        e["verify"] = {"status": "ok" if rc == 0 else "failed", "exit_code": rc,
                       "summary": last_line(err if rc != 0 and err.strip() else out)}
    return e


def md_cell(v):
    return "-" if v is None or v == "" else str(v).replace("|", "\\|").replace("\n", " ")


def main(argv):
    if len(argv) not in (4, 5):
        print("usage: merge.py FLEET BIN TASKS [ARRAY_JOB_ID]", file=sys.stderr)
        return 2
    fleet, binary = os.path.abspath(argv[1]), argv[2]
    try:
        n = int(argv[3])
        if n < 1:
            raise ValueError
    except ValueError:
        print(f"merge.py: TASKS: expected a whole number of 1 or more, got '{argv[3]}'",
              file=sys.stderr)
        return 2
    array_id = argv[4] if len(argv) == 5 else None
    if not os.path.isdir(fleet):
        print(f"merge.py: FLEET: {fleet} is not a folder", file=sys.stderr)
        return 2

    # Every run is verified at once (each verify is one process; a run with
    # every array saved takes minutes alone), at most one per CPU.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(n, os.cpu_count() or 1))) as ex:
        tasks = list(ex.map(lambda i: judge_task(fleet, binary, i), range(n)))
    failed = [t for t in tasks if t["status"] != "ok"]
    unverified = [t for t in tasks if t["run_dir"] and t["verify"]["status"] != "ok"]
    good = [t for t in tasks if t["status"] == "ok" and t["verify"]["status"] == "ok"]

    # The answer per GPU model over all its hosts, then per host where a model ran on several.
    groups = []
    for gpu in sorted({t["gpu"] or "unknown GPU" for t in good}):
        runs = [t for t in good if (t["gpu"] or "unknown GPU") == gpu]
        hosts = sorted({t["hostname"] or "?" for t in runs})
        groups.append((gpu, None, runs))
        if len(hosts) > 1:
            for h in hosts:
                groups.append((gpu, h, [t for t in runs if (t["hostname"] or "?") == h]))
    group_out = []
    answer_failed = False
    for gpu, host, runs in groups:
        rc, out, err = run_tool([binary, "answer"] + [t["run_dir"] for t in runs]
                                + ["--format", "md"])
        answer_failed |= rc != 0
        group_out.append({"gpu": gpu, "host": host,
                          "hosts": sorted({t["hostname"] or "?" for t in runs}),
                          "tasks": [t["task"] for t in runs],
                          "runs": [t["run_dir"] for t in runs],
                          "answer_exit_code": rc,
                          "answer_md": out if rc == 0 else None,
                          "answer_error": last_line(err) if rc != 0 else None})

    ok = not failed and not unverified and not answer_failed and bool(good)
    merge_job = os.environ.get("SLURM_JOB_ID")
    written = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    verdict = ("PASS: every task ran and its run verified" if ok else
               f"FAIL: {len(failed)} of {n} tasks failed or did not finish, "
               f"{len(unverified)} of the runs they wrote failed to verify"
               + (", an answer could not be built" if answer_failed else "")
               + ("" if good else ", no verified run to answer from"))
    fleet_json = {"format": FLEET_FORMAT[0], "version": FLEET_FORMAT[1],
                  "fleet": os.path.basename(fleet), "array_job_id": array_id,
                  "merge_job_id": merge_job, "merge_host": socket.gethostname(),
                  "written": written, "tasks_expected": n, "tasks_failed": len(failed),
                  "runs_failed_to_verify": len(unverified), "ok": ok, "verdict": verdict,
                  "tasks": tasks, "answers": group_out}

    md = [f"# Fleet {os.path.basename(fleet)}", "",
          f"Slurm array job {array_id or '?'} ({n} tasks, one GPU each), merged by job "
          f"{merge_job or '?'} on {socket.gethostname()} at {written} "
          "(scripts/slurm/array.sh, docs/SLURM.md).", "", f"**{verdict}**", "",
          "| task | host | CUDA_VISIBLE_DEVICES | GPU | status | exit | verify | run | message |",
          "|---|---|---|---|---|---|---|---|---|"]
    for t in tasks:
        run = os.path.relpath(t["run_dir"], fleet) if t["run_dir"] else None
        ver = t["verify"]["status"] + (f" ({t['verify']['summary']})"
                                       if t["verify"]["status"] == "failed" else "")
        status = t["status"] + (" (test stand-in: a copy of "
                                f"{os.path.basename(t['stand_in'])})" if t["stand_in"] else "")
        md.append("| " + " | ".join(md_cell(v) for v in (
            t["task"], t["hostname"], t["cuda_visible_devices"], t["gpu"], status,
            t["exit_code"], ver, run, t["message"])) + " |")
    for g in group_out:
        where = f"host {g['host']}" if g["host"] else "host " + ", ".join(g["hosts"])
        md += ["", f"## {g['gpu']} on {where}: {len(g['runs'])} run(s), tasks "
               + ", ".join(str(x) for x in g["tasks"]), ""]
        md.append(g["answer_md"].rstrip("\n") if g["answer_md"] is not None else
                  f"The answer could not be built: {g['answer_error']}")
    if not group_out:
        md += ["", "No task passed with a verified run: there is no answer to give."]
    md.append("")

    with open(os.path.join(fleet, "fleet.json.tmp"), "w", encoding="utf-8") as f:
        json.dump(fleet_json, f, indent=2)
        f.write("\n")
    os.replace(os.path.join(fleet, "fleet.json.tmp"), os.path.join(fleet, "fleet.json"))
    with open(os.path.join(fleet, "fleet.md.tmp"), "w", encoding="utf-8") as f:
        f.write("\n".join(md))
    os.replace(os.path.join(fleet, "fleet.md.tmp"), os.path.join(fleet, "fleet.md"))
    print("\n".join(md))
    print(f"merge: wrote {fleet}/fleet.md and fleet.json; {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
