"""report: one page about one sweep, as Markdown and as a self-contained HTML file.

build(sweep, results_paths, outdir) draws the default plots into OUTDIR/img/, writes the
configuration table as OUTDIR/table.csv and the page twice: OUTDIR/report.md (images by
relative link) and OUTDIR/report.html (interactive.py: charts drawn in the browser by the
inlined Chart.js, a sortable and filterable table, the PNG plots that have no interactive
form embedded): one file that works offline and can be mailed as is.

The page holds the sweep's description as stored in the results (name, description,
the sweep file's text, axes, provenance), the table of configurations with each
statistic summarised over seeds with an interval that stays in its range (table.fmt_ci), and the default plots with the
`rcsim plot` command that redraws each.  A default plot that does not fit the data (too
many panels; no per-delivery records for the timeline) is replaced by a sentence saying
why.
"""

import base64
import html
import math
import os
import re

from . import baseline, interactive, metrics, plots, results, table, until
from .sweep import UsageError, fmt_value, param_label

TABLE_STATS = ("mean", "median", "p90", "p99", "delivery_ratio", "packets_per_delivery")


def _description(text):
    m = re.search(r"^description:[ \t]*(.*)$", text or "", re.M)
    if not m:
        return ""
    d = m.group(1).strip()
    if len(d) >= 2 and d[0] == d[-1] and d[0] in "'\"":
        d = d[1:-1]
    return d


def default_specs(sw):
    """[(file stem, PlotSpec, why)] of the plots a report shows for this sweep.  When the
    strategy is an axis and another axis can take x or the panels, every plot colours by
    strategy, so a colour means the same strategy throughout the page (plots._colours keys
    a value to its place in the axis)."""
    numeric_x = any(a.numeric for a in sw.axes)
    kind = "line" if numeric_x or not sw.axes else "box"
    names = [a.name for a in sw.axes]
    hue = "strategy" if "strategy" in names and len(names) >= 2 else None
    out = [("median", plots.PlotSpec(kind=kind, stat="median", hue=hue),
            "Median latency of the online deliveries"),
           ("p99", plots.PlotSpec(kind=kind, stat="p99", hue=hue), "99th-percentile latency"),
           ("box", plots.PlotSpec(kind="box", stat=metrics.LATENCY_BOX, hue=hue),
            "Latency distribution"),
           ("cdf", plots.PlotSpec(kind="cdf", hue=hue), "Cumulative distribution of latency")]
    ratios = [metrics.lookup("delivery_ratio")(j) for j in sw.jobs]
    if any(math.isfinite(r) and r < 1.0 for r in ratios):
        out.append(("delivery_ratio", plots.PlotSpec(kind=kind, stat="delivery_ratio",
                                                     hue=hue),
                    "Share of (recipient, message) pairs delivered by the end of the run"))
    if len(sw.axes) >= 2:
        out.append(("heatmap", plots.PlotSpec(kind="heatmap", stat="mean"),
                    "Mean latency per configuration"))
    anon = metrics.lookup(plots.TRADEOFF_ANON)
    if any(math.isfinite(anon(j)) for j in sw.jobs):
        out.append(("tradeoff", plots.PlotSpec(kind="tradeoff", stat="mean"),
                    "Latency against anonymity and bandwidth (the Pareto front)"))
    if all(results.job_deliveries(j) is not None for j in sw.jobs[:1]):
        out.append(("timeline", plots.PlotSpec(kind="timeline", hue=hue),
                    "Latency against the time of the send"))
    return out


def _command(paths, spec, where):
    args = ["rcsim plot"] + list(paths) + ["--kind", spec.kind]
    if spec.kind not in ("cdf", "hist", "timeline"):
        args += ["--stat", spec.stat]
    if spec.hue and spec.kind != "tradeoff":
        args += ["--hue", spec.hue]
    for k, vs in where.items():
        args += ["--where %s=%s" % (k, v) for v in vs]
    return " ".join(args)


