#!/bin/bash
# Population models 2 (a busy client's cover firings counted in
# aggregate, a packet's hops drawn as one sum) and 4 (also each message scheduled for its
# recipient's pull when it leaves, a pull's messages handed over in the order they arrived)
# keep model 1's laws.  The real sweep of experiments/population-model.yaml (models 1, 2
# and 4, 30 seeds, shortened to 20 simulated minutes) under mpirun, then `python3 -m rcplot population-model-ks`: a paired permutation test
# over the seeds of the pooled latencies' KS distance, of the mean latency and of the
# cover counted per payload slot, for each configuration and newer model against model 1
# (exit 1 if any p < 0.01).
set -uo pipefail
: "${RCSIM:?}" "${RCSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$RCSIM_SOURCE_DIR/analysis${PYTHONPATH:+:$PYTHONPATH}"  # the package rcplot (python3 -m rcplot TOOL)
cd "$RCSIM_SOURCE_DIR"
fail=0
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 3)
else echo "NOTE: no mpirun: the sweep runs as one process"; fi
# 1. the sweep: 3 models x 3 configurations x 30 seeds
"${LAUNCH[@]}" "$RCSIM" sweep experiments/population-model.yaml --set duration=20m \
    --out "$T/pm.h5" >"$T/sweep.log" 2>&1 || { echo "FAIL: sweep"; cat "$T/sweep.log"; exit 1; }
grep -q '270 jobs: 270 run' "$T/sweep.log" || { echo "FAIL: not 270 jobs run"; cat "$T/sweep.log"; fail=1; }
# 2. the test itself
"$PY" -m rcplot population-model-ks "$T/pm.h5" --permutations 999 --out "$T/ks.md" \
    >"$T/ks.log" 2>&1
rc=$?
cat "$T/ks.log"
[ "$rc" = 0 ] || { echo "FAIL: population_model_ks exit $rc"; fail=1; }
[ "$(grep -c '^| [ur]' "$T/ks.md")" = 6 ] || { echo "FAIL: want 3 configurations x models 2, 4 in the table"; fail=1; }
grep -q '| 1 / 4 |' "$T/ks.md" || { echo "FAIL: model 4 (the default) not in the table"; fail=1; }
# 2b. model 4 keeps model 2's counters too (timeouts, reassignments, duplicates, ACKs,
#     latency quantiles), paired seed by seed (`python3 -m rcplot population-model-paired`)
"$PY" -m rcplot population-model-paired "$T/pm.h5" --base 2 --same 4 --out "$T/paired.md" \
    >"$T/paired.log" 2>&1
rc=$?
tail -n 2 "$T/paired.log"
[ "$rc" = 0 ] || { cat "$T/paired.log"; echo "FAIL: population_model_paired exit $rc"; fail=1; }
grep -q '| 2 / 4 | 30 | timeouts |' "$T/paired.md" || { echo "FAIL: no paired timeouts of model 4"; fail=1; }
# 3. the models differ draw by draw, not in the workload: the same multicasts, other
#    latencies; the JSON names the model
common=(run --population 1000 --groups 200 --group-size-dist zipf:1.5:3:100 --duration 10m --json)
"$RCSIM" "${common[@]}" >"$T/m4.json" || fail=1
"$RCSIM" "${common[@]}" --population-model 1 >"$T/m1.json" || fail=1
"$PY" - "$T/m1.json" "$T/m4.json" <<'PY' || fail=1
import json, sys
m1, m4 = (json.load(open(p)) for p in sys.argv[1:3])
assert m1["population_model"] == 1 and m4["population_model"] == 4, (m1["population_model"], m4["population_model"])
assert m1["job_id"] != m4["job_id"]
assert m1["multicasts"] == m4["multicasts"], (m1["multicasts"], m4["multicasts"])
assert m1["median_s"] != m4["median_s"], "model 4 drew the same numbers as model 1"
assert abs(m1["median_s"] - m4["median_s"]) < 0.1 * m1["median_s"], (m1["median_s"], m4["median_s"])
print("models 1 and 4 (the default): %d multicasts each, median %.3f / %.3f s" % (m1["multicasts"], m1["median_s"], m4["median_s"]))
PY
# 4. outside population mode the switch is refused, naming it
out=$("$RCSIM" run --population-model 2 --duration 1m 2>&1) && { echo "FAIL: accepted outside population mode"; fail=1; }
echo "$out" | grep -q 'population_model: 2 needs population mode' || { echo "FAIL: error: $out"; fail=1; }
[ $fail = 0 ] && echo "population_model: OK"
exit $fail
