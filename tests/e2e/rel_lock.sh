#!/bin/bash
# One sweep per results file.  While a sweep holds <out>, a second one (under
# mpirun -np 2) exits 2 at once naming the holder's host and pid, runs no job and leaves the
# journal alone.  A holder killed with -9 leaves its lock file behind; the next run reports the
# dead holder, takes over and resumes: every job exactly once.
source "$(dirname "$0")/rel_lib.sh"
MPIEXEC=${MPIEXEC:-mpirun}
HOLDER=""
trap 'if [ -n "$HOLDER" ]; then kill -9 "$HOLDER" 2>/dev/null || true; fi; cleanup' EXIT
out="$WORK/r.h5"
# Two jobs of ~2 s, so the holder is still in its first job when it is stopped below.
SWEEP="$WORK/lock.yaml"
printf 'name: lock\ndefaults: {users: 16, duration: 30d, trace: online}\nseeds: 2\n' > "$SWEEP"
SET=()
n=2

# The holder: a serial sweep, stopped (SIGSTOP) as soon as it has taken the lock, so it holds it
# without using CPU for as long as the test needs.
"$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" > "$WORK/o1" 2> "$WORK/e1" &
HOLDER=$!
t=0
until grep -q "master pid" "$WORK/e1" 2>/dev/null; do
    sleep 0.05; t=$((t + 1)); [ $t -lt 1200 ] || fail "the holder did not start: $(cat "$WORK/e1")"
done
kill -STOP "$HOLDER"
jsum=$(md5sum < "$out.journal")

# A second sweep into the same --out, under MPI: refused, naming the holder.
rc=0
timeout 120 "$MPIEXEC" -np 2 "$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" > "$WORK/o2" 2> "$WORK/e2" || rc=$?
[ "$rc" = 2 ] || fail "second sweep: exit $rc, want 2 ($(cat "$WORK/e2"))"
grep -q "in use by another rcsim sweep" "$WORK/e2" || fail "no 'in use' message: $(cat "$WORK/e2")"
grep -q "pid $HOLDER " "$WORK/e2" || fail "the message does not name the holder's pid $HOLDER: $(cat "$WORK/e2")"
grep -q "host $(hostname) " "$WORK/e2" || fail "the message does not name the host $(hostname): $(cat "$WORK/e2")"
grep -q "jobs:" "$WORK/o2" && fail "the refused sweep printed a summary (ran jobs?)"
[ "$(md5sum < "$out.journal")" = "$jsum" ] || fail "the refused sweep changed the journal"
[ -s "$out.lock" ] || fail "no lock file $out.lock while the holder runs"
echo "ok: $(grep 'in use' "$WORK/e2" | head -1)"

# The holder dies without releasing (kill -9): its record stays, its lock does not.
kill -9 "$HOLDER"; wait "$HOLDER" 2>/dev/null || true; HOLDER=""
[ -s "$out.lock" ] || fail "kill -9 should leave the lock file behind"
"$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" > "$WORK/o3" 2> "$WORK/e3" || fail "takeover run: $(cat "$WORK/e3")"
grep -q "is gone without releasing it" "$WORK/e3" || fail "no note about the dead holder: $(cat "$WORK/e3")"
[ ! -e "$out.lock" ] || fail "the lock file is left after a clean run"
[ "$(h5_jobs "$out")" = "$n $n" ] || fail "after takeover: $(h5_jobs "$out"), want $n $n"
[ "$(journal_records "$out.journal")" = "$n" ] || fail "journal has $(journal_records "$out.journal") records, want $n"
echo "ok: $(grep 'gone' "$WORK/e3")"
echo PASS
