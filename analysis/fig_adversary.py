#!/usr/bin/python3
"""Figure for the misbehaving-members study (experiments/adversary.yaml).

Usage: analysis/fig_adversary.py RESULTS.h5 [RESULTS.h5 ...] OUTDIR

Against the fraction f of misbehaving members, for each kind (drop, ack-drop, delay)
and trace: (a) the delivery ratio (expected deliveries made by the end of the run),
(b) the median and (c) the 90th percentile of the online latency; one line per strategy
(unicast, RC, RC-FT, RC-FT + anti-entropy), solid for m = 128, dashed for m = 256.
Points are medians over seeds.  Writes OUTDIR/adversary.png and OUTDIR/adversary.md
(every configuration's numbers, with the adversaries' counters).
Reads the results through rcplot.results (load, Results.configs, Config.stat).
Only Debian's python3-h5py, numpy and matplotlib (run with /usr/bin/python3).
"""
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rcplot import provenance, results, strategies  # noqa: E402

KINDS = ["drop", "ack-drop", "delay"]
TRACE_LABEL = {"online": "always online", "gen_os15": "gen_os15 (80 % online)"}


def strategy_label(strategy, gossip):
    info = strategies.info(strategy)  # the family and parameters, from the simulator's table
    if info["family"] != "rc":
        return info["name"]
    if info["params"]["ft"]:
        return "RC-FT + anti-entropy" if gossip > 0 else "RC-FT"
    return "RC"


STRATEGIES = ["unicast", "RC", "RC-FT", "RC-FT + anti-entropy"]
COLORS = {"unicast": "tab:gray", "RC": "tab:blue", "RC-FT": "tab:orange",
          "RC-FT + anti-entropy": "tab:green"}


def counter(job, name):
    return float(job.attrs.get("counter_" + name, 0) or 0)


def median_over_seeds(cfg, fn):
    vals = [fn(j) for j in cfg.jobs]
    vals = [v for v in vals if v is not None and not math.isnan(v)]
    return float(np.median(vals)) if vals else math.nan


def delivery_ratio(job):
    exp = counter(job, "expected_deliveries")
    return 1.0 - counter(job, "undelivered") / exp if exp > 0 else math.nan


def rows_of(res):
    """One row per configuration: its key and the statistics the figure shows."""
    rows = {}
    for cfg in res.configs():
        a = cfg.jobs[0].attrs
        kind = str(a.get("adversary", "none"))
        frac = float(a.get("adversary_fraction", 0.0))
        gossip = float(a.get("gossip_interval", 0.0))
        label = strategy_label(cfg.strategy, gossip)
        kinds = KINDS if kind == "none" else [kind]  # f = 0 without a kind serves every kind
        row = {
            "seeds": cfg.n_seeds,
            "ratio": median_over_seeds(cfg, delivery_ratio),
            "median": cfg.stat("median")[0],
            "p90": cfg.stat("p90")[0],
            "members": median_over_seeds(cfg, lambda j: counter(j, "adv_members")),
            "withheld": median_over_seeds(cfg, lambda j: counter(j, "adv_withheld")),
            "faked": median_over_seeds(cfg, lambda j: counter(j, "adv_acks_faked")),
            "delayed": median_over_seeds(cfg, lambda j: counter(j, "adv_delayed")),
            "reassign": median_over_seeds(cfg, lambda j: counter(j, "reassignments")),
            "repairs": median_over_seeds(cfg, lambda j: counter(j, "repairs")),
            "overhead": median_over_seeds(cfg, lambda j: counter(j, "repair_packets") / max(
                counter(j, "payload_packets") + counter(j, "ack_packets"), 1)),
            "duration": cfg.duration,
        }
        for k in kinds:
            rows[(k, cfg.trace, cfg.users, label, frac)] = row
    return rows


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    paths, out = sys.argv[1:-1], sys.argv[-1]
    with results.load(paths) as res:
        rows = rows_of(res)
    if not rows:
        sys.exit("fig_adversary: no jobs in " + ", ".join(paths))
    os.makedirs(out, exist_ok=True)
    traces = [t for t in ("online", "gen_os15") if any(k[1] == t for k in rows)]
    traces += sorted({k[1] for k in rows} - set(traces))
    users = sorted({k[2] for k in rows})
    cols = [(kind, tr) for kind in KINDS for tr in traces]
    metrics = [("ratio", "delivery ratio", False), ("median", "median latency [s]", True),
               ("p90", "p90 latency [s]", True)]
    fig, axes = plt.subplots(len(metrics), len(cols), figsize=(3.6 * len(cols), 9), squeeze=False)
    for ci, (kind, tr) in enumerate(cols):
        for mi, (key, ylabel, logy) in enumerate(metrics):
            ax = axes[mi][ci]
            for m, style in zip(users, ["-", "--", ":"]):
                for s in STRATEGIES:
                    pts = sorted((k[4], v[key]) for k, v in rows.items()
                                 if k[0] == kind and k[1] == tr and k[2] == m and k[3] == s)
                    if not pts:
                        continue
                    x = [100 * f for f, _ in pts]
                    ax.plot(x, [v for _, v in pts], style, marker="o", ms=3, color=COLORS[s],
                            label=f"{s}, m={m}")
            ax.set_xscale("symlog", linthresh=1)
            ax.set_xticks([0, 1, 2, 5, 10, 20], ["0", "1", "2", "5", "10", "20"])
            if logy:
                ax.set_yscale("log")
            if mi == 0:
                ax.set_title(f"{kind}, {TRACE_LABEL.get(tr, tr)}", fontsize=10)
            if mi == len(metrics) - 1:
                ax.set_xlabel("misbehaving members f [%]")
            if ci == 0:
                ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8)
    durs = sorted({v["duration"] for v in rows.values()})
    fig.suptitle("Misbehaving members: delivery and online latency against f (exact model, "
                 + ", ".join(f"{d / 3600:g} h" for d in durs) + " simulated, medians over seeds)")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(os.path.join(out, "adversary.png"), dpi=110)
    md = ["| kind | trace | m | strategy | f | seeds | delivery ratio | median [s] | p90 [s] | "
          "adversaries | copies withheld | ACKs faked | delayed | reassignments | repairs | "
          "anti-entropy packets / (payload + ACK) |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in sorted(rows, key=lambda k: (KINDS.index(k[0]) if k[0] in KINDS else 9, k[1], k[2],
                                         STRATEGIES.index(k[3]), k[4])):
        v = rows[k]
        md.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {100 * k[4]:g} % | {v['seeds']} | "
                  f"{v['ratio']:.4f} | {v['median']:.2f} | {v['p90']:.2f} | {v['members']:g} | "
                  f"{v['withheld']:g} | {v['faked']:g} | {v['delayed']:g} | {v['reassign']:g} | "
                  f"{v['repairs']:g} | {100 * v['overhead']:.0f} % |")
    with open(os.path.join(out, "adversary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    provenance.record(out, [os.path.join(out, "adversary." + e) for e in ("png", "md")], paths,
                      "fig_adversary.py")
    print(f"fig_adversary: wrote {out}/adversary.png and {out}/adversary.md ({len(rows)} rows)")


if __name__ == "__main__":
    main()
