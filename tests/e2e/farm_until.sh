#!/bin/bash
# seeds: {min, max, until}: under the real MPI launcher a configuration with a narrow interval
# stops at min seeds and a wide one gets more (read from the HDF5, with the interval recomputed
# by the analysis's stats.seed_interval); the rule and each configuration's outcome are in the
# file; an interrupted sweep (journal cut at several points, and a kill -9) resumes to the same
# jobs as an uninterrupted serial run; bad rules and --shard are refused with exit 2.
source "$(dirname "$0")/farm_lib.sh"

# 5 simulated minutes give a wide median over seeds, 2 hours a narrow one (16 users).
cat > "$WORK/u.yaml" <<'Y'
name: until-e2e
defaults:
  model: paper
  trace: online
  users: 16
axes:
  duration: [5m, 2h]
seeds: {min: 5, max: 15, step: 5, until: "p50 rel_halfwidth < 0.04"}
Y
out="$WORK/u.h5"
"$MPIEXEC" -np 3 "$RCSIM" sweep "$WORK/u.yaml" --out "$out" > "$WORK/u.out" 2> "$WORK/u.err" \
    || { cat "$WORK/u.err"; fail "adaptive sweep failed"; }
grep "seeds until" "$WORK/u.err"
$PY - "$out" "$RCSIM_SOURCE_DIR/analysis" <<'P' || fail "results do not follow the rule"
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[2])
from rcplot import stats
f = h5py.File(sys.argv[1], "r")
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
assert s(f.attrs["seeds_until"]) == "p50 rel_halfwidth < 0.04; min 5, max 15, step 5", f.attrs["seeds_until"]
t = f["table"]
dur, seed, p50 = t["duration"][:], t["seed"][:], t["online_p50"][:]
ids = [s(x) for x in t["job_id"][:]] if t["job_id"].dtype.kind in "SO" else ["%016x" % x for x in t["job_id"][:]]
out = {}
for line in s(f.attrs["seeds_until_outcome"]).strip().split("\n"):
    first, *kv = line.split()
    out[first] = dict(x.split("=") for x in kv)
want = {300.0: (15, "max"), 7200.0: (5, "narrow")}
for d, (n, why) in want.items():
    m = dur == d
    assert sorted(seed[m].tolist()) == list(range(1, n + 1)), (d, sorted(seed[m].tolist()))
    first = ids[int(np.flatnonzero(m & (seed == 1))[0])]
    o = out[first]
    assert o["seeds"] == str(n) and o["stopped"] == why, (d, o)
    est, lo, hi, k, meth = stats.seed_interval(p50[m], positive=True)
    rel = (hi - lo) / (2 * est)
    assert abs(float(o["rel_halfwidth"]) - rel) <= 1e-7 * rel, (d, o["rel_halfwidth"], rel)
    assert abs(float(o["estimate"]) - est) <= 1e-7 * est, (d, o["estimate"], est)
    # the rule held (or not) on exactly these seeds, and not before max for the wide one
    assert (rel < 0.04) == (why == "narrow"), (d, rel)
    if why == "max":
        e10, l10, h10, _, _ = stats.seed_interval(p50[m & (seed <= 10)], positive=True)
        assert (h10 - l10) / (2 * e10) >= 0.04
