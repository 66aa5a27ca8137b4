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
$PY - "$WORK"/np3.h5 "$WORK"/np2.h5 "$WORK"/np1.h5 "$WORK"/plain.h5 <<'PY'
import h5py, numpy as np, sys
def load(p):
    out = {}
    with h5py.File(p, "r") as f:
        for k, g in f["jobs"].items():
            counters = {a: int(v) for a, v in g.attrs.items()
                        if a.startswith("counter_") and a not in ("counter_wall_s", "counter_peak_rss_kb")}
            out[k] = (counters, g["summary_online"][()], g["summary_all"][()],
                      g["hist_online"][()], g["hist_all"][()], g.attrs["canonical"])
    return out
ref = load(sys.argv[1])
for p in sys.argv[2:]:
    other = load(p)
    assert other.keys() == ref.keys(), (p, sorted(set(ref) ^ set(other)))
    for k, (c, so, sa, ho, ha, canon) in ref.items():
        c2, so2, sa2, ho2, ha2, canon2 = other[k]
        assert c == c2, (p, k, {a: (c[a], c2.get(a)) for a in c if c[a] != c2.get(a)})
        assert np.array_equal(so, so2, equal_nan=True), (p, k, so, so2)
        assert np.array_equal(sa, sa2, equal_nan=True), (p, k)
        assert np.array_equal(ho, ho2) and np.array_equal(ha, ha2), (p, k)
        assert canon == canon2, (p, k)
    assert any(c["counter_deliveries"] > 0 for c, *_ in ref.values()), "no deliveries at all"
print("identical per-job results in", len(sys.argv) - 1, "files,", len(ref), "jobs each")
PY
echo PASS
