#!/usr/bin/env bash
# array.sh - runs one protocol on N GPUs with Slurm (docs/SLURM.md). Writes a
# fleet folder RUNS_ROOT/fleet-<UTC>/ holding two batch scripts and the two
# scripts they call, then submits them: an array of N tasks with one GPU each
# (sbatch --array=0-(N-1) --gres=gpu:1), where task i runs
# `softmax-evidence run --runs-dir FLEET/task-i [RUN ARGS]` and records
# itself in FLEET/task-i/task.json (task.sh); and a merge job that starts when
# every task has ended (--dependency=afterany:<array job>), verifies every run
# and writes FLEET/fleet.md and FLEET/fleet.json (merge.py). The merge job
# fails if any task failed or any run failed to verify. Slurm schedules; this
# only writes and submits. RUNS_ROOT and BIN must be visible on every node.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

usage() {
    cat <<EOF
usage: scripts/slurm/array.sh -N TASKS [options] [-- RUN ARGS...]

  -N, --tasks N        array tasks, one GPU each (1 to 1000)
  --runs-root DIR      shared folder that receives the fleet folder
                       (default: runs/slurm under the current folder)
  --partition NAME     Slurm partition of both jobs (default: the cluster's)
  --time LIMIT         time limit of each array task, as sbatch --time takes it
  --bin PATH           the softmax-evidence binary (default: $repo/build/softmax-evidence)
  --dry-run            print the batch scripts and the sbatch commands; write
                       and submit nothing
  --test-stand-in TASKS:RUN_DIR
                       for tests only: the listed tasks (comma-separated ids)
                       copy RUN_DIR instead of running on a GPU; task.json and
                       fleet.md say so
  -- RUN ARGS          passed to every task's softmax-evidence run (for example
                       --protocol FILE, --quiet); not --runs-dir or --validate-only

Each task uses the GPU Slurm gives it: device 0 of its CUDA_VISIBLE_DEVICES.
EOF
}

die() {
    echo "array.sh: $*" >&2
    exit 2
}
# shown VALUE: VALUE with its special characters visible (printf %q), for messages.
shown() { printf '%q' "$1"; }

tasks="" runs_root=runs/slurm partition="" time_limit="" bin=$repo/build/softmax-evidence
dry_run=0 stand_in=""
run_args=()
while [ $# -gt 0 ]; do
    opt=$1 val=""
    case $opt in
        --*=*) val=${opt#*=} opt=${opt%%=*} ;;
    esac
    case $opt in
        -N | --tasks | --runs-root | --partition | --time | --bin | --test-stand-in)
            if [ -z "$val" ]; then
                [ $# -ge 2 ] || die "$opt: needs a value"
                val=$2
                shift
            fi
            ;;
    esac
    case $opt in
        -N | --tasks) tasks=$val ;;
        --runs-root) runs_root=$val ;;
        --partition) partition=$val ;;
        --time) time_limit=$val ;;
        --bin) bin=$val ;;
        --test-stand-in) stand_in=$val ;;
        --dry-run) dry_run=1 ;;
        -h | --help)
            usage
            exit 0
            ;;
        --)
            shift
            run_args=("$@")
            break
            ;;
        *) die "unknown option $(shown "$1") (see --help)" ;;
    esac
    shift
done

case $tasks in
    "") die "-N/--tasks: required (how many GPUs)" ;;
    *[!0-9]* | 0*) die "-N/--tasks: expected a whole number from 1 to 1000, got $(shown "$tasks")" ;;
esac
[ "$tasks" -le 1000 ] || die "-N/--tasks: expected a whole number from 1 to 1000, got $(shown "$tasks")"
for a in "${run_args[@]+"${run_args[@]}"}"; do
    case $a in
        --runs-dir | --runs-dir=*) die "run argument $(shown "$a"): each task's runs folder is set by array.sh" ;;
        --validate-only) die "run argument $a: it writes no run directory, so there is nothing to merge" ;;
    esac
done
# Every value that reaches sbatch or the batch scripts, checked before
# anything is written: #SBATCH lines take no quoting, sbatch expands % in
# --output, and a newline would start a shell line of the batch script.
# plain WHAT VALUE: VALUE must hold only letters, digits and . _ , : / + = @ ~ -
plain() {
    local n
    n=$(printf '%s' "$2" | LC_ALL=C tr -d 'A-Za-z0-9._,:/+=@~-' | wc -c)
    [ "$n" -eq 0 ] || die "$1: $(shown "$2") holds a character that cannot go into sbatch or its batch script (quotes, %, spaces, newlines and other shell characters): use only letters, digits and . _ , : / + = @ ~ -"
}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ -z "$partition" ] || plain --partition "$partition"
[ -z "$time_limit" ] || plain --time "$time_limit"
plain --bin "$bin"
plain "the current folder (#SBATCH --chdir)" "$PWD"
for a in "${run_args[@]+"${run_args[@]}"}"; do
    n=$(printf '%s' "$a" | LC_ALL=C tr -cd "\000-\037\177'\"\`%\$\\\\" | wc -c)
    [ "$n" -eq 0 ] || die "run argument $(shown "$a"): quotes, %, \$, backslashes and control characters (a newline) cannot go into the batch script"
