#!/usr/bin/python3
"""Figure and tables for the deployment study (experiments/deployment.yaml, docs/deployment.md).

Usage: analysis/fig_deployment.py RESULTS.h5 [RESULTS.h5 ...] --out OUTDIR

One group of m = 128 inside populations of N users, with the paper's fixed 3 x 3 mixes
(mixes_per_layer 3) or mixes sized with the load (mixes_per_layer auto, stored as 0, with
mix_capacity; docs/spec.md §1.13).  A configuration is (N, strategy, mix plan); every
figure is reduced over its seeds with the interval rule of docs/analysis.md ("Intervals",
rcplot.stats.seed_interval: fewer than 5 seeds give the seed range, labelled so).

Writes
  OUTDIR/deployment.png   one panel per figure against N (log), one colour per strategy,
                          solid = fixed 3 x 3, dashed = sized; bars = interval or seed range
  OUTDIR/deployment.csv   one row per configuration: for every figure its estimate, lo, hi
                          and the interval's kind, and the seeds
  OUTDIR/deployment.md    the tables docs/deployment.md quotes: every figure per
                          configuration, and what the group gains against N = 128
and records them in OUTDIR/provenance.json (rcplot.provenance).

Figures whose column a results file does not have (the unlinkability keys anon_eps_mean,
anon_eps_p95, anon_delta before the build that reports them) or holds as NaN (the sender
entropy above the sender view's user limit) are reported as "not measured": an empty CSV
cell, "n/m" in the tables and a note in their panel, never a number.
Reads the results table through rcplot.results.load_table; Debian's python3-h5py, numpy and
matplotlib (run with /usr/bin/python3).
"""
import argparse
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
from rcplot import provenance, results, stats  # noqa: E402

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
]
PANELS = ["entropy", "min_entropy", "sender_entropy", "eps_mean", "latency_mean", "mix_load"]
STRATEGY_ORDER = ["unicast", "rc-k2-p2", "rc-k2-p2-ft", "provider-fanout"]
LABEL = {"unicast": "unicast", "rc-k2-p2": "RC k=p=2", "rc-k2-p2-ft": "RC-FT k=p=2",
         "provider-fanout": "provider fan-out"}
COLOR = {"unicast": "tab:gray", "rc-k2-p2": "tab:blue", "rc-k2-p2-ft": "tab:orange",
         "provider-fanout": "tab:red"}
PLAN = {False: "fixed 3 x 3", True: "sized"}


def column(tab, name, n):
    if name in tab.names():
        return np.asarray(tab[name], dtype=np.float64)
    return np.full(n, np.nan)


def configurations(tab):
    """{(users, strategy, sized, observed): {figure: (est, lo, hi, n, kind)}, with 'seeds',
    'capacity' and 'duration'}; sized = mixes_per_layer auto (stored 0), observed =
    --anonymity on (off: the same configuration's latency-only runs, --cover skip)."""
    n = len(tab)
    users = column(tab, "users", n)
    observed = column(tab, "anonymity", n)
    duration = column(tab, "duration", n)
    strategy = [str(s) for s in tab["strategy"]]
    mpl = column(tab, "mixes_per_layer", n)
    cap = column(tab, "mix_capacity", n)
    figs = {name: column(tab, col, n) for name, col, _, _, _ in FIGURES}
    groups = {}
    for i in range(n):
        key = (int(users[i]), strategy[i], bool(mpl[i] == 0), bool(observed[i] == 1))
        groups.setdefault(key, []).append(i)
    rows = {}
    for key, idx in groups.items():
        if len(set(duration[idx])) > 1:
            raise ValueError("configuration %r ran for several durations (%s s): give one run "
                             "of each" % (key, ", ".join("%g" % d for d in sorted(set(duration[idx])))))
        row = {"seeds": len(idx), "capacity": float(np.nanmax(cap[idx])) if key[2] else 0.0,
               "duration": float(duration[idx][0])}
        for name, _, _, _, positive in FIGURES:
            row[name] = stats.seed_interval(list(figs[name][idx]), positive=positive)
        rows[key] = row
    return rows


def rank(key):
    u, s, sized, observed = key
    return (STRATEGY_ORDER.index(s) if s in STRATEGY_ORDER else len(STRATEGY_ORDER), s,
            sized, not observed, u)


def fmt(v, digits=4):
    return "" if v is None or not math.isfinite(v) else "%.*g" % (digits, v)


