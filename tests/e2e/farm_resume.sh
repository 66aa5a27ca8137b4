#!/bin/bash
# kill -9 of the master mid-sweep, then a rerun: every job exactly once, the file opens, and
# nothing that was journalled is run again.  Also: a damaged results file is rebuilt from the
# journal and moved aside.
source "$(dirname "$0")/farm_lib.sh"
SET=(--set duration=12d)  # long enough that the kill lands mid-sweep (jobs are chunked and committed in groups)
n=$(sweep_jobs "${SET[@]}")
out="$WORK/r.h5"
"$MPIEXEC" -np 3 "$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" --progress 1 2> "$WORK/run1.err" &
BG_PID=$!
wait_records "$out.journal" 2
pid=$(master_pid "$WORK/run1.err")
[ -n "$pid" ] || fail "no master pid in the log"
kill -9 "$pid"
wait "$BG_PID" && fail "mpirun succeeded after kill -9" || true
BG_PID=""
done1=$(journal_records "$out.journal")
echo "killed the master with $done1 of $n jobs in the journal"
[ "$done1" -lt "$n" ] || fail "the sweep finished before the kill; make the jobs longer"

"$MPIEXEC" -np 3 "$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" --progress 1 > "$WORK/run2.out" 2> "$WORK/run2.err" \
    || { cat "$WORK/run2.err"; fail "resume failed"; }
cat "$WORK/run2.out"
grep -q "$done1 skipped" "$WORK/run2.out" || fail "resume did not skip the $done1 journalled jobs"
read -r jobs uniq < <(h5_jobs "$out")
[ "$jobs" = "$n" ] && [ "$uniq" = "$n" ] || fail "after resume: $jobs jobs ($uniq unique), want $n"
[ "$(journal_records "$out.journal")" = "$n" ] || fail "journal does not hold every job exactly once"

# A results file destroyed mid-write: rebuilt from the journal, nothing rerun.
truncate -s 4096 "$out"
"$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" > "$WORK/run3.out" 2> "$WORK/run3.err" || { cat "$WORK/run3.err"; fail "rebuild failed"; }
grep -q "rebuilding it from the journal" "$WORK/run3.err" || fail "no rebuild message"
grep -q "0 run, $n skipped" "$WORK/run3.out" || fail "rebuild reran jobs: $(cat "$WORK/run3.out")"
ls "$out".damaged-* > /dev/null || fail "damaged file not kept aside"
read -r jobs uniq < <(h5_jobs "$out")
[ "$jobs" = "$n" ] || fail "rebuilt file has $jobs jobs, want $n"

# A torn journal tail: the last record is dropped and that one job rerun.
size=$(stat -c %s "$out.journal")
truncate -s $((size - 10)) "$out.journal"
"$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" > "$WORK/run4.out" 2> "$WORK/run4.err" || { cat "$WORK/run4.err"; fail "torn-tail resume failed"; }
grep -q "torn last record" "$WORK/run4.err" || fail "torn record not reported"
grep -q "1 run, $((n - 1)) skipped" "$WORK/run4.out" || fail "torn tail: $(cat "$WORK/run4.out")"
read -r jobs uniq < <(h5_jobs "$out")
[ "$jobs" = "$n" ] || fail "after torn tail: $jobs jobs"

# One flipped byte in the middle of the journal (the 3rd job record of $n) is damage, not a
# torn tail: only that record is cut (its bytes kept in a copy named by the byte offset, which
# the message names), the records after it are kept, and only its job runs again.
read -r at len < <($PY "$RESULTS_VIEW" journal-flip "$out.journal" 3)
[ -n "$len" ] || fail "cannot flip a byte of the journal"
head -c $((at + len)) "$out.journal" | tail -c "$len" > "$WORK/damaged-record"
"$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" > "$WORK/run5.out" 2> "$WORK/run5.err" || { cat "$WORK/run5.err"; fail "resume after a damaged record failed"; }
cat "$WORK/run5.err"
grep -q "damaged in the middle: $len byte(s) at byte offset $at " "$WORK/run5.err" || fail "the damage in the middle is not reported with its offset"
grep -q "torn" "$WORK/run5.err" && fail "damage in the middle reported as a torn tail"
cmp "$WORK/damaged-record" "$out.journal.cut-at-$at" || fail "no exact copy of the cut bytes in $out.journal.cut-at-$at"
grep -q "1 run, $((n - 1)) skipped" "$WORK/run5.out" || fail "damaged record: $(cat "$WORK/run5.out")"
[ "$(journal_records "$out.journal")" = "$n" ] || fail "journal does not hold every job exactly once after the repair"
read -r jobs uniq < <(h5_jobs "$out")
[ "$jobs" = "$n" ] && [ "$uniq" = "$n" ] || fail "after the repair: $jobs jobs ($uniq unique), want $n"
echo PASS
