#!/usr/bin/python3
"""Figure for the reconciliation study (experiments/reconcile.yaml).

Usage: analysis/fig_reconcile.py RESULTS.h5 OUTDIR

For each model and trace, against the gossip interval (0 = no reconciliation):
  (a) fraction of the group that eventually received the multicast whose source went
      offline mid-dissemination, (b) that message's mean latency, (c) the fraction of all
      expected deliveries made by the end of the run, (d) the packets reconciliation cost,
      relative to payload + ACK packets.  Points are medians over seeds, bars the seed range.
Writes OUTDIR/reconcile.{png,pdf} and OUTDIR/reconcile.md (the numbers).
Only Debian's python3-h5py, numpy and matplotlib (run with /usr/bin/python3).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rcplot import provenance, results  # noqa: E402

LABEL = {"gen_os10": "65 % online", "gen_os15": "80 % online", "gen_os20": "88 % online", "online": "100 % online"}


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def load(path):
    rows = {}
    with results.load_table([path]) as tab:
        cols = {k: tab[k].tolist() for k in ("model", "trace", "gossip_interval")}
        counters = {k[len("counter_"):]: tab[k].tolist() for k in tab.names()
                    if k.startswith("counter_")}
        for r in range(len(tab)):
            model = text(cols["model"][r])
            trace = text(cols["trace"][r])
            gi = float(cols["gossip_interval"][r])
            c = {k: float(v[r]) for k, v in counters.items()}
            if c.get("so_expected", 0) <= 0:
                continue
            rec = {
                "so_frac": c["so_delivered"] / c["so_expected"],
                "so_mean": c["so_latency_sum_ms"] / 1e3 / max(c["so_delivered"], 1),
                "complete": 1 - c["undelivered"] / max(c["expected_deliveries"], 1),
                "overhead": c["repair_packets"] / max(c["payload_packets"] + c["ack_packets"], 1),
            }
            rows.setdefault((model, trace, gi), []).append(rec)
    return rows


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    path, out = sys.argv[1], sys.argv[2]
    rows = load(path)
    if not rows:
        sys.exit(f"fig_reconcile: {path} has no jobs with the source_offline scenario")
    os.makedirs(out, exist_ok=True)
    keys = [("so_frac", "fraction of members that got\nthe message (source offline)", False),
            ("so_mean", "mean latency of that\nmessage [s]", True),
            ("complete", "fraction of all expected\ndeliveries made in 24 h", False),
            ("overhead", "reconciliation packets /\n(payload + ACK packets)", False)]
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.8))
    combos = sorted({(m, t) for m, t, _ in rows})
    colors = plt.get_cmap("tab10")
    md = ["| model | trace | gossip interval [s] | seeds | got it | its mean latency [s] | all deliveries made | extra packets |",
          "|---|---|---|---|---|---|---|---|"]
    for ci, (model, trace) in enumerate(combos):
        gis = sorted(gi for m, t, gi in rows if (m, t) == (model, trace))
        for ax, (k, ylabel, logy) in zip(axes, keys):
            med = [np.median([r[k] for r in rows[(model, trace, gi)]]) for gi in gis]
            lo = [min(r[k] for r in rows[(model, trace, gi)]) for gi in gis]
            hi = [max(r[k] for r in rows[(model, trace, gi)]) for gi in gis]
            x = list(range(len(gis)))
            ax.errorbar(x, med, yerr=[np.subtract(med, lo), np.subtract(hi, med)], marker="o",
                        capsize=3, color=colors(ci), linestyle="-" if model == "exact" else "--",
                        label=f"{model}, {LABEL.get(trace, trace)}")
            ax.set_xticks(x, ["off" if gi == 0 else f"{gi:g}" for gi in gis])
            ax.set_xlabel("gossip interval [s]")
            ax.set_ylabel(ylabel)
            if logy:
                ax.set_yscale("log")
        for gi in gis:
            rs = rows[(model, trace, gi)]
            md.append(f"| {model} | {trace} | {'off' if gi == 0 else f'{gi:g}'} | {len(rs)} | "
                      f"{np.median([r['so_frac'] for r in rs]):.3f} | {np.median([r['so_mean'] for r in rs]):.1f} | "
                      f"{np.median([r['complete'] for r in rs]):.4f} | {100 * np.median([r['overhead'] for r in rs]):.1f} % |")
    axes[0].legend(fontsize=8)
    fig.suptitle("Rollercoaster-FT (k=p=2), m=128: the source goes offline for 4 h right after its first copy leaves")
    fig.tight_layout()
    for ext in ("png", "pdf"):
        # no CreationDate: the same results give the same PDF bytes
        fig.savefig(os.path.join(out, f"reconcile.{ext}"), dpi=120,
                    metadata={"CreationDate": None} if ext == "pdf" else None)
    with open(os.path.join(out, "reconcile.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    provenance.record(out, [os.path.join(out, "reconcile." + e) for e in ("png", "pdf", "md")],
                      [path], "fig_reconcile.py")
    print("\n".join(md))
    print(f"fig_reconcile: wrote {out}/reconcile.png, .pdf, .md")


if __name__ == "__main__":
    main()
