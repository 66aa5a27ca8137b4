#!/bin/bash
# e2e: `rcsim slurm` scripts on a real single-node SLURM cluster (scripts/slurm-local.sh).
#
#  1. a sweep (experiments/ci-small.yaml) through `sbatch --wait` with srun --mpi=pmix, and again
#     with the mpirun launcher: every job present with status ok, and per-job results (counters,
#     summaries, histograms) identical to a plain `mpirun -np 1 rcsim sweep`;
#  2. the time-limit path: SIGTERM to the batch shell mid-run (`scancel --batch --signal=TERM`, what
#     `#SBATCH --signal=B:TERM@lead` does at the time limit): rcsim saves and exits 3, the script
#     requeues itself, the second run resumes, and the file ends complete with every job exactly
#     once (HDF5 and journal) and results equal to a plain run;
#  3. --no-requeue: the same stop ends the job with code 3, and submitting the script again resumes;
#  4. only with RCSIM_SLURM_TIMELIMIT_TEST=1 (slow, ~2 min more): a real --time limit with requeues;
#  5. the partition check against this cluster: the default --ntasks fits its CPUs, and more tasks
#     than it has are refused (exit 2) instead of pending forever;
#  6. --array: the array job and the merge job (--dependency=afterok) under SLURM, first with a
#     stand-in for rcsim that records what each task and the merge are asked (task indices, part
#     files, merge order; a failing task gets the merge job cancelled, not left pending), then
#     with rcsim itself (`sweep --shard`, `merge`) when this build has them: the merged file
#     holds every job with results equal to the plain run.
#
# Skips (exit 77) when slurm-wlm/munge are not installed, when not root, or when /etc/slurm has a
# configuration that scripts/slurm-local.sh did not write.  Starts the cluster if it is not running
# and stops it at the end if it started it.  SLURM holds a requeued job until its old job
# credential expires (cred_expire, 120 s by default); the local cluster sets 10 s.  Releasing it
# earlier by hand (scontrol update StartTime=now) makes the start fail ("credential revoked").
set -uo pipefail
: "${RCSIM:?RCSIM must point at the rcsim binary}"
: "${RCSIM_SOURCE_DIR:?RCSIM_SOURCE_DIR must point at the source tree}"
MPIEXEC=${MPIEXEC:-mpirun}
PY=/usr/bin/python3
SL="$RCSIM_SOURCE_DIR/scripts/slurm-local.sh"
SWEEP="$RCSIM_SOURCE_DIR/experiments/ci-small.yaml"

skip() { echo "SKIP: $*"; exit 77; }
for exe in sbatch scontrol squeue scancel; do
    command -v "$exe" >/dev/null 2>&1 || skip "$exe not found: slurm-wlm is not installed (scripts/slurm-local.sh install)"
done
[ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] && [ -x /usr/sbin/munged ] ||
    skip "slurmctld/slurmd/munged not installed (scripts/slurm-local.sh install)"
[ "$(id -u)" = 0 ] || skip "the local SLURM cluster needs root"
if [ -f /etc/slurm/slurm.conf ] && ! grep -q "written by rcsim scripts/slurm-local.sh" /etc/slurm/slurm.conf; then
    skip "/etc/slurm/slurm.conf belongs to another SLURM setup; not touching it"
fi
[ -f "$SWEEP" ] || { echo "FAIL: $SWEEP missing" >&2; exit 1; }

WORK=$(mktemp -d /tmp/rcsim-slurm-e2e.XXXXXX)
JOBS=()          # SLURM job ids this test submitted (cancelled on exit if still queued)
BG=()            # background sbatch --wait processes this test started
STARTED=0
FAILED=1

