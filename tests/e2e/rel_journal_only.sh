#!/bin/bash
# A journal is a result: jobs finished in a part's journal but not (yet) in its table.  A sweep
# that ended while a reader held its file leaves every job in the journal and none written to
# the table (the documented warning, farm_reader); `rcsim merge`, `rcsim summarize`, `rcsim
# plot` and the Python loader refuse it with that reason (not "build ''" nor "no finished
# jobs"), and accept it once the same command has written the table.  Also: merge refuses a
# part that a running sweep still writes (its lock held), and an --out that is a dangling
# symbolic link (exit 2, the link kept).
source "$(dirname "$0")/rel_lib.sh"
SET=(--set duration=1d)
n=$(sweep_jobs "${SET[@]}")
out="$WORK/r.h5"
# A results file of this sweep with (almost) nothing in its table: a run stopped at once.
"$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" --grace 0 > /dev/null 2>&1 &
pid=$! t=0
while [ ! -s "$out" ] && [ $t -lt 200 ]; do sleep 0.05; t=$((t + 1)); done
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" || true
[ -s "$out" ] || fail "no results file"
# A reader holds it while the sweep finishes: every job journalled, the table not written.
$PY -c 'import h5py, sys, time
f = h5py.File(sys.argv[1], "r"); time.sleep(60); f.close()' "$out" &
reader=$!
sleep 1
"$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" --lock-wait 1 > "$WORK/1.out" 2> "$WORK/1.err" || { cat "$WORK/1.err"; fail "sweep with a reader"; }
kill "$reader"; wait "$reader" 2>/dev/null || true
grep -q "still held open" "$WORK/1.err" || fail "the reader did not keep the table from being written"
[ "$(journal_records "$out.journal")" = "$n" ] || fail "the journal does not hold every job"
rows=$($PY -c 'import h5py, sys; print(int(h5py.File(sys.argv[1], "r")["table"].attrs["rows"]))' "$out")
[ "$rows" -lt "$n" ] || fail "the table holds every job; the test needs one that does not"
lack=$((n - rows))
echo "journal $n jobs, table $rows rows"

expect_refusal() { # $1 what, $2 want exit, then the command
    local what=$1 want=$2 rc=0
    shift 2
    "$@" > "$WORK/o" 2> "$WORK/e" || rc=$?
    cat "$WORK/e"
    [ "$rc" = "$want" ] || fail "$what: exit $rc, want $want"
    grep -q "journal.* holds $lack finished job(s) that its table does not" "$WORK/e" || fail "$what: not refused for the journal's jobs: $(cat "$WORK/e")"
}
expect_refusal "merge" 2 "$RCSIM" merge "$out" --out "$WORK/all.h5"
[ ! -e "$WORK/all.h5" ] || fail "a refused merge wrote its output"
expect_refusal "merge --allow-other-build" 2 "$RCSIM" merge "$out" --out "$WORK/all.h5" --allow-other-build
[ ! -e "$WORK/all.h5" ] || fail "a refused merge wrote its output"
expect_refusal "summarize" 2 "$RCSIM" summarize "$out"
expect_refusal "plot" 2 "$RCSIM" plot "$out" --out "$WORK/plots"
rc=0
PYTHONPATH="$RCSIM_SOURCE_DIR/analysis" $PY -c 'import sys; from rcplot import journal; journal.check_files([sys.argv[1]])' "$out" 2> "$WORK/e" || rc=$?
[ "$rc" != 0 ] && grep -q "its journal holds $lack finished job(s)" "$WORK/e" || fail "the journal check read a table without its journal's jobs: $(cat "$WORK/e")"

# The same command writes the table; then every reader and merge accepts the file.
"$RCSIM" sweep "$SWEEP" --out "$out" "${SET[@]}" > "$WORK/2.out" 2> "$WORK/2.err" || { cat "$WORK/2.err"; fail "rerun"; }
grep -q " 0 run, $n skipped" "$WORK/2.out" || fail "the rerun ran jobs"
"$RCSIM" summarize "$out" > /dev/null || fail "summarize after the table was written"
"$RCSIM" merge "$out" --out "$WORK/all.h5" || fail "merge after the table was written"
[ "$(h5_jobs "$WORK/all.h5")" = "$n $n" ] || fail "the merge holds $(h5_jobs "$WORK/all.h5")"

# --out a dangling symbolic link: refused, the link left as it was.
ln -s "$WORK/nowhere/x.h5" "$WORK/link.h5"
rc=0
"$RCSIM" merge "$out" --out "$WORK/link.h5" 2> "$WORK/e" || rc=$?
[ "$rc" = 2 ] || fail "merge --out a dangling link: exit $rc, want 2 ($(cat "$WORK/e"))"
grep -q "symbolic link to $WORK/nowhere/x.h5, which does not exist" "$WORK/e" || fail "no reason: $(cat "$WORK/e")"
[ -L "$WORK/link.h5" ] || fail "merge removed the link"

# A part still being written: its lock is held; merge refuses it naming the holder.
"$RCSIM" sweep "$SWEEP" --out "$WORK/run.h5" --set duration=30d > /dev/null 2>&1 &
sweep=$!
t=0
while [ ! -s "$WORK/run.h5.lock" ] && [ $t -lt 200 ]; do sleep 0.05; t=$((t + 1)); done
[ -s "$WORK/run.h5.lock" ] || fail "the running sweep has no lock"
sleep 0.5
rc=0
"$RCSIM" merge "$WORK/run.h5" --out "$WORK/all2.h5" 2> "$WORK/e" || rc=$?
kill -TERM "$sweep" 2>/dev/null || true
wait "$sweep" || true
cat "$WORK/e"
[ "$rc" = 2 ] || fail "merge of a part being written: exit $rc, want 2"
grep -q "is being written by a running sweep (host .* pid $sweep " "$WORK/e" || fail "merge does not name the running sweep: $(cat "$WORK/e")"
[ ! -e "$WORK/all2.h5" ] || fail "a refused merge wrote its output"
echo PASS
