"""plots: figures of any sweep (rcsim plot, python3 -m rcplot plot), one function per kind.

draw(sweep, spec) returns (matplotlib Figure, info).  A PlotSpec names the kind, the
statistic (metrics.lookup) and the roles of the sweep's axes (sweep.choose_roles): x,
hue (one colour per value) and facets (one panel per combination).  Seeds are never
mixed silently:

- line: the per-seed statistic summarised over seeds with an interval inside its range
  (stats.seed_interval: geometric mean and log-scale t-interval for positive statistics,
  mean and bootstrap interval for the others; below stats.MIN_SEEDS_CI seeds the bar is
  the min-max seed range, said in the title); one seed gives a point without a bar;
- box: box statistics over the seeds' values (median, quartiles, whiskers at min and max,
  each seed a dot); `--stat latency` instead draws the latency distribution as the paper
  does (whiskers p1 and p99, box q1-q3, line at the median; each the median over seeds);
- heatmap: x by hue, each cell the estimate of stats.seed_interval, on a log colour scale when the values span
  a decade or more;
- cdf and hist: the pooled histogram of every seed (hist_online), x = latency on a log
  axis; hist shows deliveries per run (pooled counts / seeds);
- timeline: the per-delivery records (store_raw), latency against the time of the send --
  folded onto the time of day (0-24 h) for runs of 20 h or more, else over the run's own
  span in minutes or hours -- with the median per 1/24 of the axis.

Scales: an axis goes logarithmic when its positive values span a factor of 10 or more
(SPAN), unless --xscale/--yscale say otherwise.  Nothing is cut silently: a value outside
the drawn range (below a log axis's zero, beyond a given --ylim, past the histogram's
overflow edge) is drawn as a red triangle on the edge with its value, and listed in
info["offscale"].

Errors: UsageError for choices that do not fit the data (a role on a non-axis, a box
statistic on a line plot, too many panels); NoRecords when timeline data is absent.
"""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import LogNorm, Normalize  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.transforms import offset_copy  # noqa: E402
from matplotlib.ticker import (FixedLocator, FuncFormatter, LogLocator,  # noqa: E402
                               NullFormatter, NullLocator)

from . import metrics, palette, results  # noqa: E402
from .stats import LOG_T, MIN_SEEDS_CI, RANGE, seed_interval  # noqa: E402
from .sweep import UsageError, choose_roles, fmt_value, sweep_info  # noqa: E402

KINDS = ("line", "box", "cdf", "heatmap", "hist", "timeline", "tradeoff")
# Axes that describe the situation, not a choice of the deployment: --kind tradeoff makes
# them panels by default, so that only configurations of one situation compete.
ENVIRONMENT = ("users", "population", "group_size", "groups", "trace", "corrupt_mixes",
               "corrupt_providers", "duration", "app_rate", "burst")
# tradeoff: the statistics it puts against the latency (metrics names), best first
TRADEOFF_ANON = "anon_entropy"            # more is better
TRADEOFF_BW = "bw_bytes_per_client_s"     # less is better
DOMINATED = "#c8c8c8"
# tradeoff --marker: one shape per value of an axis, in the axis's value order
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<", ">")
SPAN = 10.0          # max/min at or above which an axis goes logarithmic
MAX_PANELS = 36
MAX_POINTS = 20000   # timeline: scatter points per series (all points enter the medians)
LATENCY_LABEL = "latency [s]"
OFF = "#d62728"


class NoRecords(Exception):
    """The results lack the per-delivery records a timeline needs."""


class NoData(NoRecords):
    """The statistic is n/a (NaN) in every job: nothing to draw (exit 1, not an empty plot)."""


class PlotSpec:
    def __init__(self, kind="line", stat=None, x=None, hue=None, facets=None, ylim=None,
                 xscale="auto", yscale="auto", title=None, marker=None, join=None):
        if kind not in KINDS:
            raise UsageError("unknown --kind %r (one of %s)" % (kind, ", ".join(KINDS)))
        self.kind = kind
        self.stat = stat
        self.x, self.hue, self.facets = x, hue, list(facets or [])
        self.ylim = ylim
        self.xscale, self.yscale = xscale, yscale
        self.title = title
        self.marker, self.join = marker, join   # --kind tradeoff only


def default_stat(kind):
    if kind == "tradeoff":
        return "mean"
    return metrics.LATENCY_BOX if kind == "box" else "median"


def pareto(points):
    """Indices of the non-dominated points.  points: [(cost, ...)] where every coordinate
    is to be minimised (negate one to maximise it); a point is dominated when another is
    no worse in every coordinate and better in one.  Points with a NaN are dominated."""
    pts = [tuple(p) for p in points]
    ok = [all(math.isfinite(v) for v in p) for p in pts]
    front = []
    for i, p in enumerate(pts):
        if not ok[i]:
            continue
        if not any(ok[j] and j != i and all(a <= b for a, b in zip(pts[j], p)) and
                   any(a < b for a, b in zip(pts[j], p)) for j in range(len(pts))):
            front.append(i)
    return front


def _dodge(pts, step=7.0):
    """Horizontal offsets (points) that set apart configurations drawn at (nearly) the same
    place (two strategies with equal numbers, e.g. RC and RC-FT always online): otherwise
    the later marker hides the earlier one, or their rings blend into a colour no legend
    has.  Points within 2 % of the panel's x range and 3 % of its (log) latency range of a
    group's first point join that group; a group is spread about its place."""
    ok = [(x, math.log(y)) for y, x, _ in pts if math.isfinite(x) and math.isfinite(y) and y > 0]
    out = [0.0] * len(pts)
    if not ok:
        return out
    xspan = (max(x for x, _ in ok) - min(x for x, _ in ok)) or 1.0
    yspan = (max(y for _, y in ok) - min(y for _, y in ok)) or 1.0
    groups = []   # [(x, log y of the first point, [indices])]
    for i, (y, x, _) in enumerate(pts):
        if not (math.isfinite(x) and math.isfinite(y) and y > 0):
            continue
        ly = math.log(y)
        for gx, gy, idx in groups:
            if abs(x - gx) <= 0.02 * xspan and abs(ly - gy) <= 0.03 * yspan:
                idx.append(i)
                break
        else:
            groups.append((x, ly, [i]))
    for _, _, idx in groups:
        for k, i in enumerate(idx):
            out[i] = (k - (len(idx) - 1) / 2) * step
    return out