print("adaptive results follow the rule:", {d: v for d, v in want.items()})
P
sort_ids() { $PY -c "
import sys, h5py
t = h5py.File(sys.argv[1], 'r')['table']
print('\n'.join(sorted(str(x) for x in t['job_id'][:])))" "$1"; }
sort_ids "$out" > "$WORK/ref.ids"
[ "$(wc -l < "$WORK/ref.ids")" = 20 ] || fail "want 20 jobs, got $(wc -l < "$WORK/ref.ids")"

# --dry-run shows the first pass and writes nothing.
"$RCSIM" sweep "$WORK/u.yaml" --out "$WORK/dry.h5" --dry-run > "$WORK/dry.out" 2> "$WORK/dry.err" \
    || fail "dry run: $(cat "$WORK/dry.err")"
grep -q "10 jobs, 0 already done in .*, 10 to run" "$WORK/dry.out" || fail "dry run: $(cat "$WORK/dry.out")"
[ ! -e "$WORK/dry.h5" ] && [ ! -e "$WORK/dry.h5.journal" ] || fail "dry run wrote files"

# Run again: nothing to do, nothing rerun.
"$RCSIM" sweep "$WORK/u.yaml" --out "$out" > "$WORK/again.out" 2> "$WORK/again.err" \
    || fail "rerun: $(cat "$WORK/again.err")"
grep -q "0 job(s) to run" "$WORK/again.err" || fail "rerun did not find the sweep finished"
grep -q " run," "$WORK/again.out" && fail "rerun ran jobs: $(cat "$WORK/again.out")"

# Interrupted after k finished jobs (the journal cut there, the table gone): the resume under
# mpirun ends with the jobs of the uninterrupted run.
for k in 3 7 12; do
    cp "$out.journal" "$WORK/c$k.h5.journal"
    cp "$out.manifest.json" "$WORK/c$k.h5.manifest.json"
    journal_keep "$WORK/c$k.h5.journal" "$k"
    "$MPIEXEC" -np 3 "$RCSIM" sweep "$WORK/u.yaml" --out "$WORK/c$k.h5" > "$WORK/c$k.out" \
        2> "$WORK/c$k.err" || fail "resume after $k: $(cat "$WORK/c$k.err")"
    grep -q "$k already done" "$WORK/c$k.err" || fail "resume after $k did not skip them"
    sort_ids "$WORK/c$k.h5" | cmp -s - "$WORK/ref.ids" || fail "resume after $k jobs chose other jobs"
done

# A kill -9 of the master mid-sweep, then the same command: the same jobs as a serial
# uninterrupted run.  Jobs of weeks (a third of a second each here) and a target no
# configuration reaches (every one runs to max, three passes), so that the kill lands
# mid-sweep; with jobs of days (30 ms) the 18 left after the 12th record once all finished
# before the kill.  The journal cuts above cover the mixed outcomes.
sed 's/\[5m, 2h\]/[20d, 30d]/; s/p50 rel_halfwidth < 0.04/p50 rel_halfwidth < 0.0001/' \
    "$WORK/u.yaml" > "$WORK/k.yaml"
"$RCSIM" sweep "$WORK/k.yaml" --out "$WORK/kref.h5" > /dev/null 2> "$WORK/kref.err" \
    || fail "serial reference: $(cat "$WORK/kref.err")"
sort_ids "$WORK/kref.h5" > "$WORK/kref.ids"
"$MPIEXEC" -np 3 "$RCSIM" sweep "$WORK/k.yaml" --out "$WORK/k.h5" 2> "$WORK/k1.err" > /dev/null &
BG_PID=$!
wait_records "$WORK/k.h5.journal" 12
pid=$(master_pid "$WORK/k1.err")
[ -n "$pid" ] || fail "no master pid in the log"
kill -9 "$pid"
wait "$BG_PID" && fail "mpirun succeeded after kill -9" || true
BG_PID=""
done1=$(journal_records "$WORK/k.h5.journal")
echo "killed the master with $done1 of $(wc -l < "$WORK/kref.ids") jobs in the journal"
[ "$done1" -lt "$(wc -l < "$WORK/kref.ids")" ] || fail "the sweep finished before the kill"
"$MPIEXEC" -np 3 "$RCSIM" sweep "$WORK/k.yaml" --out "$WORK/k.h5" > /dev/null 2> "$WORK/k2.err" \
    || fail "resume after kill: $(cat "$WORK/k2.err")"
sort_ids "$WORK/k.h5" | cmp -s - "$WORK/kref.ids" || fail "resume after kill -9 chose other jobs"

# Refused with exit 2, naming file, line and field; nothing written.
bad() { # $1 seeds value, $2 expected message part
    printf 'name: bad\ndefaults:\n  duration: 5m\n  trace: online\nseeds: %s\n' "$1" > "$WORK/bad.yaml"
    set +e
    "$RCSIM" sweep "$WORK/bad.yaml" --out "$WORK/bad.h5" > /dev/null 2> "$WORK/bad.err"
    local rc=$?
    set -e
    [ $rc = 2 ] || fail "seeds: $1: exit $rc, want 2"
    grep -qF "$WORK/bad.yaml:5: seeds: $2" "$WORK/bad.err" || fail "seeds: $1: message $(cat "$WORK/bad.err")"
    [ ! -e "$WORK/bad.h5" ] || fail "seeds: $1: wrote a results file"
}
bad '{min: 5, max: 9, until: "p98 rel_halfwidth < 0.05"}' "until: 'p98 rel_halfwidth < 0.05': unknown statistic 'p98'"
bad '{min: 5, max: 9, until: "p99 halfwidth < 0.05"}' "until: 'p99 halfwidth < 0.05' is not a rule"
bad '{min: 5, max: 9, until: "p99 rel_halfwidth > 0.05"}' "until: 'p99 rel_halfwidth > 0.05' is not a rule"
bad '{min: 5, max: 9, until: "p99 rel_halfwidth < 2"}' "until: 'p99 rel_halfwidth < 2': the target 2 is not between 0 and 1"
bad '{min: 3, max: 9, until: "p99 rel_halfwidth < 0.05"}' "min: 3 is below 5"
bad '{min: 5, max: 4, until: "p99 rel_halfwidth < 0.05"}' "max: 4 is below min (5)"
bad '{min: 5, max: 9, untill: "p99 rel_halfwidth < 0.05"}' "unknown key 'untill'"
bad '{min: 5, max: 9}' "a mapping needs 'until'"
bad '{max: 9, until: "p99 rel_halfwidth < 0.05"}' "until needs 'min'"
set +e
"$RCSIM" sweep "$WORK/u.yaml" --out "$WORK/s.h5" --shard 0/2 > /dev/null 2> "$WORK/s.err"
rc=$?
set -e
[ $rc = 2 ] || fail "--shard with until: exit $rc, want 2"
grep -q "u.yaml: seeds: until cannot run as a shard" "$WORK/s.err" || fail "--shard message: $(cat "$WORK/s.err")"
set +e
"$RCSIM" slurm "$WORK/u.yaml" --array 2 --out "$WORK/x.h5" -o "$WORK/x.sbatch" > /dev/null 2> "$WORK/sl.err"
rc=$?
set -e
[ $rc = 2 ] || fail "rcsim slurm --array with until: exit $rc, want 2"
grep -q "u.yaml: seeds: until cannot run as an array job" "$WORK/sl.err" || fail "slurm message: $(cat "$WORK/sl.err")"
[ ! -e "$WORK/x.sbatch" ] || fail "rcsim slurm --array wrote a script for an until sweep"
echo PASS
