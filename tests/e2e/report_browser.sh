#!/bin/bash
# End-to-end test of the interactive `rcsim report` page in headless Chromium: a small
# sweep of three strategies x three group sizes x two seeds is reported, the page is
# opened offline, and the rendered DOM must hold at least three charts that Chart.js
# drew (each canvas marked data-drawn by the page once rendered, with one series per
# strategy), the results table with every row, the provenance block, a tooltip with
# the value, interval and seeds on hover, a series hidden by its legend entry's handler,
# and no script error: none caught by the page's own error handler (data-js-errors) and no console
# message in Chromium's log.  A copy of the page with a failing script must be caught
# by the same checks (so they can fail), and without Chart.js the report stops with a
# message naming the Debian package.  Skipped (77) without Chromium
# (scripts/deps.sh --browser).  Environment: RCSIM, MPIEXEC, PYTHON.
set -euo pipefail
RCSIM=${RCSIM:?}
PY=${PYTHON:-/usr/bin/python3}
export RCSIM_PYTHON=$PY
BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$BROWSER" ]; then
    echo "SKIP: chromium not installed (scripts/deps.sh --browser)"
    exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$TMP"

cat > s.yaml <<'EOF'
name: report-browser
description: "e2e: three strategies, three group sizes"
defaults:
  duration: 5m
axes:
  users: [16, 64, 128]
  strategy: [unicast, rc-k2-p2, rc-k2-p2-ft]
seeds: 2
EOF
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 2); fi
"${LAUNCH[@]}" "$RCSIM" sweep s.yaml --out s.h5 > sweep.log 2>&1 || { cat sweep.log; fail "sweep"; }

# Without Chart.js: exit 2 and a message naming the package, before any work.
if RCSIM_CHARTJS=$TMP/none.js "$RCSIM" report s.h5 --out norep > nolib.log 2>&1; then
    fail "report without Chart.js succeeded"
else
    [ $? = 2 ] || fail "report without Chart.js: exit status not 2"
fi
grep -q "install the Debian package libjs-chart.js" nolib.log || fail "no package hint: $(cat nolib.log)"
[ ! -e norep/report.html ] || fail "a page was written without Chart.js"

"$RCSIM" report s.h5 --out rep > report.log || { cat report.log; fail "rcsim report"; }
grep -q "https\?://" <(grep -o '<script src=[^>]*>\|<link [^>]*href="http[^>]*>' rep/report.html) &&
    fail "the page loads something from the network"

flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --enable-logging=stderr --v=0
       --virtual-time-budget=10000)
# render PAGE OUT: the DOM after the scripts ran, and Chromium's log (console messages).
render() {
    timeout 120 "$BROWSER" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$TMP")" \
        --dump-dom "file://$1" > "$2.html" 2> "$2.log" || { tail "$2.log"; fail "chromium on $1"; }
}
# check DOM: the checks the page must pass (prints what is wrong, exit 1).
check() {
    "$PY" - "$1.html" "$1.log" <<'PYEOF'
import re, sys
dom, log = (open(p, encoding="utf-8", errors="replace").read() for p in sys.argv[1:3])
bad = []
m = re.search(r"<html[^>]*>", dom)
if "data-js-errors" in m.group(0):
    bad.append("script errors: %s" % re.search(r'data-js-errors="([^"]*)"', m.group(0)).group(1))
console = [l for l in log.splitlines() if "CONSOLE" in l or "Uncaught" in l]
if console:
    bad.append("console: %s" % " / ".join(console[:3]))
drawn = re.findall(r'<canvas id="chart-([a-z_0-9]+)"[^>]*data-drawn="(\d+)"', dom)
if len(drawn) < 3:
    bad.append("only %d charts drawn: %s" % (len(drawn), drawn))
if 'data-charts="%d"' % len(drawn) not in m.group(0) or not drawn:
    bad.append("the page did not mark all its charts drawn: %s" % m.group(0))
for name, n in drawn:
    want = 9 if name == "cdf" else 3    # one line per configuration / per strategy
    if int(n) != want:
        bad.append("chart %s has %s series, expected %d" % (name, n, want))
i = dom.find('id="results"')
rows = len(re.findall(r"<tr[ >]", dom[i:dom.index("</table>", i)])) if i >= 0 else 0
if rows != 10:
    bad.append("results table has %d rows, expected header + 9" % rows)
for want in ("<th>sweep hash</th>", "<th>rcsim</th>", 'id="filter"'):
    if want not in dom:
        bad.append("no %s" % want)
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("%d charts drawn (%s), table of %d rows, no script error" % (
    len(drawn), ", ".join("%s: %s series" % d for d in drawn), rows - 1))
PYEOF
}
render "$TMP/rep/report.html" dom
check dom || fail "rendered report"