cleanup() {
    for j in "${JOBS[@]}"; do scancel "$j" >/dev/null 2>&1 || true; done
    for p in "${BG[@]}"; do kill "$p" 2>/dev/null || true; done
    if [ "$FAILED" = 1 ]; then
        echo "----- test work dir $WORK (kept) -----" >&2
        for f in "$WORK"/*.log "$WORK"/*.sbout; do
            [ -f "$f" ] || continue
            echo "----- $f -----" >&2
            tail -n 60 "$f" >&2
        done
        for f in /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log; do
            [ -f "$f" ] || continue
            echo "----- last lines of $f -----" >&2
            tail -n 25 "$f" >&2
        done
    else
        rm -rf "$WORK"
    fi
    if [ "$STARTED" = 1 ]; then "$SL" stop || true; fi
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($(date +%T))"; }

# Results check: file A is complete (every job of the sweep exactly once, status ok, journal with
# one record per job) and, with B, per-job results equal B's.  Wall-clock fields are excluded.
check_h5() {
    local view="$RCSIM_SOURCE_DIR/tests/e2e/results_view.py" jobs uniq
    read -r jobs uniq < <("$PY" "$view" jobs "$1") || fail "$1 does not open as a layout-2 results file"
    [ "$jobs" = "$2" ] && [ "$uniq" = "$2" ] || fail "$1: $jobs jobs ($uniq unique), expected $2"
    # the journal (src/io/journal.h): every job exactly once, the same ids as the table
    # ($4 = nojournal skips this)
    if [ "${4:-}" != nojournal ]; then
        diff <("$PY" "$view" journal-ids "$1.journal" | sort) <("$PY" "$view" ids "$1") > /dev/null ||
            fail "$1: journal ids differ from the table's"
        [ "$("$PY" "$view" journal-ids "$1.journal" | sort | uniq -d | wc -l)" = 0 ] ||
            fail "$1: a job is in the journal twice"
    fi
    if [ -n "${3:-}" ]; then "$PY" "$view" compare "$1" "$3" || fail "$1 differs from $3"; fi
    echo "ok: $1: $jobs jobs${3:+, equal to $3}"
}

n_jobs() { "$RCSIM" plan "$SWEEP" --json "$@" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["jobs"])'; }

# Submits $1 with `sbatch --wait` in the background; sets SUB_PID and SUB_JOB.
submit_bg() {
    local script=$1 out=$2
    timeout 280 sbatch --wait "$script" >"$out" 2>&1 &
    SUB_PID=$!
    BG+=("$SUB_PID")
    SUB_JOB=""
    for _ in $(seq 1 100); do
        SUB_JOB=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' "$out")
        [ -n "$SUB_JOB" ] && break
        kill -0 "$SUB_PID" 2>/dev/null || break
        sleep 0.1
    done
    [ -n "$SUB_JOB" ] || fail "sbatch did not submit $script: $(cat "$out")"
    JOBS+=("$SUB_JOB")
}

# Waits for the background sbatch --wait; returns its exit code (the job's).  Bounded: 240 s.
finish_bg() {
    local deadline=$((SECONDS + 240))
    while kill -0 "$SUB_PID" 2>/dev/null; do
        [ "$SECONDS" -lt "$deadline" ] || fail "job $SUB_JOB still not finished after 240 s"
        sleep 0.5
    done
    wait "$SUB_PID"
}

# Waits until the journal $1 holds at least one finished job beyond its header.
wait_first_result() {
    local deadline=$((SECONDS + 120))
    while [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -le 16 ]; do
        [ "$SECONDS" -lt "$deadline" ] || fail "no job finished within 120 s ($1)"
        kill -0 "$SUB_PID" 2>/dev/null || fail "the job ended before any result was journaled"
        sleep 0.2
    done
}

# Sum of "N run" over all `rcsim sweep` summary lines in a log: each job must have run once.
runs_in_log() { sed -n 's/^rcsim sweep [^:]*: [0-9]* jobs: \([0-9]*\) run,.*/\1/p' "$1" | awk '{s += $1} END {print s + 0}'; }

# ---------------------------------------------------------------------------------------------
step "local SLURM cluster"
if ! "$SL" status >/dev/null 2>&1; then STARTED=1; fi
"$SL" start || fail "scripts/slurm-local.sh start failed"
NCPU=$(sinfo -h -n localhost -o %c | head -n1)
[ "${NCPU:-0}" -ge 2 ] || fail "the local node has ${NCPU:-?} CPUs; need 2 for 1 master + 1 worker"

# Calibration: the SIGTERM cases need a sweep that takes some seconds (so the signal lands
# mid-sweep) on whatever machine runs the test, whatever the simulator's speed.  The cost of
# ci-small grows linearly with the simulated duration; time one simulated day.
t0=$(date +%s%N)
"$RCSIM" sweep "$SWEEP" --set duration=1d --out "$WORK/calib.h5" >"$WORK/calib.log" 2>&1 ||
    fail "calibration run failed: $(tail -n 5 "$WORK/calib.log")"
MS_PER_DAY=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$MS_PER_DAY" -ge 1 ] || MS_PER_DAY=1
# Simulated days for a sweep of about $1 ms (at least 2, at most 3650).
days_for() {
    local d=$(( ($1 + MS_PER_DAY - 1) / MS_PER_DAY ))
    [ "$d" -ge 2 ] || d=2
    [ "$d" -le 3650 ] || d=3650
    echo "$d"
}
LONG_SET="duration=$(days_for 9000)d"
echo "calibration: 1 simulated day = $MS_PER_DAY ms for the sweep; SIGTERM cases use --set $LONG_SET"

N=$(n_jobs) || fail "rcsim plan failed on $SWEEP"
NL=$(n_jobs --set "$LONG_SET") || fail "rcsim plan failed with --set $LONG_SET"
[ "$N" -ge 4 ] && [ "$NL" -ge 4 ] || fail "ci-small has $N jobs; the test needs at least 4"

step "generator: a bad sweep file exits 2 and writes nothing"
printf 'name: bad\naxes:\n  no_such_key: [1, 2]\n' >"$WORK/bad.yaml"
"$RCSIM" slurm "$WORK/bad.yaml" -o "$WORK/bad.sbatch" 2>"$WORK/bad.err"
rc=$?
[ "$rc" = 2 ] || fail "rcsim slurm on a bad file: exit $rc, expected 2"
[ ! -e "$WORK/bad.sbatch" ] || fail "rcsim slurm wrote a script for a bad sweep file"
"$RCSIM" slurm "$SWEEP" --time 5 --signal-lead 600 -o "$WORK/x.sbatch" 2>/dev/null
[ $? = 2 ] || fail "--signal-lead longer than --time was accepted"

step "plain reference runs (mpirun -np 1)"
"$MPIEXEC" -np 1 "$RCSIM" sweep "$SWEEP" --out "$WORK/plain.h5" >"$WORK/plain.log" 2>&1 ||
    fail "plain rcsim sweep failed: $(tail -n 5 "$WORK/plain.log")"
"$MPIEXEC" -np 1 "$RCSIM" sweep "$SWEEP" --set "$LONG_SET" --out "$WORK/plain-long.h5" \
    >"$WORK/plain-long.log" 2>&1 || fail "plain rcsim sweep --set $LONG_SET failed"

# ---------------------------------------------------------------------------------------------
step "1a. sbatch --wait, srun launcher"
(cd "$WORK" && "$RCSIM" slurm "$SWEEP" --out srun.h5 --ntasks 2 --job-name rcsim-e2e-srun \
    -o srun.sbatch) || fail "rcsim slurm failed"
S="$WORK/srun.sbatch"
bash -n "$S" || fail "generated script has a syntax error"
grep -q "^OUT=$WORK/srun.h5\$" "$S" || fail "results path is not absolute in the script"
grep -q "^RCSIM=$(realpath "$RCSIM")\$" "$S" || fail "binary path is not absolute in the script"
grep -q "^SWEEP=$(realpath "$SWEEP")\$" "$S" || fail "sweep path is not absolute in the script"
grep -q '^#SBATCH --signal=B:TERM@300$' "$S" || fail "no #SBATCH --signal=B:TERM@300"
grep -q '^#SBATCH --requeue$' "$S" || fail "no #SBATCH --requeue"
grep -q '^#SBATCH --ntasks=2$' "$S" || fail "no #SBATCH --ntasks=2"
grep -q "^# jobs: *$N\$" "$S" || fail "the header does not give the job count $N"
grep -q 'srun --mpi=pmix' "$S" || fail "no srun --mpi=pmix"
submit_bg "$S" "$WORK/srun.sbout"
rc=0; finish_bg || rc=$?
[ "$rc" = 0 ] || fail "srun job $SUB_JOB exited $rc"
check_h5 "$WORK/srun.h5" "$N" "$WORK/plain.h5" || fail "srun results differ from the plain run"

step "1b. sbatch --wait, mpirun launcher"
"$RCSIM" slurm "$SWEEP" --out "$WORK/mpirun.h5" --ntasks 2 --launcher mpirun \
    --job-name rcsim-e2e-mpirun -o "$WORK/mpirun.sbatch" 2>/dev/null || fail "rcsim slurm failed"
submit_bg "$WORK/mpirun.sbatch" "$WORK/mpirun.sbout"
rc=0; finish_bg || rc=$?
[ "$rc" = 0 ] || fail "mpirun job $SUB_JOB exited $rc"
check_h5 "$WORK/mpirun.h5" "$N" "$WORK/plain.h5" || fail "mpirun results differ from the plain run"

# ---------------------------------------------------------------------------------------------
step "2. SIGTERM mid-run (as at the time limit): save, exit 3, requeue, resume"
"$RCSIM" slurm "$SWEEP" --set "$LONG_SET" --out "$WORK/term.h5" --ntasks 2 --progress 2 \
    --job-name rcsim-e2e-term -o "$WORK/term.sbatch" 2>/dev/null || fail "rcsim slurm failed"
submit_bg "$WORK/term.sbatch" "$WORK/term.sbout"
wait_first_result "$WORK/term.h5.journal"
scancel --batch --signal=TERM "$SUB_JOB" || fail "scancel --batch --signal=TERM $SUB_JOB failed"
rc=0; finish_bg || rc=$?
LOG=$(ls "$WORK"/rcsim-e2e-term-*.log)
[ "$rc" = 0 ] || fail "requeued job $SUB_JOB ended with $rc"
grep -q "rcsim sweep stopped by SIGTERM" "$LOG" ||
    fail "rcsim did not stop on SIGTERM (did the sweep finish before the signal?)"
grep -q "requeueing job $SUB_JOB" "$LOG" || fail "the job did not requeue itself"
grep -q "job $SUB_JOB (run 2)" "$LOG" || fail "no second run after the requeue"
grep -q "sweep complete" "$LOG" || fail "the resumed run did not complete the sweep"
runs=$(runs_in_log "$LOG")
[ "$runs" = "$NL" ] || fail "jobs run over all runs: $runs, expected $NL (each exactly once)"
check_h5 "$WORK/term.h5" "$NL" "$WORK/plain-long.h5" || fail "resumed results differ from the plain run"

# ---------------------------------------------------------------------------------------------
step "3. --no-requeue: exit 3, then resubmitting the same script resumes"
"$RCSIM" slurm "$SWEEP" --set "$LONG_SET" --out "$WORK/noreq.h5" --ntasks 2 --no-requeue \
    --job-name rcsim-e2e-noreq -o "$WORK/noreq.sbatch" 2>/dev/null || fail "rcsim slurm failed"
grep -q '^#SBATCH --no-requeue$' "$WORK/noreq.sbatch" || fail "no #SBATCH --no-requeue"
submit_bg "$WORK/noreq.sbatch" "$WORK/noreq.sbout"
wait_first_result "$WORK/noreq.h5.journal"
scancel --batch --signal=TERM "$SUB_JOB" || fail "scancel --batch --signal=TERM $SUB_JOB failed"
rc=0; finish_bg || rc=$?
[ "$rc" = 3 ] || fail "--no-requeue job stopped by SIGTERM ended with $rc, expected 3"
submit_bg "$WORK/noreq.sbatch" "$WORK/noreq2.sbout"
rc=0; finish_bg || rc=$?
[ "$rc" = 0 ] || fail "resubmitted job $SUB_JOB ended with $rc"
LOG=$(ls "$WORK"/rcsim-e2e-noreq-*.log | tail -n1)
grep -q "already done" "$LOG" || fail "the resubmitted job did not resume"
check_h5 "$WORK/noreq.h5" "$NL" "$WORK/plain-long.h5" || fail "resubmitted results differ from the plain run"

# ---------------------------------------------------------------------------------------------
if [ "${RCSIM_SLURM_TIMELIMIT_TEST:-0}" = 1 ]; then
    step "4. a real --time limit: signal, requeues, completion (slow)"
    # About 75 s of work: the signal comes ~40-50 s into the first 2-minute run.
    SET4="duration=$(days_for 75000)d"
    "$RCSIM" slurm "$SWEEP" --set "$SET4" --out "$WORK/tl.h5" --ntasks 2 --time 2 \
        --signal-lead 70 --grace 20 --job-name rcsim-e2e-tl -o "$WORK/tl.sbatch" 2>/dev/null ||
        fail "rcsim slurm failed"
    submit_bg "$WORK/tl.sbatch" "$WORK/tl.sbout"
    rc=0; finish_bg || rc=$?
    [ "$rc" = 0 ] || fail "time-limited job $SUB_JOB ended with $rc"
    LOG=$(ls "$WORK"/rcsim-e2e-tl-*.log)
    grep -q "requeueing job $SUB_JOB" "$LOG" || fail "the time-limited job never requeued"
    check_h5 "$WORK/tl.h5" "$(n_jobs --set "$SET4")" || fail "time-limited results incomplete"
fi

# ---------------------------------------------------------------------------------------------
step "5. the partition check against this cluster ($NCPU CPUs)"
"$RCSIM" slurm "$SWEEP" --out "$WORK/p.h5" -o "$WORK/p.sbatch" 2>"$WORK/p.err" || fail "rcsim slurm (default --ntasks) failed: $(cat "$WORK/p.err")"
nt=$(sed -n 's/^#SBATCH --ntasks=\([0-9]*\)$/\1/p' "$WORK/p.sbatch")
[ -n "$nt" ] && [ "$nt" -le "$NCPU" ] || fail "default --ntasks=$nt on a partition of $NCPU CPUs"
grep -q "^# partition: debug (default), UP: 1 node x $NCPU CPUs, $NCPU CPUs in all" "$WORK/p.sbatch" ||
    fail "the header does not describe the partition: $(grep '^# partition' "$WORK/p.sbatch")"
"$RCSIM" slurm "$SWEEP" --ntasks $((NCPU + 14)) -o "$WORK/p2.sbatch" 2>"$WORK/p2.err"
rc=$?
[ "$rc" = 2 ] && [ ! -e "$WORK/p2.sbatch" ] || fail "--ntasks $((NCPU + 14)) on $NCPU CPUs: exit $rc, expected 2 and no script"
grep -q "partition 'debug' has $NCPU CPUs in all.*PartitionConfig" "$WORK/p2.err" || fail "unclear refusal: $(cat "$WORK/p2.err")"

# ---------------------------------------------------------------------------------------------
step "6a. --array under SLURM, with a stand-in for rcsim"
# The stand-in writes its arguments into the part file (sweep) or concatenates the parts
# and writes a journal beside them, as a real merge does (merge); with $WORK/fail-shard-1 present, shard 1 fails.
cat >"$WORK/stand-in" <<STANDIN
#!/bin/bash
cmd=\$1; shift
out=""; shard=""; parts=()
while [ \$# -gt 0 ]; do
    case \$1 in --out) out=\$2; shift 2 ;; --shard) shard=\$2; shift 2 ;; *) parts+=("\$1"); shift ;; esac
done
case \$cmd in
    sweep) if [ "\$shard" = 1/3 ] && [ -e "$WORK/fail-shard-1" ]; then echo "stand-in: shard 1 fails"; exit 1; fi
           echo "shard \$shard" >"\$out" ;;
    merge) cat "\${parts[@]}" >"\$out"; : >"\$out.journal" ;; # the script installs both
esac
STANDIN
chmod +x "$WORK/stand-in"
"$RCSIM" slurm "$SWEEP" --array 3 --out "$WORK/arrs.h5" --job-name rcsim-e2e-arrs -o "$WORK/arrs.sbatch" \
    2>/dev/null || fail "rcsim slurm --array failed"
for f in arrs.sbatch arrs-merge.sbatch; do
    sed -i "s|^RCSIM=.*|RCSIM=$WORK/stand-in|" "$WORK/$f"
done
grep -q '^#SBATCH --array=0-2$' "$WORK/arrs.sbatch" || fail "no #SBATCH --array=0-2"
AJ=$(sbatch --parsable "$WORK/arrs.sbatch") || fail "sbatch of the array script failed"
AJ=${AJ%%;*}
JOBS+=("$AJ")
timeout 200 sbatch --wait --dependency=afterok:"$AJ" "$WORK/arrs-merge.sbatch" >"$WORK/arrs-merge.sbout" 2>&1 ||
    fail "the merge job failed: $(cat "$WORK/arrs-merge.sbout")"
for i in 0 1 2; do
    [ "$(cat "$WORK/arrs.parts/part-$i.h5")" = "shard $i/3" ] || fail "part-$i.h5: $(cat "$WORK/arrs.parts/part-$i.h5" 2>&1)"
done
[ "$(cat "$WORK/arrs.h5")" = "$(printf 'shard 0/3\nshard 1/3\nshard 2/3')" ] || fail "merged: $(cat "$WORK/arrs.h5")"
grep -q "merge complete" "$WORK"/rcsim-e2e-arrs-merge-*.log || fail "no 'merge complete' in the merge log"

step "6b. --array: a failing task cancels the merge job"
rm -rf "$WORK/arrs.parts" "$WORK/arrs.h5"
: >"$WORK/fail-shard-1"
AJ=$(sbatch --parsable "$WORK/arrs.sbatch") || fail "sbatch of the array script failed"
AJ=${AJ%%;*}
JOBS+=("$AJ")
MJ=$(sbatch --parsable --dependency=afterok:"$AJ" "$WORK/arrs-merge.sbatch") || fail "sbatch of the merge script failed"
MJ=${MJ%%;*}
JOBS+=("$MJ")
state=""
for _ in $(seq 1 240); do
    state=$(scontrol show job "$MJ" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    [ "$state" = CANCELLED ] && break
    sleep 0.5
done
[ "$state" = CANCELLED ] || fail "merge job $MJ after a failed task: state '$state', expected CANCELLED"
[ ! -e "$WORK/arrs.h5" ] || fail "the merge ran although a task failed"
rm -f "$WORK/fail-shard-1"

step "6c. --array with rcsim itself (sweep --shard, merge)"
if "$RCSIM" merge --help >/dev/null 2>&1 && "$RCSIM" sweep --help 2>&1 | grep -q -- "--shard"; then
    "$RCSIM" slurm "$SWEEP" --array 3 --out "$WORK/arr.h5" --job-name rcsim-e2e-arr -o "$WORK/arr.sbatch" \
        2>/dev/null || fail "rcsim slurm --array failed"
    AJ=$(sbatch --parsable "$WORK/arr.sbatch") || fail "sbatch of the array script failed"
    AJ=${AJ%%;*}
    JOBS+=("$AJ")
    timeout 200 sbatch --wait --dependency=afterok:"$AJ" "$WORK/arr-merge.sbatch" >"$WORK/arr-merge.sbout" 2>&1 ||
        fail "the merge job failed: $(cat "$WORK/arr-merge.sbout")"
    check_h5 "$WORK/arr.h5" "$N" "$WORK/plain.h5" nojournal || fail "merged array results differ from the plain run"
else
    echo "note: 6c not run: this rcsim has no 'sweep --shard' and 'merge' yet (6a/6b checked the scripts)"
fi

FAILED=0
echo "PASS: slurm e2e"
