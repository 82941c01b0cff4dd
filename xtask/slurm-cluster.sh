#!/usr/bin/env bash
# The single-node Slurm cluster Metewand's Slurm tests run against: Slurm from Debian's packages, started WITHOUT
# systemd, as root (Debian 12). `cargo xtask test` runs `start` when CI=true; on a developer machine run it by hand.
#
#   slurm-cluster.sh [start]  install the packages if missing, write /etc/slurm/slurm.conf, start munged,
#                             slurmctld and slurmd, wait for the node, print sinfo
#   slurm-cluster.sh stop     cancel all jobs, stop the daemons THIS script started (pid files under
#                             /run/slurm-single-node), nothing else
#   slurm-cluster.sh status   show the daemons and sinfo
#   slurm-cluster.sh restart  stop + start
#
# Safe to run repeatedly: a second "start" only starts what is not running (and restarts the daemons it started
# when the configuration changed, which empties the queue).
#
# It keeps the configuration mark and pid files of the recipe it was written from (slurm-single-node.sh), so that
# either stops what the other started. Its defaults suit the tests, not production: MaxArraySize is 4 so that a
# campaign of a few attempts is split into several arrays, and 4 jobs share each core so that many short tasks run
# at once.
#
# Knobs (environment variables):
#   SLURM_SN_PROCTRACK=auto       auto | cgroup | linuxproc | pgid
#                                 auto = proctrack/cgroup when a writable cgroup-v1 freezer
#                                 hierarchy exists, else proctrack/linuxproc
#   SLURM_SN_JOBS_PER_CORE=4      N>1 lets N jobs share one core (OverSubscribe=FORCE:N)
#   SLURM_SN_MAX_ARRAY_SIZE=4     MaxArraySize: one more than the largest array index accepted
#   SLURM_SN_KILL_WAIT=5          seconds between SIGTERM and SIGKILL (Slurm's default is 30)
#   SLURM_SN_KEEP_STATE=0         1 = keep job/node state across daemon restarts
#                                 (default: slurmctld -c, i.e. start with an empty queue)
#   SLURM_SN_WAIT=60              seconds to wait for the node to become ready
set -euo pipefail

ACTION=${1:-start}
PROCTRACK=${SLURM_SN_PROCTRACK:-auto}
JOBS_PER_CORE=${SLURM_SN_JOBS_PER_CORE:-4}
MAX_ARRAY_SIZE=${SLURM_SN_MAX_ARRAY_SIZE:-4}
KILL_WAIT=${SLURM_SN_KILL_WAIT:-5}
KEEP_STATE=${SLURM_SN_KEEP_STATE:-0}
WAIT_S=${SLURM_SN_WAIT:-60}

RUN_DIR=/run/slurm-single-node          # pid files of the daemons this script started
CONF=/etc/slurm/slurm.conf
CGROUP_CONF=/etc/slurm/cgroup.conf
CONF_MARK="# Written by slurm-single-node.sh"
LOG_DIR=/var/log/slurm
CTLD_PIDFILE=/run/slurmctld.pid
SLURMD_PIDFILE=/run/slurmd.pid
MUNGE_PIDFILE=/run/munge/munged.pid
PACKAGES=(slurmctld slurmd slurm-client munge)

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH

log() { printf '[slurm-cluster] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# pid_from FILE: the pid stored in FILE, or nothing
pid_from() { if [[ -r $1 ]]; then tr -dc '0-9' <"$1"; fi; }

# alive PID NAME: PID is a live process whose command name starts with NAME
alive() {
    local pid=${1:-} name=$2 comm state
    [[ -n $pid && -r /proc/$pid/comm ]] || return 1
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
    [[ $comm == "$name"* ]] || return 1
    # A killed daemon nobody reaped (where pid 1 does not reap) is a zombie: it still has a comm, but it is gone.
    state=$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || return 1
    [[ $state != Z && $state != X ]]
}

node_name() { hostname -s 2>/dev/null || hostname; }

[[ $(id -u) == 0 ]] || die "must run as root"

# ---------------------------------------------------------------- install
install_packages() {
    local missing=0 c
    for c in slurmctld slurmd sbatch munged; do
        command -v "$c" >/dev/null 2>&1 || missing=1
    done
    [[ $missing == 1 ]] || return 0
    local t0; t0=$(now)
    log "installing ${PACKAGES[*]} (apt-get) ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
    log "packages installed in $(since "$t0") s"
}

# ---------------------------------------------------------------- config
choose_proctrack() {
    case $PROCTRACK in
        cgroup | linuxproc | pgid) echo "$PROCTRACK"; return ;;
        auto) ;;
        *) die "SLURM_SN_PROCTRACK must be auto, cgroup, linuxproc or pgid" ;;
    esac
    local fz=/sys/fs/cgroup/freezer probe
    if [[ -d $fz ]] && [[ $(stat -fc %T "$fz" 2>/dev/null) == cgroupfs ]]; then
        probe=$fz/.slurm-single-node-probe.$$
        if mkdir "$probe" 2>/dev/null; then
            rmdir "$probe"
            echo cgroup
            return
        fi
    fi
    echo linuxproc
}

