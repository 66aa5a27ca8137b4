#!/bin/bash
# Options that change what is stored (store_raw) are part of a sweep's
# identity.  A sweep stopped after 3 of 8 jobs and resumed with --set store_raw=true is refused
# with exit 2 naming both settings, journal and results untouched; resumed as it started, it
# finishes with no job holding raw latencies.  Switching the other way is refused too.
source "$(dirname "$0")/rel_lib.sh"
out="$WORK/r.h5"
n=$(sweep_jobs)
"$RCSIM" sweep "$SWEEP" --out "$out" > /dev/null 2> "$WORK/e0" || fail "first run: $(cat "$WORK/e0")"
journal_keep "$out.journal" 3
rm -f "$out"
jsum=$(md5sum < "$out.journal")

rc=0; "$RCSIM" sweep "$SWEEP" --out "$out" --set store_raw=true > "$WORK/o1" 2> "$WORK/e1" || rc=$?
[ "$rc" = 2 ] || fail "resume with store_raw=true: exit $rc, want 2 ($(cat "$WORK/e1"))"
grep -q "store_raw=false" "$WORK/e1" && grep -q "store_raw=true" "$WORK/e1" ||
    fail "the refusal does not name both settings: $(cat "$WORK/e1")"
[ "$(md5sum < "$out.journal")" = "$jsum" ] || fail "the refused resume changed the journal"
[ ! -e "$out" ] || fail "the refused resume wrote $out"
echo "ok: $(cat "$WORK/e1")"

"$RCSIM" sweep "$SWEEP" --out "$out" > "$WORK/o2" 2> "$WORK/e2" || fail "resume: $(cat "$WORK/e2")"
[ "$(summary_run "$WORK/o2")" = $((n - 3)) ] || fail "resume ran $(summary_run "$WORK/o2"), want $((n - 3))"
$PY - "$out" "$n" "$(dirname "$RESULTS_VIEW")" <<'PY' || fail "raw data in some jobs"
import sys
sys.path.insert(0, sys.argv[3])
import results_view
jobs, _, _ = results_view.load(sys.argv[1])
assert len(jobs) == int(sys.argv[2]), len(jobs)
raw = [k for k, j in jobs.items() if j["store_raw"] or len(j["deliveries"]["message"])]
assert not raw, raw
PY

# The other direction: a sweep begun with raw latencies cannot lose them half way.
out2="$WORK/raw.h5"
"$RCSIM" sweep "$SWEEP" --out "$out2" --set store_raw=true > /dev/null 2>&1 || fail "raw sweep"
journal_keep "$out2.journal" 3
rm -f "$out2"
rc=0; "$RCSIM" sweep "$SWEEP" --out "$out2" > /dev/null 2> "$WORK/e3" || rc=$?
[ "$rc" = 2 ] || fail "resume without store_raw: exit $rc, want 2"
echo "ok: $(cat "$WORK/e3")"
echo PASS
