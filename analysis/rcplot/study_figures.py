"""study_figures: the figures of the studies beyond the paper, drawn from their results.

The paper's figures are drawn by rcplot/figures.py (hashed into the committed figure sets,
so its bytes stay as they are until those sets are next redrawn: docs/figures.md); the
studies' figures are drawn here, each by one function that writes its files and returns
their paths (the tool `python3 -m rcplot study-figures KIND` calls it and records the
provenance):

- adversary (experiments/adversary.yaml): against the fraction f of misbehaving members,
  for each kind (drop, ack-drop, delay) and trace: (a) the delivery ratio (expected
  deliveries made by the end of the run), (b) the median and (c) the 90th percentile of
  the online latency; one line per strategy (unicast, RC, RC-FT, RC-FT + anti-entropy),
  solid for m = 128, dashed for m = 256.  Points are medians over seeds.  Writes
  OUTDIR/adversary.png and OUTDIR/adversary.md (every configuration's numbers, with the
  adversaries' counters).
- reconcile (experiments/reconcile.yaml): for each model and trace, against the gossip
  interval (0 = no reconciliation): (a) fraction of the group that eventually received the
  multicast whose source went offline mid-dissemination, (b) that message's mean latency,
  (c) the fraction of all expected deliveries made by the end of the run, (d) the packets
  reconciliation cost, relative to payload + ACK packets.  Points are medians over seeds,
  bars the seed range.  Writes OUTDIR/reconcile.{png,pdf} and OUTDIR/reconcile.md.

- disclosure (experiments/disclosure.yaml): for each target-group size, the membership
  ranking's top-m precision and AUC and the source's top-1 share against the fraction of
  corrupted providers, one line per strategy and number of users (docs/disclosure.md).
  Writes OUTDIR/disclosure.png and OUTDIR/disclosure.md.
- network (experiments/network.yaml and network-rules.yaml): (a) latency and (b) the wait
  at a node of all and of real packets per strategy at the paper's load and at 10x, with
  links and finite capacity; (c) entropy and (d) latency per mixing rule and topology at
  matched mean delay.  Medians over seeds.  Writes OUTDIR/network.png and
  OUTDIR/network.md.

All read the results through rcplot.results, the one reader of results files.
"""
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from rcplot import results, strategies  # noqa: E402

# ---- adversary ------------------------------------------------------------------------------

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


def adversary(paths, out):
    """Draws the adversary study from the results files `paths` into `out`; returns the
    written paths, or None when the files hold no jobs."""
    with results.load(paths) as res:
        rows = rows_of(res)
    if not rows:
        return None
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
    return [os.path.join(out, "adversary." + e) for e in ("png", "md")]


# ---- reconcile ------------------------------------------------------------------------------

LABEL = {"gen_os10": "65 % online", "gen_os15": "80 % online", "gen_os20": "88 % online", "online": "100 % online"}


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def reconcile_rows(path):
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


def reconcile(path, out):
    """Draws the reconciliation study from the results file `path` into `out`; returns the
    written paths, or None when it holds no job with the source_offline scenario."""
    rows = reconcile_rows(path)
    if not rows:
        return None
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
    print("\n".join(md))
    return [os.path.join(out, "reconcile." + e) for e in ("png", "pdf", "md")]


# ---- disclosure -----------------------------------------------------------------------------

DISC_STRATEGIES = ["unicast", "RC", "RC-FT", "provider fan-out"]
DISC_COLORS = {"unicast": "tab:gray", "RC": "tab:blue", "RC-FT": "tab:orange",
               "provider fan-out": "tab:red"}
DISC_KEYS = ["membership_auc", "membership_precision", "multicasts_to_90", "source_top1",
             "source_entropy_bits", "multicasts", "corrupt_providers"]


def disclosure_label(strategy):
    info = strategies.info(strategy)
    if info["family"] != "rc":
        return "provider fan-out" if "fanout" in info["name"] else info["name"]
    return "RC-FT" if info["params"]["ft"] else "RC"


