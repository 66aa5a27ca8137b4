#!/bin/bash
# End-to-end test of the sweep-agnostic analysis (`rcsim plot`, `rcsim report`,
# `python3 -m rcplot summarize`) on a sweep file that exists nowhere else: written here, run under
# mpirun, then plotted in several kinds as PNG and PDF and reported as HTML + Markdown.
# Checks: the files exist and are valid PNG/PDF/HTML; the drawn axes (read back from the
# figure by plot.py --axes-json) carry the right parameter names, units and scales; PDFs are
# byte-reproducible; bad usage exits 2; the table sorts numerically; the report's HTML
# holds the table and the embedded images (in headless Chromium when installed, else
# with Python's html.parser); the parameter units agree with `rcsim run --help`.
# Environment (set by tests/CMakeLists.txt): RCSIM, RCSIM_SOURCE_DIR, MPIEXEC, PYTHON.
set -euo pipefail
SRC=${RCSIM_SOURCE_DIR:?}
RCSIM=${RCSIM:?}
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$SRC/analysis${PYTHONPATH:+:$PYTHONPATH}"  # the package rcplot (python3 -m rcplot TOOL)
export RCSIM_PYTHON=$PY
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$TMP"

# 1. a new small sweep: 5 group sizes x 2 strategies x 3 seeds, 10 simulated minutes
cat > any.yaml <<'EOF'
name: any-sweep
description: "e2e: a researcher's own grid, two axes and three seeds"
defaults:
  duration: 10m
  store_raw: true
axes:
  users: [128, 8, 45, 16, 32]
  strategy: [unicast, rc-k2-p2]
seeds: 3
EOF
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 3); fi
"${LAUNCH[@]}" "$RCSIM" sweep any.yaml --out any.h5 > sweep.log 2>&1 ||
    { cat sweep.log; fail "rcsim sweep failed"; }

is_png() { "$PY" -c 'import sys, matplotlib.image as m; a = m.imread(sys.argv[1]); assert a.shape[0] > 100 and a.shape[1] > 100, a.shape' "$1" ||
    fail "$1 is not a readable PNG"; }
is_pdf() { head -c 5 "$1" | grep -q '%PDF-' && tail -c 32 "$1" | grep -q '%%EOF' ||
    fail "$1 is not a PDF"; }
# axes FILE.json PYTHON-EXPRESSION...: each expression must hold for the sidecar `a`
axes() {
    local f=$1; shift
    "$PY" - "$f" "$@" <<'PYEOF' || fail "axes of $f"
import json, sys
a = json.load(open(sys.argv[1]))
p = a["panels"]
for expr in sys.argv[2:]:
    if not eval(expr):
        sys.exit("%s: %s is false; axes: %s" % (sys.argv[1], expr, json.dumps(a, indent=1)))
PYEOF
}

# 2. the default plot: x = users (numeric, most values), hue = strategy; median latency
"$RCSIM" plot any.h5 --out default.png --axes-json default.json > plot.log || fail "rcsim plot"
is_png default.png
axes default.json 'a["kind"] == "line"' 'a["x"] == "users" and a["hue"] == "strategy"' \
    'p[0]["xlabel"] == "users [count]"' 'p[0]["ylabel"] == "median latency [s]"' \
    'p[0]["xscale"] == "log"' 'p[0]["xticklabels"] == ["8", "16", "32", "45", "128"]' \
    'p[0]["legend_title"] == "strategy"' 'sorted(p[0]["legend"]) == ["rc-k2-p2", "unicast"]' \
    '"min-max over seeds" in a["note"] and "geometric mean" in a["note"]'

# 3. more kinds, PNG and PDF
"$RCSIM" plot any.h5 --kind box --out box.pdf --axes-json box.json > /dev/null || fail "box"
is_pdf box.pdf
axes box.json 'p[0]["ylabel"] == "latency [s]"' 'p[0]["xlabel"] == "users [count]"'
"$RCSIM" plot any.h5 --kind box --stat p99 --x strategy --hue users --out boxp99.png \
    --axes-json boxp99.json > /dev/null || fail "box p99"
is_png boxp99.png
axes boxp99.json 'p[0]["xlabel"] == "strategy"' 'p[0]["ylabel"] == "p99 latency [s]"' \
    'p[0]["legend_title"] == "users [count]"'
"$RCSIM" plot any.h5 --kind cdf --out cdf.pdf --axes-json cdf.json > /dev/null || fail "cdf"
is_pdf cdf.pdf
axes cdf.json 'len(p) == 2' 'all(x["xlabel"] == "latency [s]" and x["xscale"] == "log" for x in p)' \
    'p[0]["ylabel"].startswith("cumulative fraction")' 'a["hue"] == "users"' \
    'sorted(x["title"] for x in p) == ["strategy = rc-k2-p2", "strategy = unicast"]'
