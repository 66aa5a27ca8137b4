"""deployment: the figure and tables of the deployment study (experiments/deployment.yaml,
docs/deployment.md), drawn by `rcsim plot --kind deployment RESULTS.h5 ... --out DIR`.

One group of m = 128 inside populations of N users, with the paper's fixed 3 x 3 mixes
(mixes_per_layer 3) or mixes sized with the load (mixes_per_layer auto, stored as 0, with
mix_capacity; docs/spec.md §1.13).  A configuration is (N, strategy, mix plan, observed or
latency-only runs).  The figures of CI_FIGURES (entropy, min-entropy, sender entropy, ε,
latency, bandwidth) are reduced over their seeds to the arithmetic mean with, from two
seeds on, the Student t 95 % confidence interval of the mean (n - 1 degrees of freedom,
rcplot.stats.seed_ci) and the seed range beside it; this study has 1 to 3 seeds a
configuration, where the general rule of docs/analysis.md ("Intervals") gives the range
only, and its reader asks how far the mean of three seeds can be trusted.  The other
figures keep that general rule (rcplot.stats.seed_interval: below 5 seeds the seed range,
labelled so).

draw(paths, outdir) writes
  OUTDIR/deployment.png   one panel per figure against N (log), one colour per strategy,
                          solid = fixed 3 x 3, dashed = sized; bars = the t interval of
                          the mean (CI_FIGURES, 2 seeds or more), else the seed range
  OUTDIR/deployment.csv   one row per configuration: for every figure its estimate, lo, hi
                          (the seed range below 5 seeds) and the interval's kind, for
                          CI_FIGURES also _ci_lo and _ci_hi (the t interval), the seeds
                          and the duration
  OUTDIR/deployment.md    the tables docs/deployment.md quotes: every figure per
                          configuration; what the group gains against the smallest N (with
                          the Welch t interval of the difference of the means); the
                          entropy gained per decade of N; what each population cost
and records them in OUTDIR/provenance.json (rcplot.provenance; `python3 -m rcplot
check-figures` checks the set like the paper's).

A figure whose column the results lack, or hold as NaN in every seed, is "not measured":
an empty CSV cell, "n/m" in the tables and a note in its panel, never a number.  This
module is its own: the paper's figure sets do not load it, so editing it leaves their
provenance records current.
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as mticker  # noqa: E402
import numpy as np  # noqa: E402

from . import palette, provenance, results, stats  # noqa: E402

# (name, results-table column, label, unit, positive): positive figures get the log-t
# interval with enough seeds (rcplot.stats.seed_interval), the others the bootstrap.
FIGURES = [
    ("entropy", "counter_anon_entropy_mean_bits", "entropy of a message", "bits", False),
    ("entropy_p5", "counter_anon_entropy_p5_bits", "entropy, 5th percentile", "bits", False),
    ("min_entropy", "counter_anon_min_entropy_mean_bits", "min-entropy", "bits", False),
    ("sender_entropy", "counter_anon_sender_entropy_mean_bits", "sender entropy", "bits", False),
    ("eps_mean", "counter_anon_eps_mean", "unlinkability ε, mean", "", False),
    ("eps_p95", "counter_anon_eps_p95", "unlinkability ε, p95", "", False),
    ("delta", "counter_anon_delta", "unlinkability δ", "", False),
    ("latency_mean", "online_mean", "online latency, mean", "s", True),
    ("latency_p99", "online_p99", "online latency, p99", "s", True),
    ("bandwidth", "counter_bw_bytes_per_client_s", "bandwidth per client", "B/s", True),
    ("mix_load", "counter_bw_mix_load_mean_pps", "mix load, mean", "packets/s", True),
    ("tracked", "counter_anon_targets", "tracked messages", "", False),
    ("events", "counter_events", "events a job", "", True),
    ("peak_rss", "counter_peak_rss_kb", "peak RSS a job", "KiB", True),
]
# Figures reduced to the mean over seeds with the Student t 95 % interval of the mean
# (stats.seed_ci: mean +- t(0.975, n - 1) s / sqrt(n)) from 2 seeds on, the seed range kept
# beside it.  The interval is the plain t one, not bounded by the figure's range (an ε
# near 0 or a sender entropy near log2 N can have a bound beyond it): it says how far the
# mean of these few seeds is from the mean of many.
CI_FIGURES = ("entropy", "entropy_p5", "min_entropy", "sender_entropy", "eps_mean",
              "eps_p95", "latency_mean", "latency_p99", "bandwidth")
CI_LABEL = "Student t 95 % interval of the mean, n − 1 degrees of freedom"
PANELS = ["entropy", "min_entropy", "sender_entropy", "eps_mean", "delta", "latency_mean",
          "bandwidth", "mix_load"]
STRATEGY_ORDER = ["unicast", "rc-k2-p2", "rc-k2-p2-ft", "provider-fanout"]
LABEL = {"unicast": "unicast", "rc-k2-p2": "RC k=p=2", "rc-k2-p2-ft": "RC-FT k=p=2",
         "provider-fanout": "provider fan-out"}
PLAN = {False: "fixed 3 x 3", True: "sized"}
# Latency, bandwidth per client and mix load are taken from the latency-only runs when given
# (--anonymity off: the same latency law, many more multicasts), the rest from the
# observed runs; a figure falls back to the other kind of run when its own is missing.
FROM_UNOBSERVED = {"latency_mean", "latency_p99", "bandwidth", "mix_load"}


class NoData(Exception):
    pass


def _colour(s):
    try:
        return palette.colour(s)
    except Exception:  # a strategy the palette does not know: still drawn, in black
        return "k"


def _column(tab, name, n):
    if name in tab.names():
        return np.asarray(tab[name], dtype=np.float64)
    return np.full(n, np.nan)


def configurations(tab):
    """{(users, strategy, sized, observed): row} where row = {figure: (est, lo, hi, n,
    kind), 'ci': {figure: (lo, hi)}, 'values': {figure: per-seed values}, 'seeds',
    'capacity', 'duration'}; sized = mixes_per_layer auto (stored 0), observed =
    --anonymity on (off: the same configuration's latency-only runs).  A figure of
    CI_FIGURES has est = the arithmetic mean, lo/hi = the seed range and 'ci' its t
    interval (NaNs below 2 seeds)."""
    n = len(tab)
    users = _column(tab, "users", n)
    observed = _column(tab, "anonymity", n)
    duration = _column(tab, "duration", n)
    strategy = [str(s) for s in tab["strategy"]]
    mpl = _column(tab, "mixes_per_layer", n)
    cap = _column(tab, "mix_capacity", n)
    figs = {name: _column(tab, col, n) for name, col, _, _, _ in FIGURES}
    groups = {}
    for i in range(n):
        key = (int(users[i]), strategy[i], bool(mpl[i] == 0), bool(observed[i] == 1))
        groups.setdefault(key, []).append(i)
    rows = {}
    for key, idx in groups.items():
        if len(set(duration[idx])) > 1:
            raise ValueError("configuration %r ran for several durations (%s s): give one "
                             "duration per configuration" % (key, ", ".join(
                                 "%g" % d for d in sorted(set(duration[idx])))))
        row = {"seeds": len(idx), "capacity": float(np.nanmax(cap[idx])) if key[2] else 0.0,
               "duration": float(duration[idx][0])}
        row["ci"], row["values"] = {}, {}
        for name, _, _, _, positive in FIGURES:
            vals = [float(v) for v in figs[name][idx] if math.isfinite(v)]
            row["values"][name] = vals
            if name in CI_FIGURES:
                m, lo, hi = stats.seed_ci(vals)
                row[name] = ((m, min(vals), max(vals), len(vals), stats.RANGE) if vals else
                             (math.nan, math.nan, math.nan, 0, stats.RANGE))
                row["ci"][name] = (lo, hi)
            else:
                row[name] = stats.seed_interval(vals, positive=positive)
        rows[key] = row
    return rows


def _rank(key):
    u, s, sized, observed = key
    return (STRATEGY_ORDER.index(s) if s in STRATEGY_ORDER else len(STRATEGY_ORDER), s,
            sized, not observed, u)


def _strategies(rows):
    return sorted({k[1] for k in rows}, key=lambda s: _rank((0, s, False, True)))


def _fmt(v, digits=4):
    return "" if v is None or not math.isfinite(v) else "%.*g" % (digits, v)


def pick(rows, u, s, sized, name):
    """The row of (u, s, sized) that figure `name` is taken from, or None."""
    order = (False, True) if name in FROM_UNOBSERVED else (True, False)
    for observed in order:
        r = rows.get((u, s, sized, observed))
        if r is not None and r[name][3]:
            return r
    return None


def diff_ci(a, b):
    """(mean(a) - mean(b), lo, hi): the Welch t 95 % interval of the difference of two
    means over independent seeds (Student t with the Welch-Satterthwaite degrees of
    freedom, rounded down: the wider interval); NaN bounds when either side has fewer than
    two values or both have no spread."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.size == 0 or b.size == 0:
        return (math.nan, math.nan, math.nan)
    d = float(a.mean() - b.mean())
    if a.size < 2 or b.size < 2:
        return (d, math.nan, math.nan)
    va, vb = float(a.var(ddof=1)) / a.size, float(b.var(ddof=1)) / b.size
    if va + vb == 0:
        return (d, d, d)
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    half = stats.t95(max(1, int(math.floor(df)))) * math.sqrt(va + vb)
    return (d, d - half, d + half)


def gain_per_decade(rows, s, sized, name="entropy"):
    """Least-squares slope of the observed runs' estimate of `name` against log10 N
    (bits per decade of N) over every N with a value, and the N it used; None below two N."""
    pts = [(u, r[name][0]) for (u, ss, sz, obs), r in rows.items()
           if ss == s and sz == sized and obs and r[name][3]]
    if len(pts) < 2:
        return None
    pts.sort()
    x = np.log10([u for u, _ in pts])
    y = np.array([v for _, v in pts])
    slope = float(np.polyfit(x, y, 1)[0])
    return slope, [u for u, _ in pts]


def write_csv(rows, path):
    head = ["users", "strategy", "mixes", "mix_capacity", "anonymity", "duration_s", "seeds"]
    for name, *_ in FIGURES:
        head += [name, name + "_lo", name + "_hi", name + "_interval"]
        if name in CI_FIGURES:
            head += [name + "_ci_lo", name + "_ci_hi"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(head)
        for key in sorted(rows, key=_rank):
            r = rows[key]
            out = [key[0], key[1], "auto" if key[2] else "3", _fmt(r["capacity"], 6),
                   "on" if key[3] else "off", _fmt(r["duration"], 6), r["seeds"]]
            for name, *_ in FIGURES:
                est, lo, hi, n, kind = r[name]
                out += [_fmt(est, 6), _fmt(lo, 6), _fmt(hi, 6), kind if n else ""]
                if name in CI_FIGURES:
                    out += [_fmt(v, 6) for v in r["ci"][name]]
            w.writerow(out)


def _cell(t, digits=4, ci=None):
    """'est (lo–hi)'; with `ci` (a t interval, symmetric about est) 'est ± half (lo–hi)'."""
    est, lo, hi, n, kind = t
    if n == 0:
        return "n/m"
    if not math.isfinite(lo) or n == 1:
        return _fmt(est, digits)
    rng = "(%s–%s)" % (_fmt(lo, digits), _fmt(hi, digits))
    if ci is not None and math.isfinite(ci[0]):
        return "%s ± %s %s" % (_fmt(est, digits), _fmt((ci[1] - ci[0]) / 2, 2), rng)
    return "%s %s" % (_fmt(est, digits), rng)


def _span(d):
    return "%g h" % (d / 3600) if d >= 3600 else ("%g min" % (d / 60) if d >= 60 else
                                                   "%g s" % d)


def _runs_label(r, observed):
    return "%s, %s" % ("observed" if observed else "latency only", _span(r["duration"]))


def write_md(rows, path, sources):
    users = sorted({k[0] for k in rows})
    lab = {name: (label + (" [%s]" % unit if unit else "")) for name, _, label, unit, _
           in FIGURES}
    with open(path, "w") as f:
        f.write("<!-- written by `rcsim plot --kind deployment` (analysis/rcplot/deployment.py)"
                " from %s -->\n\n" % ", ".join(sorted(os.path.basename(s) for s in sources)))
        kinds = sorted({r[name][4] for r in rows.values() for name, *_ in FIGURES
                        if r[name][3] > 1 and name not in CI_FIGURES})
        f.write("Cells: entropy, min-entropy, sender entropy, ε, latency and bandwidth: the "
                "mean over seeds ± the half-width of its %s (t = 12.71 for 2 seeds, 4.30 for "
                "3), then the seed range (min–max) in parentheses; the other columns: the "
                "estimate over seeds (mean; geometric mean for the mix load), %s in "
                "parentheses when there are several seeds; one seed: the value alone; n/m = "
                "not measured. Runs: observed = `--anonymity on`; latency only = "
                "`--anonymity off` (`--cover skip`, the same latency law).\n\n"
                % (CI_LABEL, " / ".join(kinds) or "no interval"))
        show = ["entropy", "min_entropy", "sender_entropy", "eps_mean", "eps_p95", "delta",
                "latency_mean", "bandwidth", "mix_load", "tracked"]
        f.write("| N | strategy | mixes | runs | seeds | " + " | ".join(lab[s] for s in show)
                + " |\n")
        f.write("|---" * (5 + len(show)) + "|\n")
        for key in sorted(rows, key=lambda k: (k[0],) + _rank(k)[:4]):
            r = rows[key]
            f.write("| %d | %s | %s | %s | %d | " % (key[0], LABEL.get(key[1], key[1]),
                                                     PLAN[key[2]], _runs_label(r, key[3]),
                                                     r["seeds"]))
            f.write(" | ".join(_cell(r[s], 4 if s != "tracked" else 5,
                                     r["ci"].get(s)) for s in show) + " |\n")

        # What sharing a network with N users gains: differences of the estimates against
        # the smallest network of the same strategy and mix plan.
        base_n = users[0]
        f.write("\n### Against the dedicated network\n\nAgainst N = %d with the same strategy "
                "and mix plan: entropy gained / min-entropy gained / sender entropy gained "
                "(bits; observed runs: the difference of the means over seeds, ± the "
                "half-width of its Welch t 95 %% interval, Student t with the "
                "Welch–Satterthwaite degrees of freedom rounded down, when both sides have 2 "
                "seeds or more), and the ratio of the online mean latencies (latency-only"
                " runs where given).\n\n" % base_n)
        f.write("| strategy | mixes | " + " | ".join("N = %d" % u for u in users[1:]) + " |\n")
        f.write("|---" * (2 + len(users) - 1) + "|\n")
        for s in _strategies(rows):
            for sized in (False, True):
                out = []
                for u in users[1:]:
                    parts = []
                    b, r = pick(rows, base_n, s, sized, "entropy"), pick(rows, u, s, sized,
                                                                          "entropy")
                    if b and r:
                        d = [diff_ci(r["values"][x], b["values"][x])
                             for x in ("entropy", "min_entropy", "sender_entropy")]
                        parts.append(" / ".join(
                            "n/m" if not math.isfinite(v) else
                            "%+.2f" % v if not math.isfinite(lo) else
                            "%+.2f ± %s" % (v, _fmt((hi - lo) / 2, 2)) for v, lo, hi in d)
                                     + " bits")
                    b, r = (pick(rows, base_n, s, sized, "latency_mean"),
                            pick(rows, u, s, sized, "latency_mean"))
                    if b and r:
                        parts.append("latency × %.3f" % (r["latency_mean"][0] /
                                                          b["latency_mean"][0]))
                    out.append(", ".join(parts) or "—")
                if any(o != "—" for o in out):
                    f.write("| %s | %s | %s |\n" % (LABEL.get(s, s), PLAN[sized],
                                                    " | ".join(out)))

        # The gain per decade of N: the slope of each figure against log10 N, to compare
        # with log2(10) = 3.32 bits, what a uniform choice among 10 times more gains.
        f.write("\n### Gain per decade of N\n\nLeast-squares slope against log10 N of the "
                "observed runs' estimates (bits per decade; log2 10 = 3.32 is what a "
                "uniform choice among ten times as many gains), over the N listed.\n\n")
        f.write("| strategy | mixes | entropy | min-entropy | sender entropy | N used |\n")
        f.write("|---|---|---|---|---|---|\n")
        for s in _strategies(rows):
            for sized in (False, True):
                g = [gain_per_decade(rows, s, sized, x)
                     for x in ("entropy", "min_entropy", "sender_entropy")]
                if g[0] is None:
                    continue
                f.write("| %s | %s | %s | %s |\n" % (
                    LABEL.get(s, s), PLAN[sized],
                    " | ".join("%.2f" % t[0] if t else "n/m" for t in g),
                    ", ".join(str(u) for u in g[0][1])))

        # Cost: events and peak memory a job, per population (the simulator's own counters;
        # CPU time is not in the results: docs/deployment.md gives it as measured).
        f.write("\n### Cost a job\n\nEvents and peak resident memory of one job (the "
                "simulator's counters, estimate and range over its jobs), observed runs.\n\n")
        f.write("| N | runs | jobs | events | peak RSS [MiB] |\n|---|---|---|---|---|\n")
        for u in users:
            for spans in sorted({r["duration"] for k, r in rows.items() if k[0] == u and k[3]}):
                sel = [r for k, r in rows.items() if k[0] == u and k[3] and
                       r["duration"] == spans]
                ev = [r["events"][0] for r in sel if r["events"][3]]
                rss = [r["peak_rss"][0] / 1024 for r in sel if r["peak_rss"][3]]
                jobs = sum(r["seeds"] for r in sel)
                f.write("| %d | observed, %s | %d | %s | %s |\n" % (
                    u, _span(spans), jobs,
                    "%.3g–%.3g" % (min(ev), max(ev)) if ev else "n/m",
                    "%.0f–%.0f" % (min(rss), max(rss)) if rss else "n/m"))


def _nice(u):
    """128, 10³, 10⁴, ... (powers of ten as such, other counts as they are)."""
    e = math.log10(u)
    if u >= 1000 and abs(e - round(e)) < 1e-9:
        return "10" + str(int(round(e))).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return "%d" % u


def plot(rows, path, dpi=110):
    fig, axes = plt.subplots(2, 4, figsize=(16, 7.8))
    spec = {name: (label, unit) for name, _, label, unit, _ in FIGURES}
    strategies = _strategies(rows)
    users = sorted({k[0] for k in rows})
    for ax, name in zip(axes.flat, PANELS):
        label, unit = spec[name]
        drawn, spans = 0, set()
        for s in strategies:
            for sized in (False, True):
                got = [(u, pick(rows, u, s, sized, name)) for u in users]
                got = [(u, r) for u, r in got if r is not None]
                spans |= {_runs_label(r, k[3]) for u, r in got for k in rows if rows[k] is r}
                # bars: the t interval where there is one, else the seed range
                got = [(u, r[name][:1] + (r["ci"][name] if name in CI_FIGURES and
                                          math.isfinite(r["ci"][name][0]) else r[name][1:3]))
                       for u, r in got]
                if not got:
                    continue
                xs = np.array([u for u, _ in got], dtype=float)
                est = np.array([t[0] for _, t in got])
                lo = np.array([t[1] for _, t in got])
                hi = np.array([t[2] for _, t in got])
                lo = np.where(np.isfinite(lo), lo, est)
                hi = np.where(np.isfinite(hi), hi, est)
                # strategies side by side, a few per cent apart on the log axis
                shift = 1 + 0.05 * (strategies.index(s) - (len(strategies) - 1) / 2)
                # (a geometric mean of one value can differ from it in the last bit)
                err = [np.maximum(est - lo, 0), np.maximum(hi - est, 0)]
                ax.errorbar(xs * shift, est, yerr=err, color=_colour(s),
                            ls="--" if sized else "-", marker="s" if sized else "o", ms=4,
                            capsize=2, lw=1.2, mfc="white" if sized else _colour(s))
                drawn += 1
        ax.set_xscale("log")
        ax.set_xticks(users)
        ax.set_xticklabels([_nice(u) for u in users])
        ax.xaxis.set_minor_locator(mticker.NullLocator())
        ax.set_xlim(users[0] / 1.6, users[-1] * 1.6)
        ax.set_title("%s\n(%s)" % (label, "; ".join(sorted(spans))) if spans else label,
                     fontsize=9.5)
        ax.set_ylabel(unit)
        ax.set_xlabel("users in the network, N")
        ax.grid(True, which="both", alpha=0.25)
        if name in ("mix_load", "latency_mean"):
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(mticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: "%g" % v))
            ax.yaxis.set_minor_formatter(mticker.NullFormatter())
        if name == "sender_entropy" and drawn:
            ax.plot(users, np.log2(users), ls=":", color="0.5", lw=1, zorder=0)
            ax.text(users[-1], math.log2(users[-1]), " log₂ N\n (the most)", fontsize=8,
                    color="0.4", va="top", ha="right")
        if name in ("entropy", "min_entropy") and drawn:
            # the gain of a uniform choice among N / 128 times as many, from the smallest
            # network's unicast (or first) strategy with the fixed plan
            base = next((pick(rows, users[0], s, False, name) for s in strategies
                         if pick(rows, users[0], s, False, name) is not None), None)
            if base is not None:
                b = base[name][0]
                ax.plot(users, [b + math.log2(u / users[0]) for u in users], ls=":",
                        color="0.5", lw=1, zorder=0)
                ax.text(users[-1], b + math.log2(users[-1] / users[0]),
                        "+log₂(N/%d) " % users[0], fontsize=8, color="0.4", va="bottom",
                        ha="right")
        if name == "delta" and drawn:
            ax.set_ylim(-0.02, max(ax.get_ylim()[1], 0.1))
        if drawn == 0:
            ax.text(0.5, 0.5, "not measured in these results", transform=ax.transAxes,
                    ha="center", va="center", color="0.4")
        else:
            gone = sorted({k[0] for k in rows if k[3] and rows[k][name][3] == 0 and
                           pick(rows, k[0], k[1], k[2], name) is None})
            if gone:
                ax.text(0.02, 0.02, "not measured at N = %s" % ", ".join(str(u) for u in gone),
                        transform=ax.transAxes, fontsize=8, color="0.4")
    handles = [plt.Line2D([], [], color=_colour(s), lw=2, label=LABEL.get(s, s))
               for s in strategies]
    handles += [plt.Line2D([], [], color="k", ls="-", marker="o", label="fixed 3 x 3 mixes"),
                plt.Line2D([], [], color="k", ls="--", marker="s", mfc="white",
                           label="mixes sized at %g packets/s" % max(
                               [r["capacity"] for r in rows.values()] + [0]))]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=9, frameon=False)
    seeds = sorted({r["seeds"] for k, r in rows.items() if k[3]} or
                   {r["seeds"] for r in rows.values()})
    fig.suptitle("One group of 128 in a network of N users (exact model, always online), "
                 "%s seed(s) a configuration of the observed runs\nbars: Student t 95 %% "
                 "interval of the mean over seeds (n − 1 degrees of freedom) from 2 seeds on; "
                 "δ and mix load: %s" % (
                     "/".join(str(s) for s in seeds),
                     "seed range" if max(seeds) < stats.MIN_SEEDS_CI else "95 % interval"),
                 fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 0.93))
    fig.savefig(path, dpi=dpi, metadata={"Software": None})
    plt.close(fig)


def draw(paths, outdir, dpi=110):
    """Reads `paths` (results files), writes the set into `outdir` and records it.  Returns
    (outputs, figure names measured nowhere).  NoData when no job is finished; ValueError
    for results this figure cannot use."""
    tab = results.load_table(paths)
    try:
        if "mix_capacity" not in tab.names():
            raise ValueError("%s: no mix_capacity column (results of a build before mixes "
                             "sized with the load)" % ", ".join(paths))
        rows = configurations(tab)
    finally:
        tab.close()
    if not rows:
        raise NoData("no finished jobs in %s" % ", ".join(paths))
    os.makedirs(outdir, exist_ok=True)
    outs = [os.path.join(outdir, "deployment." + e) for e in ("csv", "md", "png")]
    write_csv(rows, outs[0])
    write_md(rows, outs[1], paths)
    plot(rows, outs[2], dpi=dpi)
    provenance.record(outdir, outs, paths, "plot.py --kind deployment",
                      roots=[sys.modules[__name__]])
    missing = [name for name, *_ in FIGURES if all(r[name][3] == 0 for r in rows.values())]
    return outs, missing