def disclosure_view(t, i):
    """What the adversary watches besides the providers, and whom: `online` (always
    online, no corrupted mix), `online, F % mixes`, or `trace NAME (L lines)`."""
    trace = text(t["trace"][i]) if "trace" in t else "online"
    cm = float(t["corrupt_mixes"][i]) if "corrupt_mixes" in t else 0.0
    view = "online" if trace == "online" else \
        f"trace {text(t['trace_name'][i])} ({text(t['trace_lines'][i])} lines)"
    return view + (f", {100 * cm:g} % mixes" if cm > 0 else "")


def disclosure_rows(paths):
    """One row per configuration (users, m, strategy, corrupted fraction, view): the
    seeds' values of every disclosure key, from the results table."""
    t = results.load_table(paths)
    if len(t) == 0 or "counter_disclosure_multicasts" not in t:
        return {}
    rows = {}
    for i in range(len(t)):
        if not np.isfinite(t["counter_disclosure_source_top1"][i]) and \
                int(t["counter_disclosure_multicasts"][i]) == 0:
            continue  # a job without the observer
        key = (int(t["users"][i]), int(t["group_size"][i]), disclosure_label(text(t["strategy"][i])),
               float(t["corrupt_providers"][i]), disclosure_view(t, i))
        r = rows.setdefault(key, {k: [] for k in DISC_KEYS} | {"seed": [], "duration": set()})
        for k in DISC_KEYS:
            r[k].append(float(t["counter_disclosure_" + k][i]))
        r["seed"].append(int(t["seed"][i]))
        r["duration"].add(float(t["duration"][i]))
    return rows