"$RCSIM" plot any.h5 --kind hist --where strategy=unicast --out hist.png \
    --axes-json hist.json > /dev/null || fail "hist"
is_png hist.png
axes hist.json 'len(p) == 1' 'p[0]["xlabel"] == "latency [s]"' 'p[0]["ylabel"].endswith("[deliveries]")'
"$RCSIM" plot any.h5 --kind heatmap --stat mean --out heat.png --axes-json heat.json \
    > /dev/null || fail "heatmap"
is_png heat.png
axes heat.json 'p[0]["xlabel"] == "users [count]"' 'p[0]["ylabel"] == "strategy"' \
    'a["colorbar_label"].startswith("mean latency [s]")'
"$RCSIM" plot any.h5 --stat delivery_ratio --out dr.png --axes-json dr.json > /dev/null ||
    fail "delivery ratio"
axes dr.json 'p[0]["ylabel"] == "delivery ratio [fraction]"'
"$RCSIM" plot any.h5 --stat "packets per delivery" --out ppd.pdf --axes-json ppd.json \
    > /dev/null || fail "packets per delivery"
axes ppd.json 'p[0]["ylabel"] == "packets per delivery [packets]"'
# a fixed range never cuts silently: the values above it are listed and marked
"$RCSIM" plot any.h5 --stat p99 --ylim 1,20 --out off.png --axes-json off.json > /dev/null ||
    fail "ylim"
axes off.json 'len(a["offscale"]) > 0' 'all(o["value"] > 20 for o in a["offscale"])'

# 4. the same PDF twice is the same bytes (no creation date)
"$RCSIM" plot any.h5 --kind box --out box2.pdf > /dev/null
cmp -s box.pdf box2.pdf || fail "two renderings of box.pdf differ"

# 5. per-delivery timeline: drawn when the results hold the records, else a clear refusal
if "$PY" - any.h5 "$SRC/analysis" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[2])
from rcplot import results
with results.load([sys.argv[1]]) as r:
    sys.exit(0 if results.job_deliveries(r.jobs[0]) is not None else 1)
PYEOF
then
    "$RCSIM" plot any.h5 --kind timeline --out tl.png --axes-json tl.json > /dev/null || fail "timeline"
    is_png tl.png
    axes tl.json 'p[0]["xlabel"].startswith("time of the send since the run") and p[0]["xlabel"].endswith("[min]")' 'p[0]["ylabel"] == "latency [s]"'
else
    if "$RCSIM" plot any.h5 --kind timeline --out tl.png 2> tl.err; then
        fail "timeline drawn without per-delivery records"
    fi
    grep -q "store_raw" tl.err || fail "timeline refusal does not mention store_raw: $(cat tl.err)"
    [ ! -e tl.png ] || fail "timeline refusal left a file"
fi

# 6. bad usage exits 2 with the reason
expect2() {
    local rc=0
    "$RCSIM" plot any.h5 "$@" --out bad.png 2> bad.err > /dev/null || rc=$?
    [ "$rc" = 2 ] || fail "plot $* exited $rc, expected 2"
}
expect2 --x groups; grep -q "groups is not an axis" bad.err || fail "message: $(cat bad.err)"
expect2 --stat p42; grep -q "unknown statistic 'p42'" bad.err || fail "message: $(cat bad.err)"
expect2 --where users=7; grep -q "matches none" bad.err || fail "message: $(cat bad.err)"
expect2 --kind cdf --x users; grep -q "does not apply to --kind cdf" bad.err || fail "message: $(cat bad.err)"
rc=0; "$RCSIM" plot missing.h5 2> bad.err || rc=$?
[ "$rc" = 2 ] && grep -q "missing.h5: no such file" bad.err || fail "missing file: rc $rc $(cat bad.err)"
"$RCSIM" plot --help | grep "usage: rcsim plot" >/dev/null || fail "rcsim plot --help"

# 7. the table: numeric order, only the axes, CSV and JSON
"$PY" -m rcplot summarize any.h5 > table.txt || fail "summarize"
awk 'NR > 2 && $1 ~ /^[0-9]+$/ { print $1 }' table.txt | uniq | tr '\n' ' ' | grep -qx "8 16 32 45 128 " ||
    fail "table not in numeric order: $(cat table.txt)"
