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

Everything in the fleet folder is untrusted input: task.json is read only
as a regular file (never a link or a FIFO), every field's type is checked, a
task's run_dir must be a real folder directly inside that task's own folder
(itself a real folder), given to verify and answer after "--", and the text
copied into fleet.md has its control characters escaped.

usage: merge.py FLEET BIN TASKS [ARRAY_JOB_ID]
"""
import concurrent.futures
import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time

TASK_FORMAT = ("softmax-evidence-slurm-task", 1)
FLEET_FORMAT = ("softmax-evidence-slurm-fleet", 1)


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


# The largest task.json or environment.json read (task.sh writes about 1 kB).
MAX_JSON_BYTES = 1 << 20


def read_json_file(path):
    """The JSON value of path, which must be a regular file (not a link, a
    FIFO or a device: it is checked before it is opened, and opened
    non-blocking) of at most MAX_JSON_BYTES; raises ValueError naming it."""
    try:
        sb = os.lstat(path)
    except OSError as e:
        raise ValueError(f"{path}: cannot be read: {e.strerror}") from e
    if not stat.S_ISREG(sb.st_mode):
        raise ValueError(f"{path}: not a regular file (a link, folder, FIFO or device)")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        raise ValueError(f"{path}: cannot be opened: {e.strerror}") from e
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ValueError(f"{path}: not a regular file")
        data = f.read(MAX_JSON_BYTES + 1)
    if len(data) > MAX_JSON_BYTES:
        raise ValueError(f"{path}: more than {MAX_JSON_BYTES} bytes")
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 ({e.reason} at byte {e.start})") from e
    except (json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from e


# task.json's fields merge.py reads, and the types each may have.
TASK_FIELDS = {"status": (str,), "exit_code": (int, type(None)), "run_dir": (str, type(None)),
               "hostname": (str, type(None)), "message": (str, type(None)),
               "cuda_visible_devices": (str, type(None)), "slurm_job_id": (str, type(None)),
               "stand_in": (str, type(None))}
REQUIRED = ("status", "exit_code", "run_dir", "hostname", "message")


def type_name(v):
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number", type(None): "null"}.get(type(v), "a value")


def read_task(path):
    """task.json as a dict, or raises ValueError naming the file and field."""
    t = read_json_file(path)
    if not isinstance(t, dict) or (t.get("format"), t.get("version")) != TASK_FORMAT \
            or isinstance(t.get("version"), bool):
        raise ValueError(f"{path}: field 'format'/'version': expected {TASK_FORMAT[0]} "
                         f"version {TASK_FORMAT[1]}")
    for field in REQUIRED:
        if field not in t:
            raise ValueError(f"{path}: field '{field}': missing")
    for field, types in TASK_FIELDS.items():
        v = t.get(field)
        # bool is an int in Python; an exit code of true is still wrong.
        if not isinstance(v, types) or isinstance(v, bool):
            want = " or ".join(type_name(x()) if x is not type(None) else "null" for x in types)
            raise ValueError(f"{path}: field '{field}': expected {want}, got {type_name(v)}")
    return t


def str_or_none(v):
    return v if isinstance(v, str) else None


def environment_of(run_dir):
    """The run's environment.json as a dict, or {} (the run's verify names
    what is wrong with it)."""
    try:
        env = read_json_file(os.path.join(run_dir, "environment.json"))
    except ValueError:
        return {}
    return env if isinstance(env, dict) else {}


def gpu_of(env):
    """(gpu name, gpu uuid) from environment.json, each a string or None."""
    gpu = env.get("gpu")
    gpu = gpu if isinstance(gpu, dict) else {}
    return str_or_none(gpu.get("name")), str_or_none(gpu.get("uuid"))


def placement_of(env):
    """environment.json's placement: where the run says it ran (Slurm job,
    array job and task ids, host, CUDA_VISIBLE_DEVICES, --device ordinal), or
    None for a run made before runs recorded it (docs/BUNDLE.md)."""
    p = env.get("placement")
    return p if isinstance(p, dict) else None


def check_run_dir(tdir, run_dir):
    """None when run_dir is a real folder directly inside the task's own
    folder tdir (itself a real folder), else why not."""
    if not os.path.isabs(run_dir):
        return f"run_dir '{run_dir}' is not an absolute path"
    name = os.path.basename(os.path.normpath(run_dir))
    if name in ("", ".", "..") or name.startswith("-"):
        return f"run_dir '{run_dir}' does not name a run folder"
    try:
        parent = os.path.realpath(os.path.dirname(os.path.normpath(run_dir)))
        sb = os.lstat(run_dir)
    except (OSError, ValueError) as e:
        return f"run_dir '{run_dir}' cannot be read: {getattr(e, 'strerror', e)}"
    if parent != os.path.realpath(tdir):
        return (f"run_dir '{run_dir}' is not a folder of this task's own folder "
                f"{os.path.basename(tdir)}/")
    if stat.S_ISLNK(sb.st_mode):
        return f"run_dir '{run_dir}' is a link, not the task's own run folder"
    if not stat.S_ISDIR(sb.st_mode):
        return f"run_dir '{run_dir}' is not a folder"
    return None


def run_tool(args):
    try:
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace")
    except OSError as e:
        return 127, "", f"{args[0]}: cannot be run: {e.strerror}"
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
    if not os.path.lexists(tdir) or (os.path.isdir(tdir) and not os.path.islink(tdir)
                                      and not os.path.lexists(path)):
        e["status"] = "missing"
        e["message"] = f"no task-{i}/task.json: the task never started (see {log})"
        return e
    tsb = os.lstat(tdir)
    if not stat.S_ISDIR(tsb.st_mode):
        e["status"] = "unreadable"
        e["message"] = (f"{tdir}: not a folder of the fleet (a link or a file): a task's folder "
                        "must be its own")
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
    elif t["status"] == "ok" and not e["run_dir"]:
        e["status"] = "failed"
        e["message"] = f"{path}: field 'run_dir': status ok, but no run directory"
    e["run_placement"] = None
    if e["run_dir"]:
        why = check_run_dir(tdir, e["run_dir"])
        if why:
            e["verify"] = {"status": "failed", "exit_code": None, "summary": why}
            return e
        env = environment_of(e["run_dir"])
        e["gpu"], e["gpu_uuid"] = gpu_of(env)
        # Where the run itself says it ran wins over the task's side file.
        e["run_placement"] = placement_of(env)
        if e["run_placement"]:
            e["hostname"] = str_or_none(e["run_placement"].get("hostname")) or e["hostname"]
            e["cuda_visible_devices"] = str_or_none(e["run_placement"].get("cuda_visible_devices"))
        rc, out, err = run_tool([binary, "verify", "--strict", "--", e["run_dir"]])
        e["verify"] = {"status": "ok" if rc == 0 else "failed", "exit_code": rc,
                       "summary": last_line(err if rc != 0 and err.strip() else out)}
    return e


def judge_task_safely(fleet, binary, i):
    """judge_task, with anything it did not foresee reported as the task's
    problem rather than a traceback that leaves no fleet.json."""
    try:
        return judge_task(fleet, binary, i)
    except Exception as err:  # noqa: BLE001 - the fleet's files are untrusted
        return {"task": i, "hostname": None, "cuda_visible_devices": None, "slurm_job_id": None,
                "run_placement": None, "stand_in": None, "gpu": None, "gpu_uuid": None,
                "status": "unreadable", "exit_code": None,
                "message": f"task-{i}: cannot be judged: {type(err).__name__}: {err}",
                "run_dir": None, "verify": {"status": "not run", "exit_code": None,
                                            "summary": None}}


def same_runs(tasks):
    """Marks every task whose run folder is another task's too (one folder
    judged twice would count as two runs)."""
    seen = {}
    for t in tasks:
        if not t["run_dir"] or t["verify"]["status"] != "ok":
            continue
        try:
            sb = os.stat(t["run_dir"])
            key = (sb.st_dev, sb.st_ino)
        except OSError:
            continue
        seen.setdefault(key, []).append(t)
    for group in seen.values():
        if len(group) > 1:
            for t in group:
                t["verify"] = {"status": "failed", "exit_code": None,
                               "summary": "its run folder is also task(s) "
                               + ", ".join(str(o["task"]) for o in group if o is not t)
                               + "'s: each task must have its own run"}


def printable(v):
    """v as text with every control character (ESC, BEL, CR, newline, C1 and
    DEL) written as \\xNN, so fleet.md cannot move a terminal's cursor."""
    return "".join(c if c.isprintable() else
                   f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
                   for c in str(v))


