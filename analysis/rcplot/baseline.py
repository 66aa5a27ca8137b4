"""baseline: each strategy against a baseline strategy, paired by seed (`rcsim compare`).

Not the paper comparison (tools/paper_check.py, ours against the paper's numbers): this compares the
strategies of any sweep with one of them, e.g. every Rollercoaster variant against
unicast.

A configuration is every parameter but the strategy and the seed (and the parameters the
strategy determines, such as its k and p when they are columns).  In each configuration,
each strategy's job of seed s is paired with the baseline's job of seed s -- same users,
same availability trace draw, same workload -- so the seed's own luck cancels in the
ratio.  Per statistic (metrics.lookup names) and per paired seed: ratio = strategy /
baseline, difference = strategy - baseline.  Over the paired seeds (stats.seed_interval,
docs/analysis.md "Intervals over seeds"):

- the ratio: geometric mean with the t-interval of the mean log ratio (the paired t-test's
  interval on the log scale; positive, covers 95 % in tests/analysis/coverage_intervals.py);
- the difference: mean with the fixed-seed percentile bootstrap of the mean;
- fewer than stats.MIN_SEEDS_CI pairs: the min-max over the pairs instead, labelled.

Seeds present for one side only are left out and counted ('unpaired').  A missing
baseline raises sweep.UsageError naming the strategies present.
"""

import math

import numpy as np

from . import metrics, table
from .stats import LOG_T, RANGE, seed_interval
from .sweep import UsageError, fmt_value

STATS = ("mean", "median", "p90", "p99")
BY = "strategy"


def _determined_by(sw, name):
    """True when the strategy fixes this parameter (a column derived from it)."""
    seen = {}
    for p in sw.params:
        if seen.setdefault(p.get(BY, ""), p.get(name, "")) != p.get(name, ""):
            return False
    return True


def group_axes(sw):
    """The axes that make a configuration: all but the strategy and what it determines."""
    return [a for a in sw.axes if a.name != BY and not _determined_by(sw, a.name)]


def strategies(sw):
    vals = []
    for p in sw.params:
        v = p.get(BY, "")
        if v not in vals:
            vals.append(v)
    try:
        return list(sw.axis(BY).values)
    except UsageError:
        return vals


def compare(sw, baseline, stats=STATS):
    """Rows (dicts), one per (configuration, strategy other than the baseline, statistic):
    the group axes' values, 'strategy', 'baseline', 'stat', 'unit', 'pairs', 'unpaired',
    'base' and 'value' (each side's estimate over the paired seeds), 'ratio', 'ratio_lo',
    'ratio_hi', 'diff', 'diff_lo', 'diff_hi', 'interval' (stats.LOG_T, or RANGE below
    MIN_SEEDS_CI pairs) and 'diff_interval'."""
    have = strategies(sw)
    if baseline not in have:
        raise UsageError("baseline %r is not in the results: the strategies are %s (choose one "
                         "with --baseline)" % (baseline, ", ".join(have) or "none"))
    others = [s for s in have if s != baseline]
    if not others:
        raise UsageError("the results hold only the baseline strategy %r: nothing to compare"
                         % baseline)
    gaxes = group_axes(sw)
    ms = [metrics.lookup(s) for s in stats]
    groups = {}   # key tuple -> {strategy: {seed: job}}
    order = []
    for c in sw.configs():
        for j, p in zip(c.jobs, c.params):
            key = tuple(p.get(a.name, "") for a in gaxes)
            if key not in groups:
                groups[key] = {}
                order.append(key)
            groups[key].setdefault(p.get(BY, ""), {})[p.get("seed", "")] = j
    rows = []
    for key in order:
        g = groups[key]
        base = g.get(baseline)
        if not base:
            continue
        for s in others:
            if s not in g:
                continue
            seeds = [x for x in g[s] if x in base]
            unpaired = len(set(g[s]) ^ set(base))
            for m in ms:
                a = np.array([m(g[s][x]) for x in seeds], dtype=np.float64)
                b = np.array([m(base[x]) for x in seeds], dtype=np.float64)
                ok = np.isfinite(a) & np.isfinite(b)
                pos = ok & (a > 0) & (b > 0)
                r = dict(zip((ax.name for ax in gaxes), key))
                r.update(strategy=s, baseline=baseline, stat=m.name, unit=m.unit,
                         pairs=int(ok.sum()), unpaired=unpaired)
                r["value"] = seed_interval(a[ok], m.positive)[0]
                r["base"] = seed_interval(b[ok], m.positive)[0]
                est, lo, hi, n, how = seed_interval(a[pos] / b[pos], positive=True)
                r.update(ratio=est, ratio_lo=lo, ratio_hi=hi, interval=how)
                est, lo, hi, n, how = seed_interval(a[ok] - b[ok], positive=False)
                r.update(diff=est, diff_lo=lo, diff_hi=hi, diff_interval=how)
                rows.append(r)
    if not rows:
        raise UsageError("no configuration holds both %r and another strategy" % baseline)
    return rows


