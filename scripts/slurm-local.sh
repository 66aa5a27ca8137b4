#!/bin/bash
# slurm-local.sh: a single-node SLURM test cluster on localhost (Debian 12, slurm-wlm 22.05 + munge),
# run as root without systemd or cgroups.  Used by the e2e test tests/e2e/slurm_sweep.sh and for trying
# `rcsim slurm` scripts on a laptop.  (munge key, slurm.conf for one node, slurmctld + slurmd as root; see docs/slurm.md.)
#
#   scripts/slurm-local.sh install   apt-get slurm-wlm + munge (the only command that installs anything)
#   scripts/slurm-local.sh start     write slurm.conf if needed, start munged/slurmctld/slurmd, wait for idle
#   scripts/slurm-local.sh stop      shut the daemons down (by their pid files only)
#   scripts/slurm-local.sh status    daemons, node state, queue
#
# Every command is idempotent.  Exit codes: 0 ok, 1 failure (the daemon logs are printed), 2 usage,
# 77 slurm-wlm/munge not installed (the automake/ctest "skipped" code).
#
# The config goes to /etc/slurm/slurm.conf because every SLURM tool reads that path by default.  The
# script only (re)writes a config that carries its marker line, so it never clobbers a real cluster's
# config; if the content would change (e.g. another CPU count) while the daemons run, they are restarted.
# Environment: NCPUS (default: nproc), SLURM_LOCAL_TIMEOUT (seconds to wait for the node, default 30).
set -euo pipefail

CONF=/etc/slurm/slurm.conf
MARKER="# written by rcsim scripts/slurm-local.sh"
NCPUS=${NCPUS:-$(nproc)}
TIMEOUT=${SLURM_LOCAL_TIMEOUT:-30}
PIDS=(/run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid)   # stop order: slurm first, munge last
LOGS=(/var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log)

say() { echo "slurm-local: $*"; }
die() { echo "slurm-local: $*" >&2; exit "${2:-1}"; }

installed() {
    command -v slurmctld >/dev/null 2>&1 || [ -x /usr/sbin/slurmctld ] || return 1
    [ -x /usr/sbin/slurmd ] && [ -x /usr/sbin/munged ] && command -v sbatch >/dev/null 2>&1
}

# The config.  Why each non-obvious line is there:
#   ProctrackType=linuxproc, TaskPlugin=task/none: no cgroups needed (containers, CI VMs).
#   MpiDefault=pmix: Debian's OpenMPI only starts under srun with pmix.
#   MinJobAge=4: `sbatch --wait` keeps polling every 2 s instead of backing off to 32 s.
#   KillWait=5: a cancelled job's processes get 5 s between SIGTERM and SIGKILL.
#   ReturnToService=2: the node comes back by itself after a restart instead of staying DOWN.
#   SlurmdParameters=config_overrides: a CPUs= larger than the hardware does not drain the node.
#   AuthInfo=cred_expire=10: a requeued job may start again after 10 s instead of 120 s (SLURM holds it
#     with Reason=BeginTime until its old credential has expired; starting it earlier by hand fails
#     with "Job credential revoked"), which keeps the requeue test short.
#   SchedulerParameters: look at the queue every 2 s (defaults: 60 s, backfill 30 s), so a job whose
#     begin time has passed starts at once instead of on the next periodic pass.
conf_text() {
    cat <<CONF
$MARKER; delete this file to let the script regenerate it.
ClusterName=rcsim
SlurmctldHost=localhost
AuthType=auth/munge
AuthInfo=cred_expire=10
CredType=cred/munge
SlurmUser=slurm
SlurmdUser=root
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=pmix
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
JobRequeue=1
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
InactiveLimit=0
MinJobAge=4
KillWait=5
Waittime=0
NodeName=localhost CPUs=${NCPUS} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null; }

print_logs() {
    for f in "${LOGS[@]}"; do
        [ -f "$f" ] || continue
        echo "----- last lines of $f -----" >&2
        tail -n 30 "$f" >&2 || true
    done
}

node_state() { sinfo -h -n localhost -o %T 2>/dev/null | head -n1 || true; }

