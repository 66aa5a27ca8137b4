#!/bin/bash
# Mixes sized with the load (docs/spec.md §1.13) end to end through the real binary:
# `--mixes-per-layer auto --mix-capacity C` widens the layers with the users (the width in
# the JSON, the mix load under C), changes no latency (capacity sizes only), is what the
# observed wire routes through (--anonymity on: the anon trace's topology line), refuses
# bad values with exit 2 naming the option, and works as a sweep dimension (zip under MPI
# when available) whose results the analysis reads.
set -uo pipefail
: "${RCSIM:?}" "${RCSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=${PYTHON:-/usr/bin/python3}
fail=0
unset RCSIM_DATA_DIR

# 1. 1,000 users: 3 x 3 by default; at 300 /s a mix, 21 a layer (6,000 /s over 294 /s of
#    room each, docs/spec.md §1.13), and the mixes' mean load under the capacity
"$RCSIM" run --users 1000 --duration 5m --json --quiet >"$T/fixed.json" 2>"$T/err" ||
  { echo "FAIL: fixed run: $(cat "$T/err")"; fail=1; }
"$RCSIM" run --users 1000 --duration 5m --mixes-per-layer auto --mix-capacity 300 --json --quiet \
    >"$T/auto.json" 2>"$T/err" || { echo "FAIL: auto run: $(cat "$T/err")"; fail=1; }
"$RCSIM" run --users 1000 --duration 5m --strategy rc-k2-p2 --mixes-per-layer auto \
    --mix-capacity 300 --json --quiet >"$T/auto-p2.json" 2>"$T/err" ||
  { echo "FAIL: auto p=2 run: $(cat "$T/err")"; fail=1; }
"$PY" - "$T/fixed.json" "$T/auto.json" "$T/auto-p2.json" <<'PY' || fail=1
import json, sys
fixed, auto, p2 = (json.load(open(p)) for p in sys.argv[1:4])
print("fixed: mix load %.1f /s; auto: %s layers of %s, mix load %.1f /s; p = 2: %s a layer, %.1f /s"
      % (fixed["bw_mix_load_mean_pps"], auto["mix_layers"], auto["mixes_per_layer"],
         auto["bw_mix_load_mean_pps"], p2["mixes_per_layer"], p2["bw_mix_load_mean_pps"]))
assert "mixes_per_layer" not in fixed and "mix_capacity" not in fixed, "a fixed width adds no keys"
assert abs(fixed["bw_mix_load_mean_pps"] - (1000 * 6 / 3 + 6)) < 1e-6, fixed["bw_mix_load_mean_pps"]
assert auto["mixes_per_layer"] == 21 and auto["mix_layers"] == 3 and auto["mix_capacity"] == 300, auto
assert abs(auto["bw_mix_load_mean_pps"] - (6000 / 21 + 6)) < 1e-5, auto["bw_mix_load_mean_pps"]
assert auto["bw_mix_load_mean_pps"] <= 300
# p = 2 doubles the sub-messages: 41 a layer
assert p2["mixes_per_layer"] == 41 and p2["bw_mix_load_mean_pps"] <= 300, p2
# capacity only sizes the network: the latencies are the same numbers
for k in ("deliveries", "mean_s", "median_s", "p99_s", "max_s", "multicasts"):
    assert fixed[k] == auto[k], (k, fixed[k], auto[k])
assert fixed["job_id"] != auto["job_id"]
PY

# 2. the observed wire routes through the sized network: 200 users, p = 1, C = 150 /s:
#    1,200 /s over 144 /s of room -> 9 a layer; every mix counted, the busiest near C
"$RCSIM" run --users 200 --duration 60 --mixes-per-layer auto --mix-capacity 150 --anonymity on \
    --anon-targets 20 --anon-trace "$T/obs.csv" --json --quiet >"$T/anon.json" 2>"$T/err" ||
  { echo "FAIL: anonymity run: $(cat "$T/err")"; fail=1; }
