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
"""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
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
BOX_STATS = ("p1", "p25", "p50", "p75", "p99")


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
    ax.set_xticks(range(len(xvals)))
    ax.set_xticklabels(xticklabels)
    ax.set_xlim(-0.6, len(xvals) - 0.4)
    ax.set_xlabel(xlabel)
    if log:
        ax.set_yscale("log")
    ax.set_ylim(*ylim)
    ax.grid(axis="y", which="major", alpha=0.3)


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
               [str(m) for m in M_FIG5], False, (0, 110))
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
                   [names.trace_label(t) for t in OFFLINE], True, (1, 50000))
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
    return _two_schedules(res, model, 7, GROUPS, "groups", "Number of groups", (1, 300))


def draw_fig8(res, model):
    return _two_schedules(res, model, 8, BURSTS, "burst", "Messages per burst", (1, 50000))


def _heatmap(ax, res, model, cov, trace, p_equals_k):
    grid = np.full((len(LAMBDA_DIVS), len(KS)), np.nan)
    for r, ld in enumerate(LAMBDA_DIVS):
        for c, k in enumerate(KS):
            s = "rc-k%d-p%d-ft-dropoffline" % (k, k if p_equals_k else 1)
            crit = _base(users=128, trace=trace, lambda_div=float(ld))
            cfg = cov.saw(res.find(model, strategy=s, **crit), (s, trace, ld))
            if cfg is not None:
                grid[r, c] = cfg.stat("mean")[0]
    ax.imshow(np.ma.masked_invalid(grid), cmap="RdYlGn_r", vmin=0, vmax=200, aspect="auto")
    for r in range(grid.shape[0]):
        for c in range(grid.shape[1]):
            v = grid[r, c]
            ax.text(c, r, "%.0f" % v if math.isfinite(v) else "n/a", ha="center",
                    va="center", fontsize=8, color="black")
    ax.set_xticks(range(len(KS)))
    ax.set_xticklabels(["k=%d" % k for k in KS] if not p_equals_k
                       else ["k=p=%d" % k for k in KS], fontsize=8)
    ax.set_yticks(range(len(LAMBDA_DIVS)))
    ax.set_yticklabels(["λ/%d" % d for d in LAMBDA_DIVS])
    ax.set_title("%s, %s" % (names.trace_label(trace), "p = k" if p_equals_k else "p = 1"),
                 fontsize=10)


def draw_fig9(res, model):
    cov = Coverage(9)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    _heatmap(axes[0], res, model, cov, "gen_os15", False)
    _heatmap(axes[1], res, model, cov, "gen_os15", True)
    _colourbar(fig, axes)
    cov.check()
    return fig, cov


def draw_fig14(res, model):
    cov = Coverage(14)
    fig, axes = plt.subplots(len(HEATMAP_TRACES), 2, figsize=(10, 3.2 * len(HEATMAP_TRACES)))
    for row, t in zip(axes, HEATMAP_TRACES):
        _heatmap(row[0], res, model, cov, t, False)
        _heatmap(row[1], res, model, cov, t, True)
    _colourbar(fig, axes.ravel().tolist())
    cov.check()
    return fig, cov


def _colourbar(fig, axes):
    sm = matplotlib.cm.ScalarMappable(cmap="RdYlGn_r", norm=matplotlib.colors.Normalize(0, 200))
    fig.colorbar(sm, ax=axes, label="mean latency [s]", shrink=0.9)


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


DRAW = {5: draw_fig5, 6: draw_fig6, 7: draw_fig7, 8: draw_fig8, 9: draw_fig9,
        14: draw_fig14, 15: draw_fig15, 16: draw_fig16}
