#!/bin/bash
# The same sweep under mpirun -np 3, -np 2, -np 1 and as a plain process gives identical
# per-job results (counters, summaries, histograms compared per job id).
source "$(dirname "$0")/farm_lib.sh"
n=$(sweep_jobs)
[ "$n" -gt 0 ] || fail "dry run found no jobs"
"$MPIEXEC" -np 3 "$RCSIM" sweep "$SWEEP" --out "$WORK/np3.h5" --progress 1
"$MPIEXEC" -np 2 "$RCSIM" sweep "$SWEEP" --out "$WORK/np2.h5" --progress 1
"$MPIEXEC" -np 1 "$RCSIM" sweep "$SWEEP" --out "$WORK/np1.h5" --progress 1
"$RCSIM" sweep "$SWEEP" --out "$WORK/plain.h5" --no-fork --progress 1
for f in np3 np2 np1 plain; do
    read -r jobs uniq < <(h5_jobs "$WORK/$f.h5")
    [ "$jobs" = "$n" ] && [ "$uniq" = "$n" ] || fail "$f.h5 has $jobs jobs ($uniq unique), want $n"
done
for f in np2 np1 plain; do h5_same "$WORK/np3.h5" "$WORK/$f.h5" || fail "$f.h5 differs from np3.h5"; done
echo PASS