head -2 table.txt | tail -1 | grep -q "^users  *strategy  *seeds" || fail "table header: $(head -2 table.txt)"
"$PY" -m rcplot summarize any.h5 --csv table.csv --json table.json > /dev/null || fail "csv/json"
[ "$(wc -l < table.csv)" = 11 ] || fail "table.csv should have a header and 10 rows"
"$PY" -c 'import json, sys; d = json.load(open("table.json")); assert [a["name"] for a in d["axes"]] == ["users", "strategy"], d["axes"]; assert len(d["rows"]) == 10 and d["rows"][0]["seeds"] == 3' ||
    fail "table.json"

# 8. the report: Markdown + a self-contained HTML page with the table and the images
"$RCSIM" report any.h5 --out rep > report.log || { cat report.log; fail "rcsim report"; }
for f in report.md report.html table.csv img/median.png img/box.png img/cdf.png; do
    [ -s "rep/$f" ] || fail "report lacks $f"
done
grep -q "^| users \[count\] | strategy | seeds |" rep/report.md || fail "report.md table header"
grep -q "](img/median.png)" rep/report.md || fail "report.md image link"
grep -q "seeds: 3" rep/report.md || fail "report.md lacks the sweep file text"
"$PY" - rep/report.html <<'PYEOF' || fail "report.html does not validate"
import base64, html.parser, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.rows, self.imgs, self.scripts, self.inrows = [], 0, [], 0, False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in ("img", "meta", "br", "hr", "input", "wbr"):
            self.stack.append(tag)
        if tag == "table" and a.get("id") == "results":
            self.inrows = True
        if tag == "tr" and self.inrows:
            self.rows += 1
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag == "script":
            self.scripts += 1
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            sys.exit("unbalanced </%s> (open: %s)" % (tag, self.stack[-3:]))
        self.stack.pop()
        if tag == "table":
            self.inrows = False
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
assert not p.stack, "unclosed: %s" % p.stack
assert p.rows == 11, "results table has %d rows, expected header + 10" % p.rows
# The error hook, the chart data, Chart.js and report.js (tests/e2e/report_browser.sh
# checks the charts they draw); box, heatmap and timeline stay embedded PNGs.
assert p.scripts == 4, "%d scripts, expected 4" % p.scripts
assert len(p.imgs) >= 3, "only %d images" % len(p.imgs)
for src in p.imgs:
    assert src.startswith("data:image/png;base64,"), "image not embedded: %s" % src[:60]
    assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n", "bad PNG data"
print("report.html: %d table rows, %d embedded images" % (p.rows, len(p.imgs)))
PYEOF
BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$BROWSER" ]; then
    flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
           --disable-component-update --disable-sync)
    timeout 120 "$BROWSER" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$TMP")" --dump-dom \
        "file://$TMP/rep/report.html" > dom.html 2> chromium.log || { tail chromium.log; fail "chromium --dump-dom"; }
    grep -q '<table class="results" id="results">' dom.html || fail "rendered DOM lacks the table"
    [ "$(grep -o '<img ' dom.html | wc -l)" -ge 3 ] || fail "rendered DOM lacks the images"
    "$PY" - dom.html <<'PYEOF' || fail "rendered DOM rows"
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
t = d[d.index('id="results"'):]
t = t[:t.index("</table>")]
n = len(re.findall(r"<tr[ >]", t))
assert n == 11, "rendered table has %d rows" % n
PYEOF
    timeout 120 "$BROWSER" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$TMP")" \
        --window-size=1200,1600 --screenshot="$TMP/shot.png" "file://$TMP/rep/report.html" \
        >> chromium.log 2>&1 || { tail chromium.log; fail "chromium --screenshot"; }
    is_png shot.png
    echo "report rendered in $("$BROWSER" --version 2>/dev/null | head -1)"
else
    echo "chromium not installed: report.html checked with html.parser only"
fi

# 9. every unit the simulator's registry states is the unit on our axes
"$RCSIM" run --help > run-help.txt
"$PY" - run-help.txt "$SRC/analysis" <<'PYEOF' || fail "parameter units differ from rcsim run --help"
import re, sys
sys.path.insert(0, sys.argv[2])
from rcplot import sweep
n = 0
for line in open(sys.argv[1]):
    m = re.match(r"\s+--([a-z0-9-]+)\s.*\[([^\]]+)\] \(default", line)
    if m:
        name, unit = m.group(1).replace("-", "_"), m.group(2)
        assert sweep.UNITS.get(name) == unit, "%s: rcsim says [%s], rcplot.sweep.UNITS %r" % (
            name, unit, sweep.UNITS.get(name))
        n += 1
assert n >= 10, "only %d units found in rcsim run --help" % n
PYEOF
echo "analysis of any sweep OK: 9 plots, report, table"
