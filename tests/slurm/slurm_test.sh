#!/usr/bin/env bash
# slurm_test.sh BIN SOURCE_DIR - scripts/slurm/array.sh under a real Slurm,
# without a GPU (docs/SLURM.md). Starts munged, slurmctld and slurmd (Debian's
# packages) on this machine with their keys, sockets, state and spool in a
# temporary folder: one node with the machine's CPUs and two GPUs in gres.conf
# whose File= lines name files the test creates, no cgroups
# (scripts/slurm/one-node.sh, stopped by pid at the test's end, pass or fail).
# Submits a 2-task
# array and its merge job through array.sh: task 0 is the test stand-in (a
# copy of runs/reference), task 1 runs the real binary, which answers "no
# CUDA device" (exit 6) here. Checks that the merge job wrote fleet.json with
# both tasks (task 1 failed with exit 6 and its message, task 0 verified),
# fleet.md with the answer grid, and that the merge job itself failed (a task
# failed). Needs root;
# installs the packages through apt-get where they are missing, and skips
# (exit 77) only where they cannot be installed.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
packages=(slurmctld slurmd slurm-client munge)

# --- the packages ---------------------------------------------------------
have_slurm() {
    command -v slurmctld && command -v slurmd && command -v sbatch && command -v munged
} >/dev/null 2>&1
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: slurmd must run as root to start jobs, and the packages (${packages[*]}) need root to install"
    exit 77
fi
if ! have_slurm; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "installing ${packages[*]} (scripts/deps.sh installs them too)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 &&
                  apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null 2>&1; }
    fi
    have_slurm || { echo "SKIP: the Slurm packages (${packages[*]}) are not installed and cannot be installed here"; exit 77; }
fi
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed by the merge job"; exit 1; }