grep -q "mix_layers=3 mixes_per_layer=9 " "$T/obs.csv" ||
  { echo "FAIL: anon trace topology: $(sed -n 2p "$T/obs.csv")"; fail=1; }
"$PY" - "$T/anon.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
print("observed, 9 a layer: mix load mean %.1f /s, max %.1f /s; entropy %.2f bits"
      % (d["bw_mix_load_mean_pps"], d["bw_mix_load_max_pps"], d["anon_entropy_mean_bits"]))
assert d["mixes_per_layer"] == 9, d["mixes_per_layer"]
# counted, not expected: within a few per cent of the plan (1,200 / 9 + 6 = 139.3)
assert abs(d["bw_mix_load_mean_pps"] - 139.33) < 5, d["bw_mix_load_mean_pps"]
assert d["anon_targets"] > 0
PY

# 3. bad values: exit 2, naming the option and the value
bad() { # expected-text args...
  local want=$1; shift
  "$RCSIM" run --duration 10 "$@" >/dev/null 2>"$T/err"
  local rc=$?
  { [ $rc = 2 ] && grep -q -- "$want" "$T/err"; } ||
    { echo "FAIL: $*: exit $rc: $(cat "$T/err")"; fail=1; }
}
bad "mixes_per_layer: auto needs a capacity" --mixes-per-layer auto
bad "mix_capacity: 300 has no effect" --mix-capacity 300
bad "mix_capacity: 300 has no effect" --mix-capacity 300 --mixes-per-layer 3
bad "--mix-capacity: value '-5'" --mixes-per-layer auto --mix-capacity -5
bad "--mix-capacity: 'nan'" --mixes-per-layer auto --mix-capacity nan
bad "mixes_per_layer: auto needs a capacity" --mixes-per-layer auto --mix-capacity 0
bad "own loops" --mixes-per-layer auto --mix-capacity 6
bad "--mixes-per-layer: value '0'" --mixes-per-layer 0
bad "--mixes-per-layer: 'many'" --mixes-per-layer many
"$RCSIM" run --help >"$T/help" 2>&1
grep -q -- "--mix-capacity" "$T/help" || { echo "FAIL: run --help lacks --mix-capacity"; fail=1; }

# 4. a sweep: fixed and sized as one zip dimension, then the analysis reads it
cat >"$T/sized.yaml" <<'Y'
name: sized-test
defaults: {duration: 2m, group_size: 32}
axes:
  users: [64, 600]
zip:
  - {mixes_per_layer: 3}
  - {mixes_per_layer: auto, mix_capacity: 300}
seeds: 1
Y
"$RCSIM" plan "$T/sized.yaml" --list >"$T/plan" 2>&1 || { echo "FAIL: plan: $(cat "$T/plan")"; fail=1; }
grep -q "mixes_per_layer=auto" "$T/plan" || { echo "FAIL: plan does not list auto: $(cat "$T/plan")"; fail=1; }
bad_yaml() {
  "$RCSIM" plan "$T/bad.yaml" >/dev/null 2>"$T/err"
  local rc=$?
  { [ $rc = 2 ] && grep -q "bad.yaml:[0-9]*: $1" "$T/err"; } ||
    { echo "FAIL: bad sweep: exit $rc: $(cat "$T/err")"; fail=1; }
}
printf 'name: b\ndefaults: {duration: 60}\naxes:\n  mixes_per_layer: [3, auto]\n' >"$T/bad.yaml"
bad_yaml "mixes_per_layer: auto needs a capacity"
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 2); fi
"${LAUNCH[@]}" "$RCSIM" sweep "$T/sized.yaml" --out "$T/sized.h5" >"$T/sweep.log" 2>&1 ||
  { echo "FAIL: sweep"; cat "$T/sweep.log"; fail=1; }
"$RCSIM" summarize "$T/sized.h5" --csv - >"$T/sum.csv" 2>"$T/err" ||
  { echo "FAIL: summarize: $(cat "$T/err")"; fail=1; }