def write_csv(rows, path):
    head = ["users", "strategy", "mixes", "mix_capacity", "anonymity", "duration_s", "seeds"]
    for name, *_ in FIGURES:
        head += [name, name + "_lo", name + "_hi", name + "_interval"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        for key in sorted(rows, key=rank):
            r = rows[key]
            out = [key[0], key[1], "auto" if key[2] else "3", fmt(r["capacity"], 6),
                   "on" if key[3] else "off", fmt(r["duration"], 6), r["seeds"]]
            for name, *_ in FIGURES:
                est, lo, hi, n, kind = r[name]
                out += [fmt(est, 6), fmt(lo, 6), fmt(hi, 6), kind if n else ""]
            w.writerow(out)


def cell(t, digits=4):
    est, lo, hi, n, kind = t
    if n == 0:
        return "n/m"
    if not math.isfinite(lo):
        return fmt(est, digits)
    return "%s (%s–%s)" % (fmt(est, digits), fmt(lo, digits), fmt(hi, digits))


# Where each figure is taken from when both kinds of run are given: the latency and the
# bandwidth per client from the latency-only runs (longer: many more multicasts), the rest
# from the observed runs; a figure falls back to the other kind when its own is missing.
FROM_UNOBSERVED = {"latency_mean", "latency_p99", "bandwidth"}


def pick(rows, u, s, sized, name):
    """The row of (u, s, sized) that `name` is taken from, or None."""
    order = (False, True) if name in FROM_UNOBSERVED else (True, False)
    for observed in order:
        r = rows.get((u, s, sized, observed))
        if r is not None and r[name][3]:
            return r
    return None


def runs_label(r, observed):
    d = r["duration"]
    span = "%g h" % (d / 3600) if d >= 3600 else "%g min" % (d / 60)
    return "%s, %s" % ("observed" if observed else "latency only", span)


def write_md(rows, path, sources):
    users = sorted({k[0] for k in rows})
    with open(path, "w") as f:
        f.write("<!-- written by analysis/fig_deployment.py from %s -->\n\n"
                % ", ".join(os.path.basename(s) for s in sources))
        kinds = sorted({r[name][4] for r in rows.values() for name, *_ in FIGURES
                        if r[name][3]})
        f.write("Cells: estimate over seeds (%s in parentheses); n/m = not measured. "
                "Runs: observed = `--anonymity on`; latency only = `--anonymity off` "
                "(`--cover skip`, the same latency law).\n\n" % " / ".join(kinds))
        show = ["entropy", "min_entropy", "sender_entropy", "eps_mean", "delta", "latency_mean",
                "bandwidth", "mix_load", "tracked"]
        lab = {name: (label + (" [%s]" % unit if unit else "")) for name, _, label, unit, _
               in FIGURES}
        f.write("| N | strategy | mixes | runs | seeds | " + " | ".join(lab[s] for s in show)
                + " |\n")
        f.write("|---" * (5 + len(show)) + "|\n")
        for key in sorted(rows, key=lambda k: (k[0],) + rank(k)[:4]):
            r = rows[key]
            f.write("| %d | %s | %s | %s | %d | " % (key[0], LABEL.get(key[1], key[1]),
                                                     PLAN[key[2]], runs_label(r, key[3]),
                                                     r["seeds"]))
            f.write(" | ".join(cell(r[s], 4 if s != "tracked" else 5) for s in show) + " |\n")
        # What sharing a network with N users gains: the estimates' differences against the
        # dedicated network (N = 128) of the same strategy and mix plan.
        base_n = users[0]
        f.write("\nAgainst the dedicated network (N = %d) of the same strategy and mix plan: "
                "entropy gained / min-entropy gained (bits; observed runs), and the ratio of "
                "the online mean latencies (latency-only runs where given).\n\n" % base_n)
        f.write("| strategy | mixes | " + " | ".join("N = %d" % u for u in users[1:]) + " |\n")
        f.write("|---" * (2 + len(users) - 1) + "|\n")
        for s in sorted({k[1] for k in rows}, key=lambda s: rank((0, s, False, True))):
            for sized in (False, True):
                out = []
                for u in users[1:]:
                    parts = []
                    b, r = pick(rows, base_n, s, sized, "entropy"), pick(rows, u, s, sized,
                                                                          "entropy")
                    if b and r:
                        parts.append("%+.2f / %+.2f bits" % (
                            r["entropy"][0] - b["entropy"][0],
                            r["min_entropy"][0] - b["min_entropy"][0]))
                    b, r = (pick(rows, base_n, s, sized, "latency_mean"),
                            pick(rows, u, s, sized, "latency_mean"))
                    if b and r:
                        parts.append("latency × %.3f" % (r["latency_mean"][0] /
                                                          b["latency_mean"][0]))
                    out.append(", ".join(parts) or "—")
                if any(o != "—" for o in out):
                    f.write("| %s | %s | %s |\n" % (LABEL.get(s, s), PLAN[sized],
                                                    " | ".join(out)))


def nice(u):
    """128, 10³, 10⁴, ... (powers of ten as such, other counts as they are)."""
    e = math.log10(u)
    if u >= 1000 and abs(e - round(e)) < 1e-9:
        return "10" + str(int(round(e))).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return "%d" % u


def plot(rows, path):
    fig, axes = plt.subplots(2, 3, figsize=(14, 8.2))
    spec = {name: (label, unit) for name, _, label, unit, _ in FIGURES}
    strategies = sorted({k[1] for k in rows}, key=lambda s: rank((0, s, False, True)))
    users = sorted({k[0] for k in rows})
    for ax, name in zip(axes.flat, PANELS):
        label, unit = spec[name]
        drawn, spans = 0, set()
        for s in strategies:
            for sized in (False, True):
                got = [(u, pick(rows, u, s, sized, name)) for u in users]
                got = [(u, r) for u, r in got if r is not None]
                spans |= {runs_label(r, k[3]) for u, r in got for k in rows if rows[k] is r}
                got = [(u, r[name]) for u, r in got]
                if not got:
                    continue
                xs = np.array([u for u, _ in got], dtype=float)
                est = np.array([t[0] for _, t in got])
                lo = np.array([t[1] for _, t in got])
                hi = np.array([t[2] for _, t in got])
                lo = np.where(np.isfinite(lo), lo, est)
                hi = np.where(np.isfinite(hi), hi, est)
                # strategies side by side, a few per cent apart on the log axis
                shift = 1 + 0.04 * (strategies.index(s) - (len(strategies) - 1) / 2)
                # (a geometric mean of one value can differ from it in the last bit)
                err = [np.maximum(est - lo, 0), np.maximum(hi - est, 0)]
                ax.errorbar(xs * shift, est, yerr=err, color=COLOR.get(s, "k"),
                            ls="--" if sized else "-", marker="s" if sized else "o", ms=4,
                            capsize=2, lw=1.2)
                drawn += 1
        ax.set_xscale("log")
        ax.set_xticks(users)
        ax.set_xticklabels([nice(u) for u in users])
        ax.xaxis.set_minor_locator(mticker.NullLocator())
        ax.set_xlim(users[0] / 1.6, users[-1] * 1.6)
        ax.set_title("%s (%s)" % (label, "; ".join(sorted(spans))) if spans else label,
                     fontsize=10)
        ax.set_ylabel(unit)
        ax.set_xlabel("users in the network, N")
        ax.grid(True, which="both", alpha=0.25)
        if name in ("mix_load", "latency_mean"):
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(mticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: "%g" % v))
            ax.yaxis.set_minor_formatter(mticker.NullFormatter())
        if drawn == 0:
            ax.text(0.5, 0.5, "not measured in these results", transform=ax.transAxes,
                    ha="center", va="center", color="0.4")
        elif name == "sender_entropy" and any(
                rows[k][name][3] == 0 for k in rows if k[3]):
            gone = sorted({k[0] for k in rows if k[3] and rows[k][name][3] == 0})
            ax.text(0.02, 0.02, "not measured at N = %s" % ", ".join(str(u) for u in gone),
                    transform=ax.transAxes, fontsize=8, color="0.4")
    handles = [plt.Line2D([], [], color=COLOR.get(s, "k"), lw=2, label=LABEL.get(s, s))
               for s in strategies]
    handles += [plt.Line2D([], [], color="k", ls="-", marker="o", label="fixed 3 x 3 mixes"),
                plt.Line2D([], [], color="k", ls="--", marker="s",
                           label="mixes sized at %g packets/s" % max(
                               [r["capacity"] for r in rows.values()] + [0]))]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=9, frameon=False)
    seeds = sorted({r["seeds"] for r in rows.values()})
    fig.suptitle("One group of 128 in a network of N users (exact model, always online); "
                 "bars: %s over %s seeds" % (
                     "seed range" if max(seeds) < stats.MIN_SEEDS_CI else "95 % interval",
                     "/".join(str(s) for s in seeds)), fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv[1:])
    for p in a.results:
        if not os.path.exists(p):
            print("fig_deployment: %s: no such file" % p, file=sys.stderr)
            return 2
    tab = results.load_table(a.results)
    try:
        if "mix_capacity" not in tab.names():
            print("fig_deployment: %s: no mix_capacity column (results of a build before "
                  "mixes sized with the load)" % ", ".join(a.results), file=sys.stderr)
            return 2
        rows = configurations(tab)
    finally:
        tab.close()
    if not rows:
        print("fig_deployment: no finished jobs in %s" % ", ".join(a.results), file=sys.stderr)
        return 1
    os.makedirs(a.out, exist_ok=True)
    outs = [os.path.join(a.out, "deployment." + e) for e in ("csv", "md", "png")]
    write_csv(rows, outs[0])
    write_md(rows, outs[1], a.results)
    plot(rows, outs[2])
    provenance.record(a.out, outs, a.results, "fig_deployment.py")
    missing = [name for name, *_ in FIGURES if all(r[name][3] == 0 for r in rows.values())]
    print("fig_deployment: %d configurations -> %s (not measured: %s)"
          % (len(rows), ", ".join(outs), ", ".join(missing) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
