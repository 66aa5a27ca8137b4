"""interactive: the HTML page of `rcsim report`, with charts drawn in the browser.

One file that works offline: Chart.js (Debian's libjs-chart.js, read from
/usr/share/javascript/chart.js/ when the page is written; never copied into this
repository) and report.js (ours) are inlined, and the data of every chart travel as JSON
in the page.  Charts show each value on hover (with its interval over seeds and the
number of seeds), a series is hidden or shown by clicking its legend entry, and a
strategy has the same colour in every chart (tab10 by its place in the strategy axis,
as in the PNG plots).  The table sorts by any column and filters by typed words; the
plots that have no interactive form (box, heatmap, timeline) are embedded as PNG.

Without Chart.js the report stops with a message naming the package to install
($RCSIM_CHARTJS names another copy of chart.min.js, e.g. on a machine without Debian).
"""

import html
import json
import math
import os

import numpy as np

from . import metrics, palette
from .sweep import UsageError, choose_roles, fmt_value

CHARTJS_PATHS = ("/usr/share/javascript/chart.js/chart.min.js",
                 "/usr/share/javascript/chart.js/chart.js")
HERE = os.path.dirname(os.path.abspath(__file__))
# matplotlib's tab10, so a strategy has the colour of the PNG plots.
TAB10 = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
         "#7f7f7f", "#bcbd22", "#17becf")
DASHES = ([], [6, 3], [2, 2], [8, 3, 2, 3], [12, 4], [1, 3])
MARKERS = ("circle", "triangle", "rect", "rectRot", "star", "crossRot")
LINE_STATS = ("median", "p99", "mean", "delivery_ratio", "packets_per_delivery")
# Charts also drawn when the table shows them (a sweep that measured anonymity).
EXTRA_LINE_STATS = ("anon_entropy", "anon_min_entropy", "bw_bytes_per_client_s")
MAX_CDF_SERIES = 40
PLOT_HEIGHT = 340       # px of a chart's plot box (CSS .card .plot)
LEGEND_BELOW_MAX = 8    # series a legend under the plot holds without crushing it
STATIC = ("box", "heatmap", "timeline", "tradeoff")   # PNG plots with no interactive chart here

CSS = """
body { font-family: sans-serif; max-width: 1400px; margin: 1em auto; padding: 0 1em;
       color: #222; line-height: 1.35; }
h1 { font-size: 1.5em; margin: 0.3em 0; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; }
th, td { border: 1px solid #bbb; padding: 0.15em 0.4em; vertical-align: top; }
th { background: #eee; }
table.results { width: 100%; }
table.results th { cursor: pointer; user-select: none; }
table.results th[aria-sort=ascending]::after { content: " \\25B2"; }
table.results th[aria-sort=descending]::after { content: " \\25BC"; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td .ci { display: block; color: #666; font-size: 0.85em; }
/* Many columns (an anonymity sweep's entropy and bandwidth): smaller, so 1280 px holds them. */
table.results[data-dense] { font-size: 0.78em; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
code { background: #f2f2f2; padding: 0 0.2em; }
.top { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1em; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr));
        gap: 1em; }
.card { border: 1px solid #ddd; border-radius: 4px; padding: 0.5em; min-width: 0; }
.card h3 { font-size: 1em; margin: 0 0 0.3em; }
.card .plot { position: relative; height: 340px; }
.card img { max-width: 100%; }
.card.full { grid-column: 1 / -1; }
img { max-width: 100%; height: auto; }
.wide { max-width: 100%; overflow-x: auto; }
.card p { font-size: 0.8em; color: #444; margin: 0.3em 0 0; }
#filter { font-size: 1em; padding: 0.2em 0.4em; width: 22em; }
@media (max-width: 900px) { .top { grid-template-columns: 1fr; } }
"""


def chartjs():
    """The text of Chart.js, or UsageError naming the package to install."""
    env = os.environ.get("RCSIM_CHARTJS")
    paths = [env] if env else list(CHARTJS_PATHS)
    for p in paths:
        if p and os.path.isfile(p):
            with open(p, encoding="utf-8") as f:
                return f.read()
    raise UsageError("the HTML report needs Chart.js, not found at %s: install the Debian "
                     "package libjs-chart.js (apt-get install libjs-chart.js, or "
                     "scripts/deps.sh), or set RCSIM_CHARTJS to a copy of chart.min.js"
                     % " or ".join(paths))


def _finite(v):
    return v is not None and isinstance(v, (int, float)) and math.isfinite(v)


