#!/bin/bash
# End-to-end test of "one story in every view" (docs/analysis.md) on an `anonymity: on`
# sweep over rate_delay run here: summarize and report show the entropy and bandwidth
# columns by default, the report has the trade-off section, `rcsim plot --kind tradeoff`
# marks a Pareto front, and `rcsim diff` finds a file identical to itself and to a rerun of
# the same sweep (bit for bit) and finds the configurations a changed parameter moved.
# Environment (set by tests/CMakeLists.txt): RCSIM, MPIEXEC, PYTHON.
set -euo pipefail
RCSIM=${RCSIM:?}
PY=${PYTHON:-/usr/bin/python3}
export RCSIM_PYTHON=$PY
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$TMP"

cat > anon.yaml <<'YAML'
name: story-anon
description: "e2e: anonymity against rate_delay, three strategies"
defaults: {users: 16, duration: 90, app_rate: 1/4, anonymity: on, anon_targets: 60}
axes:
  rate_delay: [2, 20]
  strategy: [unicast, rc-k2-p2, provider-fanout]
seeds: 5
YAML
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 2); fi
run() { "${LAUNCH[@]}" "$RCSIM" sweep anon.yaml --out "$@" > "sweep-$1.log" 2>&1 ||
        { cat "sweep-$1.log"; fail "rcsim sweep $*"; }; }
run a.h5
run c.h5
run b.h5 --set app_rate=1/3

# summarize: the entropy and bandwidth columns without asking, the estimate named
"$RCSIM" summarize a.h5 > sum.txt || fail "summarize"
head -2 sum.txt | tail -1 | grep -q "anon_entropy .*bw_bytes_per_client_s" ||
    fail "summarize has no anonymity or bandwidth column: $(head -2 sum.txt)"
grep -q "geometric mean over seeds" sum.txt || fail "summarize does not name its centre"
"$RCSIM" summarize a.h5 --columns median,counter_anon_min_entropy_mean_bits > cols.txt ||
    fail "summarize --columns"
head -2 cols.txt | tail -1 | grep -Eq "median +anon_min_entropy +undeliv" ||
    fail "--columns: $(head -2 cols.txt | tail -1)"

# the API's table is summarize's CSV, number for number (one centre everywhere)
"$RCSIM" summarize a.h5 --csv sum.csv > /dev/null || fail "summarize --csv"
PYTHONPATH=${RCSIM_SOURCE_DIR:?}/analysis RCSIM_BIN=$RCSIM "$PY" - <<'PYEOF' || fail "load_summary"
import csv, math
from rcsim import load_summary
t = load_summary("a.h5")
rows = list(csv.DictReader(open("sum.csv")))
assert list(t.columns) == list(rows[0].keys()), (list(t.columns), list(rows[0]))
order = list(dict.fromkeys(r["strategy"] for r in rows))
assert order == ["unicast", "rc-k2-p2", "provider-fanout"], order
for (_, a), b in zip(t.iterrows(), rows):
    for c in ("median_est", "p99_est", "anon_entropy_est", "bw_bytes_per_client_s_est"):
        assert math.isclose(float(a[c]), float(b[c]), rel_tol=1e-12), (c, a[c], b[c])
PYEOF

# report: the same columns, the trade-off section
"$RCSIM" report a.h5 --out rep > rep.log || { cat rep.log; fail "report"; }
head -1 rep/table.csv | tr , '\n' | grep -qx anon_entropy_est || fail "table.csv has no entropy"
grep -q "entropy of a tracked message \[bits\]" rep/report.md || fail "report.md: no entropy column"
grep -q "Pareto front" rep/report.md || fail "report.md: no trade-off section"
grep -q 'id="card-tradeoff"' rep/report.html || fail "report.html: no trade-off card"
# report.html's table says what report.md says, cell for cell (estimate and interval)
"$PY" - <<'PYEOF' || fail "report.html's table differs from report.md's"
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.rows, s.cur, s.on, s.cell = [], None, False, None
    def handle_starttag(s, t, a):
        s.on = s.on or (t == "table" and ("id", "results") in a)
        if s.on and t == "tr": s.cur = []
        if s.on and t == "td": s.cell = ""
        if s.on and t == "span" and s.cell is not None: s.cell += " "
    def handle_endtag(s, t):
        if t == "table": s.on = False
        if s.on and t == "td": s.cur.append(s.cell); s.cell = None
        if s.on and t == "tr" and s.cur: s.rows.append(s.cur); s.cur = None
    def handle_data(s, d):
        if s.cell is not None: s.cell += d
