#!/bin/bash
# The merge job of `rcsim slurm --array` can be submitted again after the sweep
# is extended.  The shards run as the array tasks run them (`rcsim sweep FILE --shard I/N --out
# PARTS/part-I.h5`), the generated merge script runs outside SLURM with the real rcsim; then the
# sweep file gets a third seed, the shards run again (only the new jobs), and the same merge
# script runs again: exit 0, the results file holds every job of the extended sweep, the
# earlier one is kept as OUT.previous-TIME.  A failing merge (refused, or a full disk: exit 4)
# leaves the results file as it was.
source "$(dirname "$0")/rel_lib.sh"
mkdir -p "$WORK/noslurm"
for t in scontrol sinfo; do printf '#!/bin/sh\nexit 1\n' > "$WORK/noslurm/$t"; done
chmod +x "$WORK/noslurm/"*
export PATH="$WORK/noslurm:$PATH"
cp "$SWEEP" "$WORK/s.yaml"
grep -q '^seeds: 2$' "$WORK/s.yaml" || fail "ci-small.yaml no longer has 'seeds: 2'"
"$RCSIM" slurm "$WORK/s.yaml" --array 2 -o "$WORK/a.sbatch" --out "$WORK/all.h5" 2> "$WORK/e" || fail "rcsim slurm: $(cat "$WORK/e")"
shards() {
    mkdir -p "$WORK/all.parts"
    for i in 0 1; do
        "$RCSIM" sweep "$WORK/s.yaml" --shard "$i/2" --out "$WORK/all.parts/part-$i.h5" > /dev/null 2> "$WORK/e" \
            || fail "shard $i: $(cat "$WORK/e")"
    done
}
merge() { bash "$WORK/a-merge.sbatch" > "$WORK/m.log" 2>&1; }
shards
merge || fail "first merge: $(cat "$WORK/m.log")"
[ "$(h5_jobs "$WORK/all.h5")" = "8 8" ] || fail "first merge holds $(h5_jobs "$WORK/all.h5"), want 8 8"

# The sweep is extended: a third seed.  Shards resume (4 new jobs), the merge job runs again.
sed -i 's/^seeds: 2$/seeds: 3/' "$WORK/s.yaml"
shards
merge || fail "the merge job after the sweep was extended: $(cat "$WORK/m.log")"
[ "$(h5_jobs "$WORK/all.h5")" = "12 12" ] || fail "the second merge holds $(h5_jobs "$WORK/all.h5"), want 12 12"
[ "$(journal_records "$WORK/all.h5.journal")" = 12 ] || fail "the merged journal has $(journal_records "$WORK/all.h5.journal") records, want 12"
prev=$(ls -d "$WORK"/all.h5.previous-* 2> /dev/null | grep -v '\.journal$\|\.manifest\.json$' | head -1)
[ -n "$prev" ] && [ "$(h5_jobs "$prev")" = "8 8" ] || fail "the earlier results file was not kept (got '$prev')"
grep -q "kept as $prev" "$WORK/m.log" || fail "the log does not say where the earlier file went: $(cat "$WORK/m.log")"
[ ! -e "$WORK/all.h5.merging" ] || fail "the merge left its temporary file"
# A sweep resumed into the merged file finds nothing to run.
"$RCSIM" sweep "$WORK/s.yaml" --out "$WORK/all.h5" > "$WORK/o" 2> "$WORK/e" || fail "resume into the merge: $(cat "$WORK/e")"
[ "$(summary_run "$WORK/o")" = 0 ] || fail "resume into the merged file ran jobs: $(cat "$WORK/o")"
echo "ok: merged twice; $(grep 'kept as' "$WORK/m.log" | sed 's/.*: //')"

# A merge that fails (a part of another sweep) leaves the results file as it was.
sum=$(md5sum < "$WORK/all.h5")
cp "$WORK/all.parts/part-1.h5" "$WORK/keep.h5"
"$RCSIM" sweep "$WORK/s.yaml" --set duration=11m --shard 1/2 --out "$WORK/other.h5" > /dev/null 2>&1 || fail "other shard"
cp "$WORK/other.h5" "$WORK/all.parts/part-1.h5"
rc=0; merge || rc=$?
[ "$rc" = 2 ] || fail "merge of a part of another sweep: exit $rc, want 2 ($(cat "$WORK/m.log"))"
[ "$(md5sum < "$WORK/all.h5")" = "$sum" ] || fail "the failed merge changed the results file"
[ ! -e "$WORK/all.h5.merging" ] || fail "the failed merge left its temporary file"
cp "$WORK/keep.h5" "$WORK/all.parts/part-1.h5"

# A merge that fills the disk (rcsim merge exits 4, "could not write", not 1 "jobs missing")
# leaves the earlier results file in place: nothing is moved aside unless the new one is in
# place.  The results file, its parts and an earlier merge on a tmpfs left with 16 KiB free.
mount_small "$WORK/small" 8m
"$RCSIM" slurm "$WORK/s.yaml" --array 2 -o "$WORK/b.sbatch" --out "$WORK/small/all.h5" 2> "$WORK/e" || fail "rcsim slurm: $(cat "$WORK/e")"
cp -r "$WORK/all.parts" "$WORK/small/all.parts"
for f in "" .journal .manifest.json; do cp "$WORK/all.h5$f" "$WORK/small/all.h5$f"; done
sum=$(md5sum < "$WORK/small/all.h5")
used=$(df -k --output=used "$WORK/small" | tail -1 | tr -d ' ')
mount -o remount,size=$((used + 16))k "$WORK/small" || fail "cannot shrink the tmpfs"
rc=0; bash "$WORK/b-merge.sbatch" > "$WORK/m2.log" 2>&1 || rc=$?
cat "$WORK/m2.log"
[ "$rc" = 4 ] || fail "a merge on a full disk: exit $rc, want 4 (could not write)"
grep -q "No space left on device" "$WORK/m2.log" || fail "the log does not name the full disk"
[ -e "$WORK/small/all.h5" ] || fail "a merge that could not write removed the results file"
[ "$(md5sum < "$WORK/small/all.h5")" = "$sum" ] || fail "a merge that could not write changed the results file"
[ -e "$WORK/small/all.h5.journal" ] && [ -e "$WORK/small/all.h5.manifest.json" ] || fail "the journal or manifest was moved away"
ls "$WORK/small/" | grep -q previous && fail "the earlier results file was moved aside by a failed merge: $(ls "$WORK/small")"
[ ! -e "$WORK/small/all.h5.merging" ] || fail "the failed merge left its temporary file"
grep -q "could not read or write" "$WORK/m2.log" || fail "the log does not say why the merge failed"
echo PASS