def _num(v):
    return float(v) if _finite(v) else None


def colour_axis(sw):
    """The axis whose value picks a series' colour in every chart: the strategy when it
    is an axis, else the hue `rcsim plot` would choose (None with no axis)."""
    names = [a.name for a in sw.axes]
    if "strategy" in names:
        return "strategy"
    _, hue, _ = choose_roles(sw.axes, "line")
    return hue


def _styles(sw, x):
    """(colour axis, the other axes but x, {colour axis value: colour}, [combinations of
    the other axes' values]).  Dash and marker follow those combinations."""
    names = [a.name for a in sw.axes]
    key_axis = colour_axis(sw)
    rest = [n for n in names if n not in (x, key_axis)]
    colours = {}
    if key_axis:
        vals = sw.axis(key_axis).values
        colours = ({v: palette.colour(v) for v in vals} if key_axis == "strategy" else
                   {v: TAB10[i % len(TAB10)] for i, v in enumerate(vals)})
    combos = []
    for c in sw.configs():
        r = tuple(c.key[n] for n in rest)
        if r not in combos:
            combos.append(r)
    return key_axis, rest, colours, combos


def _label(sw, names, key):
    return ", ".join(fmt_value(key[n]) if n == "strategy" else
                     "%s=%s" % (n, fmt_value(key[n])) for n in names) or "all"


def _series_style(sw, key_axis, rest, colours, combos, key):
    colour = colours.get(key[key_axis], TAB10[0]) if key_axis else TAB10[0]
    i = combos.index(tuple(key[n] for n in rest))
    return colour, DASHES[i % len(DASHES)], MARKERS[i % len(MARKERS)]


def _log_worthy(values):
    v = [x for x in values if _finite(x) and x > 0]
    return bool(v) and len(v) == len([x for x in values if _finite(x)]) and max(v) / min(v) >= 10


def line_charts(sw, rows, stats=None):
    """Charts of each LINE_STATS statistic (the table's estimate over seeds with its
    interval) against the x axis chosen as `rcsim plot` would, and of those of
    EXTRA_LINE_STATS in `stats` (the statistics the table shows)."""
    x, _, _ = choose_roles(sw.axes, "line")
    key_axis, rest, colours, combos = _styles(sw, x)
    xa = sw.axis(x) if x else None
    if xa is None:
        xspec, xlabel = {"type": "category", "labels": ["all"]}, "configuration"
    elif xa.numeric:
        xspec = {"type": "logarithmic" if xa.spans_decades(10) else "linear"}
        xlabel = xa.label
    else:
        xspec = {"type": "category", "labels": [fmt_value(v) for v in xa.values]}
        xlabel = xa.label
    others = [a.name for a in sw.axes if a.name != x]
    charts = []
    want = list(LINE_STATS) + [s for s in EXTRA_LINE_STATS if stats and s in stats]
    for stat in want:
        if stats is not None and stat not in stats and stat not in LINE_STATS:
            continue
        if not any(_finite(r.get(stat + "_est")) for r in rows):
            continue   # not in these rows (e.g. --columns left it out)
        m = metrics.lookup(stat)
        series = {}
        ys = []
        for c, r in zip(sw.configs(), rows):
            skey = tuple(c.key[n] for n in others)
            if skey not in series:
                col, dash, mark = _series_style(sw, key_axis, rest, colours, combos, c.key)
                series[skey] = dict(label=_label(sw, others, c.key), color=col, dash=dash,
                                    marker=mark, points=[])
            y = _num(r[m.name + "_est"])  # the centre of the table's interval
            if y is None:
                continue
            lo, hi = _num(r[m.name + "_ci_lo"]), _num(r[m.name + "_ci_hi"])
            xv = (float(c.key[x]) if xa.numeric else fmt_value(c.key[x])) if xa else "all"
            series[skey]["points"].append(dict(x=xv, y=y, lo=lo, hi=hi, n=r["seeds"],
                                                  how=r[m.name + "_interval"]))
            if x is not None and x == key_axis:
                # Strategy on x: each point takes its strategy's colour.
                series[skey].setdefault("point_colors", []).append(colours[c.key[x]])
            ys += [y] + [v for v in (lo, hi) if v is not None and v > 0]
        yspec = {"type": "logarithmic" if m.unit == "s" and _log_worthy(ys) else "linear"}
        # Chart.js sizes the axis to the points alone; make room for the intervals too.
        bounds = [v for s_ in series.values() for p in s_["points"]
                  for v in (p["lo"], p["hi"]) if v is not None]
        if bounds and yspec["type"] == "linear":
            yspec["suggestedMin"], yspec["suggestedMax"] = min(bounds), max(bounds)
        if stat == "delivery_ratio":
            yspec["max"] = 1
        charts.append(dict(id=stat, title="%s against %s" % (m.label[0].upper() + m.label[1:],
                                                             xlabel),
                           ylabel="%s [%s]" % (m.label, m.unit), unit=m.unit, x=xspec,
                           xlabel=xlabel, y=yspec, points=True, stepped=False,
                           # Categories have no order a line could mean.
                           lines=xspec["type"] != "category",
                           series=list(series.values()),
                           note="Estimate over seeds as in the table (geometric mean for "
                                "latencies); the bars are its interval, or the seed range "
                                "below 5 seeds (none with one seed)."))
    return charts