# The same checks catch a script that fails.
sed 's|</body>|<script>undefinedFunction();</script></body>|' rep/report.html > rep/broken.html
render "$TMP/rep/broken.html" broken
if check broken > broken.out; then fail "a failing script went unnoticed"; fi
grep -q "undefinedFunction" broken.out || fail "the error was not reported: $(cat broken.out)"

# Hover and legend toggle: a probe moves the mouse onto the first point of the median
# chart, reads the tooltip, then calls the first legend entry's click handler and records
# which series are visible; then it sorts the table by p99 (a click on the heading) and
# filters it (typing "unicast": 3 of 9 rows).
cat > probe.html <<'EOF'
<script>
// Test probe: move the mouse onto the first point of the median chart and click the
// first legend entry, then record what the tooltip said and what was hidden.  Chart.js
// handles events on animation frames, hence the polling.
window.addEventListener("load", function () {
  var out = [];
  function done() { document.documentElement.setAttribute("data-probe", out.join(" ; ")); }
  function poll(test, then, n) {
    if (test() || n <= 0) { then(); return; }
    setTimeout(function () { poll(test, then, n - 1); }, 100);
  }
  try {
    var canvas = document.getElementById("chart-median");
    var chart = Chart.getChart(canvas);
    var r = canvas.getBoundingClientRect();
    var pt = chart.getDatasetMeta(0).data[0];
    canvas.dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + pt.x,
      clientY: r.top + pt.y, bubbles: true }));
    poll(function () { return chart.tooltip && chart.tooltip.body && chart.tooltip.body.length; }, function () {
      var tip = chart.tooltip;
      out.push("tooltip=" + (tip && tip.body ? tip.body.map(function (b) { return b.lines.join(" "); }).join(" / ") : "none"));
      // A click on a legend entry: its handler as Chart.js calls it (synthetic clicks on
      // the canvas are lost now and then in headless Chromium).
      var legend = chart.legend;
      legend.options.onClick.call(legend, { type: "click" }, legend.legendItems[0], legend);
      poll(function () { return !chart.isDatasetVisible(0); }, function () {
        out.push("visible0=" + chart.isDatasetVisible(0) + " visible1=" + chart.isDatasetVisible(1));
        // The table, as a reader would: click the p99 heading, type a word in the filter.
        var table = document.getElementById("results");
        var ths = table.tHead.rows[0].cells, col = -1;
        for (var i = 0; i < ths.length; i++) if (ths[i].textContent.indexOf("p99") === 0) col = i;
        ths[col].click();
        var vals = Array.prototype.map.call(table.tBodies[0].rows, function (row) {
          return parseFloat(row.cells[col].getAttribute("data-v")); });
        var sorted = vals.every(function (v, k) { return k === 0 || vals[k - 1] <= v; });
        var f = document.getElementById("filter");
        f.value = "unicast";
        f.dispatchEvent(new Event("input"));
        out.push("sorted=" + sorted + " rows=" + document.getElementById("row-count").textContent);
        done();
      }, 50);
    }, 50);
  } catch (e) {
    out.push("error " + e);
    done();
  }
});
</script>
EOF
"$PY" -c 'import sys; s = open(sys.argv[1]).read(); open(sys.argv[3], "w").write(s.replace("</body>", open(sys.argv[2]).read() + "</body>"))' \
    rep/report.html probe.html rep/probe.html