def _with_prefix(v, unit):
    """12300 B/s as "12.3 kB/s": a size key reads at a glance without exponents."""
    for f, p in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= f:
            return "%.3g %s%s" % (v / f, p, unit)
    return "%.3g %s" % (v, unit)


def _tradeoff(fig, axes, panels, sw, spec, roles, marks):
    """Latency (the statistic, default mean) against the anonymity a configuration gives
    (mean entropy of a tracked message, bits), marker area the bandwidth a client spends;
    each configuration one point (estimates over seeds, as in the tables).  The Pareto
    front (lower latency, higher entropy, lower bandwidth) is drawn in colour and joined;
    dominated configurations are grey.  Without entropy (a sweep without anonymity) the
    bandwidth takes the x axis.  spec.marker: an axis whose values get one marker shape
    each; spec.join: an axis whose values thin lines join, in the colour of their
    configurations, for each setting of the other axes."""
    _, hue, _ = roles
    lat = metrics.lookup(spec.stat)
    ent, bw = metrics.lookup(TRADEOFF_ANON), metrics.lookup(TRADEOFF_BW)
    colours = _colours(sw, hue)

    def est(m, c):
        return seed_interval([m(j) for j in c.jobs], m.positive)[0]
    have_ent = any(math.isfinite(ent(j)) for j in sw.jobs)
    have_bw = any(math.isfinite(bw(j)) for j in sw.jobs)
    xm = ent if have_ent else bw
    if not have_ent and not have_bw:
        raise NoData("--kind tradeoff needs the anonymity (a sweep with `anonymity: on`) or "
                     "the bandwidth counters; these results have neither")
    bws = [est(bw, c) for _, cfgs in panels for c in cfgs] if have_bw and have_ent else []
    bmax = max([v for v in bws if math.isfinite(v)] or [1.0])
    allv, fronts = [], []
    others = [a.name for a in sw.axes if a.name not in (hue,) and a.name not in roles[2]]
    shape = {}
    if spec.marker:
        vals = sw.axis(spec.marker).values
        shape = {v: MARKERS[i] for i, v in enumerate(vals)}
    for ax, (title, cfgs) in zip(axes, panels):
        pts = [(est(lat, c), est(xm, c), est(bw, c) if bws else 0.0) for c in cfgs]
        costs = [(y, -x if have_ent else x, b) for y, x, b in pts]
        front = set(pareto(costs))
        dodge = _dodge(pts)
        if spec.join:
            # One line per setting of every other axis, through the join axis's values
            # in their order; under the points.
            order = sw.axis(spec.join).values
            lines = {}
            for c, (y, x, _) in zip(cfgs, pts):
                if math.isfinite(x) and math.isfinite(y):
                    rest = tuple((k, v) for k, v in sorted(c.key.items()) if k != spec.join)
                    lines.setdefault(rest, []).append((order.index(c.key[spec.join]), x, y,
                                                       c))
            for line in lines.values():
                if len(line) < 2:
                    continue
                line.sort(key=lambda t: t[0])
                col = colours[line[0][3].key[hue]] if hue else colours[None]
                ax.plot([t[1] for t in line], [t[2] for t in line], color=col,
                        linewidth=0.6, alpha=0.6, zorder=1, label="_join", gid="join")
        for i, (c, (y, x, b)) in enumerate(zip(cfgs, pts)):
            if not (math.isfinite(x) and math.isfinite(y)):
                continue
            col = colours[c.key[hue]] if hue else colours[None]
            size = 25 + 175 * (b / bmax) if bws and math.isfinite(b) else 40
            on = i in front
            ax.scatter([x], [y], s=size, marker=shape.get(c.key.get(spec.marker), "o"),
                       color=col if on else DOMINATED,
                       edgecolors="black" if on else col, linewidths=0.8 if on else 1.0,
                       zorder=4 if on else 3, alpha=0.95 if on else 0.8,
                       gid="front" if on else "dominated",
                       transform=offset_copy(ax.transData, fig=fig, x=dodge[i], y=0,
                                             units="points"))
            # A shifted transform hides the point from autoscaling: say where it is.
            ax.update_datalim([(x, y)])
            allv.append(y)
        fl = sorted((pts[i][1], pts[i][0]) for i in front
                    if math.isfinite(pts[i][0]) and math.isfinite(pts[i][1]))
        if len(fl) > 1:
            ax.plot([p[0] for p in fl], [p[1] for p in fl], color="black", linewidth=0.9,
                    linestyle="--", zorder=2, label="_front")
        fronts.append([c.label(([hue] if hue else []) + others)
                       for i, c in enumerate(cfgs) if i in front])
        ax.autoscale_view()
    logy = _span_log(allv, spec.yscale)
    for ax in axes:
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(xm.axis_label + (" (more is better)" if have_ent else
                                       " (less is better)"))
        ax.set_ylabel(lat.axis_label)
        ax.grid(alpha=0.3)
    _ylim(spec, axes)
    # legend: strategy colours (drawn by draw() from these handles), front, size key
    for hv in _hue_values(sw, hue):
        axes[0].plot([], [], marker="o", linestyle="none", color=colours[hv],
                     markeredgecolor="black", label=_hue_label(hue, hv, sw))
    fig._rcsim_extra_legend = [
        Line2D([], [], marker="o", linestyle="--", color="black", markerfacecolor="white",
               label="Pareto front (not dominated)"),
        Line2D([], [], marker="o", linestyle="none", color=DOMINATED,
               markeredgecolor="black", label="dominated")]
    for v, m in shape.items():
        fig._rcsim_extra_legend.append(Line2D(
            [], [], marker=m, linestyle="none", color="white", markeredgecolor="black",
            label="%s = %s%s" % (spec.marker, fmt_value(v), _unit_suffix(sw, spec.marker))))
    if spec.join:
        fig._rcsim_extra_legend.append(Line2D(
            [], [], color="grey", linewidth=0.6, label="joins %s = %s%s" % (
                spec.join, ", ".join(fmt_value(v) for v in sw.axis(spec.join).values),
                _unit_suffix(sw, spec.join))))
    if bws:
        for frac in (0.25, 0.5, 1.0):
            fig._rcsim_extra_legend.append(Line2D(
                [], [], marker="o", linestyle="none", color="white", markeredgecolor="black",
                markersize=math.sqrt(25 + 175 * frac), label=_with_prefix(bmax * frac, bw.unit)))
    fig._rcsim_pareto = fronts
    return ("%s against %s%s; estimates over seeds;\ncoloured and joined: the Pareto front "
            "(lower latency, %s%s), grey: dominated" % (
                lat.label, "entropy" if have_ent else "bandwidth",
                ", marker area = bandwidth per client" if bws else "",
                "higher entropy" if have_ent else "lower bandwidth",
                ", lower bandwidth" if bws else ""))


