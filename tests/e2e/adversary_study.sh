#!/bin/bash
# The adversary options work as sweep axes, their counters reach the
# results file, the study file expands as documented, and `python3 -m rcplot study-figures adversary` draws
# the figure and the table from a real (tiny) sweep.
set -uo pipefail
: "${RCSIM:?}" "${RCSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$RCSIM_SOURCE_DIR/analysis${PYTHONPATH:+:$PYTHONPATH}"  # the package rcplot (python3 -m rcplot TOOL)
cd "$RCSIM_SOURCE_DIR"
fail=0
# 1. the study file: 2 x 2 x 3 x 6 x 4 x 2 seeds
n=$("$RCSIM" plan experiments/adversary.yaml --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["jobs"])')
[ "$n" = 576 ] || { echo "FAIL: adversary.yaml expands to $n jobs, want 576"; fail=1; }
# 2. a tiny sweep with the options as axes
cat >"$T/adv.yaml" <<'Y'
name: adv-test
defaults: {users: 16, duration: 20m, model: exact}
axes:
  adversary: [drop, ack-drop]
  adversary_fraction: [0, 0.25]
zip:
  - {strategy: unicast}
  - {strategy: rc-k2-p2-ft-dropoffline}
  - {strategy: rc-k2-p2-ft-dropoffline, gossip_interval: 60}
seeds: 1
Y
"$RCSIM" sweep "$T/adv.yaml" --out "$T/adv.h5" >"$T/sweep.log" 2>&1 || { echo "FAIL: sweep"; cat "$T/sweep.log"; fail=1; }
"$PY" - "$T/adv.h5" "$RCSIM_SOURCE_DIR/tests/e2e" <<'PY' || fail=1
import sys
sys.path.insert(0, sys.argv[2])
import results_view
jobs, rows, _ = results_view.load(sys.argv[1])
assert rows == 12, rows
faked = 0
for a in jobs.values():
    kind, frac = a["adversary"], float(a["adversary_fraction"])
    assert int(a["counter_adv_members"]) == round(frac * 16), (kind, frac, a["counter_adv_members"])
    assert "adversary=" + kind in a["canonical"], a["canonical"]
    if kind == "ack-drop" and frac > 0 and "-ft" in a["strategy"]:
        faked += int(a["counter_adv_acks_faked"])
    if kind == "drop":
        assert int(a["counter_adv_acks_faked"]) == 0
assert faked > 0, "no faked ACK counted in the ack-drop RC-FT jobs"
print("adversary counters ok")
PY
"$PY" -m rcplot study-figures adversary "$T/adv.h5" "$T/fig" >"$T/fig.log" 2>&1 || { echo "FAIL: study-figures adversary"; cat "$T/fig.log"; fail=1; }
[ -s "$T/fig/adversary.png" ] || { echo "FAIL: no adversary.png"; fail=1; }
rows=$(grep -c '^| \(drop\|ack-drop\) ' "$T/fig/adversary.md" 2>/dev/null || echo 0)
[ "$rows" = 12 ] || { echo "FAIL: adversary.md has $rows rows, want 12"; fail=1; }
# 3. a fraction without a kind is a usage error
env -u RCSIM_DATA_DIR "$RCSIM" run --adversary-fraction 0.1 --duration 60 >/dev/null 2>"$T/err"
rc=$?
[ $rc = 2 ] || { echo "FAIL: --adversary-fraction without --adversary exited $rc, want 2"; fail=1; }
grep -q "adversary_fraction" "$T/err" || { echo "FAIL: message does not name the key"; cat "$T/err"; fail=1; }
[ $fail = 0 ] && echo "adversary_study: all passed"
exit $fail