def build(sw, paths, outdir, dpi=110, columns=None):
    """Writes the report; returns {'md', 'html', 'csv', 'images': [(path, info)],
    'skipped': [(stem, reason)], 'stats': the table's statistics}.  columns: the
    statistics of the table (table.parse_columns); default TABLE_STATS, with the
    anonymity and bandwidth columns when the sweep measured anonymity (table.shown)."""
    interactive.chartjs()   # before any work: without it there is no HTML page
    img_dir = os.path.join(outdir, "img")
    os.makedirs(img_dir, exist_ok=True)
    infos = results.sweep_info(sw.res)
    name = ", ".join(sorted({str(i.get("sweep_name", "?")) for i in infos}))
    configs = sw.configs()
    rows = table.rows(sw, stats=columns or table.candidates(TABLE_STATS))
    stats = list(columns or table.shown(rows, TABLE_STATS))

    csv_path = os.path.join(outdir, "table.csv")
    cols = table.columns(sw, stats=stats)
    # A `seeds: until` sweep: the rule and where each configuration stopped (rcplot/until.py).
    stops = until.attach(paths, rows, sw.table_columns())
    if stops:
        cols = cols + list(until.COLUMNS)
    with open(csv_path, "w", newline="") as f:
        table.write_csv(f, cols, rows)

    figures, skipped = [], []
    for stem, spec, why in default_specs(sw):
        try:
            fig, info = plots.draw(sw, spec)
        except (UsageError, plots.NoRecords) as e:
            skipped.append((stem, str(e)))
            continue
        path = os.path.join(img_dir, stem + ".png")
        plots.save(fig, path, dpi=dpi)
        plots.plt.close(fig)
        figures.append((stem, path, why, info, _command(paths, spec, sw.where)))

    head_cols = sw.table_columns()  # the axes, and the strategy structure that varies
    stat_cols = [(s, metrics.lookup(s)) for s in stats]
    hdr = [(param_label(c), False) for c in head_cols] + [("seeds", True),
                                                  ("online deliveries", True)]
    hdr += [("%s [%s]" % (m.label, m.unit), True) for _, m in stat_cols]
    hdr += [("undelivered", True)]
    if stops:
        hdr += [("stopped (seeds, rel. half-width)", False)]
    body = []
    # For the HTML table: (text, numeric, sort value, interval text on a second line).
    hbody = []
    for r in rows:
        cells = [(fmt_value(r[c]), False) for c in head_cols]
        cells += [("%d" % r["seeds"], True), ("%d" % r["deliveries"], True)]
        cells += [(table.fmt_ci(r, m.name), True) for _, m in stat_cols]
        cells += [("%d" % r["undelivered"], True)]
        if stops:
            cells.append((until.cell(r), False))
        body.append(cells)
        hc = [(fmt_value(r[c]), False, _sortable(r[c]), None) for c in head_cols]
        hc += [("%d" % r["seeds"], True, r["seeds"], None),
               ("%d" % r["deliveries"], True, r["deliveries"], None)]
        hc += [html_cell(r, m.name) for _, m in stat_cols]
        hc.append(("%d" % r["undelivered"], True, r["undelivered"], None))
        if stops:
            hc.append((until.cell(r), False, until.cell(r), None))
        hbody.append(hc)

    info0 = infos[0] if infos else {}
    seeds = sw.seeds()
    prov = [("results", ", ".join(paths)),
            ("sweep file", str(info0.get("sweep_file", "?"))),
            ("sweep hash", "%016x" % info0["sweep_hash"]
             if isinstance(info0.get("sweep_hash"), int) else str(info0.get("sweep_hash", "?"))),
            ("written", str(info0.get("created_utc", "?"))),
            ("rcsim", "%s (%s)" % (info0.get("rcsim_version", "?"),
                                   info0.get("git_revision", "?"))),
            ("jobs", "%d in %d configurations, seeds %s" % (
                len(sw.jobs), len(configs), ", ".join(seeds))),
            ("simulation wall time", "%.1f s in total" % sum(r["wall_s"] for r in rows))]
    if sw.where:
        prov.append(("filter", " ".join("%s=%s" % (k, "|".join(v))
                                        for k, v in sw.where.items())))
    axes = [(a.name, a.unit or "(names)", ", ".join(fmt_value(v) for v in a.values))
            for a in sw.axes]
    fixed = sorted(sw.fixed().items())
    desc = "; ".join(d for d in (_description(i.get("sweep_text", "")) for i in infos) if d)
    texts = [(i["path"], i["sweep_text"]) for i in infos if i.get("sweep_text")]
    caption = ("One row per configuration. Latencies are of the deliveries made while the "
               "recipient was online, in seconds; each statistic is computed per seed, "
               "then summarised over seeds: " + table.interval_note(rows, stats) +
               " (docs/analysis.md). Delivery ratio: first deliveries / (recipients × "
               "messages). Packets per delivery: payload, ACK and repair sub-messages sent "
               "per first delivery. Full precision, with medians and seed ranges: "
               "[table.csv](table.csv).")

    md = ["# Sweep `%s`" % name, ""]
    if desc:
        md += [desc, ""]
    md += ["| | |", "|---|---|"] + ["| %s | %s |" % (k, _md(v)) for k, v in prov] + [""]
    md += ["## Axes", ""]
    if axes:
        md += ["| parameter | unit | values |", "|---|---|---|"]
        md += ["| %s | %s | %s |" % (a, u, _md(v)) for a, u, v in axes] + [""]
    else:
        md += ["One configuration (no parameter differs between jobs).", ""]
    md += ["Parameters with one value in every job: " +
           ", ".join("%s=%s" % (k, fmt_value(v) if v != "" else '""') for k, v in fixed), ""]
    for i in infos:
        # What ran, which the stored sweep file does not say when --set changed it.
        if not i.get("run_command"):
            continue
        md += ["What ran into `%s` (its last run): `%s` on %s." % (
            i["path"], i["run_command"], i.get("run_layout", "?")), ""]
        if i.get("run_overrides"):
            md += ["Overrides: `%s` -- the jobs ran with these, not with the sweep file's "
                   "values." % " ".join(i["run_overrides"].split("\n")).strip(), ""]
        if i.get("run_effective"):
            md += ["Parameters as run:", "", "```", i["run_effective"].rstrip(), "```", ""]
    for p, t in texts:
        md += ["Sweep file as stored in `%s`:" % p, "", "```yaml", t.rstrip(), "```", ""]
    for p in stops:
        md += ["Seeds until narrow: " + until.summary_line(p) + "; the column *stopped* "
               "gives each configuration's seeds and its %s's relative half-width there "
               "(docs/sweep-format.md, \"Seeds until narrow\")." % until.stat_name(p["rule"]), ""]
    md += ["## Results", "", caption, ""]
    md += ["| " + " | ".join(_md(h) for h, _ in hdr) + " |",
           "|" + "|".join("---:" if n else "---" for _, n in hdr) + "|"]
    md += ["| " + " | ".join(_md(c) for c, _ in row) + " |" for row in body] + [""]
    md += ["## Plots", ""]
    for stem, path, why, info, cmd in figures:
        md += ["### %s" % why, "", "![%s](img/%s.png)" % (why, stem), "",
               "%s. Redraw: `%s`." % (info["note"][0].upper() + info["note"][1:], cmd), ""]
    for stem, reason in skipped:
        md += ["*Not drawn (%s):* %s" % (stem, reason), ""]
    base_md, base_html = baseline.report_section(sw, paths, outdir, dpi=dpi)
    md += base_md
    md_path = os.path.join(outdir, "report.md")
    with open(md_path, "w") as f:
        f.write("\n".join(md).rstrip() + "\n")

    e = html.escape
    charts = interactive.line_charts(sw, rows, [s for s in stats if s in interactive.LINE_STATS
                                                or s in interactive.EXTRA_LINE_STATS])
    cdf, why_not = interactive.cdf_chart(sw, sw.res.edges)
    if cdf:
        charts.append(cdf)
    else:
        skipped.append(("cdf (interactive)", why_not))
    static = []
    for stem, path, why, info, cmd in figures:
        if stem in interactive.STATIC:
            with open(path, "rb") as f:
                static.append((stem, why, info["note"][0].upper() + info["note"][1:], cmd,
                               base64.b64encode(f.read()).decode("ascii")))
    run_info = []
    for i in infos:
        if i.get("run_command"):
            run_info.append("<p>What ran into <code>%s</code> (its last run): <code>%s</code> "
                            "on %s.</p>" % (e(i["path"]), e(i["run_command"]),
                                            e(i.get("run_layout", "?"))))
            if i.get("run_overrides"):
                run_info.append("<p>Overrides: <code>%s</code></p>" % e(
                    " ".join(i["run_overrides"].split("\n")).strip()))
    for p in stops:
        run_info.append("<p>Seeds until narrow: %s; the column <em>stopped</em> gives each "
                        "configuration's seeds and its %s's relative half-width there.</p>"
                        % (e(until.summary_line(p)), e(until.stat_name(p["rule"]))))
    ca = interactive.colour_axis(sw)
    colour_by = sw.axis(ca).label if ca else "series"
    page = interactive.page(dict(
        name=name, desc=desc, prov=prov, axes=axes,
        fixed=", ".join("%s=%s" % (k, fmt_value(v) if v != "" else '""') for k, v in fixed),
        run_info=run_info, texts=texts, colour_by=colour_by,
        caption_html=e(caption).replace("[table.csv](table.csv)",
                                        '<a href="table.csv">table.csv</a>'),
        hdr=hdr, body=hbody, charts=charts, static=static, skipped=skipped,
        extra=base_html))
    html_path = os.path.join(outdir, "report.html")
    with open(html_path, "w") as f:
        f.write(page)
    return dict(md=md_path, html=html_path, csv=csv_path,
                images=[(p, i) for _, p, _, i, _ in figures], skipped=skipped, stats=stats)


def html_cell(r, name):
    """(text, numeric, sort value, interval text) of one statistic in the HTML table: the
    estimate of report.md, the charts and table.csv's `_est` (table.split_ci), sorted by it."""
    text, ci = table.split_ci(r, name)
    return (text, True, r[name + "_est"], ci)


def _sortable(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _md(text):
    return str(text).replace("|", "\\|")