def disclosure(paths, out):
    """Draws the disclosure study (experiments/disclosure.yaml) from the results files
    `paths` into `out`: for each target-group size m (columns), the membership ranking's
    top-m precision, its AUC and the source's top-1 share (rows) against the fraction of
    corrupted providers, one colour per strategy, one line style and marker per number of
    users and view (always online; corrupted mixes too; a trace); points are medians over seeds, bars the seed range, the dotted line chance
    (m/users for precision, 1/2 for the AUC, 1/m for top-1).  Writes OUTDIR/disclosure.png
    and OUTDIR/disclosure.md (every configuration's numbers); returns the written paths, or
    None when the files hold no job with the observer."""
    rows = disclosure_rows(paths)
    if not rows:
        return None
    os.makedirs(out, exist_ok=True)
    sizes = sorted({k[1] for k in rows})
    users = sorted({k[0] for k in rows})
    metrics = [("membership_precision", "top-m precision"), ("membership_auc", "membership AUC"),
               ("source_top1", "source top-1")]
    views = sorted({k[4] for k in rows}, key=lambda v: (v != "online", v))
    fig, axes = plt.subplots(len(metrics), len(sizes),
                             figsize=(max(9.0, 4.6 * len(sizes)), 9 + 0.5 * len(views)),
                             squeeze=False)
    fracs = sorted({100 * k[3] for k in rows})
    styles = ["-", "--", "-.", ":"]
    markers = ["o", "x", "s", "^", "v"]
    lines = [(n, view) for view in views for n in users
             if any(k[0] == n and k[4] == view for k in rows)]

    def look(n, view):
        """(line style, marker) of a number of users and a view: solid for the first
        number of users, dashed for the next; a view of its own marker, and of its own
        line style past the first two."""
        vi = views.index(view)
        style = styles[users.index(n) % 2] if vi == 0 else styles[2 + (vi - 1) % 2]
        return style, markers[vi % len(markers)]

    for ci, m in enumerate(sizes):
        for mi, (key, ylabel) in enumerate(metrics):
            ax = axes[mi][ci]
            for n, view in lines:
                style, marker = look(n, view)
                for s in DISC_STRATEGIES:
                    pts = sorted((k[3], v[key]) for k, v in rows.items()
                                 if k[0] == n and k[1] == m and k[2] == s and k[4] == view)
                    if not pts:
                        continue
                    x = np.array([100 * f for f, _ in pts])
                    med = np.array([np.median(v) for _, v in pts])
                    lo = med - np.array([np.min(v) for _, v in pts])
                    hi = np.array([np.max(v) for _, v in pts]) - med
                    ax.errorbar(x, med, yerr=[lo, hi], fmt=style, marker=marker,
                                ms=3 if marker == "o" else 6, color=DISC_COLORS[s], capsize=2)
            chance = {"membership_precision": None, "membership_auc": 0.5,
                      "source_top1": 1.0 / m}[key]
            if key == "membership_precision":
                for n in users:
                    ax.axhline(m / n, color="k", lw=0.6, ls=":")
            elif chance is not None:
                ax.axhline(chance, color="k", lw=0.6, ls=":")
            ax.set_ylim(-0.03, 1.03)
            ax.set_xlim(fracs[0] - 2, fracs[-1] + 2)
            ax.set_xticks(fracs, [f"{f:g}" for f in fracs])
            if mi == 0:
                ax.set_title(f"target group of {m}", fontsize=10)
            if mi == len(metrics) - 1:
                ax.set_xlabel("corrupted providers [%]")
            if ci == 0:
                ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
    # the legend: a colour per strategy, a line style and marker per users and view
    handles = [plt.Line2D([], [], color=DISC_COLORS[s], lw=2) for s in DISC_STRATEGIES]
    labels = list(DISC_STRATEGIES)
    for n, view in lines:
        style, marker = look(n, view)
        handles.append(plt.Line2D([], [], color="k", ls=style, marker=marker,
                                  ms=3 if marker == "o" else 6))
        labels.append(f"{n:,} users, {view}")
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    durs = sorted({d for v in rows.values() for d in v["duration"]})
    fig.suptitle("Long-term disclosure of a group (exact model, "
                 + ", ".join(f"{d / 3600:g} h" for d in durs)
                 + " simulated; medians and range over seeds)", fontsize=10)
    fig.tight_layout(rect=(0, 0.025 + 0.018 * ((len(labels) + 2) // 3), 1, 1))
    fig.savefig(os.path.join(out, "disclosure.png"), dpi=110)
    md = ["| view | users | m | strategy | corrupted providers | seeds | AUC | top-m precision | "
          "to 0.9 | source top-1 | source entropy (bits) | multicasts |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def cell(v, fmt="%.3f"):
        v = np.asarray(v, dtype=float)
        if np.all(np.isnan(v)):
            return "never"
        med = np.nanmedian(v)
        s = fmt % med
        if len(v) > 1:
            s += " (" + fmt % np.nanmin(v) + "–" + fmt % np.nanmax(v) + ")"
        if np.any(np.isnan(v)):
            s += f", never in {int(np.sum(np.isnan(v)))}"
        return s

    for k in sorted(rows, key=lambda k: (views.index(k[4]), k[0], k[1],
                                         DISC_STRATEGIES.index(k[2]), k[3])):
        v = rows[k]
        ncp = int(np.median(v["corrupt_providers"]))
        md.append(f"| {k[4]} | {k[0]} | {k[1]} | {k[2]} | {100 * k[3]:g} % ({ncp}) | {len(v['seed'])} | "
                  f"{cell(v['membership_auc'])} | {cell(v['membership_precision'])} | "
                  f"{cell(v['multicasts_to_90'], '%.0f')} | {cell(v['source_top1'])} | "
                  f"{cell(v['source_entropy_bits'], '%.2f')} | {cell(v['multicasts'], '%.0f')} |")
    with open(os.path.join(out, "disclosure.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    return [os.path.join(out, "disclosure." + e) for e in ("png", "md")]


# ---- network ---------------------------------------------------------------------------------

NET_STRATEGIES = ["unicast", "rc-k2-p2", "rc-k2-p2-ft", "provider-fanout"]
NET_LABEL = {"unicast": "unicast", "rc-k2-p2": "RC k=p=2", "rc-k2-p2-ft": "RC-FT k=p=2",
             "provider-fanout": "provider fan-out"}
NET_RULES = ["poisson", "threshold", "timed", "pool"]
NET_TOPOLOGIES = ["stratified", "cascade", "free-route"]


def _c(job, name):
    """A counter of a job of either results layout."""
    v = job.counters().get(name) if hasattr(job, "counters") else None
    return float(v) if v is not None else counter(job, name)


def _ratio(job, num, den):
    d = _c(job, den)
    return _c(job, num) / d if d > 0 else math.nan


def network_rows(res):
    """One row per configuration of experiments/network*.yaml: its key and its medians over
    seeds (latency, waits at the nodes, entropy, bandwidth)."""
    rows = []
    for cfg in res.configs():
        a = cfg.jobs[0].attrs
        row = {
            "strategy": cfg.strategy, "lambda_div": cfg.lambda_div, "seeds": cfg.n_seeds,
            "topology": text(a.get("topology", "stratified")),
            "mix_kind": text(a.get("mix_kind", "poisson")),
            "serve": text(a.get("node_service", "plan")) == "serve",
            "mean": median_over_seeds(cfg, lambda j: j.stat("mean")),
            "p99": median_over_seeds(cfg, lambda j: j.stat("p99")),
            "wait_ms": median_over_seeds(cfg, lambda j: 1e-3 * _ratio(j, "node_wait_us", "node_served")),
            "real_wait_ms": median_over_seeds(
                cfg, lambda j: 1e-3 * _ratio(j, "node_real_wait_us", "node_real_served")),
            "wait_max_ms": median_over_seeds(cfg, lambda j: 1e-3 * _c(j, "node_wait_max_us")),
            "entropy": median_over_seeds(cfg, lambda j: _c(j, "anon_entropy_mean_bits")),
            "min_entropy": median_over_seeds(cfg, lambda j: _c(j, "anon_min_entropy_mean_bits")),
            "bandwidth": median_over_seeds(cfg, lambda j: _c(j, "bw_bytes_per_client_s")),
            "mix_load": median_over_seeds(cfg, lambda j: _c(j, "bw_mix_load_mean_pps")),
            "timeouts": median_over_seeds(cfg, lambda j: _c(j, "timeouts")),
            "duration": cfg.duration, "users": cfg.users,
        }
        e = [_c(j, "anon_entropy_mean_bits") for j in cfg.jobs]
        row["entropy_lo"], row["entropy_hi"] = min(e), max(e)
        rows.append(row)
    return rows


def network(paths, out):
    """Draws the network study (experiments/network.yaml: strategies x load with links and
    finite capacity; experiments/network-rules.yaml: topologies x mixing rules at matched
    mean delay) into `out`: network.png and network.md; returns the written paths, or None
    when the files hold no jobs."""
    with results.load(paths) as res:
        rows = network_rows(res)
    if not rows:
        return None
    os.makedirs(out, exist_ok=True)
    cap = [r for r in rows if r["serve"]]
    rules = [r for r in rows if not r["serve"]]
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.2))
    width = 0.38
    # (a) latency per strategy and load; (b) the wait of every packet and of real packets
    for li, (ld, lab) in enumerate([(1.0, "paper's load"), (0.1, "10x load")]):
        xs = np.arange(len(NET_STRATEGIES)) + (li - 0.5) * width
        by = {r["strategy"]: r for r in cap if abs(r["lambda_div"] - ld) < 1e-9}
        axes[0].bar(xs, [by[s]["mean"] if s in by else np.nan for s in NET_STRATEGIES], width,
                    label=lab)
        axes[1].bar(xs, [by[s]["real_wait_ms"] if s in by else np.nan for s in NET_STRATEGIES],
                    width, label=f"real packets, {lab}")
        axes[1].plot(xs, [by[s]["wait_ms"] if s in by else np.nan for s in NET_STRATEGIES], "k_",
                     ms=14, mew=2, label="all packets" if li == 0 else None)
    for ax, yl, t in [(axes[0], "mean latency [s]", "(a) latency, 100 ms links, finite capacity"),
                      (axes[1], "mean wait at a node [ms]", "(b) where packets queue")]:
        ax.set_xticks(np.arange(len(NET_STRATEGIES)), [NET_LABEL[s] for s in NET_STRATEGIES],
                      fontsize=8)
        ax.set_ylabel(yl)
        ax.set_title(t, fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_yscale("log")
    # (c) entropy and (d) latency per mixing rule, one bar per topology
    for ti, topo in enumerate(NET_TOPOLOGIES):
        xs = np.arange(len(NET_RULES)) + (ti - 1) * 0.27
        by = {r["mix_kind"]: r for r in rules if r["topology"] == topo}
        ent = [by[k]["entropy"] if k in by else np.nan for k in NET_RULES]
        lo = [by[k]["entropy"] - by[k]["entropy_lo"] if k in by else 0 for k in NET_RULES]
        hi = [by[k]["entropy_hi"] - by[k]["entropy"] if k in by else 0 for k in NET_RULES]
        axes[2].bar(xs, ent, 0.27, yerr=[lo, hi], capsize=2, label=topo)
        axes[3].bar(xs, [by[k]["mean"] if k in by else np.nan for k in NET_RULES], 0.27,
                    label=topo)
    for ax, yl, t in [(axes[2], "entropy of a message [bits]", "(c) entropy, unicast"),
                      (axes[3], "mean latency [s]", "(d) latency at matched mean delay")]:
        ax.set_xticks(np.arange(len(NET_RULES)), NET_RULES)
        ax.set_ylabel(yl)
        ax.set_title(t, fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3, axis="y")
    if rules:
        e = [r["entropy"] for r in rules if not math.isnan(r["entropy"])]
        if e:
            axes[2].set_ylim(min(e) - 1, max(e) + 0.5)
    users = sorted({r["users"] for r in rows})
    durs = sorted({r["duration"] for r in rows})
    fig.suptitle("The network as deployed (" + ", ".join(f"{u}" for u in users) + " users, "
                 + ", ".join(f"{d / 60:g} min" for d in durs)
                 + " simulated, exact model; medians over seeds, bars the seed range)", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "network.png"), dpi=110)
    plt.close(fig)
    md = ["| strategy | load | topology | mixing | seeds | mean latency [s] | p99 [s] | "
          "wait, all [ms] | wait, real [ms] | longest wait [ms] | entropy [bits] | "
          "min-entropy [bits] | bandwidth [B/s a client] | mix load [/s] | RC-FT timeouts |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def order(r):
        s = NET_STRATEGIES.index(r["strategy"]) if r["strategy"] in NET_STRATEGIES else 9
        return (not r["serve"], s, -r["lambda_div"],
                NET_TOPOLOGIES.index(r["topology"]) if r["topology"] in NET_TOPOLOGIES else 9,
                NET_RULES.index(r["mix_kind"]) if r["mix_kind"] in NET_RULES else 9)

    for r in sorted(rows, key=order):
        load = "paper" if abs(r["lambda_div"] - 1) < 1e-9 else f"{1 / r['lambda_div']:g}x"
        f = (lambda v, d=3: "—" if math.isnan(v) else f"{v:.{d}f}")
        md.append(f"| {r['strategy']} | {load} | {r['topology']} | {r['mix_kind']} | "
                  f"{r['seeds']} | {f(r['mean'])} | {f(r['p99'])} | "
                  f"{f(r['wait_ms']) if r['serve'] else '—'} | "
                  f"{f(r['real_wait_ms']) if r['serve'] else '—'} | "
                  f"{f(r['wait_max_ms'], 1) if r['serve'] else '—'} | {f(r['entropy'], 2)} | "
                  f"{f(r['min_entropy'], 2)} | {f(r['bandwidth'], 0)} | {f(r['mix_load'], 0)} | "
                  f"{f(r['timeouts'], 0) if 'ft' in r['strategy'] else '—'} |")
    with open(os.path.join(out, "network.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    return [os.path.join(out, "network." + e) for e in ("png", "md")]