p = P(); p.feed(open("rep/report.html").read())
lines = open("rep/report.md").read().split("## Results")[1].split("## Plots")[0].splitlines()
md = [[c.strip() for c in l.strip().strip("|").split("|")] for l in lines
      if l.startswith("| ") and not l.startswith("| strategy")]
assert len(p.rows) == len(md) == 6, (len(p.rows), len(md))
for h, m in zip(p.rows, md):
    assert h == m, (h, m)
PYEOF

# ... and fits 1280 px in headless Chromium with its entropy and bandwidth columns (17
# columns ran to 1466 px in a 1265 px page: intervals that could not break)
BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$BROWSER" ]; then
    cat > fit.js <<'JSEOF'
<script>window.addEventListener("load", function () { setTimeout(function () {
  var d = document.documentElement, bad = [];
  document.querySelectorAll("body *").forEach(function (el) {
    if (el.getBoundingClientRect().right > d.clientWidth + 1) bad.push(el.tagName + "." + el.className);
    if ((el.tagName === "TD" || el.tagName === "TH") && el.scrollWidth > el.clientWidth + 1)
      bad.push("cut:" + el.textContent.slice(0, 16));
  });
  d.setAttribute("data-fit", d.scrollWidth + " " + d.clientWidth + " " + (bad.join(",") || "none"));
}, 1000); });</script>
JSEOF
    "$PY" -c 'import sys; s = open(sys.argv[1]).read(); open(sys.argv[3], "w").write(s.replace("</body>", open(sys.argv[2]).read() + "</body>"))' \
        rep/report.html fit.js rep/fit.html
    timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --virtual-time-budget=10000 --user-data-dir="$(mktemp -d -p "$TMP")" \
        --window-size=1280,1000 --dump-dom "file://$TMP/rep/fit.html" > fit.html 2> fit.log ||
        fail "chromium on the anonymity report"
    read -r pw cw over < <(grep -o 'data-fit="[^"]*"' fit.html | cut -d'"' -f2)
    [ -n "${pw:-}" ] && [ "$pw" -le "$cw" ] && [ "$over" = none ] ||
        fail "the anonymity report is ${pw:-?} px wide in ${cw:-?} px; too wide or cut: ${over:-?}"
    echo "anonymity report: ${pw} px in ${cw} px"
else
    echo "chromium not installed: the anonymity report's width is not checked"
fi

# the trade-off plot
"$RCSIM" plot a.h5 --kind tradeoff --out to.png --axes-json to.json > /dev/null || fail "tradeoff"
"$PY" - <<'PYEOF' || fail "tradeoff axes"
import json
a = json.load(open("to.json"))
p = a["panels"][0]
assert p["xlabel"].startswith("entropy of a tracked message [bits]"), p
assert p["ylabel"] == "mean latency [s]", p
assert 1 <= len(a["pareto"][0]) < 6, a["pareto"]
assert "Pareto front (not dominated)" in p["legend"] and "dominated" in p["legend"], p
PYEOF

# diff: a file against itself and against a rerun (same build: bit for bit), then against
# a changed parameter
for other in a.h5 c.h5; do
    "$RCSIM" diff a.h5 $other > d.txt || { cat d.txt; fail "diff a.h5 $other: exit $?"; }
    grep -q "^6 configurations: 6 identical$" d.txt || { cat d.txt; fail "diff a.h5 $other"; }
done
set +e
"$RCSIM" diff a.h5 b.h5 --csv d.csv > d.txt
st=$?
set -e
[ $st = 3 ] || { cat d.txt; fail "diff against app_rate=1/3: exit $st, not 3"; }
# shown as every view shows a value (0.333333, not the double's 17 digits)
grep -qx "changed parameter: app_rate = 0.25 in A, 0.333333 in B (configurations paired across it)" d.txt || { cat d.txt; fail "no change named"; }
grep -q "^differs " d.txt || fail "nothing differs"
grep -q "identical" d.csv && fail "a changed parameter left a configuration identical"
"$RCSIM" diff a.h5 2> d.err && fail "diff with one file succeeded"
echo "ok: $(grep configurations d.txt)"
