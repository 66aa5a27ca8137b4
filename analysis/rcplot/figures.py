"""figures: the paper's Figures 5-9 and 14-16 drawn from rcsim results.

Each figure is a function draw_figN(results, model) -> (matplotlib Figure, Coverage).
The configurations of each figure (docs/spec.md §6) are declared here; a configuration absent
from the results leaves a gap (and is listed in Coverage.missing), and a figure with no
data at all raises NoData.

Several seeds per configuration: every plotted statistic is the median over seeds of
that statistic, each computed exactly per seed (the online_* summary columns).  Box plots add a thin
black bar over each median showing the seeds' min-max range of the median; heatmap cells
with several seeds say so in the figure note; histograms (Figs 15/16) show the pooled
histogram of all seeds divided by the number of seeds (counts per run, comparable with
the paper's single runs), with the vertical lines at the seed-median mean/p90/p99.

Box panels keep the paper's value axis so that the figures can be laid over the paper's;
a box or whisker outside it is marked on the edge with a red triangle and its value (and
listed in Coverage.offscale), never cut silently.  Heatmaps use a logarithmic colour
scale shared by the panels of a figure (means range from seconds to hours) and name
their axes.  save() writes PDFs without a creation date, so a figure drawn twice from the
same results is the same file.
"""

import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

from . import names  # noqa: E402
from .stats import rebin  # noqa: E402

FIGURES = (5, 6, 7, 8, 9, 14, 15, 16)

S_FIG5 = ["unicast", "rc-k1-p1", "rc-k2-p2"]
S_FIG6 = ["unicast", "rc-k2-p2", "rc-k1-p1-ft-dropoffline", "rc-k2-p2-ft-dropoffline"]
S_FIG7 = ["unicast", "rc-k1-p1-ft-dropoffline", "rc-k2-p2-ft-dropoffline"]
S_FIG16 = ["unicast", "rc-k2-p2", "rc-k2-p2-ft", "rc-k2-p2-ft-dropoffline"]
M_FIG5 = [32, 45, 64, 91, 128, 181, 256]
M_FIG15 = [32, 64, 128, 256]
OFFLINE = ["gen_os10", "gen_os15", "gen_os20"]
GROUPS = [1, 2, 4, 8, 16]
BURSTS = [1, 2, 4, 8, 16, 32]
LAMBDA_DIVS = [1, 2, 4, 8, 16]
KS = [1, 2, 4, 8, 16]
HEATMAP_TRACES = ["gen_os10", "gen_os15", "gen_os20", "online"]
# The heatmaps' colour map (figures 9 and 14): cividis, whose lightness rises steadily from
# dark blue (short latency) to yellow (long), so it reads the same to the colour-blind and
# in grey; a red-green map puts its two ends at one lightness (tests/analysis/
# test_heatmap_colours.py).  A cell without results is white, which the map never is.
HEATMAP_CMAP = "cividis"
HEATMAP_BAD = "#ffffff"
BOX_STATS = ("p1", "p25", "p50", "p75", "p99")
# The value axes of the paper's box figures (seconds), kept so ours can be laid over them.
YLIM = {5: (0, 110), 6: (1, 50000), 7: (1, 300), 8: (1, 50000)}


class NoData(Exception):
    pass


class Coverage:
    """Which configurations a figure found, for the docs and the exit status."""

    def __init__(self, figure):
        self.figure = figure
        self.found = []
        self.missing = []
        self.seeds = set()
        self.durations = set()
        self.offscale = []   # [what, value] of values drawn as edge markers

    def saw(self, cfg, what):
        if cfg is None:
            self.missing.append(what)
            return None
        self.found.append(what)
        self.seeds.add(cfg.n_seeds)
        self.durations.add(cfg.duration)
        return cfg

    def check(self):
        if not self.found:
            raise NoData("figure %d: none of its %d configurations are in the results"
                         % (self.figure, len(self.missing)))


def _base(**kw):
    crit = dict(groups=1, burst=1, lambda_div=1.0)
    crit.update(kw)
    return crit