render "$TMP/rep/probe.html" probed
probe=$(grep -o 'data-probe="[^"]*"' probed.html || true)
echo "$probe" | grep -Eq 'tooltip=unicast: [0-9.]+ s \(range [0-9.]+–[0-9.]+, 2 seeds\) ; visible0=false visible1=true ; sorted=true rows=3 of 9 rows' ||
    fail "hover, legend toggle, sort or filter: ${probe:-no probe result}"

# A screenshot at 1280 px: the table fits the page (no sideways scroll), read from the DOM.
timeout 120 "$BROWSER" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$TMP")" \
    --window-size=1280,3000 --screenshot="$TMP/shot.png" "file://$TMP/rep/report.html" \
    > shot.log 2>&1 || { tail shot.log; fail "chromium --screenshot"; }
"$PY" -c 'import sys, matplotlib.image as m; a = m.imread(sys.argv[1]); assert a.shape[1] == 1280, a.shape' shot.png ||
    fail "screenshot"
sed 's|</body>|<script>document.documentElement.setAttribute("data-widths", document.getElementById("results").scrollWidth + " " + document.documentElement.clientWidth);</script></body>|' \
    rep/report.html > rep/width.html
timeout 120 "$BROWSER" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$TMP")" --window-size=1280,1000 \
    --dump-dom "file://$TMP/rep/width.html" > width.html 2> width.log || fail "chromium width"
read -r tw pw < <(grep -o 'data-widths="[0-9]* [0-9]*"' width.html | tr -d '"' | cut -d= -f2)
[ -n "${tw:-}" ] && [ "$tw" -le "$pw" ] || fail "the table is ${tw:-?} px wide in a ${pw:-?} px page"
# The whole page fits 1280 px too (the baseline figure ran to 2009 px), no table cell is cut,
# and the CDF's plot area keeps its height under its legend (9 series here; 20 had 85 px).
cat > fit.js <<'JSEOF'
<script>window.addEventListener("load", function () { setTimeout(function () {
  var d = document.documentElement, bad = [];
  document.querySelectorAll("body *").forEach(function (el) {
    if (el.getBoundingClientRect().right > d.clientWidth + 1) bad.push(el.tagName + "." + el.className);
    if ((el.tagName === "TD" || el.tagName === "TH") && el.scrollWidth > el.clientWidth + 1)
      bad.push("cut:" + el.textContent.slice(0, 16));
  });
  var c = Chart.getChart(document.getElementById("chart-cdf"));
  d.setAttribute("data-fit", d.scrollWidth + " " + d.clientWidth + " " +
                 Math.round(c.chartArea.height) + " " + (bad.join(",") || "none"));
}, 2000); });</script>
JSEOF
"$PY" -c 'import sys; s = open(sys.argv[1]).read(); open(sys.argv[3], "w").write(s.replace("</body>", open(sys.argv[2]).read() + "</body>"))' \
    rep/report.html fit.js rep/fit.html
timeout 120 "$BROWSER" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$TMP")" --window-size=1280,1000 \
    --dump-dom "file://$TMP/rep/fit.html" > fit.html 2> fit.log || fail "chromium fit"
read -r sw cw ch over < <(grep -o 'data-fit="[^"]*"' fit.html | cut -d'"' -f2)
[ -n "${sw:-}" ] && [ "$sw" -le "$cw" ] && [ "$over" = none ] ||
    fail "the page is ${sw:-?} px wide in ${cw:-?} px; too wide or cut: ${over:-?}"
[ "${ch:-0}" -ge 200 ] || fail "the CDF's plot area is ${ch:-?} px high"
echo "report rendered in $("$BROWSER" --version 2>/dev/null | head -1); table ${tw} px in ${pw} px"
