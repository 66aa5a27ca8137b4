#!/bin/bash
# Run-time invariants (RC_DCHECK, src/core/log.h): `rcsim run --check` passes on several
# configurations, and its results are identical to a run without checks (JSON equal except
# wall_s and peak_rss_kb); the same for a sweep with `--set check=true` (every job's
# counters, summaries and histograms equal).  The trace configurations use a synthetic trace
# the test generates (rel_lib.sh synth_trace).
source "$(dirname "$0")/rel_lib.sh"
configs=("--users 32 --strategy unicast --duration 1h"
         "--users 32 --strategy rc-k2-p2 --model paper --duration 1h"
         "--users 64 --groups 4 --group-size 16 --strategy rc-k2-p2 --duration 1h"
         "--users 32 --strategy rc-k3-p1-ft --gossip-interval 30 --membership-rate 0.002 --duration 1h"
         "--users 32 --strategy unicast --cover full --duration 20m")
synth_trace "$WORK/synth80.txt.gz"
configs+=("--users 64 --strategy rc-k2-p2-ft-dropoffline --trace $WORK/synth80.txt.gz --duration 3h"
          "--users 64 --strategy rc-k2-p2-ft-dropoffline --trace $WORK/synth80.txt.gz --duration 3h --model paper"
          "--users 48 --groups 3 --group-size 16 --strategy unicast --trace $WORK/synth80.txt.gz --duration 2h")

same_json() { # $1 $2: one JSON line each; equal except the measured fields
    $PY - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("wall_s", None); d.pop("peak_rss_kb", None)
if a != b:
    diff = {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}
    sys.exit("results differ: %s" % diff)
PY
}

i=0
for args in "${configs[@]}"; do
    i=$((i + 1))
    rc=0
    # shellcheck disable=SC2086  # the configuration is a word list
    "$RCSIM" run $args --check --json --quiet > "$WORK/c$i.json" 2> "$WORK/c$i.err" || rc=$?
    [ "$rc" = 0 ] || { cat "$WORK/c$i.err"; fail "rcsim run $args --check: exit $rc"; }
    # shellcheck disable=SC2086
    "$RCSIM" run $args --json --quiet > "$WORK/n$i.json"
    grep -q '"deliveries":[1-9]' "$WORK/n$i.json" || fail "$args: no deliveries"
    same_json "$WORK/c$i.json" "$WORK/n$i.json" || fail "$args: --check changed the results"
    echo "ok: $args"
done

# The sweep parameter: check=true in every job, run through the farm.
"$RCSIM" sweep "$SWEEP" --out "$WORK/plain.h5" > /dev/null 2> "$WORK/s1.err" || { cat "$WORK/s1.err"; fail "plain sweep"; }
"$RCSIM" sweep "$SWEEP" --out "$WORK/checked.h5" --set check=true > /dev/null 2> "$WORK/s2.err" || { cat "$WORK/s2.err"; fail "sweep with check=true"; }
# check is not part of a job's identity: the same ids, and every result identical.
h5_same "$WORK/plain.h5" "$WORK/checked.h5" --ignore check || fail "check=true changed sweep results"
$PY - "$WORK/plain.h5" "$WORK/checked.h5" <<'PY' || fail "the check column is wrong"
import h5py, sys
for p, want in zip(sys.argv[1:], (0, 1)):
    with h5py.File(p, "r") as f:
        t = f["table"]
        v = set(t["check"][: int(t.attrs["rows"])].tolist())
        assert v == {want}, (p, v)
PY
echo PASS