def cdf_chart(sw, edges):
    """The cumulative distribution of online latency per configuration, seeds pooled, or
    None with a reason."""
    configs = sw.configs()
    if edges is None:
        return None, "the results have no latency histogram edges"
    if len(configs) > MAX_CDF_SERIES:
        return None, "%d configurations: more than %d lines" % (len(configs), MAX_CDF_SERIES)
    edges = np.asarray(edges, dtype=np.float64)
    key_axis, rest, colours, combos = _styles(sw, None)
    names = [a.name for a in sw.axes]
    series = []
    for c in configs:
        h = None
        for j in c.jobs:
            v = j.hist().astype(np.int64)
            h = v if h is None else h + v
        total = int(h.sum()) if h is not None else 0
        if total == 0:
            continue
        cum = np.cumsum(h[:-1]) / total
        nz = np.nonzero(h[:-1])[0]
        if nz.size == 0:
            continue
        # Thin the steps to about 200 per line: the page stays small, the curve the same
        # to the eye; the last step is kept so the curve ends where the data end.
        idx = np.arange(nz[0], nz[-1] + 1)
        if idx.size > 200:
            idx = np.unique(np.concatenate([idx[::int(math.ceil(idx.size / 200))], [idx[-1]]]))
        start = edges[nz[0]] if edges[nz[0]] > 0 else edges[1]
        pts = [dict(x=float(start), y=0.0)] + [dict(x=float(edges[i + 1]), y=float(cum[i]))
                                               for i in idx]
        col, dash, mark = _series_style(sw, key_axis, rest, colours, combos, c.key)
        series.append(dict(label=_label(sw, names, c.key), color=col, dash=dash, marker=mark,
                           points=pts))
    if not series:
        return None, "no deliveries"
    # Many lines: the whole row of the grid, the legend beside the plot and the card as
    # tall as the legend (20 series had a plot 100 px high under a clipped legend).
    many = len(series) > LEGEND_BELOW_MAX
    return dict(id="cdf", full=many, legend="right" if many else "bottom",
                height=max(PLOT_HEIGHT, 40 + 22 * len(series)) if many else PLOT_HEIGHT, title="Cumulative distribution of online latency",
                ylabel="cumulative fraction", unit="",
                xlabel="latency [s]", x={"type": "logarithmic"},
                y={"type": "linear", "min": 0, "max": 1}, points=False, stepped=True, lines=True,
                series=series, note="All seeds pooled; deliveries beyond the histogram's "
                "last edge (%.3g s) count in the total but have no place on the axis."
                % edges[-2]), None


def _script_text(text):
    # Inside <script>, only "</script" (any case) ends the element early.
    return text.replace("</script", "<\\/script").replace("</SCRIPT", "<\\/SCRIPT")


def _breakable(text):
    """An interval's text with a line break allowed after its en dash or comma."""
    return text.replace("\u2013", "\u2013<wbr>").replace(", ", ",<wbr> ")


