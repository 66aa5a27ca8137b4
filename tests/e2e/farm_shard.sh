#!/bin/bash
# Shards: `rcsim sweep --shard I/N` runs a deterministic slice (plain processes, no mpirun);
# `rcsim merge` of the slices gives the same results as one mpirun -np 3 run (per job id:
# parameters, canonical text, summaries, counters, histograms; wall times aside), and a
# journal from which a resume runs nothing; duplicates and shards of another sweep are
# refused.
source "$(dirname "$0")/farm_lib.sh"
n=$(sweep_jobs)
N=3
total=0
for i in $(seq 0 $((N - 1))); do
    "$RCSIM" sweep "$SWEEP" --shard "$i/$N" --out "$WORK/part-$i.h5" > "$WORK/p$i.out" 2>&1 ||
        { cat "$WORK/p$i.out"; fail "shard $i/$N"; }
    read -r jobs _ < <(h5_jobs "$WORK/part-$i.h5")
    total=$((total + jobs))
done
[ "$total" = "$n" ] || fail "the shards hold $total jobs, the sweep has $n"
# Deterministic: the same slice again is the same set of jobs.
"$RCSIM" sweep "$SWEEP" --shard 1/$N --out "$WORK/again.h5" > /dev/null 2>&1
diff <($PY "$RESULTS_VIEW" ids "$WORK/part-1.h5") <($PY "$RESULTS_VIEW" ids "$WORK/again.h5") ||
    fail "shard 1/$N is not deterministic"
# A shard file belongs to its slice.
rc=0; "$RCSIM" sweep "$SWEEP" --shard 2/$N --out "$WORK/part-1.h5" 2> "$WORK/e0" || rc=$?
[ "$rc" = 2 ] && grep -q "holds shard 1/$N" "$WORK/e0" || fail "a shard file accepted another slice (exit $rc)"
rc=0; "$RCSIM" sweep "$SWEEP" --shard 3/3 --out "$WORK/x.h5" 2> /dev/null || rc=$?
[ "$rc" = 2 ] || fail "--shard 3/3: exit $rc, want 2"

"$RCSIM" merge "$WORK"/part-*.h5 --out "$WORK/all.h5" || fail "merge: exit $?"
"$MPIEXEC" -np 3 "$RCSIM" sweep "$SWEEP" --out "$WORK/mpi.h5" > /dev/null 2>&1 || fail "one-shot mpirun"
h5_same "$WORK/all.h5" "$WORK/mpi.h5" || fail "merged shards differ from the one-shot run"
[ "$(journal_records "$WORK/all.h5.journal")" = "$n" ] || fail "the merged journal lacks jobs"
"$RCSIM" sweep "$SWEEP" --out "$WORK/all.h5" > "$WORK/resume.out" 2>&1 || fail "resume of the merged file"
grep -q "0 run, $n skipped" "$WORK/resume.out" || fail "resume of the merged file reran jobs: $(cat "$WORK/resume.out")"

# Refusals: the same shard twice, a shard of another sweep, an existing --out.
rc=0; "$RCSIM" merge "$WORK/part-0.h5" "$WORK/part-0.h5" --out "$WORK/dup.h5" 2> "$WORK/e1" || rc=$?
[ "$rc" = 2 ] && grep -q "is in .* and in" "$WORK/e1" && [ ! -e "$WORK/dup.h5" ] || fail "duplicate shard: exit $rc"
"$RCSIM" sweep "$SWEEP" --set seed=7 --shard 0/$N --out "$WORK/other-0.h5" > /dev/null 2>&1
rc=0; "$RCSIM" merge "$WORK/part-1.h5" "$WORK/other-0.h5" --out "$WORK/mix.h5" 2> "$WORK/e2" || rc=$?
[ "$rc" = 2 ] && grep -q "belongs to sweep" "$WORK/e2" && [ ! -e "$WORK/mix.h5" ] || fail "shard of another sweep: exit $rc"
rc=0; "$RCSIM" merge "$WORK/part-1.h5" --out "$WORK/all.h5" 2> /dev/null || rc=$?
[ "$rc" = 2 ] || fail "merge onto an existing file: exit $rc"
# An incomplete merge says what is missing (exit 1) and can be completed by a resume.
rc=0; "$RCSIM" merge "$WORK/part-0.h5" --out "$WORK/some.h5" 2> "$WORK/e3" || rc=$?
[ "$rc" = 1 ] && grep -q "in none of the inputs" "$WORK/e3" || fail "incomplete merge: exit $rc"
"$RCSIM" sweep "$SWEEP" --out "$WORK/some.h5" > /dev/null 2>&1 || fail "completing the incomplete merge"
h5_same "$WORK/some.h5" "$WORK/mpi.h5" || fail "completed merge differs from the one-shot run"
echo PASS