write_config() {
    local node hw proctrack part_extra="" tmp changed=1
    node=$(node_name)
    # First line of `slurmd -C` is the real hardware: NodeName=... CPUs=... RealMemory=...
    hw=$(slurmd -C 2>/dev/null | head -n1 | sed -E 's/^NodeName=[^ ]+ //')
    [[ $hw == *CPUs=* ]] || die "slurmd -C did not report the hardware: $hw"
    proctrack=$(choose_proctrack)
    if [[ $JOBS_PER_CORE =~ ^[0-9]+$ ]] && ((JOBS_PER_CORE > 1)); then
        part_extra=" OverSubscribe=FORCE:$JOBS_PER_CORE"
    fi
    install -d -m 0755 /etc/slurm "$LOG_DIR" /var/spool/slurmctld /var/spool/slurmd "$RUN_DIR"

    tmp=$(mktemp)
    cat >"$tmp" <<EOF
$CONF_MARK
ClusterName=local
SlurmctldHost=${node}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/${proctrack}
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Start jobs as soon as resources free up (defaults: batch_sched_delay=3, bf_interval=30)
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,bf_interval=1
ReturnToService=2
MaxArraySize=${MAX_ARRAY_SIZE}
MaxJobCount=100000
KillWait=${KILL_WAIT}
OverTimeLimit=0
MinJobAge=300
MailProg=/bin/true
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=${CTLD_PIDFILE}
SlurmdPidFile=${SLURMD_PIDFILE}
SlurmctldLogFile=${LOG_DIR}/slurmctld.log
SlurmdLogFile=${LOG_DIR}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No slurmdbd: sacct/sreport do not work. Finished jobs are appended to this text file.
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=${LOG_DIR}/jobcomp.log
NodeName=${node} NodeAddr=127.0.0.1 ${hw} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP${part_extra}
EOF
    if [[ -f $CONF ]] && cmp -s "$tmp" "$CONF"; then
        changed=0
        rm -f "$tmp"
    else
        if [[ -f $CONF ]] && ! grep -qF "$CONF_MARK" "$CONF"; then
            cp -p "$CONF" "$CONF.bak.$(date +%Y%m%d%H%M%S)"
            log "saved the previous $CONF as $CONF.bak.*"
        fi
        install -m 0644 "$tmp" "$CONF"
        rm -f "$tmp"
    fi

    if [[ $proctrack == cgroup ]]; then
        printf '%s\nCgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' "$CONF_MARK" >"$tmp.cg"
        if ! cmp -s "$tmp.cg" "$CGROUP_CONF" 2>/dev/null; then
            install -m 0644 "$tmp.cg" "$CGROUP_CONF"
            changed=1
        fi
        rm -f "$tmp.cg"
    elif [[ -f $CGROUP_CONF ]] && grep -qF "$CONF_MARK" "$CGROUP_CONF"; then
        rm -f "$CGROUP_CONF"
    fi
    log "config: node ${node} (${hw}), proctrack/${proctrack}${part_extra:+,$part_extra}"
    CONFIG_CHANGED=$changed
}

# ---------------------------------------------------------------- daemons
# record NAME PID: remember that this script started NAME
record() { echo "$2" >"$RUN_DIR/$1.pid"; }

start_munge() {
    local pid
    pid=$(pid_from "$MUNGE_PIDFILE")
    if alive "$pid" munged; then
        munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 ||
            die "munged (pid $pid) is running but 'munge -n | unmunge' fails"
        log "munged already running (pid $pid)"
        return 0
    fi
    if [[ ! -s /etc/munge/munge.key ]]; then
        mungekey --create --keyfile=/etc/munge/munge.key
        chown munge:munge /etc/munge/munge.key
        chmod 0600 /etc/munge/munge.key
    fi
    install -d -o munge -g munge -m 0755 /run/munge
    # leftovers of a munged that was killed
    rm -f "$MUNGE_PIDFILE" /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock
    runuser -u munge -- /usr/sbin/munged
    pid=$(pid_from "$MUNGE_PIDFILE")
    alive "$pid" munged || die "munged did not start (see /var/log/munge/munged.log)"
    record munged "$pid"
    log "started munged (pid $pid)"
}