def page(parts):
    """The report page.  parts: name, desc, prov [(k, v)], axes [(name, unit, values)],
    fixed (text), run_info [html], texts [(path, yaml)], caption_html, hdr [(text,
    numeric)], body [[(text, numeric, sort value or None, interval text or None)]],
    charts [chart dicts], static [(stem, why, note, cmd, png bytes b64)], skipped
    [(stem, reason)], extra [html] (optional sections after the table)."""
    e = html.escape
    lib = chartjs()
    with open(os.path.join(HERE, "report.js"), encoding="utf-8") as f:
        ours = f.read()
    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         '<meta name="viewport" content="width=device-width, initial-scale=1">',
         "<title>Sweep %s</title>" % e(parts["name"]), "<style>%s</style>" % CSS,
         # First, so an error in any later script is seen (the end-to-end test reads it).
         "<script>window.addEventListener('error', function (ev) { var d = "
         "document.documentElement; d.setAttribute('data-js-errors', (d.getAttribute("
         "'data-js-errors') || '') + ev.message + ' | '); });</script>",
         "</head><body>", "<h1>Sweep <code>%s</code></h1>" % e(parts["name"])]
    if parts["desc"]:
        h.append("<p>%s</p>" % e(parts["desc"]))
    h.append('<div class="top"><section><h2>Provenance</h2><table class="prov">' + "".join(
        "<tr><th>%s</th><td>%s</td></tr>" % (e(k), e(v)) for k, v in parts["prov"]) +
        "</table></section><section><h2>Axes</h2>")
    if parts["axes"]:
        h.append('<table class="axes"><tr><th>parameter</th><th>unit</th><th>values</th></tr>'
                 + "".join("<tr><td>%s</td><td>%s</td><td>%s</td></tr>" % (e(a), e(u), e(v))
                           for a, u, v in parts["axes"]) + "</table>")
    else:
        h.append("<p>One configuration (no parameter differs between jobs).</p>")
    h.append("<details><summary>Parameters with one value in every job</summary><p>%s</p>"
             "</details>" % e(parts["fixed"]))
    h += parts["run_info"]
    for p, t in parts["texts"]:
        h.append("<details><summary>Sweep file as stored in <code>%s</code></summary><pre>%s"
                 "</pre></details>" % (e(p), e(t.rstrip())))
    h.append("</section></div>")

    h.append("<h2>Plots</h2><p>Hover a point for its value; click a legend entry to hide or "
             "show that series. Colours: one per %s, the same in every chart.</p>"
             % e(parts["colour_by"]))
    h.append('<div class="grid">')
    for c in parts["charts"]:
        h.append('<div class="card%s" id="card-%s"><h3>%s</h3><div class="plot"%s><canvas '
                 'id="chart-%s" role="img" aria-label="%s"></canvas></div><p>%s</p></div>'
                 % (" full" if c.get("full") else "", e(c["id"]), e(c["title"]),
                    ' style="height: %dpx"' % c["height"] if c.get("height", PLOT_HEIGHT)
                    != PLOT_HEIGHT else "", e(c["id"]), e(c["title"]), e(c["note"])))
    for stem, why, note, cmd, b64 in parts["static"]:
        h.append('<div class="card" id="card-%s"><h3>%s</h3><img alt="%s" src="data:image/png;'
                 'base64,%s"><p>%s. Redraw: <code>%s</code></p></div>'
                 % (e(stem), e(why), e(why), b64, e(note), e(cmd)))
    h.append("</div>")
    for stem, reason in parts["skipped"]:
        h.append("<p><i>Not drawn (%s):</i> %s</p>" % (e(stem), e(reason)))

    h.append("<h2>Results</h2><p>%s</p>" % parts["caption_html"])
    h.append('<p><label>Filter rows: <input id="filter" type="search" placeholder="e.g. '
             'unicast 128"></label> <span id="row-count"></span> &middot; click a heading '
             "to sort.</p>")
    # An interval may break after its dash or comma (never inside a number), so that a
    # table of many columns still fits the page.
    dense = " data-dense" if len(parts["hdr"]) > 12 else ""
    h.append('<table class="results" id="results"%s><thead><tr>' % dense +
             "".join("<th>%s</th>" % e(c) for c, _ in parts["hdr"]) + "</tr></thead><tbody>")
    for row in parts["body"]:
        cells = []
        for text, numeric, sort, ci in row:
            attr = ' data-v="%r"' % sort if _finite(sort) else ""
            inner = e(text) + ('<span class="ci">%s</span>' % _breakable(e(ci)) if ci else "")
            cells.append('<td class="n"%s>%s</td>' % (attr, inner) if numeric
                         else "<td%s>%s</td>" % (attr, inner))
        h.append("<tr>" + "".join(cells) + "</tr>")
    h.append("</tbody></table>")
    h += parts.get("extra", [])  # further sections (e.g. against the baseline), as HTML
    data = json.dumps({"charts": parts["charts"]}, separators=(",", ":"), allow_nan=False)
    h.append('<script id="report-data" type="application/json">%s</script>'
             % _script_text(data))
    h.append("<script>%s</script>" % _script_text(lib))
    h.append("<script>%s</script>" % _script_text(ours))
    h.append("</body></html>")
    return "\n".join(h) + "\n"