# Returns 0 if the config was (re)written with different content.
write_conf() {
    if [ -f "$CONF" ] && ! grep -qF "$MARKER" "$CONF"; then
        say "keeping $CONF: it was not written by this script"
        return 1
    fi
    local new
    new=$(conf_text)
    if [ -f "$CONF" ] && [ "$(cat "$CONF")" = "$new" ]; then
        return 1
    fi
    install -d /etc/slurm
    printf '%s\n' "$new" > "$CONF"
    say "wrote $CONF (CPUs=$NCPUS)"
    return 0
}

stop() {
    local any=0
    for f in "${PIDS[@]}"; do pid_alive "$f" && any=1; done
    if [ "$any" = 0 ]; then
        say "not running"
        return 0
    fi
    # scontrol shutdown asks slurmctld and slurmd to exit cleanly; it needs munge and the config,
    # which is why munged goes last.
    if pid_alive /run/slurmctld.pid; then scontrol shutdown >/dev/null 2>&1 || true; fi
    for f in "${PIDS[@]}"; do
        pid_alive "$f" || continue
        local p
        p=$(cat "$f")
        [ "$f" = /run/munge/munged.pid ] && kill "$p" 2>/dev/null || true
        for _ in $(seq 1 60); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
        if kill -0 "$p" 2>/dev/null; then
            say "pid $p ($f) did not exit after 15 s; sending SIGTERM"
            kill "$p" 2>/dev/null || true
            for _ in $(seq 1 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
            kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null || true
        fi
    done
    say "stopped"
}

start() {
    installed || die "slurm-wlm and munge are not installed (run: $0 install)" 77
    [ "$(id -u)" = 0 ] || die "must run as root (the daemons are started directly, without systemd)"
    local changed=0
    write_conf && changed=1
    if [ "$changed" = 1 ] && { pid_alive /run/slurmctld.pid || pid_alive /run/slurmd.pid; }; then
        say "config changed while running: restarting"
        stop
    fi
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o slurm -g slurm /var/lib/slurm/slurmctld /var/log/slurm
    install -d /var/lib/slurm/slurmd
    # A fresh munge key would be created by the package's postinst; create one if it is missing
    # (e.g. in images where the postinst could not run).
    if [ ! -s /etc/munge/munge.key ]; then
        install -d -o munge -g munge -m 0700 /etc/munge
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
        chown munge:munge /etc/munge/munge.key
        chmod 0400 /etc/munge/munge.key
        say "created /etc/munge/munge.key"
    fi
    pid_alive /run/munge/munged.pid || runuser -u munge -- /usr/sbin/munged ||
        die "munged failed to start"
    # -c: discard saved job and node state, so a test starts from an empty queue.
    pid_alive /run/slurmctld.pid || /usr/sbin/slurmctld -c || { print_logs; die "slurmctld failed to start"; }
    pid_alive /run/slurmd.pid || /usr/sbin/slurmd -N localhost || { print_logs; die "slurmd failed to start"; }
    local st="" deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ]; do
        st=$(node_state)
        case "$st" in
            idle | mixed | allocated | completing)
                say "up: node localhost $st, CPUs=$NCPUS"
                return 0 ;;
            down* | drain*)
                # A node left DOWN by an earlier run: ReturnToService=2 usually fixes it, this makes sure.
                scontrol update nodename=localhost state=resume >/dev/null 2>&1 || true ;;
        esac
        sleep 0.5
    done
    print_logs
    die "node not schedulable after ${TIMEOUT}s (state '${st}')"
}

status() {
    local rc=0
    for f in /run/munge/munged.pid /run/slurmctld.pid /run/slurmd.pid; do
        if pid_alive "$f"; then echo "$f: pid $(cat "$f") running"; else echo "$f: not running"; rc=1; fi
    done
    if [ "$rc" = 0 ]; then
        sinfo 2>/dev/null || true
        squeue 2>/dev/null || true
    fi
    return "$rc"
}

install_pkgs() {
    [ "$(id -u)" = 0 ] || die "must run as root"
    if installed; then
        say "already installed"
        return 0
    fi
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    install) install_pkgs ;;
    -h | --help)
        sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
        ;;
    *)
        echo "usage: $0 start|stop|status|install   ($0 --help)" >&2
        exit 2
        ;;
esac
