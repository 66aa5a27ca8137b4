#!/bin/bash
# rcsim sweep --until: the command-line form of a sweep file's `seeds: {min, max, until, step}`.
# Under the real MPI launcher, a file with `seeds: 2` run with --until ... --max-seeds 15 runs
# the very jobs (ids) of the same file with the seeds mapping, records the same rule and
# outcome in the HDF5, stops the narrow configuration at 5 seeds and takes the wide one to 15;
# a run interrupted after k jobs resumes with the same command to the same jobs; --shard,
# `rcsim slurm --array`, a count without --until, --until with --set seed=, a bad rule and
# --until without --max-seeds are refused with exit 2 and write nothing; `rcsim slurm --until`
# passes the rule on to the sweep it writes.
source "$(dirname "$0")/farm_lib.sh"

# 5 simulated minutes give a wide median over seeds, 2 hours a narrow one (16 users).
cat > "$WORK/c.yaml" <<'Y'
name: until-cli-e2e
defaults:
  model: paper
  trace: online
  users: 16
axes:
  duration: [5m, 2h]
seeds: 2
Y
sed 's/^seeds: 2$/seeds: {min: 5, max: 15, step: 5, until: "p50 rel_halfwidth < 0.04"}/' \
    "$WORK/c.yaml" > "$WORK/f.yaml"
UNTIL=(--until "p50 rel_halfwidth < 0.04" --max-seeds 15)

"$MPIEXEC" -np 3 "$RCSIM" sweep "$WORK/c.yaml" --out "$WORK/c.h5" "${UNTIL[@]}" > /dev/null \
    2> "$WORK/c.err" || { cat "$WORK/c.err"; fail "sweep --until failed"; }
grep "seeds until" "$WORK/c.err"
"$MPIEXEC" -np 3 "$RCSIM" sweep "$WORK/f.yaml" --out "$WORK/f.h5" > /dev/null 2> "$WORK/f.err" \
    || { cat "$WORK/f.err"; fail "sweep of the file form failed"; }

$PY - "$WORK/c.h5" "$WORK/f.h5" <<'P' || fail "--until is not the file form"
import sys, h5py, numpy as np
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
c, f = (h5py.File(p, "r") for p in sys.argv[1:3])
for k in ("seeds_until", "seeds_until_outcome"):
    assert s(c.attrs[k]) == s(f.attrs[k]), (k, c.attrs[k], f.attrs[k])
assert s(c.attrs["seeds_until"]) == "p50 rel_halfwidth < 0.04; min 5, max 15, step 5"
ids = lambda h: sorted(s(x) for x in h["table"]["job_id"][:])
assert ids(c) == ids(f), "other jobs"
t = c["table"]
dur, seed = t["duration"][:], t["seed"][:]
assert sorted(seed[dur == 300].tolist()) == list(range(1, 16)), sorted(seed[dur == 300].tolist())
assert sorted(seed[dur == 7200].tolist()) == list(range(1, 6)), sorted(seed[dur == 7200].tolist())
print("--until ran the file form's", len(ids(c)), "jobs")
P

# The same command again: nothing to run.
"$RCSIM" sweep "$WORK/c.yaml" --out "$WORK/c.h5" "${UNTIL[@]}" > "$WORK/again.out" \
    2> "$WORK/again.err" || fail "rerun: $(cat "$WORK/again.err")"
grep -q "0 job(s) to run" "$WORK/again.err" || fail "rerun did not find the sweep finished"

# Interrupted after k jobs (journal cut, table gone): the same command resumes to the same jobs.
sort_ids() { $PY -c "
import sys, h5py
t = h5py.File(sys.argv[1], 'r')['table']
print('\n'.join(sorted(str(x) for x in t['job_id'][:])))" "$1"; }
sort_ids "$WORK/c.h5" > "$WORK/ref.ids"
for k in 4 11; do
    cp "$WORK/c.h5.journal" "$WORK/r$k.h5.journal"
    cp "$WORK/c.h5.manifest.json" "$WORK/r$k.h5.manifest.json"
    journal_keep "$WORK/r$k.h5.journal" "$k"
    "$MPIEXEC" -np 3 "$RCSIM" sweep "$WORK/c.yaml" --out "$WORK/r$k.h5" "${UNTIL[@]}" > /dev/null \
        2> "$WORK/r$k.err" || fail "resume after $k: $(cat "$WORK/r$k.err")"
    grep -q "$k already done" "$WORK/r$k.err" || fail "resume after $k did not skip them"
    sort_ids "$WORK/r$k.h5" | cmp -s - "$WORK/ref.ids" || fail "resume after $k jobs chose other jobs"
done

# Refused with exit 2, nothing written.
refused() { # $1 expected message part, then the command's arguments after the sweep file
    local want=$1; shift
    set +e
    "$RCSIM" "$@" > /dev/null 2> "$WORK/bad.err"
    local rc=$?
    set -e
    [ $rc = 2 ] || fail "$*: exit $rc, want 2"
    grep -qF -- "$want" "$WORK/bad.err" || fail "$*: message $(cat "$WORK/bad.err")"
    [ ! -e "$WORK/bad.h5" ] && [ ! -e "$WORK/bad.h5.journal" ] && [ ! -e "$WORK/bad.sbatch" ] \
        || fail "$*: wrote a file"
}
refused "seeds: until cannot run as a shard" sweep "$WORK/c.yaml" --out "$WORK/bad.h5" "${UNTIL[@]}" --shard 0/2
refused "seeds: until cannot run as an array job" slurm "$WORK/c.yaml" --out "$WORK/bad.h5" \
    -o "$WORK/bad.sbatch" --array 2 --no-partition-check "${UNTIL[@]}"
refused "--max-seeds needs --until RULE" sweep "$WORK/c.yaml" --out "$WORK/bad.h5" --max-seeds 9
refused "--until needs --max-seeds N" sweep "$WORK/c.yaml" --out "$WORK/bad.h5" --until "p50 rel_halfwidth < 0.04"
refused "--until and --set seed=3 both choose the seeds" sweep "$WORK/c.yaml" --out "$WORK/bad.h5" \
    "${UNTIL[@]}" --set seed=3
refused "--until: 'p98 rel_halfwidth < 0.05': unknown statistic 'p98'" sweep "$WORK/c.yaml" \
    --out "$WORK/bad.h5" --until "p98 rel_halfwidth < 0.05" --max-seeds 9
refused "--min-seeds: 3 is below 5" sweep "$WORK/c.yaml" --out "$WORK/bad.h5" "${UNTIL[@]}" --min-seeds 3
refused "--max-seeds: 4 is below --min-seeds (5)" sweep "$WORK/c.yaml" --out "$WORK/bad.h5" \
    --until "p50 rel_halfwidth < 0.04" --max-seeds 4

# rcsim slurm --until writes a sweep command with the rule and its counts.
"$RCSIM" slurm "$WORK/c.yaml" --out "$WORK/s.h5" --no-partition-check "${UNTIL[@]}" > "$WORK/s.sbatch" \
    || fail "rcsim slurm --until"
grep -qF -- "--until 'p50 rel_halfwidth < 0.04' --min-seeds 5 --max-seeds 15 --seed-step 5" \
    "$WORK/s.sbatch" || fail "slurm script lacks the rule: $(grep SWEEP_ARGS "$WORK/s.sbatch")"
echo PASS
