#!/usr/bin/env bash
# Throwaway single-node Slurm cluster on loopback, for testing the runner's Slurm support.
#
# Usage:
#   scripts/slurm-test.sh               build the runner, run table 1 (quick) as a 2-shard job
#                                       array plus a dependent merge job on the cluster, then
#                                       compare the merged results file with a local run
#   scripts/slurm-test.sh --self-test   only check the cluster machinery: a 2-task array job
#                                       and a job depending on it (no cargo, no runner)
#
# Needs root on Debian/Ubuntu. Installs slurm-wlm and munge from the distribution's packages if
# they are missing, then starts munged, slurmctld and slurmd directly as processes (no systemd)
# from a configuration generated in a fresh temp dir /tmp/slurm-test.XXXXXX: nothing under /etc
# is read or changed (the packages' own /etc/munge/munge.key is not used). Only 127.0.0.1 is used;
# the node is named after `hostname -s` and its address is 127.0.0.1, so no DNS is needed.
# The cluster is always shut down on exit (also on failure or Ctrl-C); on failure the daemon
# logs are printed and the temp dir is kept for inspection.
#
# Environment (all optional):
#   SLURM_TEST_CTLD_PORT / SLURM_TEST_SLURMD_PORT   ports (default 16817 / 16818, chosen to not
#                                                   clash with a real Slurm on 6817 / 6818)
#   SLURM_TEST_JOB_TIMEOUT    seconds to wait for one job (array) to finish (default 600)
#   SLURM_TEST_BUILD_TIMEOUT  seconds for `cargo build -p runner` (default 1800)
#   SLURM_TEST_KEEP=1         keep the temp dir even on success
#   SLURM_TEST_SKIP_INSTALL=1 never call apt-get (fail if the packages are missing)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CTLD_PORT=${SLURM_TEST_CTLD_PORT:-16817}
SLURMD_PORT=${SLURM_TEST_SLURMD_PORT:-16818}
JOB_TIMEOUT=${SLURM_TEST_JOB_TIMEOUT:-600}
BUILD_TIMEOUT=${SLURM_TEST_BUILD_TIMEOUT:-1800}
NODE=$(hostname -s)
T0=$SECONDS

WORK=""          # temp dir of this run (set by make_workdir)
CREATED_POLICY_RC=0
CLUSTER_STARTED=0
DAEMONS_BEFORE=""
DUMP_LOGS=1      # on failure, print the daemon logs (not when only the final comparison failed)

