#!/bin/bash
# SIGTERM to the master mid-sweep: exit code 3, the file opens, a rerun completes.
source "$(dirname "$0")/farm_lib.sh"
SET=(--set duration=12d)  # long enough that SIGTERM lands mid-sweep (chunked dispatch, group commit)
n=$(sweep_jobs "${SET[@]}")
out="$WORK/t.h5"
"$MPIEXEC" -np 3 "$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" --progress 1 > "$WORK/run1.out" 2> "$WORK/run1.err" &
BG_PID=$!
wait_records "$out.journal" 1
kill -TERM "$(master_pid "$WORK/run1.err")"
rc=0; wait "$BG_PID" || rc=$?
BG_PID=""
cat "$WORK/run1.out"
[ "$rc" = 3 ] || { cat "$WORK/run1.err"; fail "exit code $rc after SIGTERM, want 3"; }
grep -q "stopped by a signal" "$WORK/run1.out" || fail "no summary after SIGTERM"
read -r jobs uniq < <(h5_jobs "$out")
[ "$jobs" = "$(journal_records "$out.journal")" ] || fail "file has $jobs jobs, journal $(journal_records "$out.journal")"
echo "stopped with $jobs of $n jobs saved"

# The serial path (-np 1) stops the same way.
"$RCSIM" sweep "$SWEEP" --out "$WORK/s.h5" "${SET[@]}" > "$WORK/s.out" 2> "$WORK/s.err" &
BG_PID=$!
wait_records "$WORK/s.h5.journal" 1
kill -TERM "$BG_PID"
rc=0; wait "$BG_PID" || rc=$?
BG_PID=""
[ "$rc" = 3 ] || fail "serial: exit code $rc after SIGTERM, want 3"
h5_jobs "$WORK/s.h5" > /dev/null

"$MPIEXEC" -np 3 "$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" --progress 1 > "$WORK/run2.out" 2> /dev/null || fail "rerun failed"
read -r jobs uniq < <(h5_jobs "$out")
[ "$jobs" = "$n" ] && [ "$uniq" = "$n" ] || fail "after rerun: $jobs jobs ($uniq unique), want $n"
echo PASS