done
if [ ! -x "$bin" ]; then
    if [ "$dry_run" -eq 1 ]; then
        echo "array.sh: warning: --bin: $bin is not an executable file (yet)" >&2
    else
        die "--bin: $bin is not an executable file (build it: scripts/build.sh)"
    fi
fi
stand_tasks="" stand_run=""
if [ -n "$stand_in" ]; then
    stand_tasks=${stand_in%%:*} stand_run=${stand_in#*:}
    case $stand_tasks in
        "" | *[!0-9,]*) die "--test-stand-in: expected TASKS:RUN_DIR with TASKS like 0 or 0,2, got $(shown "$stand_in")" ;;
    esac
    [ "$stand_tasks" != "$stand_in" ] || die "--test-stand-in: expected TASKS:RUN_DIR, got $(shown "$stand_in")"
    case $stand_run in /*) ;; *) stand_run=$PWD/$stand_run ;; esac
    plain --test-stand-in "$stand_run"
    [ -d "$stand_run" ] || die "--test-stand-in: $stand_run is not a folder"
fi
case $runs_root in /*) ;; *) runs_root=$PWD/$runs_root ;; esac
plain --runs-root "$runs_root"

# One fleet folder per submission, named by its UTC time.
base=$runs_root/fleet-$(date -u +%Y%m%dT%H%M%SZ)
fleet=$base
k=2
while [ -e "$fleet" ]; do
    fleet=$base-$k
    k=$((k + 1))
done

# The array's batch script, and the merge job's.
task_cmd=(bash "$fleet/task.sh" "$fleet" "$bin")
[ -n "$stand_in" ] && task_cmd+=(--stand-in "$stand_tasks" "$stand_run")
task_cmd+=(-- "${run_args[@]+"${run_args[@]}"}")
common=""
if [ -n "$partition" ]; then common+=$'\n'"#SBATCH --partition=$partition"; fi
array_extra=$common
if [ -n "$time_limit" ]; then array_extra+=$'\n'"#SBATCH --time=$time_limit"; fi
array_sbatch="#!/bin/bash
# One task of fleet $(basename "$fleet"): one GPU, one run (scripts/slurm/array.sh).
#SBATCH --job-name=se-run
#SBATCH --array=0-$((tasks - 1))
#SBATCH --gres=gpu:1
#SBATCH --ntasks=1
#SBATCH --chdir=$PWD
#SBATCH --output=$fleet/logs/task-%a.out$array_extra
exec $(printf '%q ' "${task_cmd[@]}")
"
merge_sbatch="#!/bin/bash
# The merge job of fleet $(basename "$fleet"): verify every run, write fleet.md and
# fleet.json (scripts/slurm/array.sh). Argument: the array's job id.
#SBATCH --job-name=se-merge
#SBATCH --ntasks=1
#SBATCH --output=$fleet/logs/merge.out$common
exec python3 $(printf '%q ' "$fleet/merge.py" "$fleet" "$bin" "$tasks")\"\$1\"
"

if [ "$dry_run" -eq 1 ]; then
    echo "# dry run: nothing written or submitted"
    echo "mkdir -p $fleet/logs; cp $here/task.sh $here/merge.py $fleet/"
    printf '# %s/array.sbatch:\n%s\n' "$fleet" "$array_sbatch"
    printf '# %s/merge.sbatch:\n%s\n' "$fleet" "$merge_sbatch"
    echo "array_id=\$(sbatch --parsable $fleet/array.sbatch)"
    echo "sbatch --parsable --dependency=afterany:\${array_id%%;*} $fleet/merge.sbatch \${array_id%%;*}"
    exit 0
fi

command -v sbatch >/dev/null 2>&1 || die "sbatch not found: this needs a Slurm cluster's client commands (or use --dry-run)"
mkdir -p "$fleet/logs"
cp "$here/task.sh" "$here/merge.py" "$fleet/"
printf '%s' "$array_sbatch" >"$fleet/array.sbatch"
printf '%s' "$merge_sbatch" >"$fleet/merge.sbatch"

array_id=$(sbatch --parsable "$fleet/array.sbatch") || die "sbatch of $fleet/array.sbatch failed"
array_id=${array_id%%;*}
merge_id=$(sbatch --parsable --dependency="afterany:$array_id" "$fleet/merge.sbatch" "$array_id") ||
    die "sbatch of $fleet/merge.sbatch failed (array job $array_id is submitted: scancel $array_id)"
merge_id=${merge_id%%;*}
printf '{"array_job_id": "%s", "merge_job_id": "%s", "tasks": %s}\n' \
    "$array_id" "$merge_id" "$tasks" >"$fleet/jobs.json"
echo "fleet: $fleet"
echo "array job: $array_id ($tasks tasks, one GPU each; logs in $fleet/logs/)"
echo "merge job: $merge_id (after every task ends; writes $fleet/fleet.md and fleet.json)"
