#!/usr/bin/env bash
# task.sh - one task of the Slurm array that scripts/slurm/array.sh submits
# (docs/SLURM.md). Runs `softmax-evidence run` into FLEET/task-<id>/ on the
# GPU Slurm gave the task (the program uses device 0 of CUDA_VISIBLE_DEVICES
# unless the run arguments say --device), keeps its stdout and stderr as
# run.out and run.err, and records the task in FLEET/task-<id>/task.json:
# the Slurm ids, host, CUDA_VISIBLE_DEVICES, the run's exit status, its last
# error line and its run directory. task.json is written once with status
# "started" before the run, so a task killed outright is still on record.
#
# usage: task.sh FLEET BIN [--stand-in TASKS RUN_DIR] -- [RUN ARGS...]
#   --stand-in: for tests only. Tasks listed in TASKS (comma-separated ids)
#   copy RUN_DIR into their folder instead of running on a GPU, name it in
#   run-dir.txt as run --run-dir-out does, and say so in task.json ("stand_in").
# Exits with the run's exit status, so Slurm records a failed task as FAILED.
set -u

if [ $# -lt 2 ]; then
    echo "task.sh: usage: task.sh FLEET BIN [--stand-in TASKS RUN_DIR] -- [RUN ARGS...]" >&2
    exit 2
fi
fleet=$1 bin=$2
shift 2
stand_tasks="" stand_run=""
if [ "${1-}" = "--stand-in" ]; then
    stand_tasks=$2 stand_run=$3
    shift 3
fi
[ "${1-}" = "--" ] && shift

if [ -z "${SLURM_ARRAY_TASK_ID-}" ]; then
    echo "task.sh: SLURM_ARRAY_TASK_ID is not set: run it as a task of a Slurm array (scripts/slurm/array.sh)" >&2
    exit 2
fi
id=$SLURM_ARRAY_TASK_ID
dir=$fleet/task-$id
mkdir -p "$dir" || exit 5

# json_str VALUE: VALUE as a JSON string (control characters escaped or dropped).
json_str() {
    local s=$1
    s=${s//\\/\\\\}
    s=${s//\"/\\\"}
    s=${s//$'\t'/\\t}
    s=${s//$'\r'/}
    s=${s//$'\n'/\\n}
    s=$(printf '%s' "$s" | tr -d '\000-\010\013\014\016-\037')
    printf '"%s"' "$s"
}
# json_opt NAME: the variable NAME as a JSON string, or null where it is unset.
json_opt() {
    if [ -n "${!1+set}" ]; then json_str "${!1}"; else printf 'null'; fi
}

stand_in=""
case ",$stand_tasks," in
    *",$id,"*) stand_in=$stand_run ;;
esac
if [ -n "$stand_in" ]; then
    command_line="stand-in: cp -R $stand_in $dir/"
else
    command_line="$bin run --runs-dir $dir $*"
fi
host=$(hostname)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# write_task STATUS EXIT RUN_DIR MESSAGE: writes task.json (EXIT may be null).
write_task() {
    local stand finished
    stand=null
    [ -n "$stand_in" ] && stand=$(json_str "$stand_in")
    finished=null
    [ "$1" != "started" ] && finished=$(json_str "$(date -u +%Y-%m-%dT%H:%M:%SZ)")
    {
        printf '{\n  "format": "softmax-evidence-slurm-task",\n  "version": 1,\n'
        printf '  "slurm_job_id": %s,\n' "$(json_opt SLURM_JOB_ID)"
        printf '  "slurm_array_job_id": %s,\n' "$(json_opt SLURM_ARRAY_JOB_ID)"
        printf '  "slurm_array_task_id": %s,\n' "$(json_str "$id")"
        printf '  "slurm_node": %s,\n' "$(json_opt SLURMD_NODENAME)"
        printf '  "hostname": %s,\n' "$(json_str "$host")"
        printf '  "cuda_visible_devices": %s,\n' "$(json_opt CUDA_VISIBLE_DEVICES)"
        printf '  "slurm_job_gpus": %s,\n' "$(json_opt SLURM_JOB_GPUS)"
        printf '  "command": %s,\n' "$(json_str "$command_line")"
        printf '  "stand_in": %s,\n' "$stand"
        printf '  "started": %s,\n' "$(json_str "$started")"
        printf '  "finished": %s,\n' "$finished"
        printf '  "status": %s,\n' "$(json_str "$1")"
        printf '  "exit_code": %s,\n' "$2"
        if [ -n "$3" ]; then printf '  "run_dir": %s,\n' "$(json_str "$3")"; else printf '  "run_dir": null,\n'; fi
        if [ -n "$4" ]; then printf '  "message": %s\n' "$(json_str "$4")"; else printf '  "message": null\n'; fi
        printf '}\n'
    } >"$dir/task.json.tmp" && mv -f "$dir/task.json.tmp" "$dir/task.json"
}

write_task started null "" "" || { echo "task.sh: cannot write $dir/task.json" >&2; exit 5; }
echo "task $id on $host, CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>}: $command_line"

if [ -n "$stand_in" ]; then
    {
        cp -R "$stand_in" "$dir/" &&
            printf '%s\n' "$dir/$(basename "$stand_in")" >"$dir/run-dir.txt"
    } >"$dir/run.out" 2>"$dir/run.err"
    rc=$?
else
    # --run-dir-out: the program says where it wrote the run (nothing is
    # scraped from its output).
    "$bin" run --runs-dir "$dir" --run-dir-out "$dir/run-dir.txt" "$@" >"$dir/run.out" 2>"$dir/run.err"
    rc=$?
fi

run_dir=""
[ -f "$dir/run-dir.txt" ] && run_dir=$(head -n 1 "$dir/run-dir.txt")
message=""
if [ "$rc" -ne 0 ]; then
    # The program's own error is the last line it wrote on stderr.
    message=$(grep -v '^[[:space:]]*$' "$dir/run.err" 2>/dev/null | tail -n 1 | cut -c 1-1000)
    [ -n "$message" ] || message="exit status $rc with nothing on stderr"
fi
if [ -n "$run_dir" ] && [ ! -d "$run_dir" ]; then
    message="${message:+$message; }the run named '$run_dir' as its run directory, which is not a folder"
    run_dir=""
    [ "$rc" -ne 0 ] || rc=5
fi
status=failed
if [ "$rc" -eq 0 ]; then
    if [ -n "$run_dir" ]; then
        status=ok
    else
        message="exit status 0 but the run named no run directory (--run-dir-out)"
    fi
fi
write_task "$status" "$rc" "$run_dir" "$message" || { echo "task.sh: cannot write $dir/task.json" >&2; exit 5; }

# The Slurm log gets the run's output too.
cat "$dir/run.out"
cat "$dir/run.err" >&2
echo "task $id: $status, exit $rc${run_dir:+, run directory $run_dir}${message:+: $message}"
if [ "$status" = ok ]; then exit 0; fi
[ "$rc" -ne 0 ] && exit "$rc"
exit 1
