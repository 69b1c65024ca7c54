#!/usr/bin/env bash
# one-node.sh - a one-node Slurm cluster on this machine, for a multi-GPU box
# without Slurm and for tests/slurm/slurm_test.sh (docs/SLURM.md). Uses the
# installed munged, slurmctld and slurmd (Debian's packages), as root, with
# its key, sockets, state, spool and logs in DIR: no cgroups, no accounting.
#
# usage:
#   one-node.sh start DIR GPU_FILE...  start munged, slurmctld and slurmd;
#                                      gres.conf lists one GPU per GPU_FILE
#                                      (e.g. /dev/nvidia0 /dev/nvidia1);
#                                      wait until the node is idle; write
#                                      DIR/pids and DIR/env (source it:
#                                      it sets SLURM_CONF)
#   one-node.sh stop DIR               cancel every job, stop the daemons by
#                                      the pids in DIR/pids (last first)
# Exits 0 when done, 1 when a daemon does not come up (its log's last lines
# are printed; the daemons started are stopped), 2 on bad arguments.
set -u

die() {
    echo "one-node.sh: $*" >&2
    exit 2
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

stop() {
    local dir=$1 p i
    [ -f "$dir/env" ] && . "$dir/env"
    if [ -n "${SLURM_CONF-}" ] && command -v scancel >/dev/null 2>&1; then
        scancel --user=root >/dev/null 2>&1
        # Give slurmd a moment to end cancelled jobs' steps before it goes.
        for i in 1 2 3 4 5 6 7 8 9 10; do
            [ -z "$(squeue -h 2>/dev/null)" ] && break
            sleep 1
        done
    fi
    [ -f "$dir/pids" ] || return 0
    local pids
    mapfile -t pids <"$dir/pids"
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        p=${pids[i]}
        kill "$p" 2>/dev/null || continue
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$p" 2>/dev/null && echo "one-node.sh: pid $p did not stop on SIGTERM, killed"
    done
    rm -f "$dir/pids"
}

fail_start() {
    local f
    echo "one-node.sh: $*" >&2
    for f in "$dir"/log/*; do
        echo "--- $f (last lines)" >&2
        tail -n 25 "$f" >&2
    done
    stop "$dir"
    exit 1
}

[ $# -ge 2 ] || die "usage: one-node.sh start DIR GPU_FILE... | one-node.sh stop DIR"
cmd=$1 dir=$2
shift 2
case $cmd in
    stop)
        [ -d "$dir" ] || die "stop: $dir is not a folder"
        stop "$dir"
        exit 0
        ;;
    start) ;;
    *) die "unknown command '$cmd' (start or stop)" ;;
esac
[ $# -ge 1 ] || die "start: name at least one GPU file for gres.conf"
[ "$(id -u)" -eq 0 ] || die "start: slurmd must run as root to start jobs"
for t in munged munge unmunge slurmctld slurmd sinfo scontrol python3; do
    command -v "$t" >/dev/null 2>&1 || die "start: $t not found (install slurmctld, slurmd, slurm-client and munge)"
done
for g in "$@"; do
    [ -e "$g" ] || die "start: GPU file $g does not exist"
    case $g in *[[:space:]]*) die "start: GPU file '$g': no spaces allowed" ;; esac
done
[ -e "$dir/pids" ] && die "start: $dir/pids exists: a cluster may be running there (one-node.sh stop $dir)"
mkdir -p "$dir" || die "start: cannot create $dir"
dir=$(cd "$dir" && pwd)
case $dir in *[[:space:]]*) die "start: $dir: no spaces allowed" ;; esac
chmod 755 "$dir" # munged wants every folder above its socket open to all
mkdir -p "$dir/munge" "$dir/etc" "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir/munge"
: >"$dir/pids"

# Nothing of an enclosing Slurm job may leak into the daemons.
for v in $(env | sed -n 's/^\(S\(LURM\|BATCH\|ALLOC\|QUEUE\|INFO\)_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# munge: a fresh key, its own socket.
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 600 "$dir/munge/munge.key"
socket=$dir/munge.socket.2
munged -F --key-file="$dir/munge/munge.key" --socket="$socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" >>"$dir/log/munged.log" 2>&1 &
echo $! >>"$dir/pids"
wait_for 10 test -S "$socket" || fail_start "munged did not create its socket within 10 s"
munge -S "$socket" -n | unmunge -S "$socket" >/dev/null || fail_start "munge cannot encode and decode a credential"

# Two free TCP ports for slurmctld and slurmd.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')

node=$(hostname -s)
cpus=$(nproc)
conf=$dir/etc/slurm.conf
cat >"$conf" <<EOF
# One-node cluster of scripts/slurm/one-node.sh (no cgroups, no accounting).
ClusterName=se-one-node
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
MinJobAge=600
KillWait=5
GresTypes=gpu
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus Gres=gpu:$# State=UNKNOWN
PartitionName=one-node Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
: >"$dir/etc/gres.conf"
for g in "$@"; do
    echo "NodeName=$node Name=gpu AutoDetect=off File=$g" >>"$dir/etc/gres.conf"
done
# cgroup v2 without systemd's D-Bus (a container, a bare VM): slurmd still
# initializes its cgroup plugin, which would ask systemd for a scope; have
# it build the hierarchy itself instead (cgroup.conf(5), for testing).
if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] && [ ! -S /run/dbus/system_bus_socket ]; then
    printf 'IgnoreSystemd=yes\nCgroupAutomount=yes\n' >"$dir/etc/cgroup.conf"
    # where slurmd puts its slurmstepd scope (systemd would have made it)
    mkdir -p /sys/fs/cgroup/system.slice 2>/dev/null
fi
printf 'export SLURM_CONF=%s\n' "$conf" >"$dir/env"
export SLURM_CONF=$conf

slurmctld -D -c -f "$conf" >>"$dir/log/slurmctld.out" 2>&1 &
echo $! >>"$dir/pids"
slurmd -D -f "$conf" -N "$node" >>"$dir/log/slurmd.out" 2>&1 &
echo $! >>"$dir/pids"
node_idle() { sinfo -h -N -o '%t' | grep -qx idle; }
wait_for 60 scontrol ping || fail_start "slurmctld did not answer scontrol ping within 60 s"
wait_for 60 node_idle || { sinfo -N -l >&2; fail_start "node $node was not idle within 60 s"; }
mapfile -t p <"$dir/pids"
echo "one-node.sh: munged (pid ${p[0]}), slurmctld (pid ${p[1]}, port $ctld_port) and slurmd (pid ${p[2]}, port $slurmd_port) are up; node $node with $cpus CPUs and $# GPUs ($*)"
echo "one-node.sh: . $dir/env   # sets SLURM_CONF for sbatch, squeue and scripts/slurm/array.sh"