def _box_panel(ax, res, model, cov, xvals, strategies, crit_of, xlabel, xticklabels, log,
               ylim):
    """Grouped box plots: one group per x value, one box per strategy."""
    n = len(strategies)
    width = 0.8 / n
    for si, s in enumerate(strategies):
        stats, pos, spreads = [], [], []
        drawn = []
        for xi, x in enumerate(xvals):
            crit = crit_of(x)
            cfg = cov.saw(res.find(model, strategy=s, **crit), (s,) + tuple(sorted(crit.items())))
            if cfg is None:
                continue
            v = {k: cfg.stat(k) for k in BOX_STATS}
            if any(not math.isfinite(v[k][0]) for k in BOX_STATS):
                continue
            stats.append(dict(whislo=v["p1"][0], q1=v["p25"][0], med=v["p50"][0],
                              q3=v["p75"][0], whishi=v["p99"][0], fliers=[],
                              label=""))
            drawn.append(" ".join("%s=%s" % (k, names.trace_label(v) if k == "trace" else v)
                                  for k, v in sorted(crit.items())
                                  if k in ("users", "trace", "groups", "burst")))
            pos.append(xi + (si - (n - 1) / 2) * width)
            spreads.append(v["p50"])
        colour = names.strategy_colour(s)
        if stats:
            ax.bxp(stats, positions=pos, widths=width * 0.85, showfliers=False,
                   patch_artist=True, manage_ticks=False,
                   boxprops=dict(facecolor=colour, edgecolor="black", linewidth=0.6),
                   medianprops=dict(color="black", linewidth=1.0),
                   whiskerprops=dict(linewidth=0.6), capprops=dict(linewidth=0.6))
            for p, (med, lo, hi, k) in zip(pos, spreads):
                if k > 1 and hi > lo:
                    ax.plot([p, p], [lo, hi], color="black", linewidth=2.2, alpha=0.7,
                            solid_capstyle="butt")
        ax.bar([0], [0], color=colour, label=names.strategy_label(s), width=0)
        for p, st, where in zip(pos, stats, drawn):
            _mark_offscale(ax, cov, p, st, ylim, "%s, %s" % (names.strategy_label(s), where))
    ax.set_xticks(range(len(xvals)))
    ax.set_xticklabels(xticklabels)
    ax.set_xlim(-0.6, len(xvals) - 0.4)
    ax.set_xlabel(xlabel)
    if log:
        ax.set_yscale("log")
    ax.set_ylim(*ylim)
    ax.grid(axis="y", which="major", alpha=0.3)


OFF_COLOUR = "#d62728"


def _mark_offscale(ax, cov, pos, st, ylim, what):
    """A red triangle on the edge for a box or whisker beyond the value axis, with the
    value: the median when the whole box is outside, else the whisker (p1 or p99)."""
    lo, hi = ylim
    for beyond, edge, marker, dy, va in ((lambda v: v > hi, hi, "^", -8, "top"),
                                         (lambda v: v < lo, lo, "v", 8, "bottom")):
        if beyond(st["q1"] if marker == "^" else st["q3"]):
            key, v = "median", st["med"]
        elif beyond(st["whishi"] if marker == "^" else st["whislo"]):
            key = "p99" if marker == "^" else "p1"
            v = st["whishi"] if marker == "^" else st["whislo"]
        else:
            continue
        ax.plot([pos], [edge], marker=marker, color=OFF_COLOUR, markersize=6, clip_on=False,
                zorder=5, linestyle="none")
        ax.annotate("%s\n%s" % (key, _short(v)), (pos, edge), xytext=(0, dy),
                    textcoords="offset points", ha="center", va=va, fontsize=6,
                    color=OFF_COLOUR, annotation_clip=False)
        cov.offscale.append(["%s %s" % (what, key), v])


def _short(v):
    return "%.0f s" % v if v >= 100 else "%.3g s" % v