def columns(sw):
    return [a.name for a in group_axes(sw)] + [
        "strategy", "baseline", "stat", "unit", "pairs", "unpaired", "value", "base", "ratio",
        "ratio_lo", "ratio_hi", "interval", "diff", "diff_lo", "diff_hi", "diff_interval"]


def _num(v):
    if not math.isfinite(v):
        return "n/a"
    av = abs(v)
    return "%.3g" % v if av < 1000 else "%.0f" % v


def fmt_interval(est, lo, hi, how):
    """'0.53 [0.41, 0.69]' for an interval, '0.53 (0.41–0.69)' for a seed range."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return _num(est)
    if how == RANGE:
        # "to" rather than a dash when a bound is negative: "-2.97–-2.02" misreads
        return "%s (%s%s%s)" % (_num(est), _num(lo), "–" if lo >= 0 else " to ", _num(hi))
    return "%s [%s, %s]" % (_num(est), _num(lo), _num(hi))


def note(rows):
    """What the brackets mean, for the text table, the plot and the report."""
    hows = {r["interval"] for r in rows}
    # The two sides' values: the one centre of every tool (docs/analysis.md, "One centre").
    parts = ["each side: its estimate over the paired seeds (geometric mean for latencies "
             "and other positive statistics, mean for fractions and counts), as in every "
             "table"]
    if LOG_T in hows:
        parts.append("[brackets]: 95 % interval over paired seeds (ratio: t-interval of the "
                     "mean log ratio around the geometric mean; difference: bootstrap of the "
                     "mean difference)")
    if RANGE in hows:
        parts.append("(parentheses): min–max over the paired seeds -- fewer than 5 pairs, "
                     "no interval")
    return "; ".join(parts)


def text(sw, rows):
    """The table as lines of text."""
    gnames = [a.name for a in group_axes(sw)]
    head = gnames + ["strategy", "stat", "pairs", rows[0]["baseline"] if rows else "baseline",
                     "strategy's", "ratio", "difference"]
    cells = []
    for r in rows:
        cells.append([fmt_value(r[g]) for g in gnames] + [
            r["strategy"], r["stat"], "%d" % r["pairs"], _num(r["base"]), _num(r["value"]),
            fmt_interval(r["ratio"], r["ratio_lo"], r["ratio_hi"], r["interval"]),
            fmt_interval(r["diff"], r["diff_lo"], r["diff_hi"], r["diff_interval"])])
    w = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(head)]
    left = len(gnames) + 2
    line = lambda cs: "  ".join(c.ljust(w[i]) if i < left else c.rjust(w[i])  # noqa: E731
                                for i, c in enumerate(cs)).rstrip()
    return [line(head)] + [line(c) for c in cells]


def draw(sw, rows, plots):
    """Figure of the ratios: one panel per statistic, y = ratio on a log axis (1 = the
    baseline, drawn), x = the configuration's numeric axis with the most values (or the
    configurations by name), one colour per strategy (plots.strategy_colours, the same in
    every plot of a report), bars = the interval or seed range.  `plots` is the rcplot.plots
    module (passed in so that importing this module does not import matplotlib)."""
    plt = plots.plt
    gaxes = group_axes(sw)
    stats_ = []
    for r in rows:
        if r["stat"] not in stats_:
            stats_.append(r["stat"])
    numeric = [a for a in gaxes if a.numeric]
    xa = max(numeric, key=len) if numeric else None
    rest = [a for a in gaxes if a is not xa]
    # Configurations that differ in other axes than x get their own line (label suffix).
    def sub(r):
        return ", ".join("%s=%s" % (a.name, fmt_value(r[a.name])) for a in rest)
    if xa is None:
        labels = []
        for r in rows:
            if sub(r) not in labels:
                labels.append(sub(r))
    colours = plots.strategy_colours(sw)
    ncol = min(len(stats_), 4)
    nrow = (len(stats_) + ncol - 1) // ncol
    fig, axs = plt.subplots(nrow, ncol, figsize=(0.6 + 3.6 * ncol, 0.9 + 3.3 * nrow),
                            squeeze=False, sharey=True)
    flat = list(axs.ravel())
    for ax in flat[len(stats_):]:
        ax.remove()
    strats = [s for s in strategies(sw) if any(r["strategy"] == s for r in rows)]
    styles = {}
    subs = []
    for r in rows:
        if sub(r) not in subs:
            subs.append(sub(r))
    markers = "osD^v<>p"
    allv = []
    for ax, st in zip(flat, stats_):
        rs = [r for r in rows if r["stat"] == st]
        for si, s in enumerate(strats):
            for ki, k in enumerate(subs if xa is not None else [None]):
                pts = [r for r in rs if r["strategy"] == s and (k is None or sub(r) == k)]
                if not pts:
                    continue
                if xa is not None:
                    xs = np.array([float(r[xa.name]) for r in pts])
                    # side by side, so the bars of different strategies do not overlap
                    xs = xs * (1.0 + 0.03 * (si - (len(strats) - 1) / 2))
                else:
                    xs = np.array([labels.index(sub(r)) for r in pts], dtype=float)
                    xs = xs + 0.12 * (si - (len(strats) - 1) / 2)
                ys = np.array([r["ratio"] for r in pts])
                lo = np.array([r["ratio_lo"] for r in pts])
                hi = np.array([r["ratio_hi"] for r in pts])
                fin = np.isfinite(ys)
                # clipped at 0: a geometric mean of equal ratios can lie an ulp outside
                # their range (exp(log(x)) != x), which matplotlib refuses
                err = np.maximum(np.vstack([np.where(np.isfinite(lo), ys - lo, 0.0),
                                            np.where(np.isfinite(hi), hi - ys, 0.0)]), 0.0)
                label = s + (" (%s)" % k if k else "")
                ax.errorbar(xs[fin], ys[fin], yerr=err[:, fin], color=colours.get(s, "C0"),
                            marker=markers[ki % len(markers)], markersize=4, capsize=3,
                            linewidth=1.2, label=label)
                styles[label] = True
                allv += [v for v in np.concatenate([ys, lo, hi]) if math.isfinite(v) and v > 0]
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_yscale("log")
        ax.set_title("%s latency" % st if metrics.lookup(st).unit == "s" else st, fontsize=9)
        if xa is not None:
            plots.numeric_x(ax, xa, xa.spans_decades(plots.SPAN))
            ax.set_xlabel(xa.label)
        else:
            ax.set_xticks(range(len(labels)))
            ax.set_xticklabels(labels or [""], rotation=30 if len(labels) > 3 else 0,
                               ha="right" if len(labels) > 3 else "center", fontsize=8)
        ax.grid(alpha=0.3, which="both")
        ax.tick_params(labelleft=True)
    if allv:
        lo, hi = min(allv + [1.0]), max(allv + [1.0])
        for ax in flat[:len(stats_)]:
            ax.set_ylim(lo / 1.15, hi * 1.15)
            plots.plain_log_ticks(ax)
    flat[0].set_ylabel("ratio to %s (log scale)" % rows[0]["baseline"])
    handles, labs = flat[0].get_legend_handles_labels()
    fig.legend(handles, labs, title="strategy", loc="center left", bbox_to_anchor=(1.0, 0.5),
               fontsize=8, title_fontsize=8, frameon=False)
    n = sorted({r["pairs"] for r in rows})
    fig.suptitle("each strategy / %s, paired by seed (%s pairs); dashed: equal to the "
                 "baseline\nmarker: geometric mean of the ratios; bars: %s" % (
                     rows[0]["baseline"], "/".join(map(str, n)),
                     "95 % interval (t on the log ratio)" if LOG_T in {r["interval"] for r in rows}
                     else "min-max over seeds (< 5 pairs: no interval)"), fontsize=9)
    fig.tight_layout()
    return fig


def report_section(sw, paths, outdir, dpi=110, baseline="unicast", stats=STATS):
    """The report's "Against the baseline" section: (markdown lines, html lines), both
    empty when the sweep has no strategy axis or no `baseline` strategy.  Draws
    OUTDIR/img/baseline.png and writes OUTDIR/baseline.csv.  rcplot.report calls this and
    only inserts the lines, so the section's content lives here."""
    import base64
    import html
    import os

    from . import plots
    if len(strategies(sw)) < 2 or baseline not in strategies(sw):
        return [], []
    rows = compare(sw, baseline, stats)
    csv_path = os.path.join(outdir, "baseline.csv")
    with open(csv_path, "w", newline="") as f:
        table.write_csv(f, columns(sw), rows)
    fig = draw(sw, rows, plots)
    img = os.path.join(outdir, "img", "baseline.png")
    plots.save(fig, img, dpi=dpi)
    plots.plt.close(fig)
    cmd = "rcsim compare %s --baseline %s%s" % (" ".join(paths), baseline, "".join(
        " --where %s=%s" % (k, v) for k, vs in sw.where.items() for v in vs))
    intro = ("Each strategy against %s in the same configuration, paired by seed: per seed "
             "the ratio strategy / %s and the difference, then over the seeds %s. "
             "Full precision: baseline.csv. Redraw: `%s`." % (
                 baseline, baseline, note(rows), cmd))
    gnames = [a.name for a in group_axes(sw)]
    head = gnames + ["strategy", "stat", "pairs", baseline, "strategy's", "ratio",
                     "difference"]
    body = [[fmt_value(r[g]) for g in gnames] + [
        r["strategy"], r["stat"], "%d" % r["pairs"], _num(r["base"]), _num(r["value"]),
        fmt_interval(r["ratio"], r["ratio_lo"], r["ratio_hi"], r["interval"]),
        fmt_interval(r["diff"], r["diff_lo"], r["diff_hi"], r["diff_interval"])]
        for r in rows]
    md = ["## Against the baseline (%s)" % baseline, "", intro, "",
          "| " + " | ".join(head) + " |", "|" + "|".join("---" if i < len(gnames) + 2
                                                        else "---:" for i in range(len(head)))
          + "|"]
    md += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in body]
    md += ["", "![ratios to %s](img/baseline.png)" % baseline, ""]
    e = html.escape
    with open(img, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    h = ['<h2 id="baseline">Against the baseline (%s)</h2>' % e(baseline),
         "<p>%s</p>" % e(intro).replace("baseline.csv", '<a href="baseline.csv">baseline.csv'
                                        "</a>", 1),
         '<div class="wide"><table class="baseline"><thead><tr>' +
         "".join("<th>%s</th>" % e(c) for c in head) + "</tr></thead><tbody>"]
    h += ["<tr>" + "".join(('<td class="n">%s</td>' if i >= len(gnames) + 2 else
                            "<td>%s</td>") % e(c) for i, c in enumerate(row)) + "</tr>"
          for row in body]
    h += ["</tbody></table></div>",
          '<figure id="fig-baseline"><img alt="ratios to %s" src="data:image/png;base64,%s">'
          "<figcaption>Ratio of each statistic to %s (log axis; dashed line: equal).</figcaption>"
          "</figure>" % (e(baseline), data, e(baseline))]
    return md, h
