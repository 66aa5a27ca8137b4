#!/bin/bash
# A reader (h5py) holding the results file open when the sweep writes its table at the end:
# the sweep waits (--lock-wait), then leaves the results in the journal, warns how to write
# the table, and still exits 0.  Rerunning the command once the reader is
# gone writes the table and runs nothing.  A reader that lets go within the wait costs
# nothing.
source "$(dirname "$0")/farm_lib.sh"
SET=(--set duration=1d)   # jobs long enough that the sweep is still running when stopped
n=$(sweep_jobs "${SET[@]}")

# An existing results file of this sweep with (almost) nothing in it: a run stopped at once.
start_empty() {
    "$RCSIM" sweep "$SWEEP" --out "$1" "${SET[@]}" --grace 0 > /dev/null 2>&1 &
    local pid=$! t=0
    while [ ! -s "$1" ] && [ $t -lt 200 ]; do sleep 0.05; t=$((t + 1)); done
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" || true
    [ -s "$1" ] || fail "no results file to hold"
    [ "$(journal_records "$1.journal")" -lt "$n" ] || fail "the stopped run finished everything"
}
hold() { # $1 file, $2 seconds: holds $1 open read-only, as an h5py session does
    $PY -c 'import h5py, sys, time
f = h5py.File(sys.argv[1], "r"); time.sleep(float(sys.argv[2])); f.close()' "$1" "$2" &
    BG_PID=$!
    sleep 1
}

out="$WORK/r.h5"
start_empty "$out"
hold "$out" 120
rc=0
"$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" --lock-wait 2 > "$WORK/1.out" 2> "$WORK/1.err" || rc=$?
cat "$WORK/1.err" "$WORK/1.out"
[ "$rc" = 0 ] || fail "a sweep that ran every job exited $rc because a reader held the file"
grep -q "still held open by another process" "$WORK/1.err" || fail "no warning about the reader"
grep -q "run the same command again" "$WORK/1.err" || fail "the warning does not say how to write the table"
[ "$(journal_records "$out.journal")" = "$n" ] || fail "the journal does not hold every job"
kill "$BG_PID" 2>/dev/null || true
wait "$BG_PID" 2>/dev/null || true
BG_PID=""
# The reader is gone: the same command writes the table and runs nothing.
"$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" > "$WORK/2.out" 2> "$WORK/2.err" || { cat "$WORK/2.err"; fail "rerun"; }
cat "$WORK/2.err" "$WORK/2.out"
grep -q " 0 run, $n skipped" "$WORK/2.out" || fail "the rerun ran jobs"
read -r jobs uniq < <(h5_jobs "$out")
[ "$jobs" = "$n" ] && [ "$uniq" = "$n" ] || fail "table has $jobs jobs ($uniq unique), want $n"

# A reader that closes within the wait: the sweep (under mpirun) waits and writes the table.
out2="$WORK/s.h5"
start_empty "$out2"
hold "$out2" 4
"$MPIEXEC" -np 3 "$RCSIM" sweep "$SWEEP" --out "$out2" "${SET[@]}" --lock-wait 60 > "$WORK/3.out" 2> "$WORK/3.err" ||
    { cat "$WORK/3.err"; fail "sweep with a short-lived reader"; }
wait "$BG_PID" 2>/dev/null || true
BG_PID=""
read -r jobs uniq < <(h5_jobs "$out2")
[ "$jobs" = "$n" ] || fail "after the reader let go: $jobs jobs in the table, want $n"
if grep -q "still held open" "$WORK/3.err"; then fail "warned although the reader let go in time"; fi
echo PASS
