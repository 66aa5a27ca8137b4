#!/bin/bash
# Every string column has its dictionary (`levels`) from the moment the
# results file is created.  A sweep killed with -9 before its first table flush (as soon as it
# has created the file and started its jobs), then resumed: the string columns whose only value
# is "" (trace_name, trace_sha256, data_dir, group_size_dist, offline_members, source_offline)
# still have `levels`, the documented h5py recipe (docs/results-layout.md) decodes them, and
# the analysis reader returns strings, not codes.
source "$(dirname "$0")/rel_lib.sh"
MASTER=""
trap 'if [ -n "$MASTER" ]; then kill -9 "$MASTER" 2>/dev/null || true; fi; cleanup' EXIT
out="$WORK/r.h5"
printf 'name: levels\ndefaults: {users: 16, duration: 20d, trace: online}\nseeds: 2\n' > "$WORK/l.yaml"
"$RCSIM" sweep "$WORK/l.yaml" --out "$out" > "$WORK/o1" 2> "$WORK/e1" &
MASTER=$!
t=0
until grep -q "master pid" "$WORK/e1" 2>/dev/null; do
    sleep 0.02; t=$((t + 1)); [ $t -lt 1500 ] || fail "the sweep did not start: $(cat "$WORK/e1")"
done
kill -9 "$MASTER"; wait "$MASTER" 2>/dev/null || true; MASTER=""
[ -e "$out" ] || fail "no results file after the start"
[ "$(journal_records "$out.journal")" = 0 ] || fail "a job finished before the kill (the sweep is too quick for this test)"
"$RCSIM" sweep "$WORK/l.yaml" --out "$out" > "$WORK/o2" 2> "$WORK/e2" || fail "resume: $(cat "$WORK/e2")"
[ "$(h5_jobs "$out")" = "2 2" ] || fail "after the resume: $(h5_jobs "$out")"
$PY - "$out" "$RCSIM_SOURCE_DIR/analysis" <<'PY' || fail "string columns after kill -9 and resume"
import sys
import h5py
import numpy as np
sys.path.insert(0, sys.argv[2])
from rcplot import results
with h5py.File(sys.argv[1], "r") as f:
    t = f["table"]
    n = int(t.attrs["rows"])
    want = ["trace_name", "trace_sha256", "data_dir", "group_size_dist", "offline_members",
            "source_offline", "strategy", "host", "build_id"]
    missing = [c for c in want if c in t and "levels" not in t[c].attrs]
    if missing:
        sys.exit("no levels attribute on: %s" % ", ".join(missing))
    # The recipe of docs/results-layout.md.
    for c in want:
        if c in t:
            vals = np.array(t[c].attrs["levels"], dtype=object)[t[c][:n]]
            assert len(vals) == n
    empty = np.array(t["offline_members"].attrs["levels"], dtype=object)[t["offline_members"][:n]]
    assert all(v in (b"", "") for v in empty), empty
tab = results.load_table([sys.argv[1]])
assert list(tab["trace_name"]) == [""] * n, tab["trace_name"]
print("ok: levels on every string column; recipe and reader decode them")
PY
echo PASS
