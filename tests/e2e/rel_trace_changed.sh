#!/bin/bash
# A trace file that changes while a sweep runs stops the sweep at the first job
# that finds it, with one message (not one failure and parameter list per remaining job).  A
# sweep of 16 jobs on a synthetic trace runs under mpirun -np 3; once a job is journalled the
# trace is replaced by another one.  Then: exit 1, the "changed" message once, "stopping", no
# job listed as FAILED and none under /failed; the finished jobs are kept.  With the original
# trace back the same command resumes and finishes every job exactly once.
source "$(dirname "$0")/rel_lib.sh"
MASTER=""
trap 'if [ -n "$MASTER" ]; then kill -9 "$MASTER" 2>/dev/null || true; fi; cleanup' EXIT
synth_hour_trace "$WORK/t.txt.gz" 1
cp "$WORK/t.txt.gz" "$WORK/orig.txt.gz"
synth_hour_trace "$WORK/other.txt.gz" 2
printf 'name: changing\ndefaults: {users: 16, duration: 5d, trace: %s}\nseeds: 16\n' "$WORK/t.txt.gz" > "$WORK/c.yaml"
out="$WORK/r.h5"
rc=0
timeout 120 "$MPIEXEC" -np 3 "$RCSIM" sweep "$WORK/c.yaml" --out "$out" --progress 0 > "$WORK/o" 2> "$WORK/e" &
MASTER=$!
t=0
until [ "$(journal_records "$out.journal" 2>/dev/null || echo 0)" -ge 1 ]; do
    sleep 0.05; t=$((t + 1)); [ $t -lt 1200 ] || fail "no job finished: $(cat "$WORK/e")"
    kill -0 "$MASTER" 2>/dev/null || fail "the sweep ended before the trace could change: $(cat "$WORK/e")"
done
mv "$WORK/other.txt.gz" "$WORK/t.txt.gz"
wait "$MASTER" || rc=$?
MASTER=""
[ "$rc" = 1 ] || fail "sweep with a changed trace: exit $rc, want 1 ($(tail -5 "$WORK/e"))"
n=$(grep -c "the file changed after the sweep started" "$WORK/e" || true)
[ "$n" = 1 ] || fail "the change was reported $n times, want once: $(head -c 2000 "$WORK/e")"
grep -q "stopping: no further job is started" "$WORK/e" || fail "no 'stopping' line: $(tail -5 "$WORK/e")"
! grep -q "FAILED\|parameters:" "$WORK/e" || fail "jobs were reported as FAILED: $(grep -m3 FAILED "$WORK/e")"
[ "$(failed_count "$out")" = 0 ] || fail "$(failed_count "$out") job(s) under /failed"
done1=$(journal_records "$out.journal")
[ "$done1" -ge 1 ] && [ "$done1" -lt 16 ] || fail "journal holds $done1 jobs after the stop, want 1..15"
echo "ok: stopped after $done1 job(s): $(grep -m1 'changed after' "$WORK/e" | cut -c1-160)"
cp "$WORK/orig.txt.gz" "$WORK/t.txt.gz"
timeout 120 "$MPIEXEC" -np 3 "$RCSIM" sweep "$WORK/c.yaml" --out "$out" --progress 0 > "$WORK/o2" 2> "$WORK/e2" \
    || fail "resume with the original trace: $(tail -5 "$WORK/e2")"
[ "$(h5_jobs "$out")" = "16 16" ] || fail "after the resume: $(h5_jobs "$out")"
[ "$(journal_records "$out.journal")" = 16 ] || fail "journal: $(journal_records "$out.journal") records"
echo PASS