# --- layout ---------------------------------------------------------------------------------

def _unit_suffix(sw, name):
    try:
        unit = sw.axis(name).unit
    except UsageError:
        return ""
    return " %s" % unit if unit and unit not in ("count", "factor", "fraction") else ""


def _panels(sw, configs, facets):
    """[(title, [configs])] in value order, and the grid shape."""
    if not facets:
        return [("", configs)], (1, 1)
    combos = []
    for c in configs:
        k = tuple(c.key[f] for f in facets)
        if k not in combos:
            combos.append(k)
    if len(combos) > MAX_PANELS:
        raise UsageError("%d panels (facets %s) are too many to read; narrow the data with "
                         "--where KEY=VALUE or move an axis to --hue"
                         % (len(combos), ", ".join(facets)))
    out = []
    for k in combos:
        parts = ["%s = %s%s" % (f, fmt_value(v), _unit_suffix(sw, f)) for f, v in zip(facets, k)]
        title = "\n".join(", ".join(parts[i:i + 2]) for i in range(0, len(parts), 2))
        out.append((title, [c for c in configs if tuple(c.key[f] for f in facets) == k]))
    if len(facets) == 2:
        rows = len({k[0] for k in combos})
        cols = len({k[1] for k in combos})
        if rows * cols == len(combos):
            return out, (rows, cols)
    cols = min(len(out), 3)
    return out, ((len(out) + cols - 1) // cols, cols)


def _colours(sw, hue):
    if hue is None:
        return {None: "C0"}
    vals = sw.axis(hue).values
    if hue == "strategy":
        return {v: palette.colour(v) for v in vals}   # fixed: the same in every figure
    if len(vals) <= 10:
        cmap = matplotlib.colormaps["tab10"]
        return {v: cmap(i) for i, v in enumerate(vals)}
    cmap = matplotlib.colormaps["viridis"]
    return {v: cmap(i / (len(vals) - 1)) for i, v in enumerate(vals)}


def strategy_colours(sw):
    """{strategy: colour}, the same mapping as any plot of this sweep with hue=strategy
    (rcsim compare's ratio plot uses it so that a strategy keeps its colour)."""
    try:
        sw.axis("strategy")
    except UsageError:
        return {}
    return _colours(sw, "strategy")


def _hue_values(sw, hue):
    return sw.axis(hue).values if hue else [None]


def _hue_label(hue, v, sw):
    return "%s%s" % (fmt_value(v), _unit_suffix(sw, hue)) if hue else "all"


def _span_log(values, mode):
    if mode == "log":
        return True
    if mode == "linear":
        return False
    v = [x for x in values if x is not None and math.isfinite(x)]
    pos = [x for x in v if x > 0]
    return bool(pos) and len(pos) == len(v) and max(pos) / min(pos) >= SPAN


class _Marks:
    """Values to check against the final axis limits (nothing cut silently)."""

    def __init__(self):
        self.items = []   # (ax, xs, values, what, colour)
        self.offscale = []

    def add(self, ax, xpos, value, what, colour=None):
        """colour: the series' colour (a triangle says whose value is off the scale);
        None: the neutral OFF red."""
        self.items.append((ax, np.atleast_1d(np.asarray(xpos, dtype=np.float64)),
                           np.atleast_1d(np.asarray(value, dtype=np.float64)), what,
                           colour or OFF))

    def apply(self):
        # Labels at one x on one edge are stacked, not printed over each other.
        stacked = {}
        for ax, xs, vs, what, colour in self.items:
            lo, hi = ax.get_ylim()
            log = ax.get_yscale() == "log"
            fin = np.isfinite(vs)
            above = fin & (vs > hi)
            below = fin & ((vs < lo) | ((vs <= 0) if log else False))
            for mask, edge, marker, dy, va in ((above, hi, "^", -9, "top"),
                                               (below, lo, "v", 9, "bottom")):
                if not mask.any():
                    continue
                ax.plot(xs[mask], np.full(int(mask.sum()), edge), marker=marker,
                        color=colour, markeredgecolor="black", markeredgewidth=0.4,
                        markersize=7 if mask.sum() == 1 else 4, clip_on=False, zorder=5,
                        linestyle="none")
                i = int(np.argmax(np.where(mask, np.abs(vs), -np.inf)))
                text = "%.3g" % vs[i] if mask.sum() == 1 else "%d beyond, up to %.3g" % (
                    mask.sum(), vs[i])
                slot = (id(ax), marker, round(float(xs[i]), 9))
                k = stacked.get(slot, 0)
                stacked[slot] = k + 1
                ax.annotate(text, (xs[i], edge), xytext=(0, dy * (1 + 1.1 * k)),
                            textcoords="offset points", ha="center", va=va, fontsize=7,
                            color=colour, annotation_clip=False)
                self.offscale.append(dict(panel=ax.get_title(), x=float(xs[i]),
                                          value=float(vs[i]), count=int(mask.sum()),
                                          what=what,
                                          colour=matplotlib.colors.to_hex(colour)))


def _numeric_x(ax, axis, log):
    vals = axis.floats()
    if log:
        ax.set_xscale("log")
    if len(vals) <= 12:
        ax.xaxis.set_major_locator(FixedLocator(vals))
        ax.set_xticklabels([fmt_value(v) for v in axis.values])
        ax.xaxis.set_minor_locator(NullLocator())
    pad = 0.08
    if log:
        lo, hi = math.log10(min(vals)), math.log10(max(vals))
        d = (hi - lo) * pad or 0.1
        ax.set_xlim(10 ** (lo - d), 10 ** (hi + d))
    else:
        d = (max(vals) - min(vals)) * pad or 0.5
        ax.set_xlim(min(vals) - d, max(vals) + d)


def _tick_below(v, subs):
    e = math.floor(math.log10(v))
    cands = [m * 10.0 ** k for k in (e - 1, e) for m in subs]
    return max(c for c in cands if c <= v * (1 + 1e-9))


def _tick_above(v, subs):
    e = math.floor(math.log10(v))
    cands = [m * 10.0 ** k for k in (e, e + 1) for m in subs]
    return min(c for c in cands if c >= v * (1 - 1e-9))


def _plain_log_ticks(ax):
    """Log axes labelled with plain numbers at 1-2-5 steps when they span few decades
    (matplotlib would label only the powers of ten, often just one of them)."""
    for axis, lim, fixed in ((ax.yaxis, ax.get_ylim(), False),
                             (ax.xaxis, ax.get_xlim(), isinstance(ax.xaxis.get_major_locator(),
                                                                  FixedLocator))):
        if axis.get_scale() != "log" or fixed or not (lim[0] > 0 and lim[1] > lim[0]):
            continue
        decades = math.log10(lim[1] / lim[0])
        subs = (1.0, 2.0, 5.0) if decades <= 3 else (1.0,)
        if axis is ax.yaxis and not getattr(ax, "_rcsim_fixed_ylim", False):
            # Widen to the labelled ticks just outside the data: the lowest box of a plot
            # otherwise sat below the first label and could not be read.
            lo, hi = _tick_below(lim[0], subs), _tick_above(lim[1], subs)
            ax.set_ylim(lo, hi)
        axis.set_major_locator(LogLocator(base=10, subs=subs))
        axis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
        axis.set_minor_formatter(NullFormatter())


def _categorical_x(ax, axis):
    ax.set_xticks(range(len(axis.values)))
    ax.set_xticklabels([fmt_value(v) for v in axis.values],
                       rotation=30 if max(len(str(v)) for v in axis.values) > 8 else 0,
                       ha="right" if max(len(str(v)) for v in axis.values) > 8 else "center")
    ax.set_xlim(-0.6, len(axis.values) - 0.4)


def _ylim(spec, axes):
    if spec.ylim:
        for ax in axes:
            ax.set_ylim(*spec.ylim)
            ax._rcsim_fixed_ylim = True   # --ylim is kept as given


# --- kinds ----------------------------------------------------------------------------------

def _line(fig, axes, panels, sw, spec, roles, marks):
    x, hue, _ = roles
    m = metrics.lookup(spec.stat)
    xa = sw.axis(x) if x else None
    colours = _colours(sw, hue)
    series = []   # (ax, hue value, xs, means, los, his)
    allv = []
    hows = set()
    for ax, (title, cfgs) in zip(axes, panels):
        for hv in _hue_values(sw, hue):
            pts = []
            for c in cfgs:
                if hue and c.key[hue] != hv:
                    continue
                mean, lo, hi, n, how = seed_interval([m(j) for j in c.jobs], m.positive)
                if n <= 1:
                    lo = hi = math.nan
                else:
                    hows.add(how)
                if xa is None:
                    pos = 0.0
                elif xa.numeric:
                    pos = float(c.key[x])
                else:
                    pos = float(xa.values.index(c.key[x]))
                pts.append((pos, mean, lo, hi, c.n_seeds))
            if pts:
                pts.sort()
                series.append((ax, hv, pts))
                allv += [p[1] for p in pts] + [v for p in pts for v in p[2:4] if math.isfinite(v)]
    logy = _span_log(allv, spec.yscale)
    logx = xa is not None and xa.numeric and (spec.xscale == "log" or (
        spec.xscale == "auto" and xa.spans_decades(SPAN)))
    for ax, hv, pts in series:
        xs = np.array([p[0] for p in pts])
        ys = np.array([p[1] for p in pts])
        lo = np.array([p[2] for p in pts])
        hi = np.array([p[3] for p in pts])
        # clipped at 0: a geometric mean of equal values can lie an ulp outside their
        # range (exp(log(x)) != x), which matplotlib refuses
        err = np.maximum(np.vstack([np.where(np.isfinite(lo), ys - lo, 0.0),
                                    np.where(np.isfinite(hi), hi - ys, 0.0)]), 0.0)
        show = np.isfinite(ys) & ((ys > 0) if logy else True)
        ax.errorbar(xs[show], ys[show], yerr=err[:, show], color=colours[hv], marker="o",
                    markersize=4, capsize=3, linewidth=1.2,
                    label=_hue_label(hue, hv, sw))
        for xp, y, l_, h_, _ in pts:
            marks.add(ax, xp, y, "%s at %s" % (m.name, _hue_label(hue, hv, sw)), colours[hv])
            if math.isfinite(l_) and logy and l_ <= 0:
                marks.add(ax, xp, l_, "CI low end")
            if not math.isfinite(y):
                ax.annotate("n/a", (xp, 0), xycoords=("data", "axes fraction"),
                            xytext=(0, 3), textcoords="offset points", ha="center",
                            fontsize=7, color=OFF)
    for ax in axes:
        if logy:
            ax.set_yscale("log")
        if xa is not None and xa.numeric:
            _numeric_x(ax, xa, logx)
        elif xa is not None:
            _categorical_x(ax, xa)
        else:
            ax.set_xticks([])
        ax.set_xlabel(xa.label if xa is not None else "")
        ax.set_ylabel(m.axis_label)
        ax.grid(alpha=0.3)
    _ylim(spec, axes)
    seeds = sorted({c.n_seeds for _, cfgs in panels for c in cfgs})
    centre = "geometric mean" if m.positive else "mean"
    bars = []
    if hows - {RANGE}:
        bars.append("95 %% %s" % " / ".join(
            sorted("t-interval on the log scale" if h == LOG_T else "bootstrap interval"
                   for h in hows - {RANGE})))
    if RANGE in hows:
        bars.append("bars = min-max over seeds (< %d seeds: no interval)" % MIN_SEEDS_CI)
    return "%s: %s over seeds (%s)%s%s" % (
        m.label, centre, "/".join(map(str, seeds)), ", " if bars else "", "; ".join(bars)
        + ("; one seed has no bar" if 1 in seeds else ""))


def _box(fig, axes, panels, sw, spec, roles, marks):
    x, hue, _ = roles
    dist = spec.stat == metrics.LATENCY_BOX
    m = None if dist else metrics.lookup(spec.stat)
    xa = sw.axis(x) if x else None
    colours = _colours(sw, hue)
    hvals = _hue_values(sw, hue)
    width = 0.8 / len(hvals)
    boxes = []   # (ax, pos, stats dict, seed values, hue value)
    for ax, (title, cfgs) in zip(axes, panels):
        for c in cfgs:
            xi = xa.values.index(c.key[x]) if xa else 0
            hi_ = hvals.index(c.key[hue]) if hue else 0
            pos = xi + (hi_ - (len(hvals) - 1) / 2) * width
            if dist:
                q = {}
                for k in ("p1", "q1", "median", "q3", "p99"):
                    v = [metrics.lookup(k)(j) for j in c.jobs]
                    v = [t for t in v if math.isfinite(t)]
                    q[k] = float(np.median(v)) if v else math.nan
                st = dict(whislo=q["p1"], q1=q["q1"], med=q["median"], q3=q["q3"],
                          whishi=q["p99"])
                seeds = []
            else:
                seeds = [v for v in (m(j) for j in c.jobs) if math.isfinite(v)]
                if seeds:
                    a = np.asarray(seeds)
                    st = dict(whislo=float(a.min()), q1=float(np.percentile(a, 25)),
                              med=float(np.median(a)), q3=float(np.percentile(a, 75)),
                              whishi=float(a.max()))
                else:
                    st = dict(whislo=math.nan, q1=math.nan, med=math.nan, q3=math.nan,
                              whishi=math.nan)
            boxes.append((ax, pos, st, seeds, c.key[hue] if hue else None))
    allv = [v for b in boxes for v in b[2].values()]
    logy = _span_log(allv, spec.yscale)
    for ax, pos, st, seeds, hv in boxes:
        label = "%s at %s" % ("latency" if dist else m.name, _hue_label(hue, hv, sw))
        if not all(math.isfinite(v) for v in st.values()):
            ax.annotate("n/a", (pos, 0), xycoords=("data", "axes fraction"), xytext=(0, 3),
                        textcoords="offset points", ha="center", fontsize=7, color=OFF)
            continue
        ax.bxp([dict(st, fliers=[], label="")], positions=[pos], widths=width * 0.85,
               showfliers=False, patch_artist=True, manage_ticks=False,
               boxprops=dict(facecolor=colours[hv], edgecolor="black", linewidth=0.6),
               medianprops=dict(color="black", linewidth=1.0),
               whiskerprops=dict(linewidth=0.6), capprops=dict(linewidth=0.6))
        if seeds:
            jitter = np.linspace(-width * 0.2, width * 0.2, len(seeds)) if len(seeds) > 1 \
                else [0.0]
            ax.plot(pos + np.asarray(jitter), seeds, "o", color="black", markersize=2.5,
                    alpha=0.7, zorder=4)
        for k in ("whislo", "whishi", "med"):
            marks.add(ax, pos, st[k], "%s %s" % (label, k), colours[hv])
    for ax in axes:
        if logy:
            ax.set_yscale("log")
        if xa is not None:
            _categorical_x(ax, xa)
        else:
            ax.set_xticks([])
            ax.set_xlim(-0.6, 0.6)
        ax.set_xlabel(xa.label if xa is not None else "")
        ax.set_ylabel(LATENCY_LABEL if dist else m.axis_label)
        ax.grid(axis="y", alpha=0.3)
        for hv in hvals:
            ax.bar([0], [0], width=0, color=colours[hv], label=_hue_label(hue, hv, sw))
    _ylim(spec, axes)
    if dist:
        return ("online latency: whiskers p1 and p99, box q1-q3, line at the median "
                "(each the median over seeds)")
    return "%s: box over seeds (whiskers min and max; dots = seeds)" % m.label


def _pooled(c):
    h = None
    for j in c.jobs:
        x = j.hist().astype(np.int64)
        h = x if h is None else h + x
    return h


def _edges(sw):
    e = sw.res.edges
    if e is None:
        raise UsageError("the results have no latency histogram edges (hist_edges_s)")
    return np.asarray(e, dtype=np.float64)


def _log_bins(edges, counts, n=60):
    """Indices into edges (a subset, so re-binning is exact) of about n log-spaced bins
    covering the non-empty finite bins."""
    nz = np.nonzero(counts[:-1])[0]
    if nz.size == 0:
        return None
    lo = max(edges[nz[0]], edges[1])
    hi = edges[nz[-1] + 1]
    want = np.geomspace(lo, hi, n + 1)
    idx = np.unique(np.clip(np.searchsorted(edges, want), 1, len(edges) - 2))
    if edges[nz[0]] == 0.0:
        idx = np.unique(np.concatenate([[0], idx]))
    if idx[-1] <= nz[-1]:
        idx = np.append(idx, nz[-1] + 1)
    return idx


def _dist(fig, axes, panels, sw, spec, roles, marks, cumulative):
    _, hue, _ = roles
    edges = _edges(sw)
    colours = _colours(sw, hue)
    drawn = []
    for ax, (title, cfgs) in zip(axes, panels):
        for hv in _hue_values(sw, hue):
            cs = [c for c in cfgs if not hue or c.key[hue] == hv]
            if not cs:
                continue
            h = None
            seeds = 0
            for c in cs:
                p = _pooled(c)
                h = p if h is None else h + p
                seeds += c.n_seeds
            total = int(h.sum())
            if total == 0:
                ax.annotate("%s: no deliveries" % _hue_label(hue, hv, sw), (0.02, 0.95),
                            xycoords="axes fraction", fontsize=7, color=OFF, va="top")
                continue
            over = int(h[-1])
            if cumulative:
                cum = np.cumsum(h[:-1]) / total
                nz = np.nonzero(h[:-1])[0]
                xs = edges[1:-1][nz[0]:nz[-1] + 1]
                ys = cum[nz[0]:nz[-1] + 1]
                ax.step(np.concatenate([[edges[nz[0]] if edges[nz[0]] > 0 else edges[1]], xs]),
                        np.concatenate([[0.0], ys]), where="post", color=colours[hv],
                        linewidth=1.3, label=_hue_label(hue, hv, sw))
            else:
                idx = _log_bins(edges, h)
                cum = np.concatenate([[0], np.cumsum(h)])
                counts = np.diff(cum[idx]) / seeds
                e = edges[idx]
                if e[0] == 0.0:
                    e = e.copy()
                    e[0] = edges[1]
                ax.stairs(counts, e, color=colours[hv], linewidth=1.3,
                          label=_hue_label(hue, hv, sw))
            if over:
                drawn.append((ax, over, total, hv))
    for ax in axes:
        ax.set_xscale("log" if spec.xscale != "linear" else "linear")
        if not cumulative and spec.yscale == "log":
            ax.set_yscale("log")
        ax.set_xlabel(LATENCY_LABEL)
        ax.set_ylabel("cumulative fraction of online deliveries [fraction]" if cumulative
                      else "online deliveries per run, log bins [deliveries]")
        ax.grid(alpha=0.3, which="both" if cumulative else "major")
        if cumulative:
            ax.set_ylim(0, 1.02)
    _ylim(spec, axes)
    for ax, over, total, hv in drawn:
        # The overflow bin (beyond the last finite edge) has no position on the axis.
        lo, hi = ax.get_xlim()
        ax.plot([hi], [0.5 if cumulative else ax.get_ylim()[1] / 2], marker=">", color=OFF,
                clip_on=False, markersize=7)
        ax.annotate("%d beyond %.3g s" % (over, edges[-2]), (hi, 0.5), xytext=(-4, 6),
                    textcoords="offset points", ha="right", fontsize=7, color=OFF)
        marks.offscale.append(dict(panel=ax.get_title(), x=float(edges[-2]), value=over,
                                   what="deliveries beyond the histogram at %s"
                                   % _hue_label(hue, hv, sw)))
    return ("online latency, all seeds pooled" if cumulative else
            "online latency, all seeds pooled, per run (pooled counts / seeds)")


def _heatmap(fig, axes, panels, sw, spec, roles, marks):
    x, hue, _ = roles
    if x is None:
        raise UsageError("--kind heatmap needs at least one axis")
    m = metrics.lookup(spec.stat)
    xa = sw.axis(x)
    ya = sw.axis(hue) if hue else None
    yvals = ya.values if ya else [None]
    grids = []
    for ax, (title, cfgs) in zip(axes, panels):
        g = np.full((len(yvals), len(xa.values)), np.nan)
        for c in cfgs:
            r = yvals.index(c.key[hue]) if ya else 0
            g[r, xa.values.index(c.key[x])] = seed_interval([m(j) for j in c.jobs],
                                                            m.positive)[0]
        grids.append(g)
    allv = np.concatenate([g.ravel() for g in grids])
    fin = allv[np.isfinite(allv)]
    if spec.ylim:
        vmin, vmax = spec.ylim
    elif fin.size:
        vmin, vmax = float(fin.min()), float(fin.max())
    else:
        vmin, vmax = 0.0, 1.0
    log = spec.yscale == "log" or (spec.yscale == "auto" and fin.size and fin.min() > 0
                                   and vmin > 0 and vmax / vmin >= SPAN)
    if vmax <= vmin:
        vmax = vmin * 1.01 + 1e-9
    norm = LogNorm(vmin, vmax) if log else Normalize(vmin, vmax)
    cmap = matplotlib.colormaps["viridis"].copy()
    cmap.set_bad("#dddddd")
    im = None
    for ax, g in zip(axes, grids):
        im = ax.imshow(np.ma.masked_invalid(g), cmap=cmap, norm=norm, aspect="auto",
                       origin="lower")
        for r in range(g.shape[0]):
            for c in range(g.shape[1]):
                v = g[r, c]
                if not math.isfinite(v):
                    txt, col = "n/a", "black"
                else:
                    txt = "%.3g" % v
                    col = "white" if norm(v) < 0.6 else "black"
                    if v > vmax or v < vmin:
                        txt = ("▲" if v > vmax else "▼") + txt
                        marks.offscale.append(dict(panel=ax.get_title(), x=float(c),
                                                   value=float(v), what="cell outside the "
                                                   "colour range"))
                ax.text(c, r, txt, ha="center", va="center", fontsize=7, color=col)
        ax.set_xticks(range(len(xa.values)))
        ax.set_xticklabels([fmt_value(v) for v in xa.values])
        ax.set_yticks(range(len(yvals)))
        ax.set_yticklabels([fmt_value(v) for v in yvals] if ya else [""])
        ax.set_xlabel(xa.label)
        ax.set_ylabel(ya.label if ya else "")
    extend = "neither"
    if fin.size and spec.ylim:
        extend = {(True, True): "both", (True, False): "min", (False, True): "max"}.get(
            (fin.min() < vmin, fin.max() > vmax), "neither")
    cb = fig.colorbar(im, ax=list(axes), extend=extend, shrink=0.9)
    cb.set_label(m.axis_label + (" (log scale)" if log else ""))
    if log and vmax / vmin <= 1e3:
        cb.ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        cb.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
        cb.ax.yaxis.set_minor_formatter(NullFormatter())
    fig._rcsim_colorbar = cb
    return "%s: %s over seeds per cell" % (m.label, "geometric mean" if m.positive
                                              else "mean")


DAY = 86400.0


def _time_axis(sends):
    """(fold, scale, unit label, lo, hi) for the timeline's x axis: runs of 20 h or more
    are folded onto the time of day (0-24 h, the daily availability pattern); shorter
    runs are drawn over their own span (a 30-minute run on a 0-24 h axis is a smear at
    the left edge), in minutes up to 2 h, else hours."""
    lo = min(float(s.min()) for s in sends if s.size)
    hi = max(float(s.max()) for s in sends if s.size)
    if hi - lo >= 20 * 3600.0:
        return True, 3600.0, "time of day of the send [h]", 0.0, 24.0
    scale, unit = (60.0, "min") if hi - lo <= 2 * 3600.0 else (3600.0, "h")
    return False, scale, "time of the send since the run's start [%s]" % unit, \
        min(lo, 0.0) / scale, hi / scale


def _timeline(fig, axes, panels, sw, spec, roles, marks):
    _, hue, _ = roles
    colours = _colours(sw, hue)
    series = []
    allv = []
    for ax, (title, cfgs) in zip(axes, panels):
        for hv in _hue_values(sw, hue):
            cs = [c for c in cfgs if not hue or c.key[hue] == hv]
            if not cs:
                continue
            send, lat, onl = [], [], []
            for c in cs:
                for j in c.jobs:
                    d = results.job_deliveries(j)
                    if d is None:
                        raise NoRecords(
                            "job %s (%s) has no per-delivery records (send time, delivery "
                            "time, online flag); --kind timeline needs them: rerun the sweep "
                            "with `store_raw: true` under defaults (or --set store_raw=true)"
                            % (j.id, c.label(list(c.key)) or "the only configuration"))
                    s_ = np.asarray(d["sent_s"], dtype=np.float64)
                    send.append(s_)
                    lat.append(np.asarray(d["delivered_s"], dtype=np.float64) - s_)
                    onl.append(np.asarray(d["online"]).astype(bool))
            send, lat, onl = np.concatenate(send), np.concatenate(lat), np.concatenate(onl)
            series.append((ax, hv, send, lat, onl))
            allv += [float(lat.min()), float(lat.max())] if lat.size else []
    sends = [s_ for _, _, s_, _, _ in series if s_.size]
    fold, scale, xlabel, x0, x1 = _time_axis(sends) if sends else (
        True, 3600.0, "time of day of the send [h]", 0.0, 24.0)
    if x1 <= x0:
        x1 = x0 + 1.0
    nbins = 24
    edges = np.linspace(x0, x1, nbins + 1)
    logy = _span_log(allv, spec.yscale)
    thinned = 1
    for ax, hv, send, lat, onl in series:
        col = colours[hv]
        tod = np.mod(send, DAY) / scale if fold else send / scale
        stride = max(1, int(math.ceil(tod.size / MAX_POINTS)))
        thinned = max(thinned, stride)
        s = slice(None, None, stride)
        on = onl[s]
        # Offline crosses first, online dots over them: the slow online deliveries (the
        # online p99) must not hide under the offline ones.
        ax.scatter(tod[s][~on], lat[s][~on], s=8, color=col, alpha=0.35, marker="x",
                   linewidths=0.5, zorder=2, gid="offline")
        ax.scatter(tod[s][on], lat[s][on], s=4, color=col, alpha=0.5, linewidths=0,
                   zorder=3, gid="online")
        b = np.clip(np.searchsorted(edges, tod, side="right") - 1, 0, nbins - 1)
        med = [np.median(lat[b == i]) if np.any(b == i) else np.nan for i in range(nbins)]
        # one legend entry per hue value: the thinning goes into the note, not the label
        ax.plot(0.5 * (edges[:-1] + edges[1:]), med, color=col, linewidth=1.6,
                label=_hue_label(hue, hv, sw))
        marks.add(ax, tod, lat, "deliveries at %s" % _hue_label(hue, hv, sw), col)
    for ax in axes:
        if logy:
            ax.set_yscale("log")
        if fold:
            ax.set_xlim(0, 24)
            ax.set_xticks(range(0, 25, 3))
        else:
            ax.set_xlim(x0, x1)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(LATENCY_LABEL)
        ax.grid(alpha=0.3)
    _ylim(spec, axes)
    return ("%s (dot: recipient online, x: offline), all seeds; line: median per %s" % (
        "every delivery" if thinned == 1 else "up to 1 in %d deliveries shown" % thinned,
        "hour of the day" if fold else "1/24 of the run's span"))


numeric_x = _numeric_x
plain_log_ticks = _plain_log_ticks

DRAW = {"line": _line, "box": _box, "heatmap": _heatmap, "timeline": _timeline,
        "tradeoff": _tradeoff,
        "cdf": lambda *a: _dist(*a, cumulative=True),
        "hist": lambda *a: _dist(*a, cumulative=False)}


def draw(sw, spec):
    """(Figure, info) for one PlotSpec on one sweep.Sweep."""
    sw.use_roles(spec.x, spec.hue, spec.facets)  # --x k: the strategy's structure as axes
    if spec.stat is None:
        spec.stat = default_stat(spec.kind)
    if spec.kind in ("cdf", "hist", "timeline") and spec.stat not in (None, "median",
                                                                     metrics.LATENCY_BOX):
        raise UsageError("--stat does not apply to --kind %s (it shows every latency)"
                         % spec.kind)
    if spec.stat == metrics.LATENCY_BOX and spec.kind not in ("box", "cdf", "hist",
                                                             "timeline"):
        raise UsageError("--stat latency is the whole distribution: use it with --kind box "
                         "(or cdf/hist); --kind %s needs one number per seed" % spec.kind)
    if spec.kind in ("line", "box", "heatmap", "tradeoff") and \
            spec.stat != metrics.LATENCY_BOX:
        m = metrics.lookup(spec.stat)
        if not any(math.isfinite(m(j)) for j in sw.jobs):
            raise NoData("%s is n/a in every job of the selection (%d jobs): nothing to draw%s"
                         % (m.name, len(sw.jobs), "; anonymity statistics need a sweep run "
                            "with `anonymity: on`" if m.name.startswith(("anon", "counter:anon"))
                            else ""))
    if spec.ylim and spec.ylim[0] <= 0 and spec.kind not in ("cdf",):
        # A log axis has no 0: say so (exit 2) rather than let matplotlib drop the limit.
        if spec.yscale == "log":
            raise UsageError("--ylim %g,%g with --yscale log: a log axis cannot reach %g; "
                             "give a positive low end or --yscale linear"
                             % (spec.ylim[0], spec.ylim[1], spec.ylim[0]))
        spec.yscale = "linear"   # the range asked for includes 0: a linear axis
    if (spec.marker or spec.join) and spec.kind != "tradeoff":
        raise UsageError("--marker and --join apply to --kind tradeoff only")
    if spec.kind == "tradeoff":
        # Every configuration is a point of one panel (they compete); colour = strategy.
        if spec.x:
            raise UsageError("--x does not apply to --kind tradeoff: x is the entropy (or "
                             "the bandwidth); use --hue or --facet")
        names = [a.name for a in sw.axes]
        for n in [spec.hue, spec.marker, spec.join] + list(spec.facets):
            if n and n not in names:
                raise UsageError("%s is not an axis of this sweep (axes: %s)"
                                 % (n, ", ".join(names) or "none"))
        hue = spec.hue or ("strategy" if "strategy" in names else None)
        facets = [f for f in spec.facets if f != hue]
        if not spec.facets:
            # What a deployment does not choose (its users, their availability, the
            # adversary) separates panels: a front across them would compare unlike cases.
            facets = [n for n in names if n in ENVIRONMENT and n != hue]
        for opt, n in (("--marker", spec.marker), ("--join", spec.join)):
            if n and (n == hue or n in facets):
                raise UsageError("%s %s: that axis is already the %s" % (
                    opt, n, "colour (--hue)" if n == hue else "panels (--facet)"))
        if spec.marker and spec.marker == spec.join:
            raise UsageError("--marker and --join name the same axis, %s" % spec.marker)
        if spec.marker and len(sw.axis(spec.marker).values) > len(MARKERS):
            raise UsageError("--marker %s: %d values, more than the %d marker shapes"
                             % (spec.marker, len(sw.axis(spec.marker).values), len(MARKERS)))
        roles = (None, hue, facets)
    else:
        roles = choose_roles(sw.axes, spec.kind, spec.x, spec.hue, spec.facets)
    configs = sw.configs()
    panels, (rows, cols) = _panels(sw, configs, roles[2])
    wide = 1.6 if spec.kind == "heatmap" else 0.0   # room for long category names
    fig, axs = plt.subplots(rows, cols, figsize=(0.6 + (4.4 + wide) * cols, 0.6 + 3.4 * rows),
                            sharey=spec.kind != "heatmap",
                            sharex=spec.kind in ("cdf", "hist", "timeline"), squeeze=False,
                            layout="constrained" if spec.kind == "heatmap" else None)
    flat = list(axs.ravel())
    for ax in flat[len(panels):]:
        ax.remove()
    axes = flat[:len(panels)]
    for ax, (title, _) in zip(axes, panels):
        if title:
            ax.set_title(title, fontsize=9)
    for ax in axes:
        ax.tick_params(labelleft=True, labelbottom=True)  # every panel keeps its scales
    marks = _Marks()
    note = DRAW[spec.kind](fig, axes, panels, sw, spec, roles, marks)
    if spec.kind != "heatmap":
        # One legend for the figure, with every hue value that some panel drew, in order.
        seen = {}
        for ax in axes:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                seen.setdefault(lab, h)
        order = [_hue_label(roles[1], v, sw) for v in _hue_values(sw, roles[1])]
        labels = sorted(seen, key=lambda lab: order.index(lab) if lab in order else len(order))
        handles = [seen[lab] for lab in labels]
        extra = getattr(fig, "_rcsim_extra_legend", [])
        if extra:
            handles, labels = handles + extra, labels + [h.get_label() for h in extra]
        if roles[1] and handles:
            fig.legend(handles, labels, title=sw.axis(roles[1]).label, loc="center left",
                       bbox_to_anchor=(1.0, 0.5), fontsize=8, title_fontsize=8,
                       frameon=False)
        elif extra:
            fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5),
                       fontsize=8, frameon=False)
        elif spec.kind == "timeline" and handles:
            fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5),
                       fontsize=8, frameon=False)
    if spec.kind == "timeline":
        fig.legend(handles=[Line2D([], [], marker="o", linestyle="none", color="grey",
                                   markersize=3, label="recipient online"),
                            Line2D([], [], marker="x", linestyle="none", color="grey",
                                   label="recipient offline")],
                   loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=8,
                   frameon=False)
    names = sorted({i.get("sweep_name", "?") for i in sweep_info(sw.res)})
    where = " ".join("%s=%s" % (k, "|".join(v)) for k, v in sw.where.items())
    fig.suptitle(spec.title or "%s%s\n%s" % (", ".join(names), " (%s)" % where if where else "",
                                             note), fontsize=10)
    for ax in axes:
        if spec.kind != "heatmap":
            _plain_log_ticks(ax)
    if spec.kind != "heatmap":
        fig.tight_layout()
    marks.apply()
    info = dict(kind=spec.kind, stat=spec.stat, x=roles[0], hue=roles[1],
                facets=roles[2], note=note, offscale=marks.offscale, panels=[])
    for ax in axes:
        leg = fig.legends[0] if fig.legends else None
        info["panels"].append(dict(
            title=ax.get_title(), xlabel=ax.get_xlabel(), ylabel=ax.get_ylabel(),
            xscale=ax.get_xscale(), yscale=ax.get_yscale(),
            xticklabels=[t.get_text() for t in ax.get_xticklabels()],
            legend_title=leg.get_title().get_text() if leg else "",
            legend=[t.get_text() for t in leg.get_texts()] if leg else []))
    if spec.kind == "tradeoff":
        info["pareto"] = fig._rcsim_pareto   # per panel: the configurations on the front
    cb = getattr(fig, "_rcsim_colorbar", None)
    info["colorbar_label"] = cb.ax.get_ylabel() if cb is not None else ""
    return fig, info


def save(fig, path, dpi=150):
    """PNG or PDF by extension; PDFs carry no creation date (byte-reproducible)."""
    ext = path.rsplit(".", 1)[-1].lower()
    if ext not in ("png", "pdf", "svg"):
        raise UsageError("--out %s: the file name must end in .png, .pdf or .svg" % path)
    meta = {"CreationDate": None} if ext == "pdf" else None
    if ext == "svg":
        meta = {"Date": None}
    fig.savefig(path, dpi=dpi, bbox_inches="tight", metadata=meta)
