#!/bin/bash
# Populations: the options from the command line and from a sweep file, bad
# distributions exit 2 with the reason, and --json / --out / the sweep's HDF5 carry the
# latency by group size and the per-user load.
set -uo pipefail
: "${RCSIM:?}" "${RCSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=${PYTHON:-/usr/bin/python3}
fail=0
unset RCSIM_DATA_DIR
# 1. bad input: exit 2, the message names the key and the reason
bad() {
  local why=$1; shift
  "$RCSIM" run "$@" --duration 60 >/dev/null 2>"$T/err"
  local rc=$?
  [ $rc = 2 ] || { echo "FAIL: $* exited $rc, want 2"; fail=1; }
  grep -q "$why" "$T/err" || { echo "FAIL: $*: '$(cat "$T/err")' lacks '$why'"; fail=1; }
}
bad "MIN = 20 is larger than the population" --population 10 --groups 3 --group-size-dist zipf:1.5:20:30
bad "MAX = 200 is larger than the population" --population 100 --groups 3 --group-size-dist zipf:1.5:3:200
bad "SIGMA = -1 must not be negative" --population 100 --groups 3 --group-size-dist lognormal:2:-1
bad "is not one of" --population 100 --groups 3 --group-size-dist pareto:2
bad "needs population mode" --group-size-dist fixed:4
bad "needs a distribution" --population 100
bad "not available in population mode" --population 100 --group-size-dist fixed:4 --gossip-interval 60
# 2. a run: --json and --out
"$RCSIM" run --population 400 --groups 60 --group-size-dist lognormal:2.5:0.8 --strategy rc-k2-p2 \
    --duration 20m --json --out "$T/one.h5" >"$T/one.json" 2>"$T/err" || { echo "FAIL: run"; cat "$T/err"; fail=1; }
"$PY" - "$T/one.json" "$T/one.h5" <<'PY' || fail=1
import json, sys, h5py
d = json.load(open(sys.argv[1]))
b = d["size_buckets"]
assert b and sum(x["groups"] for x in b) == 60, b
assert sum(x["multicasts"] for x in b) == d["multicasts"], (b, d["multicasts"])
assert sum(x["deliveries"] for x in b) == d["deliveries_all"]
assert sum(x["undelivered"] for x in b) == d["undelivered"]
u = d["user_load"]
assert u["users"] == 400 and u["groups_mean"] > 0, u
with h5py.File(sys.argv[2]) as f:
    # layout 2: one /table row per job; population rows of job row i are [end[i-1], end[i])
    assert f["table/job_id"].shape == (1,)
    sz, us = f["population/sizes"], f["population/users"]
    assert list(sz["end"][()]) == [len(b)], (sz["end"][()], len(b))
    assert int(sz["groups"][()].sum()) == 60 and "p50" in sz and "lo" in sz and "hi" in sz
    assert list(us["end"][()]) == [400] and us["groups"][()].sum() > 0
    assert int(f["table/population"][0]) == 400
print("population run ok")
PY
# 3. a sweep with population axes, through the farm (serial)
cat >"$T/pop.yaml" <<'Y'
name: pop-test
defaults: {population: 300, groups: 40, duration: 10m, strategy: rc-k2-p2-ft-dropoffline}
axes:
  group_size_dist: ["fixed:8", "zipf:1.2:2:100"]
seeds: 2
Y
"$RCSIM" sweep "$T/pop.yaml" --out "$T/pop.h5" >"$T/sweep.log" 2>&1 || { echo "FAIL: sweep"; cat "$T/sweep.log"; fail=1; }
"$PY" - "$T/pop.h5" "$RCSIM_SOURCE_DIR/tests/e2e" <<'PY' || fail=1
import sys, h5py
sys.path.insert(0, sys.argv[2])
import results_view
jobs, rows, _ = results_view.load(sys.argv[1])  # in row order
assert rows == 4, rows
with h5py.File(sys.argv[1]) as f:
    # population rows of job row i are [end[i-1], end[i]) (docs/results-layout.md)
    sz_end = [0] + list(f["population/sizes/end"][()])
    us_end = [0] + list(f["population/users/end"][()])
    lo = f["population/sizes/lo"][()]
for i, job in enumerate(jobs.values()):
    assert us_end[i + 1] - us_end[i] == 300, us_end
    if job["group_size_dist"] == "fixed:8":
        assert sz_end[i + 1] - sz_end[i] == 1 and lo[sz_end[i]] == 8, (sz_end, lo)
print("population sweep ok")
PY
[ $fail = 0 ] && echo "population_cli: all passed"
exit $fail