def _top_legend(fig, ax):
    """One legend above both panels, where it cannot hide a tall box."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=9,
               bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.93))


def draw_fig5(res, model):
    cov = Coverage(5)
    fig, ax = plt.subplots(figsize=(8, 4))
    _box_panel(ax, res, model, cov, M_FIG5, S_FIG5,
               lambda m: _base(users=m, trace="online"), "Group size (m)",
               [str(m) for m in M_FIG5], False, YLIM[5])
    ax.set_ylabel("Latency [s]")
    ax.legend(loc="upper left")
    cov.check()
    return fig, cov


def draw_fig6(res, model):
    cov = Coverage(6)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, m in zip(axes, (128, 256)):
        _box_panel(ax, res, model, cov, OFFLINE, S_FIG6,
                   lambda t, m=m: _base(users=m, trace=t), "",
                   [names.trace_label(t) for t in OFFLINE], True, YLIM[6])
        ax.set_title("m = %d" % m)
    axes[0].set_ylabel("Latency [s]")
    _top_legend(fig, axes[0])
    cov.check()
    return fig, cov


def _two_schedules(res, model, fignum, xvals, key, xlabel, ylim):
    cov = Coverage(fignum)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, t in zip(axes, ("online", "gen_os15")):
        _box_panel(ax, res, model, cov, xvals, S_FIG7,
                   lambda x, t=t: _base(users=128, trace=t, **{key: x}), xlabel,
                   [str(x) for x in xvals], True, ylim)
        ax.set_title(names.trace_label(t))
    axes[0].set_ylabel("Latency [s]")
    _top_legend(fig, axes[0])
    cov.check()
    return fig, cov


def draw_fig7(res, model):
    return _two_schedules(res, model, 7, GROUPS, "groups", "Number of groups", YLIM[7])


def draw_fig8(res, model):
    return _two_schedules(res, model, 8, BURSTS, "burst", "Messages per burst", YLIM[8])


def _heatmap_grid(res, model, cov, trace, p_equals_k):
    grid = np.full((len(LAMBDA_DIVS), len(KS)), np.nan)
    for r, ld in enumerate(LAMBDA_DIVS):
        for c, k in enumerate(KS):
            s = "rc-k%d-p%d-ft-dropoffline" % (k, k if p_equals_k else 1)
            crit = _base(users=128, trace=trace, lambda_div=float(ld))
            cfg = cov.saw(res.find(model, strategy=s, **crit), (s, trace, ld))
            if cfg is not None:
                grid[r, c] = cfg.stat("mean")[0]
    return grid


def _heat_norm(grids):
    """One logarithmic colour scale for every panel of a figure, from the power of ten
    at or below the smallest mean to the one at or above the largest."""
    v = np.concatenate([g[np.isfinite(g) & (g > 0)] for g in grids])
    if v.size == 0:
        return matplotlib.colors.LogNorm(1.0, 1000.0)
    lo = 10.0 ** math.floor(math.log10(v.min()))
    hi = 10.0 ** math.ceil(math.log10(v.max()))
    return matplotlib.colors.LogNorm(lo, hi if hi > lo else lo * 10)


def _ink(colour):
    """Black or white, whichever stands out more on a cell of this colour (the contrast
    ratio of the two relative luminances, as WCAG defines them)."""
    lum = relative_luminance(colour)
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


def relative_luminance(colour):
    """Relative luminance (0 black .. 1 white) of a matplotlib colour, from linear sRGB."""
    rgb = matplotlib.colors.to_rgb(colour)
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _heatmap(ax, grid, trace, p_equals_k, norm):
    cmap = matplotlib.colormaps[HEATMAP_CMAP].copy()
    cmap.set_bad(HEATMAP_BAD)
    ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm, aspect="auto")
    for r in range(grid.shape[0]):
        for c in range(grid.shape[1]):
            v = grid[r, c]
            ax.text(c, r, "%.0f" % v if math.isfinite(v) else "n/a", ha="center",
                    va="center", fontsize=8, color=_ink(cmap(norm(v)) if math.isfinite(v)
                                                         else HEATMAP_BAD))
    ax.set_xticks(range(len(KS)))
    ax.set_xticklabels(["%d" % k for k in KS], fontsize=8)
    ax.set_xlabel("branching factor k = parallelism p" if p_equals_k
                  else "branching factor k (parallelism p = 1)", fontsize=9)
    ax.set_yticks(range(len(LAMBDA_DIVS)))
    ax.set_yticklabels(["λ/%d" % d for d in LAMBDA_DIVS])
    ax.set_ylabel("Loopix rates divided by d (λ/d)", fontsize=9)
    ax.set_title("%s, %s" % (names.trace_label(trace), "p = k" if p_equals_k else "p = 1"),
                 fontsize=10)


def draw_fig9(res, model):
    cov = Coverage(9)
    grids = [_heatmap_grid(res, model, cov, "gen_os15", pk) for pk in (False, True)]
    cov.check()
    norm = _heat_norm(grids)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    for ax, g, pk in zip(axes, grids, (False, True)):
        _heatmap(ax, g, "gen_os15", pk, norm)
    _colourbar(fig, axes, norm)
    return fig, cov


def draw_fig14(res, model):
    cov = Coverage(14)
    grids = [[_heatmap_grid(res, model, cov, t, pk) for pk in (False, True)]
             for t in HEATMAP_TRACES]
    cov.check()
    norm = _heat_norm([g for row in grids for g in row])
    fig, axes = plt.subplots(len(HEATMAP_TRACES), 2, figsize=(10, 3.4 * len(HEATMAP_TRACES)),
                             layout="constrained")
    for row, t, gs in zip(axes, HEATMAP_TRACES, grids):
        for ax, g, pk in zip(row, gs, (False, True)):
            _heatmap(ax, g, t, pk, norm)
    _colourbar(fig, axes.ravel().tolist(), norm)
    return fig, cov


def _colourbar(fig, axes, norm):
    sm = matplotlib.cm.ScalarMappable(cmap=HEATMAP_CMAP, norm=norm)
    cb = fig.colorbar(sm, ax=axes, label="mean latency [s] (log scale)", shrink=0.9)
    cb.ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    cb.ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v))
    cb.ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


HIST_EDGES = np.linspace(0.0, 100.0, 51)  # docs/spec.md §5: 50 bins over [0, 100] s


def _hist_panel(ax, res, model, cov, strategy, crit, title):
    cfg = cov.saw(res.find(model, strategy=strategy, **crit), (strategy,) + tuple(sorted(
        crit.items())))
    ax.set_title(title, fontsize=8)
    ax.set_xlim(0, 100)
    if cfg is None:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", va="center")
        return
    if res.edges is None:
        raise NoData("results have no histogram edges (/hist/edges_s)")
    counts = rebin(cfg.pooled_hist(), res.edges, HIST_EDGES) / cfg.n_seeds
    colour = names.strategy_colour(strategy)
    ax.bar(HIST_EDGES[:-1], counts, width=np.diff(HIST_EDGES), align="edge", color=colour,
           edgecolor="none")
    boxed = []
    for stat, style in (("mean", "-"), ("p90", "--"), ("p99", ":")):
        v = cfg.stat(stat)[0]
        if not math.isfinite(v):
            continue
        if v <= 100:
            ax.axvline(v, color="black", linestyle=style, linewidth=1.0)
        else:
            boxed.append("%s: %.1f s" % (stat, v))
    if boxed:
        ax.text(0.97, 0.95, "\n".join(boxed), transform=ax.transAxes, ha="right", va="top",
                fontsize=7, bbox=dict(boxstyle="round", facecolor="white", alpha=0.9))


def draw_fig15(res, model):
    cov = Coverage(15)
    fig, axes = plt.subplots(len(M_FIG15), len(S_FIG5), figsize=(10, 2.2 * len(M_FIG15)),
                             sharex=True)
    for row, m in zip(axes, M_FIG15):
        for ax, s in zip(row, S_FIG5):
            _hist_panel(ax, res, model, cov, s, _base(users=m, trace="online"),
                        "%s, m = %d" % (names.strategy_label(s), m))
    for ax in axes[-1]:
        ax.set_xlabel("Latency [s]")
    for ax in axes[:, 0]:
        ax.set_ylabel("Deliveries per run")
    _hist_legend(fig)
    cov.check()
    return fig, cov


def draw_fig16(res, model):
    cov = Coverage(16)
    fig, axes = plt.subplots(len(OFFLINE), len(S_FIG16), figsize=(12, 2.4 * len(OFFLINE)),
                             sharex=True)
    for row, t in zip(axes, OFFLINE):
        for ax, s in zip(row, S_FIG16):
            _hist_panel(ax, res, model, cov, s, _base(users=128, trace=t),
                        "%s, %s" % (names.strategy_label(s), names.trace_label(t)))
    for ax in axes[-1]:
        ax.set_xlabel("Latency [s]")
    for ax in axes[:, 0]:
        ax.set_ylabel("Deliveries per run")
    _hist_legend(fig)
    cov.check()
    return fig, cov


def _hist_legend(fig):
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="black", linestyle=s, label=lab)
               for s, lab in (("-", "mean"), ("--", "p90"), (":", "p99"))]
    fig.legend(handles=handles, loc="upper center", ncol=3, fontsize=8,
               bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 0.97))


def save(fig, path, dpi=150):
    """PNG or PDF by extension.  PDFs get no CreationDate, so the same figure is the same
    bytes (matplotlib honours SOURCE_DATE_EPOCH for the rest)."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    meta = {"CreationDate": None} if path.endswith(".pdf") else None
    fig.savefig(path, dpi=dpi, bbox_inches="tight", metadata=meta)


DRAW = {5: draw_fig5, 6: draw_fig6, 7: draw_fig7, 8: draw_fig8, 9: draw_fig9,
        14: draw_fig14, 15: draw_fig15, 16: draw_fig16}