"$PY" - "$T/sum.csv" "$T/sized.h5" <<'PY' || fail=1
import csv, sys
import h5py, numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
with h5py.File(sys.argv[2], "r") as f:
    t = f["table"]
    users, mpl = t["users"][:], t["mixes_per_layer"][:]
    cap, load = t["mix_capacity"][:], t["counter_bw_mix_load_mean_pps"][:]
by = {(int(u), int(m)): (c, l) for u, m, c, l in zip(users, mpl, cap, load)}
print("sweep: (users, mixes_per_layer stored) -> (capacity, mix load):", by)
# auto is stored as 0 with its capacity; the width shows in the load: 64 users fit 2 a
# layer (64 x 6 / 294), 600 need 13
assert set(by) == {(64, 3), (64, 0), (600, 3), (600, 0)}, by
assert by[(64, 3)][0] == 0 and by[(64, 0)][0] == 300
assert abs(by[(64, 0)][1] - (64 * 6 / 2 + 6)) < 1e-6, by[(64, 0)]
assert abs(by[(600, 0)][1] - (600 * 6 / 13 + 6)) < 1e-6, by[(600, 0)]
assert abs(by[(600, 3)][1] - (600 * 6 / 3 + 6)) < 1e-6, by[(600, 3)]
PY

# 5. the deployment study's figure set (`rcsim plot --kind deployment`) on these results:
#    no anonymity keys here, so every entropy and the unlinkability figures are "not
#    measured" (empty), never a number; the set has a provenance record that
#    check_figures reads as current, covering the drawing's code and not plot.py's others
"$RCSIM" plot "$T/sized.h5" --kind deployment --out "$T/figures/dep" >"$T/fig.log" 2>&1 ||
  { echo "FAIL: plot --kind deployment"; cat "$T/fig.log"; fail=1; }
grep -q "not measured: entropy, entropy_p5, min_entropy, sender_entropy, eps_mean" "$T/fig.log" ||
  { echo "FAIL: plot --kind deployment does not say what is not measured: $(cat "$T/fig.log")"; fail=1; }
"$PY" - "$T/figures/dep/deployment.csv" "$T/figures/dep/provenance.json" <<'PY' || fail=1
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
got = {(int(r["users"]), r["mixes"]): r for r in rows}
assert set(got) == {(64, "3"), (64, "auto"), (600, "3"), (600, "auto")}, got.keys()
for r in rows:
    assert r["entropy"] == "" and r["eps_mean"] == "" and r["delta"] == "", r
    assert r["seeds"] == "1" and r["mix_load_interval"] == "seed range", r
assert abs(float(got[(600, "auto")]["mix_load"]) - (600 * 6 / 13 + 6)) < 1e-3, got[(600, "auto")]
assert got[(600, "auto")]["mix_capacity"] == "300" and got[(600, "3")]["mix_capacity"] == "0"
prov = json.load(open(sys.argv[2]))
assert sorted(prov["outputs"]) == ["deployment.csv", "deployment.md", "deployment.png"], prov
code = set().union(*prov["code"].values())
assert "rcplot/deployment.py" in code and "rcplot/plots.py" not in code, sorted(code)
PY
PYTHONPATH="$RCSIM_SOURCE_DIR/analysis${PYTHONPATH:+:$PYTHONPATH}" \
  "$PY" -m rcplot check-figures --figures "$T/figures" dep >"$T/chk.log" 2>&1 ||
  { echo "FAIL: check_figures on the deployment set: $(cat "$T/chk.log")"; fail=1; }
# options that do not apply to the set are refused (exit 2), not ignored
"$RCSIM" plot "$T/sized.h5" --kind deployment --out "$T/figures/dep" --x users >/dev/null 2>"$T/err"
rc=$?
[ $rc = 2 ] && grep -q -- "--x" "$T/err" ||
  { echo "FAIL: --kind deployment --x: exit $rc, $(cat "$T/err")"; fail=1; }

[ $fail = 0 ] && echo "mix capacity e2e ok"
exit $fail