# start_daemon NAME PIDFILE [ARGS...]
start_daemon() {
    local name=$1 pidfile=$2 pid i
    shift 2
    pid=$(pid_from "$pidfile")
    if alive "$pid" "$name"; then
        log "$name already running (pid $pid)"
        return 0
    fi
    rm -f "$pidfile"
    "$name" "$@" || die "$name failed to start (see $LOG_DIR/$name.log)"
    for ((i = 0; i < 100; i++)); do
        pid=$(pid_from "$pidfile")
        alive "$pid" "$name" && break
        sleep 0.1
    done
    alive "$pid" "$name" || { tail -n 20 "$LOG_DIR/$name.log" >&2 || true; die "$name did not start"; }
    record "$name" "$pid"
    log "started $name (pid $pid)"
}

# stop_recorded NAME: stop NAME if this script started it
stop_recorded() {
    local name=$1 pid i
    pid=$(pid_from "$RUN_DIR/$name.pid")
    if alive "$pid" "$name"; then
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 150; i++)); do
            alive "$pid" "$name" || break
            sleep 0.1
        done
        if alive "$pid" "$name"; then
            log "$name (pid $pid) ignored SIGTERM for 15 s, sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
        fi
        log "stopped $name (pid $pid)"
    fi
    rm -f "$RUN_DIR/$name.pid"
}

ctld_alive() { alive "$(pid_from "$CTLD_PIDFILE")" slurmctld; }

cancel_all_jobs() {
    # only on a controller that this script started
    [[ -f $RUN_DIR/slurmctld.pid ]] && ctld_alive || return 0
    local users u i
    users=$(squeue -h -o %u 2>/dev/null | sort -u) || return 0
    [[ -n $users ]] || return 0
    for u in $users; do scancel -u "$u" 2>/dev/null || true; done
    for ((i = 0; i < (KILL_WAIT + 30) * 2; i++)); do
        [[ -z $(squeue -h 2>/dev/null) ]] && break
        sleep 0.5
    done
    log "cancelled all jobs"
}

wait_for_node() {
    local node state i resumed=0 t0
    node=$(node_name)
    t0=$(now)
    for ((i = 0; i < WAIT_S * 5; i++)); do
        state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
        case $state in
            idle | mixed | allocated | completing)
                log "node $node is $state after $(since "$t0") s"
                return 0
                ;;
            down* | drain* | fail*)
                # left over from an earlier run: put the node back into service once
                if ((resumed == 0 && i > 10)); then
                    scontrol update NodeName="$node" State=RESUME 2>/dev/null || true
                    resumed=1
                fi
                ;;
        esac
        sleep 0.2
    done
    scontrol show node "$node" >&2 || true
    tail -n 20 "$LOG_DIR/slurmctld.log" "$LOG_DIR/slurmd.log" >&2 || true
    die "node $node not ready after ${WAIT_S} s (state: ${state:-unknown})"
}

do_start() {
    local t0 ctld_args=()
    t0=$(now)
    install_packages
    CONFIG_CHANGED=0
    write_config
    if [[ $CONFIG_CHANGED == 1 ]] && ctld_alive; then
        if [[ -f $RUN_DIR/slurmctld.pid ]]; then
            log "configuration changed: restarting the daemons"
            stop_recorded slurmd
            stop_recorded slurmctld
        else
            log "configuration changed: running 'scontrol reconfigure' (daemons were not started here)"
            scontrol reconfigure || true
        fi
    fi
    start_munge
    [[ $KEEP_STATE == 1 ]] || ctld_args+=(-c)
    start_daemon slurmctld "$CTLD_PIDFILE" "${ctld_args[@]}"
    start_daemon slurmd "$SLURMD_PIDFILE"
    wait_for_node
    log "ready in $(since "$t0") s"
    sinfo
}

do_stop() {
    cancel_all_jobs
    stop_recorded slurmd
    stop_recorded slurmctld
    stop_recorded munged
    # any slurmstepd still alive belongs to a job that could not be killed
    if pgrep -x slurmstepd >/dev/null 2>&1; then
        log "warning: slurmstepd processes are still running: $(pgrep -x slurmstepd | tr '\n' ' ')"
    fi
}

do_status() {
    local d f pid
    for d in munged:$MUNGE_PIDFILE slurmctld:$CTLD_PIDFILE slurmd:$SLURMD_PIDFILE; do
        f=${d#*:}
        d=${d%%:*}
        pid=$(pid_from "$f")
        if alive "$pid" "$d"; then
            if [[ $(pid_from "$RUN_DIR/$d.pid") == "$pid" ]]; then
                echo "$d: running (pid $pid, started by this script)"
            else
                echo "$d: running (pid $pid)"
            fi
        else
            echo "$d: not running"
        fi
    done
    if ctld_alive; then sinfo; fi
}

case $ACTION in
    start) do_start ;;
    stop) do_stop ;;
    restart) do_stop; do_start ;;
    status) do_status ;;
    *) die "usage: $0 [start|stop|status|restart]" ;;
esac
