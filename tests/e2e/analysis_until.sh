#!/bin/bash
# The stopping rule recorded in the results is shown: a sweep run with `rcsim sweep --until`
# (the same attributes as a file's `seeds: {min, max, until}`) read by `rcsim summarize` (text,
# --csv, --json), `rcsim report` (report.md, report.html, table.csv) and the Python API
# (rcsim.load_summary, rcsim.seeds_until): the rule, and for each configuration the seeds it
# stopped at, why (narrow or max) and its relative half-width, equal to the file's
# seeds_until_outcome; a sweep with fixed seeds shows none of it.
# Environment (set by tests/CMakeLists.txt): RCSIM, RCSIM_SOURCE_DIR, MPIEXEC, PYTHON.
set -euo pipefail
RCSIM=${RCSIM:?}
PY=${PYTHON:-/usr/bin/python3}
export RCSIM_PYTHON=$PY RCSIM_BIN=$RCSIM
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$TMP"

# 5 simulated minutes give a wide median over seeds, 2 hours a narrow one (16 users).
cat > u.yaml <<'Y'
name: until-view
defaults:
  model: paper
  trace: online
  users: 16
axes:
  duration: [5m, 2h]
seeds: 3
Y
"$RCSIM" sweep u.yaml --out u.h5 --until "p50 rel_halfwidth < 0.04" --max-seeds 10 > sweep.log 2>&1 \
    || { cat sweep.log; fail "sweep --until"; }
"$RCSIM" sweep u.yaml --out fixed.h5 > fixed.log 2>&1 || { cat fixed.log; fail "fixed sweep"; }

"$RCSIM" summarize u.h5 > s.txt || fail "summarize"
cat s.txt
grep -qE '^300 +10 .* max, 10 seeds \(0\.[0-9]+\)$' s.txt || fail "summarize: no 'max, 10 seeds' on the 5 min row"
grep -qE '^7200 +5 .* narrow, 5 seeds \(0\.0[0-3][0-9]*\)$' s.txt || fail "summarize: no 'narrow, 5 seeds' on the 2 h row"
grep -qF "seeds until p50 rel_halfwidth < 0.04; min 5, max 10, step 5 (in u.h5): 2 configuration(s): 1 narrow, 1 at max, 0 still running" s.txt \
    || fail "summarize: no rule line"
"$RCSIM" summarize fixed.h5 > f.txt || fail "summarize fixed"
grep -q "stopped\|seeds until" f.txt && fail "summarize of fixed seeds shows a rule"

"$RCSIM" summarize u.h5 --csv s.csv > /dev/null || fail "summarize --csv"
"$RCSIM" summarize u.h5 --json s.json > /dev/null || fail "summarize --json"
"$RCSIM" report u.h5 --out rep > rep.log 2>&1 || { cat rep.log; fail "report"; }
grep -qF "Seeds until narrow: seeds until p50 rel_halfwidth < 0.04" rep/report.md || fail "report.md: no rule"
grep -qF "| narrow, 5 seeds (" rep/report.md || fail "report.md: no stopped column"
grep -qF "narrow, 5 seeds (" rep/report.html || fail "report.html: no stopped column"
grep -qF "Seeds until narrow: seeds until p50 rel_halfwidth" rep/report.html || fail "report.html: no rule"

# Every view against the file's own record.
PYTHONPATH="$RCSIM_SOURCE_DIR/analysis" $PY - <<'P' || fail "the views disagree with the file"
import csv, json, math, h5py
import rcsim
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
f = h5py.File("u.h5", "r")
rec = {}
t = f["table"]
dur = dict(zip(["%016x" % x for x in t["job_id"][:]], t["duration"][:]))
for line in s(f.attrs["seeds_until_outcome"]).strip().split("\n"):
    first, *kv = line.split()
    rec[int(dur[first])] = dict(x.split("=") for x in kv)
assert {d: r["stopped"] for d, r in rec.items()} == {300: "max", 7200: "narrow"}, rec
def check(rows, where):
    for r in rows:
        o = rec[int(float(r["duration"]))]
        assert int(float(r["until_seeds"])) == int(o["seeds"]) == int(float(r["seeds"])), (where, r)
        assert r["until_stopped"] == o["stopped"], (where, r)
        assert abs(float(r["until_rel_halfwidth"]) - float(o["rel_halfwidth"])) < 1e-12, (where, r)
        assert abs(float(r["until_estimate"]) - float(o["estimate"])) < 1e-12, (where, r)
check(list(csv.DictReader(open("s.csv"))), "summarize --csv")
check(list(csv.DictReader(open("rep/table.csv"))), "report table.csv")
j = json.load(open("s.json"))
check(j["rows"], "summarize --json")
assert j["seeds_until"][0]["rule"] == s(f.attrs["seeds_until"]), j["seeds_until"]
check(rcsim.load_summary("u.h5").to_dict("records"), "rcsim.load_summary")
u = rcsim.seeds_until("u.h5")
assert len(u) == 1 and u[0]["rule"] == "p50 rel_halfwidth < 0.04; min 5, max 10, step 5", u
assert rcsim.seeds_until("fixed.h5") == []
assert "until_stopped" not in rcsim.load_summary("fixed.h5").columns
print("summarize, report and the API show the recorded rule:", rec)
P
echo PASS
