#!/bin/bash
# Issue 17, populations: the options from the command line and from a sweep file, bad
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
    g = list(f["jobs"].values())[0]
    sb = g["size_buckets"]
    names = [n.decode() if isinstance(n, bytes) else n for n in sb.attrs["names"]]
    assert names[:3] == ["lo", "hi", "groups"] and "p50" in names, names
    assert sb.shape == (len(b), len(names)), sb.shape
    assert g["user_sent"].shape == (400,) and g["user_groups"][()].sum() > 0
    assert int(g.attrs["population"]) == 400
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
"$PY" - "$T/pop.h5" <<'PY' || fail=1
import sys, h5py
with h5py.File(sys.argv[1]) as f:
    jobs = list(f["jobs"].values())
    assert len(jobs) == 4, len(jobs)
    for g in jobs:
        assert "size_buckets" in g and g["user_groups"].shape == (300,)
        if (g.attrs["group_size_dist"].decode() if isinstance(g.attrs["group_size_dist"], bytes) else g.attrs["group_size_dist"]) == "fixed:8":
            assert g["size_buckets"].shape[0] == 1 and g["size_buckets"][0, 0] == 8
print("population sweep ok")
PY
[ $fail = 0 ] && echo "population_cli: all passed"
exit $fail