def md_cell(v):
    return "-" if v is None or v == "" else printable(v).replace("|", "\\|")


def md_text(text):
    """Lines of text (the program's own Markdown) with control characters
    other than the newlines escaped."""
    return "\n".join(printable(line) for line in text.split("\n"))


def write_new(fleet, name, text):
    """fleet/name replaced by text through a fresh temporary file of the
    fleet folder (never a name planted there, never through a link)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=fleet)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(fleet, name))
    except BaseException:
        os.unlink(tmp)
        raise


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
        tasks = list(ex.map(lambda i: judge_task_safely(fleet, binary, i), range(n)))
    same_runs(tasks)
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
        rc, out, err = run_tool([binary, "answer", "--format", "md", "--"]
                                + [t["run_dir"] for t in runs])
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

    md = [f"# Fleet {printable(os.path.basename(fleet))}", "",
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
        md += ["", printable(f"## {g['gpu']} on {where}: {len(g['runs'])} run(s), tasks "
                             + ", ".join(str(x) for x in g["tasks"])), ""]
        md.append(md_text(g["answer_md"].rstrip("\n")) if g["answer_md"] is not None else
                  printable(f"The answer could not be built: {g['answer_error']}"))
    if not group_out:
        md += ["", "No task passed with a verified run: there is no answer to give."]
    md.append("")

    write_new(fleet, "fleet.json", json.dumps(fleet_json, indent=2) + "\n")
    write_new(fleet, "fleet.md", "\n".join(md))
    print("\n".join(md))
    print(f"merge: wrote {fleet}/fleet.md and fleet.json; {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