# --- a temporary cluster (scripts/slurm/one-node.sh), stopped on every exit --
tmp=$(mktemp -d /tmp/se-slurm.XXXXXX)
chmod 755 "$tmp"   # munged wants every folder above its socket open to all
cleanup() {
    "$src/scripts/slurm/one-node.sh" stop "$tmp/cluster"
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
show_logs() {
    for f in "$tmp"/cluster/log/*.log; do
        echo "--- $f (last lines)"
        tail -n 25 "$f"
    done
}
fatal() {
    echo "FAIL: $*"
    show_logs
    exit 1
}
# wait_for SECONDS COMMAND...: runs COMMAND every half second until it succeeds.
wait_for() {
    local limit=$(($1 * 2)) n=0
    shift
    until "$@" >/dev/null 2>&1; do
        n=$((n + 1))
        [ "$n" -lt "$limit" ] || return 1
        sleep 0.5
    done
}

# Nothing of an enclosing Slurm job (when the tests run inside one) may leak in.
for v in $(env | sed -n 's/^\(S\(LURM\|BATCH\|ALLOC\|QUEUE\|INFO\)_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

mkdir -p "$tmp/dev" "$tmp/runs"
# Two GPUs for gres.conf: character devices where mknod is allowed, else plain files.
for i in 0 1; do
    mknod "$tmp/dev/nvidia$i" c 195 "$i" 2>/dev/null || : >"$tmp/dev/nvidia$i"
done
kind="plain files (mknod is not allowed here)"
[ -c "$tmp/dev/nvidia0" ] && kind="character devices 195:0 and 195:1"
echo "gres.conf's two GPUs: $tmp/dev/nvidia0 and nvidia1, $kind"
"$src/scripts/slurm/one-node.sh" start "$tmp/cluster" "$tmp/dev/nvidia0" "$tmp/dev/nvidia1" ||
    { echo "FAIL: scripts/slurm/one-node.sh could not start the cluster"; exit 1; }
. "$tmp/cluster/env"
scontrol ping
sinfo -N -o '%N %t %c %G'

# --- the array and the merge job -------------------------------------------
out=$("$src/scripts/slurm/array.sh" -N 2 --runs-root "$tmp/runs" --bin "$bin" --time 10 \
    --test-stand-in "0:$src/runs/reference" -- --quiet 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || fatal "array.sh exited $rc"
array_id=$(sed -n 's/^array job: \([0-9]*\).*/\1/p' <<<"$out")
merge_id=$(sed -n 's/^merge job: \([0-9]*\).*/\1/p' <<<"$out")
fleet=$(sed -n 's/^fleet: //p' <<<"$out")
if [ -z "$array_id" ] || [ -z "$merge_id" ] || [ ! -d "$fleet" ]; then
    fatal "array.sh did not say its jobs and fleet folder"
fi
echo "--- the queue just after submission"
squeue -o '%.12i %.10j %.9T %.20E %R'

merge_done() {
    scontrol show job -o "$merge_id" | grep -Eq 'JobState=(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY)'
}
wait_for 240 merge_done || { squeue; scontrol show job "$merge_id"; fatal "the merge job did not end within 240 s"; }

echo "--- the jobs as Slurm saw them (scontrol show job: this cluster keeps no accounting database for sacct)"
{ scontrol show job -o "$array_id"; scontrol show job -o "$merge_id"; } | tr ' ' '\n' |
    grep -E '^(JobId|ArrayJobId|ArrayTaskId|JobName|JobState|ExitCode|Dependency|StartTime|EndTime|NodeList|TresPerNode|Command)=' |
    awk '/^JobId=/ && line { print line; line = "" } { line = line (line ? " " : "") $0 } END { print line }'
job_field() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
for f in "$fleet"/logs/task-*.out; do
    echo "--- $f"
    cat "$f"
done
echo "--- $fleet/logs/merge.out (its last line; it prints fleet.md, shown below)"
tail -n 1 "$fleet/logs/merge.out"

# --- what the merge job wrote ----------------------------------------------
state=$(job_field "$merge_id" JobState) code=$(job_field "$merge_id" ExitCode)
if [ "$state" = FAILED ] && [ "$code" = "1:0" ]; then
    ok "the merge job failed (JobState=$state ExitCode=$code), as it must with a failed task"
else
    bad "the merge job ended with JobState=$state ExitCode=$code (want FAILED, 1:0)"
fi
if [ ! -f "$fleet/fleet.md" ] || [ ! -f "$fleet/fleet.json" ]; then
    fatal "the merge job wrote no fleet.md and fleet.json in $fleet"
fi
if python3 - "$fleet" "$array_id" "$src/runs/reference" <<'EOF' 
import json, os, sys
fleet, array_id, ref = sys.argv[1], sys.argv[2], sys.argv[3]
f = json.load(open(os.path.join(fleet, "fleet.json")))
problems = []
def want(cond, what):
    if not cond:
        problems.append(what)
want((f["format"], f["version"]) == ("softmax-evidence-slurm-fleet", 1), "format/version")
want(f["array_job_id"] == array_id, f"array_job_id {f['array_job_id']} != {array_id}")
want(f["ok"] is False and f["tasks_failed"] == 1 and f["runs_failed_to_verify"] == 0,
     f"ok/tasks_failed/runs_failed_to_verify: {f['ok']}, {f['tasks_failed']}, {f['runs_failed_to_verify']}")
t = {x["task"]: x for x in f["tasks"]}
want(sorted(t) == [0, 1], f"tasks listed: {sorted(t)}")
if sorted(t) == [0, 1]:
    a, b = t[0], t[1]
    want(a["status"] == "ok" and a["exit_code"] == 0, f"task 0: {a['status']} exit {a['exit_code']}")
    want(a["stand_in"] == ref, f"task 0 stand_in: {a['stand_in']}")
    want(a["verify"]["status"] == "ok" and a["verify"]["exit_code"] == 0, f"task 0 verify: {a['verify']}")
    want(a["gpu"] == "NVIDIA H200", f"task 0 gpu: {a['gpu']}")
    want(b["status"] == "failed" and b["exit_code"] == 6, f"task 1: {b['status']} exit {b['exit_code']}")
    want("no CUDA device" in (b["message"] or ""), f"task 1 message: {b['message']}")
    want(b["run_dir"] is None and b["verify"]["status"] == "not run", f"task 1 run/verify: {b['run_dir']}, {b['verify']}")
    # The run records where it ran (environment.json's placement) and the
    # merge reads it from the run; a run made before that records none.
    env = json.load(open(os.path.join(a["run_dir"], "environment.json")))
    want(a["run_placement"] == env.get("placement"),
         f"task 0 run_placement {a['run_placement']} != environment.json's {env.get('placement')}")
    if env.get("placement"):
        pl = env["placement"]
        want(all(k in pl for k in ("slurm_job_id", "slurm_array_job_id", "slurm_array_task_id",
                                   "hostname", "cuda_visible_devices", "device_ordinal")),
             f"task 0 placement fields: {sorted(pl)}")
    for i in (0, 1):
        tj = json.load(open(os.path.join(fleet, f"task-{i}", "task.json")))
        want(tj["slurm_array_job_id"] == array_id and tj["slurm_array_task_id"] == str(i)
             and tj["slurm_job_id"], f"task {i} Slurm ids: {tj['slurm_job_id']}, {tj['slurm_array_job_id']}, {tj['slurm_array_task_id']}")
        want(tj["cuda_visible_devices"] not in (None, ""), f"task {i}: no CUDA_VISIBLE_DEVICES recorded")
        want(tj["hostname"], f"task {i}: no hostname")
        print(f"task {i}: job {tj['slurm_job_id']} (array {tj['slurm_array_job_id']}_{tj['slurm_array_task_id']}) "
              f"on {tj['hostname']}, CUDA_VISIBLE_DEVICES={tj['cuda_visible_devices']}: "
              f"{tj['status']}, exit {tj['exit_code']}")
want(len(f["answers"]) == 1 and f["answers"][0]["tasks"] == [0] and f["answers"][0]["answer_exit_code"] == 0,
     f"answers: {[(g['gpu'], g['tasks'], g['answer_exit_code']) for g in f['answers']]}")
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
EOF
then
    ok "fleet.json and task.json say what happened"
else
    bad "fleet.json or task.json"
fi
echo "--- $fleet/fleet.md"
cat "$fleet/fleet.md"
if grep -q '^| shape | graph | stream-pdl | graph-pdl | fusion | fusion-graph | megakernel | megakernel-graph |' "$fleet/fleet.md" &&
    grep -q '^## NVIDIA H200 on host' "$fleet/fleet.md"; then
    ok "fleet.md holds the answer grid of the verified run"
else
    bad "fleet.md has no answer grid under an NVIDIA H200 heading"
fi
if grep -q '^| 1 | .* | failed | 6 | not run | - | .*no CUDA device' "$fleet/fleet.md"; then
    ok "fleet.md lists task 1 as failed with exit 6 and its message"
else
    bad "fleet.md does not list task 1 as failed with exit 6 and its message"
fi
state1=$(job_field "${array_id}_1" JobState) code1=$(job_field "${array_id}_1" ExitCode)
if [ "$state1" = FAILED ] && [ "$code1" = "6:0" ]; then
    ok "Slurm recorded task 1 as FAILED with exit 6"
else
    bad "task 1 in Slurm: JobState=$state1 ExitCode=$code1 (want FAILED 6:0)"
fi

# --- the merge's judgement of what Slurm cannot show here -------------------
# A run that does not verify, a task that never started and one killed after
# it started: merge.py on a copy of the fleet, outside Slurm.
copy=$tmp/tampered
mkdir -p "$copy/task-0" "$copy/task-2"
cp -R "$fleet/task-0/reference" "$copy/task-0/"
echo " " >>"$copy/task-0/reference/summary.json"
sed "s|$fleet/task-0|$copy/task-0|" "$fleet/task-0/task.json" >"$copy/task-0/task.json"
sed 's/"status": "[a-z]*"/"status": "started"/; s/"run_dir": "[^"]*"/"run_dir": null/' \
    "$fleet/task-1/task.json" >"$copy/task-2/task.json"
python3 "$src/scripts/slurm/merge.py" "$copy" "$bin" 3 0 >"$tmp/tampered.out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && python3 - "$copy/fleet.json" <<'EOF'
import json, sys
t = {x["task"]: x for x in json.load(open(sys.argv[1]))["tasks"]}
sys.exit(0 if t[0]["verify"]["status"] == "failed" and t[1]["status"] == "missing"
         and t[2]["status"] == "unfinished" else 1)
EOF
then
    ok "merge.py alone: a tampered run fails verify, a task with no task.json is missing, a killed one unfinished (exit 1)"
else
    bad "merge.py on a tampered fleet: exit $rc"
    cat "$tmp/tampered.out"
fi

if [ "$fails" -ne 0 ]; then
    show_logs
    echo "FAIL: $fails checks"
    exit 1
fi
echo "PASS: the array and its merge job ran under Slurm and the merge judged them"
