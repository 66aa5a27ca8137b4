#!/usr/bin/python3
"""Figure and table for the trilemma study (experiments/trilemma.yaml).

Usage: analysis/fig_trilemma.py INPUT [INPUT ...] OUTDIR

An INPUT is a results file (RESULTS.h5) or a trilemma.csv this script wrote before: its
rows are configurations already reduced to their means, taken as they are.  So a study can
grow by one strategy without running the others again (experiments/trilemma-fanout.yaml
beside the committed figures/study/trilemma.csv); a configuration found in two inputs is
an error, not averaged, because a CSV row no longer holds its seeds.  The rows of a CSV
input come out byte-identical (same %.6g text, same order; new strategies sort last).

One panel per trace (rows) and fraction of corrupted mixes (columns): the online mean
latency (log scale) against the mean entropy of a tracked message (bits, docs/spec.md),
one colour per strategy, one marker per lambda divisor, the marker's area proportional
to the bandwidth a client spends (bytes per client-second online, payload + cover,
docs/spec.md §1.12); thin lines join the three per-hop delay rates mu of one strategy and
divisor.  When the results have no entropy (a sweep without --anonymity), the x axis is
the bandwidth instead, so the plotting can be checked on latency and bandwidth alone.

Writes OUTDIR/trilemma.png and OUTDIR/trilemma.csv (one row per configuration: the
means over its seeds of latency, entropy, bandwidth and unobservability figures).
Reads the results table through rcplot.results.load_table; only Debian's python3-h5py,
numpy and matplotlib (run with /usr/bin/python3).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rcplot import palette, plots as rcplots, provenance, results  # noqa: E402

KEYS = ["strategy", "trace", "lambda_div", "rate_delay", "corrupt_mixes"]
# Figures per configuration, as CSV columns: (csv name, results-table column).
# Counters are `counter_<key>` in the table; an absent column reads as NaN.
FIGURES = [
    ("latency_mean_s", "online_mean"),
    ("latency_median_s", "online_p50"),
    ("latency_p90_s", "online_p90"),
    ("deliveries", "online_count"),
    ("anon_targets", "counter_anon_targets"),
    ("entropy_mean_bits", "counter_anon_entropy_mean_bits"),
    ("entropy_median_bits", "counter_anon_entropy_median_bits"),
    ("entropy_p5_bits", "counter_anon_entropy_p5_bits"),
    ("min_entropy_mean_bits", "counter_anon_min_entropy_mean_bits"),
    ("sender_entropy_mean_bits", "counter_anon_sender_entropy_mean_bits"),
    ("bw_payload_pps", "counter_bw_payload_pps"),
    ("bw_cover_pps", "counter_bw_cover_pps"),
    ("bw_cover_used", "counter_bw_cover_used"),
    ("bw_bytes_per_client_s", "counter_bw_bytes_per_client_s"),
    ("bw_mix_load_mean_pps", "counter_bw_mix_load_mean_pps"),
    ("bw_mix_load_max_pps", "counter_bw_mix_load_max_pps"),
    ("unobs_active_rate_pps", "counter_unobs_active_rate_pps"),
    ("unobs_idle_rate_pps", "counter_unobs_idle_rate_pps"),
    ("unobs_ks", "counter_unobs_ks"),
    ("unobs_ks_crit05", "counter_unobs_ks_crit05"),
    ("unobs_real_per_pull_mean", "counter_unobs_real_per_pull_mean"),
    ("unobs_real_per_pull_max", "counter_unobs_real_per_pull_max"),
    ("wall_s", "counter_wall_s"),
]

# provider-fanout last: the rows of the committed CSV (the other five) keep their order.
STRATEGY_ORDER = ["unicast", "rc-k1-p1", "rc-k2-p2", "rc-k4-p4", "rc-k2-p2-ft-dropoffline",
                  "provider-fanout"]
LABEL = {"unicast": "unicast", "rc-k1-p1": "RC k=p=1", "rc-k2-p2": "RC k=p=2",
         "rc-k4-p4": "RC k=p=4", "rc-k2-p2-ft-dropoffline": "RC-FT k=p=2",
         "provider-fanout": "provider fan-out (trusted provider)"}
# Every tool's colours (rcplot/palette.py): a strategy looks the same here as in
# `rcsim plot --kind tradeoff`, the report and compare.
COLOR = {s: palette.colour(s) for s in STRATEGY_ORDER}
MARKER = {1.0: "o", 2.0: "s", 4.0: "^", 8.0: "D"}
TRACE_LABEL = {"online": "always online", "gen_os15": "gen_os15 (80 % online)"}


def column(tab, name, n):
    if name in tab:
        return np.asarray(tab[name])
    return np.full(n, np.nan)


def configurations(tab):
    """{key tuple: {csv name: mean over seeds}} and the number of seeds per key."""
    n = len(tab)
    keys = [column(tab, k, n) if k in tab else np.array([0.0] * n) for k in KEYS]
    figs = {c: column(tab, name, n).astype(np.float64) for c, name in FIGURES}
    groups = {}
    for i in range(n):
        key = tuple(k[i] if isinstance(k[i], str) else float(k[i]) for k in keys)
        groups.setdefault(key, []).append(i)
    rows = {}
    for key, idx in groups.items():
        row = {"seeds": len(idx)}
        for c, vals in figs.items():
            v = vals[idx]
            v = v[~np.isnan(v)]
            row[c] = float(v.mean()) if v.size else math.nan
        rows[key] = row
    return rows


def read_csv(path):
    """{key tuple: row} from a CSV written by write_csv; keys typed as configurations()
    makes them (strategy and trace text, the rest floats), an empty figure as NaN."""
    rows = {}
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        missing = [c for c in KEYS + ["seeds"] if c not in (r.fieldnames or [])]
        if missing:
            raise ValueError("%s: not a trilemma.csv (no column %s)" % (path, ", ".join(missing)))
        for rec in r:
            key = tuple(rec[k] if k in ("strategy", "trace") else float(rec[k]) for k in KEYS)
            row = {"seeds": int(rec["seeds"])}
            for c, _ in FIGURES:
                v = rec.get(c, "")
                row[c] = float(v) if v != "" else math.nan
            if key in rows:
                raise ValueError("%s: configuration %r twice" % (path, key))
            rows[key] = row
    return rows


def strategy_rank(s):
    return STRATEGY_ORDER.index(s) if s in STRATEGY_ORDER else len(STRATEGY_ORDER)


def write_csv(rows, path):
    names = KEYS + ["seeds"] + [c for c, _ in FIGURES]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(names)
        for key in sorted(rows, key=lambda k: (strategy_rank(k[0]),) + k[1:]):
            row = rows[key]
            out = list(key) + [row["seeds"]]
            for c, _ in FIGURES:
                v = row[c]
                out.append("" if math.isnan(v) else "%.6g" % v)
            w.writerow(out)


def _size(b, bw_ref):
    """Marker area (points^2) for a bandwidth b."""
    return 10 + 150 * (b / bw_ref if not math.isnan(b) else 0)


def plot(rows, path):
    traces = sorted({k[1] for k in rows}, key=lambda t: (t != "online", t))
    fracs = sorted({k[4] for k in rows})
    have_entropy = any(not math.isnan(r["entropy_mean_bits"]) for r in rows.values())
    xname = "entropy_mean_bits" if have_entropy else "bw_bytes_per_client_s"
    xlabel = ("entropy of a tracked message (bits, mean)" if have_entropy
              else "bandwidth per client (bytes/s online; no entropy in these results)")
    bw = [r["bw_bytes_per_client_s"] for r in rows.values()
          if not math.isnan(r["bw_bytes_per_client_s"])]
    bw_ref = max(bw) if bw else 1.0
    fig, axes = plt.subplots(len(traces), len(fracs), figsize=(4.6 * len(fracs), 4.2 * len(traces)),
                             squeeze=False, sharey="row", sharex=True)
    for ti, trace in enumerate(traces):
        for fi, frac in enumerate(fracs):
            ax = axes[ti][fi]
            strategies = sorted({k[0] for k in rows if k[1] == trace and k[4] == frac},
                                key=strategy_rank)
            # The Pareto front of the panel (rcsim plot --kind tradeoff's rule): lower
            # latency, higher entropy (or lower bandwidth on x), lower bandwidth.
            panel = [rows[k] for k in rows if k[1] == trace and k[4] == frac]
            costs = [(r["latency_mean_s"], -r[xname] if have_entropy else r[xname],
                      r["bw_bytes_per_client_s"]) for r in panel]
            front = {id(panel[i]) for i in rcplots.pareto(costs)}
            for s in strategies:
                for div in sorted({k[2] for k in rows if k[0] == s}):
                    pts = sorted((k[3], rows[k]) for k in rows
                                 if k[0] == s and k[1] == trace and k[2] == div and k[4] == frac)
                    xs = [r[xname] for _, r in pts]
                    ys = [r["latency_mean_s"] for _, r in pts]
                    ax.plot(xs, ys, "-", color=COLOR.get(s, "k"), lw=0.6, alpha=0.6)
                    for _, r in pts:
                        b = r["bw_bytes_per_client_s"]
                        on = id(r) in front
                        # Opaque, hollow when dominated (grey inside, the strategy's colour
                        # as the ring): coincident points of two strategies no longer blend
                        # into a colour the legend does not have.
                        ax.scatter([r[xname]], [r["latency_mean_s"]], s=_size(b, bw_ref),
                                   marker=MARKER.get(div, "x"),
                                   color=COLOR.get(s, "k") if on else rcplots.DOMINATED,
                                   edgecolors="black" if on else COLOR.get(s, "k"),
                                   linewidths=0.7 if on else 1.3, zorder=4 if on else 3)
            ax.set_yscale("log")
            # Labels at 1-2-5 steps: provider fan-out goes below 10 s, where decade labels
            # alone leave the lowest points without a readable value.
            ax.yaxis.set_major_locator(mticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: "%g" % v))
            ax.yaxis.set_minor_formatter(mticker.NullFormatter())
            ax.grid(True, which="both", alpha=0.25)
            ax.set_title("%s, %g %% of mixes corrupted" % (TRACE_LABEL.get(trace, trace), 100 * frac),
                         fontsize=9)
            if fi == 0:
                ax.set_ylabel("online mean latency (s)")
            if ti == len(traces) - 1:
                ax.set_xlabel(xlabel, fontsize=8)
    handles = [plt.Line2D([], [], color=COLOR[s], marker="o", ls="-", label=LABEL[s])
               for s in STRATEGY_ORDER if any(k[0] == s for k in rows)]
    handles += [plt.Line2D([], [], color="k", marker=m, ls="", label="λ/%g" % d)
                for d, m in MARKER.items() if any(k[2] == d for k in rows)]
    handles += [plt.Line2D([], [], color=rcplots.DOMINATED, marker="o", ls="",
                           markeredgecolor="k", label="dominated (grey inside)")]
    # The size key: marker area is the bandwidth a client spends.
    handles += [plt.Line2D([], [], color="white", marker="o", ls="", markeredgecolor="k",
                           markersize=math.sqrt(_size(bw_ref * f, bw_ref)),
                           label="%.0f kB/s" % (bw_ref * f / 1e3)) for f in (0.25, 0.5, 1.0)]
    fig.legend(handles=handles, loc="lower center", ncol=(len(handles) + 1) // 2, fontsize=8,
               frameon=False)
    fig.suptitle("Latency against %s; filled: the Pareto front of the panel, ringed grey: "
                 "dominated\nmarker area = bytes per client-second online "
                 "(largest %.0f kB/s); lines join μ = 1, 3, 10 /s"
                 % ("anonymity" if have_entropy else "bandwidth", bw_ref / 1e3), fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 0.93))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def combine(paths):
    """{key tuple: row} over every input (CSV files as written, results files reduced by
    configurations()); ValueError when a configuration is in two inputs."""
    csvs = [p for p in paths if p.endswith(".csv")]
    h5s = [p for p in paths if not p.endswith(".csv")]
    parts = [(p, read_csv(p)) for p in csvs]
    if h5s:
        tab = results.load_table(h5s)
        try:
            parts.append((", ".join(h5s), configurations(tab)))
        finally:
            tab.close()
    rows, origin = {}, {}
    for src, part in parts:
        for key, row in part.items():
            if key in rows:
                raise ValueError("configuration %s is in %s and in %s" % (key, origin[key], src))
            rows[key], origin[key] = row, src
    return rows


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    paths, outdir = argv[1:-1], argv[-1]
    for p in paths:
        if not os.path.exists(p):
            print("fig_trilemma: %s: no such file" % p, file=sys.stderr)
            return 2
    try:  # every input is read before anything is written: OUTDIR/trilemma.csv may be one
        rows = combine(paths)
    except ValueError as e:
        print("fig_trilemma: %s" % e, file=sys.stderr)
        return 2
    if not rows:
        print("fig_trilemma: no finished jobs in %s" % ", ".join(paths), file=sys.stderr)
        return 1
    os.makedirs(outdir, exist_ok=True)
    write_csv(rows, os.path.join(outdir, "trilemma.csv"))
    plot(rows, os.path.join(outdir, "trilemma.png"))
    provenance.record(outdir, [os.path.join(outdir, "trilemma." + e) for e in ("csv", "png")],
                      paths, "fig_trilemma.py")
    print("fig_trilemma: %d configurations -> %s/trilemma.png, trilemma.csv" % (len(rows), outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