log() { printf '[slurm-test %4ss] %s\n' "$((SECONDS - T0))" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------------------------------------
# Part 1: the cluster
# ---------------------------------------------------------------------------------------------

# Runs as `apt-get install` would, but with service starts denied, so the packages' maintainer
# scripts do not start a system munged/slurmd as a side effect. An existing policy-rc.d is left
# as it is; one we create is removed again (also by the exit trap).
install_packages() {
    local pkgs=(munge slurm-wlm) missing=() p
    for p in "${pkgs[@]}" slurmctld slurmd slurm-client; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        log "packages already installed: $(dpkg-query -W -f='${Package} ${Version}  ' munge slurm-wlm)"
        return 0
    fi
    [ "${SLURM_TEST_SKIP_INSTALL:-0}" = 1 ] && die "missing packages ${missing[*]} and SLURM_TEST_SKIP_INSTALL=1"
    [ "$(id -u)" -eq 0 ] || die "installing ${missing[*]} needs root"
    local t=$SECONDS
    log "installing ${pkgs[*]} (missing: ${missing[*]}) ..."
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\n# temporary, from scripts/slurm-test.sh: no service starts during install\nexit 101\n' \
            > /usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        CREATED_POLICY_RC=1
    fi
    timeout 300 apt-get update -qq || die "apt-get update failed or timed out"
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -q --no-install-recommends "${pkgs[@]}" \
        > /tmp/slurm-test-apt.log 2>&1 || { tail -30 /tmp/slurm-test-apt.log >&2; die "apt-get install failed (log /tmp/slurm-test-apt.log)"; }
    remove_policy_rc
    log "installed in $((SECONDS - t))s: $(dpkg-query -W -f='${Package} ${Version}  ' munge slurm-wlm)"
}

remove_policy_rc() {
    if [ "$CREATED_POLICY_RC" = 1 ]; then
        rm -f /usr/sbin/policy-rc.d
        CREATED_POLICY_RC=0
    fi
}

# Pids of every slurm/munge daemon on the machine (ours or not), one per line, sorted.
daemon_pids() {
    ps -eo pid=,stat=,comm= \
        | awk '$2 !~ /^Z/ && $3 ~ /^(munged|slurmctld|slurmscriptd|slurmd|slurmstepd)$/ {print $1}' | sort
}

# A previous run killed with SIGKILL cannot have cleaned up. Its daemons are recognized by the
# pid files in its temp dir *and* their command line naming that dir, and only those are ended.
kill_leftovers() {
    local d f pid
    for d in /tmp/slurm-test.*/; do
        [ -f "$d/.slurm-test" ] || continue
        for f in "$d"run/*.pid; do
            [ -f "$f" ] || continue
            pid=$(cat "$f" 2>/dev/null || true)
            [[ "$pid" =~ ^[0-9]+$ ]] || continue
            if tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "${d%/}"; then
                log "ending leftover daemon pid $pid of an earlier run ($(basename "$f" .pid), $d)"
                kill -TERM "$pid" 2>/dev/null || true
                for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
                kill -KILL "$pid" 2>/dev/null || true
            fi
        done
    done
}

port_in_use() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

make_workdir() {
    WORK=$(mktemp -d /tmp/slurm-test.XXXXXX)
    touch "$WORK/.slurm-test"
    mkdir -p "$WORK"/{etc,munge,run,log,state,spool,jobs}
    # munged insists that everyone can reach its socket: the dirs above it must be o+x.
    chmod 755 "$WORK" "$WORK/munge"
    export SLURM_CONF="$WORK/etc/slurm.conf"
    log "temp dir $WORK"
}

# With NoInAddrAny/NoCtldInAddrAny the daemons bind to the address their *host name* resolves to
# (not to NodeAddr), and slurmctld dies if it does not resolve. So those are used only when
# `hostname -s` resolves to loopback (as with Debian's usual /etc/hosts); otherwise the daemons
# listen on all addresses, while all traffic still goes to 127.0.0.1 (NodeAddr, SlurmctldHost).
bind_params() {
    local addrs
    addrs=$(getent ahostsv4 "$NODE" 2>/dev/null | awk '{print $1}' | sort -u | tr '\n' ' ' || true)
    if [ -n "$addrs" ] && ! grep -qvE '^127\.' <<<"$(tr ' ' '\n' <<<"$addrs" | grep .)"; then
        echo "# $NODE resolves to $addrs: bind only there, not to INADDR_ANY."
        echo "CommunicationParameters=NoInAddrAny,NoCtldInAddrAny"
    else
        log "note: host name $NODE resolves to '${addrs% }', not only loopback: daemons will listen on all addresses (traffic still uses 127.0.0.1)"
        echo "# $NODE resolves to '${addrs% }' (not loopback): daemons listen on all addresses."
    fi
}

write_config() {
    local mem_mb real_mb
    # RealMemory must not exceed what slurmd measures, or the node is drained ("Low RealMemory").
    mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
    real_mb=$((mem_mb * 8 / 10))
    cat > "$WORK/etc/slurm.conf" <<EOF
# Generated by scripts/slurm-test.sh; single node on loopback, no cgroups, no accounting.
ClusterName=slurmtest
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
$(bind_params)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$WORK/munge/munge.socket
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=256
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
# Keep finished jobs in slurmctld's memory for an hour: without slurmdbd there is no sacct, and
# submit_and_wait reads the final state and exit code of every (array) job from scontrol.
MinJobAge=3600
# A job whose dependency can never be satisfied is cancelled instead of pending forever.
DependencyParameters=kill_invalid_depend
SlurmctldTimeout=30
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
NodeName=$NODE NodeAddr=127.0.0.1 NodeHostname=$NODE CPUs=2 RealMemory=$real_mb State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
    # Not read with the plugins above (nothing uses cgroups), but present so that nothing falls
    # back to a system-wide /etc/slurm/cgroup.conf.
    cat > "$WORK/etc/cgroup.conf" <<EOF
CgroupAutomount=no
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainSwapSpace=no
ConstrainDevices=no
EOF
}

# wait_for <seconds> <description> <command...>: polls the command every 0.5 s until it succeeds.
wait_for() {
    local limit=$1 what=$2 deadline=$((SECONDS + $1))
    shift 2
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || die "timed out after ${limit}s waiting for $what"
        sleep 0.5
    done
}

pid_alive() { local p; p=$(cat "$1" 2>/dev/null) && kill -0 "$p" 2>/dev/null; }
node_idle() { sinfo -h -N -n "$NODE" -o '%T' 2>/dev/null | grep -qx 'idle'; }

slurm_up() {
    install_packages
    kill_leftovers
    local p
    for p in "$CTLD_PORT" "$SLURMD_PORT"; do
        port_in_use "$p" && die "port $p on 127.0.0.1 is already in use (set SLURM_TEST_CTLD_PORT / SLURM_TEST_SLURMD_PORT)"
    done
    DAEMONS_BEFORE=$(daemon_pids)
    [ -z "$WORK" ] && make_workdir
    write_config
    CLUSTER_STARTED=1

    # munge: a fresh key for this cluster only; munged refuses keys/dirs others can write.
    log "starting munged"
    dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$WORK/munge/munge.key"
    munged --key-file="$WORK/munge/munge.key" --socket="$WORK/munge/munge.socket" \
        --pid-file="$WORK/run/munged.pid" --log-file="$WORK/log/munged.log" \
        --seed-file="$WORK/munge/munged.seed" --origin=127.0.0.1 \
        || die "munged failed to start (see $WORK/log/munged.log)"
    wait_for 15 "munged to answer" bash -c \
        "munge -n -S '$WORK/munge/munge.socket' | unmunge -S '$WORK/munge/munge.socket'"

    # Started in the foreground (-D) in the background, so that $! is the daemon's own pid; the
    # pid is also written to run/ so that a later run can recognize leftovers (kill_leftovers).
    log "starting slurmctld (node $NODE at 127.0.0.1, port $CTLD_PORT)"
    setsid slurmctld -D -c -f "$SLURM_CONF" > "$WORK/log/slurmctld.out" 2>&1 < /dev/null &
    echo $! > "$WORK/run/slurmctld.pid"
    local deadline=$((SECONDS + 30))
    until scontrol ping 2>/dev/null | grep -q 'is UP'; do
        pid_alive "$WORK/run/slurmctld.pid" || die "slurmctld exited"
        [ $SECONDS -lt $deadline ] || die "timed out after 30s waiting for slurmctld to answer scontrol ping"
        sleep 0.5
    done

    log "starting slurmd (port $SLURMD_PORT)"
    setsid slurmd -D -N "$NODE" -f "$SLURM_CONF" > "$WORK/log/slurmd.out" 2>&1 < /dev/null &
    echo $! > "$WORK/run/slurmd.pid"
    local state
    deadline=$((SECONDS + 60))
    until node_idle; do
        pid_alive "$WORK/run/slurmctld.pid" || die "slurmctld exited"
        pid_alive "$WORK/run/slurmd.pid" || die "slurmd exited"
        state=$(sinfo -h -N -n "$NODE" -o '%T' 2>/dev/null || true)
        case "$state" in
            drain*|down*|fail*) die "node $NODE is $state: $(scontrol show node "$NODE" | grep -o 'Reason=.*')" ;;
        esac
        [ $SECONDS -lt $deadline ] || die "timed out after 60s waiting for node $NODE to become idle (state '$state')"
        sleep 0.5
    done
    log "cluster up: $(sinfo -h -o '%P %a %D %T %c CPUs %m MB')"
}

# Ends one daemon from its pid file: SIGTERM, up to <grace> s, then SIGKILL.
stop_pidfile() {
    local f=$1 grace=$2 pid
    pid=$(cat "$f" 2>/dev/null || true)
    [[ "$pid" =~ ^[0-9]+$ ]] || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        local i
        for ((i = 0; i < grace * 2; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        if kill -0 "$pid" 2>/dev/null; then
            log "$(basename "$f" .pid) (pid $pid) ignored SIGTERM for ${grace}s; sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.5
        fi
    fi
    rm -f "$f"
}

# Safe to call more than once, and with a half-started cluster.
slurm_down() {
    [ "$CLUSTER_STARTED" = 1 ] || return 0
    CLUSTER_STARTED=0
    log "shutting the cluster down"
    if pid_alive "$WORK/run/slurmctld.pid"; then
        # Jobs first, so no slurmstepd or job process outlives the cluster.
        if [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
            log "cancelling remaining jobs: $(squeue -h -o %i | tr '\n' ' ')"
            scancel --full $(squeue -h -o %i) 2>/dev/null || true
            local deadline=$((SECONDS + 30))
            while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
        fi
        # Asks slurmctld and every slurmd to exit.
        timeout 10 scontrol shutdown >/dev/null 2>&1 || true
    fi
    stop_pidfile "$WORK/run/slurmd.pid" 15
    stop_pidfile "$WORK/run/slurmctld.pid" 15
    stop_pidfile "$WORK/run/munged.pid" 10
    # Stray slurmstepd of ours (a job step that outlived slurmd): they keep slurmd's log open.
    local pid
    for pid in $(pgrep -x slurmstepd || true); do
        if ls -l "/proc/$pid/fd" 2>/dev/null | grep -qF "$WORK/"; then
            log "ending stray slurmstepd pid $pid"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    local new
    new=$(comm -13 <(printf '%s\n' "$DAEMONS_BEFORE") <(daemon_pids) | grep . || true)
    if [ -n "$new" ]; then
        log "WARNING: daemons still running after shutdown:"
        ps -o pid,args -p "$(echo $new | tr ' ' ,)" >&2 || true
        return 1
    fi
    log "cluster down; no slurm/munge daemon of this run is left"
}

dump_logs() {
    [ -n "$WORK" ] || return 0
    local d f
    for d in slurmctld slurmd munged; do
        # The .out files (stdout/stderr of the daemons) repeat the log once the log file is open;
        # they matter only when a daemon died before that.
        f="$WORK/log/$d.log"
        [ -s "$f" ] || f="$WORK/log/$d.out"
        [ -s "$f" ] || continue
        echo "----- last 50 lines of $f -----" >&2
        tail -n 50 "$f" >&2
    done
}

on_exit() {
    local rc=$?
    trap - EXIT INT TERM
    set +e
    if [ $rc -ne 0 ]; then
        log "FAILED (exit $rc)"
        [ "$DUMP_LOGS" = 0 ] || dump_logs
    fi
    slurm_down || { [ $rc -ne 0 ] || rc=1; }
    remove_policy_rc
    if [ -n "$WORK" ] && [ -d "$WORK" ]; then
        if [ $rc -eq 0 ] && [ "${SLURM_TEST_KEEP:-0}" != 1 ]; then
            rm -rf "$WORK"
        else
            log "temp dir kept: $WORK"
        fi
    fi
    log "total $((SECONDS - T0))s"
    exit $rc
}

# submit <script> [sbatch args...]: submits, prints the job id on stdout.
submit() {
    local script=$1 out id
    shift
    [ -f "$script" ] || die "no such job script: $script"
    out=$(sbatch --parsable "$@" "$script" 2>&1) || die "sbatch $* $script failed: $out"
    id=${out%%;*}
    [[ "$id" =~ ^[0-9]+$ ]] || die "unexpected sbatch output: $out"
    log "submitted $(basename "$script") $* as job $id"
    echo "$id"
}

# wait_job <id> [timeout]: waits until the job (every task, if it is an array) has ended, then
# succeeds only if all of them COMPLETED with exit code 0:0.
#
# Why scontrol: there is no slurmdbd, so no sacct; squeue forgets a job as soon as it ends and
# tells nothing about how it ended. slurmctld itself keeps finished jobs for MinJobAge (set to an
# hour above), and `scontrol -o show job <id>` gives one line per array task with JobState and
# ExitCode. So the loop polls that until every line is in a final state. A job that vanished
# anyway (purged, or the controller died) is an error, never a success. A job whose dependency
# failed is cancelled by kill_invalid_depend and so is reported as a failure, not waited for.
wait_job() {
    local id=$1 limit=${2:-$JOB_TIMEOUT} deadline lines states line st ec tid bad=0 last=""
    deadline=$((SECONDS + limit))
    while :; do
        lines=$(scontrol -o show job "$id" 2>&1) || die "job $id is unknown to slurmctld: $lines"
        states=$(grep -o 'JobState=[A-Z_]*' <<<"$lines" | sort | uniq -c | awk '{printf "%s%s ", $2, ($1 > 1 ? "x" $1 : "")}' | sed 's/JobState=//g; s/ $//' || true)
        if [ "$states" != "$last" ]; then log "job $id: $states"; last=$states; fi
        if ! grep -qE 'JobState=(PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT)' <<<"$lines"; then
            break
        fi
        if grep -q 'Reason=DependencyNeverSatisfied' <<<"$lines"; then
            die "job $id can never run: its dependency failed"
        fi
        [ $SECONDS -lt $deadline ] || { scancel "$id" 2>/dev/null || true; die "job $id did not finish within ${limit}s (cancelled)"; }
        sleep 1
    done
    while IFS= read -r line; do
        st=$(grep -o 'JobState=[A-Z_]*' <<<"$line" | cut -d= -f2)
        ec=$(grep -o ' ExitCode=[0-9:]*' <<<"$line" | cut -d= -f2)
        tid=$(grep -o 'ArrayTaskId=[0-9]*' <<<"$line" | cut -d= -f2 || true)
        if [ "$st" != COMPLETED ] || [ "$ec" != 0:0 ]; then
            bad=1
            log "job $id${tid:+ task $tid}: $st, exit code $ec"
            local outf
            outf=$(grep -o 'StdOut=[^ ]*' <<<"$line" | cut -d= -f2 || true)
            if [ -n "$outf" ] && [ -f "$outf" ]; then
                echo "----- last 30 lines of $outf -----" >&2
                tail -n 30 "$outf" >&2
            fi
        fi
    done <<<"$lines"
    [ $bad -eq 0 ] || return 1
    log "job $id: all $(wc -l <<<"$lines") task(s) COMPLETED with exit code 0:0"
}

# submit_and_wait <script> [sbatch args...]: prints the job id, waits, fails if the job failed.
submit_and_wait() {
    local id
    id=$(submit "$@")
    echo "$id"
    wait_job "$id"
}

# ---------------------------------------------------------------------------------------------
# --self-test: the cluster machinery alone
# ---------------------------------------------------------------------------------------------
self_test() {
    slurm_up
    local jobs="$WORK/jobs" a d i
    cat > "$jobs/array.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=selftest-array
#SBATCH --array=0-1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --time=00:02:00
#SBATCH --output=$jobs/array-%A_%a.out
set -eu
echo "\$SLURM_ARRAY_TASK_ID" > "$jobs/task-\$SLURM_ARRAY_TASK_ID.txt"
echo "task \$SLURM_ARRAY_TASK_ID of job \$SLURM_ARRAY_JOB_ID on \$(hostname -s)"
EOF
    cat > "$jobs/after.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=selftest-after
#SBATCH --time=00:02:00
#SBATCH --output=$jobs/after-%j.out
set -eu
cat "$jobs"/task-*.txt | sort | tr '\n' ' ' > "$jobs/after.txt"
echo "dependent job \$SLURM_JOB_ID saw: \$(cat "$jobs/after.txt")"
EOF
    a=$(submit "$jobs/array.sbatch")
    d=$(submit "$jobs/after.sbatch" --dependency=afterok:"$a")
    # The dependent job must be held back while the array has not finished.
    local r
    r=$(squeue -h -j "$d" -o '%T %r' 2>/dev/null || true)
    log "dependent job $d right after submission: ${r:-gone already}"
    wait_job "$a" 120 || die "array job $a failed"
    wait_job "$d" 120 || die "dependent job $d failed"
    for i in 0 1; do
        [ "$(cat "$jobs/task-$i.txt" 2>/dev/null)" = "$i" ] || die "array task $i did not write task-$i.txt"
    done
    [ "$(cat "$jobs/after.txt" 2>/dev/null)" = "0 1 " ] || die "dependent job did not see both task files"
    # afterok means: started after the array ended. Compare the Slurm start/end times.
    local a_end d_start
    a_end=$(scontrol -o show job "$a" | grep -o 'EndTime=[^ ]*' | cut -d= -f2 | sort | tail -1)
    d_start=$(scontrol -o show job "$d" | grep -o 'StartTime=[^ ]*' | cut -d= -f2)
    [[ "$d_start" > "$a_end" || "$d_start" == "$a_end" ]] || die "dependent job started ($d_start) before the array ended ($a_end)"
    log "outputs: $(cd "$jobs" && cat array-*.out after-*.out | tr '\n' ';')"
    log "array ended $a_end, dependent job started $d_start"
    slurm_down
    log "SELF-TEST PASS"
}

# ---------------------------------------------------------------------------------------------
# Part 2: table 1 (quick) sharded over the cluster vs the same run locally
# ---------------------------------------------------------------------------------------------
# Prints a python3 that can import h5py: python3 on PATH, after `pip install h5py` if needed, or
# else Debian's /usr/bin/python3 with the python3-h5py package (for machines without PyPI).
python_with_h5py() {
    if python3 -c 'import h5py' 2>/dev/null; then echo python3; return; fi
    log "h5py missing; trying pip install h5py"
    if timeout 300 python3 -m pip install -q h5py >&2 && python3 -c 'import h5py' 2>/dev/null; then
        echo python3; return
    fi
    log "pip failed; installing Debian's python3-h5py for /usr/bin/python3"
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -q python3-h5py >&2 \
        && /usr/bin/python3 -c 'import h5py' 2>/dev/null || die "cannot get h5py"
    echo /usr/bin/python3
}

end_to_end() {
    local spec=experiments/table1.toml profile=quick shards=2 name out paths array merge a m
    cd "$REPO"
    log "building the runner"
    timeout "$BUILD_TIMEOUT" cargo build -p runner || die "cargo build -p runner failed"
    local bin="$REPO/target/debug/runner"

    slurm_up
    local start_stamp="$WORK/.started"
    touch "$start_stamp"
    out="$WORK/sbatch"
    log "writing the job scripts: runner sbatch $spec --profile $profile --shards $shards --out $out"
    paths=$("$bin" sbatch "$spec" --profile "$profile" --shards "$shards" --out "$out") \
        || die "runner sbatch failed"
    printf '%s\n' "$paths" | sed 's/^/  runner: /' >&2
    array=$(grep -oE '[^[:space:]]*-array\.sbatch' <<<"$paths" | head -1 || true)
    merge=$(grep -oE '[^[:space:]]*-merge\.sbatch' <<<"$paths" | head -1 || true)
    [ -n "$array" ] || array=$(ls "$out"/*-array.sbatch 2>/dev/null | head -1 || true)
    [ -n "$merge" ] || merge=$(ls "$out"/*-merge.sbatch 2>/dev/null | head -1 || true)
    [ -f "$array" ] || die "runner sbatch did not write an *-array.sbatch into $out"
    [ -f "$merge" ] || die "runner sbatch did not write an *-merge.sbatch into $out"
    grep -qE '^#SBATCH[[:space:]]+--array=0-'"$((shards - 1))"'([^0-9]|$)' "$array" \
        || die "$array has no '#SBATCH --array=0-$((shards - 1))' line"

    # Jobs run in the repo with the built runner first on PATH, whether the scripts call `runner`
    # or target/debug/runner. Their output goes to the temp dir (the command line overrides any
    # #SBATCH --output), not to slurm-*.out files in the repo.
    export PATH="$REPO/target/debug:$PATH"
    mkdir -p "$WORK/jobs"
    name=$(grep -E '^name[[:space:]]*=' "$spec" | head -1 | sed -E 's/^name[[:space:]]*=[[:space:]]*"([^"]*)".*/\1/')
    a=$(submit "$array" --chdir="$REPO" --output="$WORK/jobs/%x-%A_%a.out")
    m=$(submit "$merge" --chdir="$REPO" --output="$WORK/jobs/%x-%j.out" --dependency=afterok:"$a")
    wait_job "$a" || die "the shard array job $a failed"
    wait_job "$m" || die "the merge job $m failed"
    # The runner names outputs <name>-<profile>; accept <name>.h5 too. Either must be new: an
    # old file from an earlier run must not pass for the merge job's output.
    local merged="" f
    for f in "$REPO/results/$name-$profile.h5" "$REPO/results/$name.h5"; do
        if [ -f "$f" ] && [ "$f" -nt "$start_stamp" ]; then merged=$f; break; fi
    done
    [ -n "$merged" ] || die "the merge job wrote neither results/$name-$profile.h5 nor results/$name.h5 during this run"
    log "merged results: $merged"
    DUMP_LOGS=0  # the cluster did its part; later failures are not about Slurm

    log "running the same spec locally"
    timeout "$JOB_TIMEOUT" "$bin" run "$spec" --profile "$profile" --fresh --results-dir "$WORK/local" \
        --figures-dir "$WORK/local-figures" --no-check || die "local run failed"
    local local_h5="$WORK/local/$name-$profile.h5"
    [ -f "$local_h5" ] || die "the local run did not write $local_h5"

    local verdict=PASS
    local py
    py=$(python_with_h5py)
    "$py" scripts/compare_h5.py "$merged" "$local_h5" || verdict=FAIL
    slurm_down
    echo "slurm-test: $verdict (sharded over Slurm vs local: $merged vs $local_h5)"
    [ "$verdict" = PASS ]
}

main() {
    case "${1:-}" in
        -h|--help) sed -n '2,26p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; return 0 ;;
        --self-test|"") ;;
        *) die "unknown argument '$1' (use --self-test or nothing)" ;;
    esac
    trap on_exit EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    if [ "${1:-}" = --self-test ]; then self_test; else end_to_end; fi
}

# Sourcing the file (`. scripts/slurm-test.sh`) only defines the functions; then call slurm_up,
# submit_and_wait, slurm_down yourself (and set `trap on_exit EXIT` to get the cleanup).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi
