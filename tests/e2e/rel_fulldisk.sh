#!/bin/bash
# A sweep whose output directory fills up (a small tmpfs; needs root, else skipped):
#  1. the journal hits ENOSPC (serial): exit 1, an error naming the file and "No space left on
#     device", no crash; a retry on the still-full disk fails the same clean way, losing
#     nothing; the file, journal and manifest copied to a bigger disk resume to every job
#     exactly once;
#  2. the HDF5 file hits ENOSPC while the journal (on another disk) does not: exit 1 naming the
#     results file; the copy resumes without rerunning anything (rebuilt from the journal);
#  3. the same as 1 under mpirun -np 3 (the master aborts the running workers).
source "$(dirname "$0")/rel_lib.sh"
# One simulated hour with per-delivery records makes each journal record ~16 kB (compressed;
# compact records without them are 0.5-3 kB), so the journal fills a small disk after a
# few jobs, before the table's first flush.
SET=(--set store_raw=true --set duration=1h)
n=$(sweep_jobs "${SET[@]}")
[ "$n" -gt 0 ] || fail "cannot count the jobs of $SWEEP"

# A sweep commits its journal every 25 ms or 256 records (io/journal.h), so how many jobs one
# commit carries depends on how fast the jobs run: an -O3/LTO Release build runs several to a
# commit, and a first commit that overflows the disk leaves nothing journalled.  So the small
# disk is made in two steps: a tmpfs of 1 MiB takes one job of the sweep (a sweep of the same
# name, so the whole sweep is a growth of it), then shrinks to what that uses plus $2 KiB.
# The disk then always fills mid-sweep, with at least that job journalled, whatever the speed.
printf 'name: ci-small\ndefaults: {model: paper, duration: 10m, trace: online}\naxes: {users: [16], strategy: [unicast]}\nseeds: 1\n' > "$WORK/one.yaml"
small_disk_after_one_job() { # $1 directory to mount, $2 KiB left free after the one job
    mount_small "$1" 1m
    "$RCSIM" sweep "$WORK/one.yaml" --out "$1/r.h5" "${SET[@]}" > "$WORK/pre.out" 2>&1 || { cat "$WORK/pre.out"; fail "the one-job sweep failed"; }
    [ "$(journal_records "$1/r.h5.journal")" = 1 ] || fail "the one-job sweep journalled $(journal_records "$1/r.h5.journal") jobs"
    local used
    used=$(df -k --output=used "$1" | tail -1 | tr -d ' ')
    mount -o remount,size=$((used + $2))k "$1" || fail "cannot shrink the tmpfs at $1"
}

resume_on_big_disk() { # $1 results file on the full disk, $2 new directory, $3 expected "run" count or ""
    mkdir -p "$2"
    cp -L "$1" "$2/r.h5" 2>/dev/null || true   # the HDF5 file may be damaged or even absent
    cp -L "$1.journal" "$2/r.h5.journal"
    cp -L "$1.manifest.json" "$2/r.h5.manifest.json"   # what produced the finished jobs
    local rc=0
    "$RCSIM" sweep "$SWEEP" --out "$2/r.h5" "${SET[@]}" > "$2/out" 2> "$2/err" || rc=$?
    cat "$2/err" "$2/out"
    [ "$rc" = 0 ] || fail "resume on a bigger disk: exit $rc"
    local jobs uniq
    read -r jobs uniq < <(h5_jobs "$2/r.h5")
    [ "$jobs" = "$n" ] && [ "$uniq" = "$n" ] || fail "after resume: $jobs jobs ($uniq unique), want $n"
    [ "$(journal_records "$2/r.h5.journal")" = "$n" ] || fail "journal does not hold every job exactly once"
    if [ -n "${3:-}" ]; then
        [ "$(summary_run "$2/out")" = "$3" ] || fail "resume ran $(summary_run "$2/out") jobs, want $3"
    fi
}

echo "== 1. the journal fills the disk (serial)"
full=$WORK/full
small_disk_after_one_job "$full" 24
rc=0
"$RCSIM" sweep "$SWEEP" --out "$full/r.h5" "${SET[@]}" > "$WORK/1.out" 2> "$WORK/1.err" || rc=$?
cat "$WORK/1.err" "$WORK/1.out"
[ "$rc" = 1 ] || fail "full disk: exit $rc, want 1 (>= 128 is a crash)"
grep -q "$full/r.h5[.a-z]*: .*No space left on device" "$WORK/1.err" || fail "no error naming the file and ENOSPC"
saved=$(journal_records "$full/r.h5.journal")
[ "$saved" -ge 1 ] && [ "$saved" -lt "$n" ] || fail "$saved of $n jobs journalled; the disk should fill mid-sweep"
[ "$(summary_run "$WORK/1.out")" = "$((saved - 1))" ] || fail "summary says $(summary_run "$WORK/1.out") run, journal has $saved (1 before the sweep)"
cp -L "$full/r.h5" "$full/r.h5.journal" "$full/r.h5.manifest.json" "$WORK/" # what a user would rescue
# A retry where the disk is still full: the same clean failure, nothing lost from the journal.
rc=0
"$RCSIM" sweep "$SWEEP" --out "$full/r.h5" "${SET[@]}" > /dev/null 2> "$WORK/1b.err" || rc=$?
cat "$WORK/1b.err"
[ "$rc" = 1 ] || fail "retry on the full disk: exit $rc, want 1"
grep -q "$full/r.h5" "$WORK/1b.err" || fail "retry: no error naming the file"
# The retry may still journal a job or two: a sweep commits as many records as ran within
# 25 ms, so where the first run's commit of several jobs did not fit, the retry's commit of
# one may (a load-dependent size).  What must hold is that nothing journalled is lost.
retried=$(journal_records "$full/r.h5.journal")
[ "$retried" -ge "$saved" ] && [ "$retried" -lt "$n" ] || fail "retry: $retried of $n jobs journalled, $saved before it"
cp -L "$full/r.h5" "$full/r.h5.journal" "$full/r.h5.manifest.json" "$WORK/"
resume_on_big_disk "$WORK/r.h5" "$WORK/big1" "$((n - retried))"

echo "== 2. the HDF5 file fills the disk, the journal lives elsewhere"
full2=$WORK/full2
mount_small "$full2" 160k
mkdir -p "$WORK/j2"
ln -s "$WORK/j2/r.h5.journal" "$full2/r.h5.journal"
rc=0
"$RCSIM" sweep "$SWEEP" --out "$full2/r.h5" "${SET[@]}" > "$WORK/2.out" 2> "$WORK/2.err" || rc=$?
cat "$WORK/2.err" "$WORK/2.out"
[ "$rc" = 1 ] || fail "full disk (HDF5): exit $rc, want 1"
grep -q "$full2/r.h5: .*No space left on device" "$WORK/2.err" || fail "no error naming the results file and ENOSPC"
[ "$(journal_records "$WORK/j2/r.h5.journal")" = "$n" ] || fail "the journal should hold every job"
resume_on_big_disk "$full2/r.h5" "$WORK/big2" 0

echo "== 3. the journal fills the disk under $MPIEXEC -np 3"
full3=$WORK/full3
rc=0
# Open MPI 4.1.4's mpirun now and then crashes or hangs in PMIx_server_finalize after an
# MPI_Abort (docs/reliability.md); the KILL bounds that hang.  What rcsim controls is
# checked: the message, the exit being a failure, and what is on disk.
# Jobs of 2 simulated hours (records of ~30 kB): the disk fills while workers still run
# (with shorter jobs every result can arrive before the commit that fails, and nothing is
# left to abort).
SET=(--set store_raw=true --set duration=2h)
n=$(sweep_jobs "${SET[@]}")
small_disk_after_one_job "$full3" 24
timeout -s KILL 120 "$MPIEXEC" -np 3 "$RCSIM" sweep "$SWEEP" --out "$full3/r.h5" "${SET[@]}" > "$WORK/3.out" 2> "$WORK/3.err" || rc=$?
cat "$WORK/3.err" "$WORK/3.out"
[ "$rc" != 0 ] || fail "mpirun: a full disk exited 0"
[ "$rc" -lt 128 ] || echo "NOTE: mpirun itself ended with status $rc (Open MPI abort-path bug; see docs/reliability.md)"
grep -q "$full3/r.h5[.a-z]*: .*No space left on device" "$WORK/3.err" || fail "mpirun: no error naming the file and ENOSPC"
grep -q "stopping with [0-9]* job(s) running" "$WORK/3.err" || fail "mpirun: no abort notice"
saved3=$(journal_records "$full3/r.h5.journal")
[ "$saved3" -ge 1 ] || fail "mpirun: nothing journalled"
resume_on_big_disk "$full3/r.h5" "$WORK/big3" "$((n - saved3))"
echo PASS
