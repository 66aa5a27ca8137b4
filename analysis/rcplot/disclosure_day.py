"""disclosure_day: the day-long disclosure study's figure and table (docs/disclosure.md,
"The day-long study"; experiments/disclosure.yaml), drawn from its results.

The hour's study is drawn by study_figures.disclosure (the end of each run against the
corrupted providers); a day adds what the adversary learns over time: where a job was run
with store_raw, its learning curve (/disclosure/curve, rcplot.disclosure) gives the
membership ranking's top-m precision and the source's top-1 after every checkpoint, so the
figure shows when (and whether) the 0.9 point is reached and what the day adds to its first
hour.  Kept in a module of its own so that the committed sets study_figures draws keep
their code hash.

  draw(paths, out) -> [OUTDIR/disclosure-day.png, OUTDIR/disclosure-day.md] or None
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from rcplot import disclosure, results  # noqa: E402
from rcplot.study_figures import (DISC_COLORS, DISC_STRATEGIES, disclosure_label,  # noqa: E402
                                  disclosure_rows, disclosure_view, text)

NAME = "disclosure-day"
HOUR = 3600.0
# The curves are read on this grid of simulated hours (log-spaced: most is learned early).
GRID_H = np.geomspace(0.1, 24.0, 80)
NINETY = dict(color="tab:green", lw=1.0, ls="-", alpha=0.6)  # the 0.9 point, in every panel
STYLES = [("-", "o"), ("--", "x"), ("-.", "s"), (":", "^"), ((0, (5, 1, 1, 1)), "v")]


def job_key(t, i):
    """The configuration of job row i, as study_figures.disclosure_rows keys it."""
    return (int(t["users"][i]), int(t["group_size"][i]), disclosure_label(text(t["strategy"][i])),
            float(t["corrupt_providers"][i]), disclosure_view(t, i))


def step_at(times, values, grid):
    """A curve's value at each grid time: that of its last checkpoint at or before it (NaN
    before the first, after the last (the end of the run), and where the checkpoint's value
    is NaN)."""
    idx = np.searchsorted(times, grid, side="right") - 1
    out = np.full(grid.shape, np.nan)
    ok = (idx >= 0) & (grid <= times[-1])
    out[ok] = values[idx[ok]]
    return out


def curve_rows(paths):
    """{configuration key: {"precision": [per seed: array over GRID_H], "source_top1": ...,
    "h1_precision": [per seed], "h1_source_top1": [...], "h1_multicasts": [...],
    "first_90_h": [per seed: hours to top-m precision >= 0.9, NaN if never]}} for every job
    with a stored learning curve."""
    t = results.load_table(paths)
    if len(t) == 0 or "counter_disclosure_multicasts" not in t:
        return {}
    rows = [i for i in range(len(t)) if int(t["counter_disclosure_multicasts"][i]) > 0]
    if not rows:
        return {}
    row_of, c = disclosure.curves(t, rows)
    out = {}
    if c is None:
        return out
    grid_s = GRID_H * HOUR
    for i in rows:
        sel = row_of == i
        if not np.any(sel):
            continue
        times = np.asarray(c["time_s"][sel], dtype=float)
        prec = np.asarray(c["precision"][sel], dtype=float)
        top1 = np.asarray(c["source_top1"][sel], dtype=float)
        k = np.asarray(c["multicasts"][sel], dtype=float)
        r = out.setdefault(job_key(t, i), {"precision": [], "source_top1": [], "h1_precision": [],
                                           "h1_source_top1": [], "h1_multicasts": [],
                                           "first_90_h": []})
        r["precision"].append(step_at(times, prec, grid_s))
        r["source_top1"].append(step_at(times, top1, grid_s))
        h1 = np.array([HOUR])
        r["h1_precision"].append(float(step_at(times, prec, h1)[0]))
        r["h1_source_top1"].append(float(step_at(times, top1, h1)[0]))
        r["h1_multicasts"].append(float(step_at(times, k, h1)[0]))
        hit = np.nonzero(prec >= 0.9)[0]
        r["first_90_h"].append(times[hit[0]] / HOUR if hit.size else np.nan)
    return out


def cell(v, fmt="%.3f", never="never"):
    """Median (range) over seeds; `never` where every seed is NaN, and how many were."""
    v = np.asarray(v, dtype=float)
    if v.size == 0:
        return "–"
    if np.all(np.isnan(v)):
        return never
    s = fmt % np.nanmedian(v)
    if v.size > 1:
        s += " (" + fmt % np.nanmin(v) + "–" + fmt % np.nanmax(v) + ")"
    if np.any(np.isnan(v)):
        s += f", never in {int(np.sum(np.isnan(v)))}"
    return s


def draw(paths, out, curve_corrupt=None):
    """Draws the day study from the results files `paths` into `out`.  Columns: the target
    group's size m.  Rows: (a) the top-m precision, (b) the membership AUC and (c) the
    source's top-1 at the end of the day against the corrupted providers (medians over
    seeds, bars the range, dotted chance), one colour per strategy, one line style per
    number of users and view; then, for the jobs with a learning curve at the corrupted
    fraction `curve_corrupt` (default: the largest with curves), (d) the top-m precision
    and (e) the source's running top-1 over the simulated hours (median over seeds, the band
    their range; the 0.9 point and the first hour marked).  Writes OUTDIR/disclosure-day.png
    and OUTDIR/disclosure-day.md (every configuration: the day's numbers, and where curves
    exist the same after the first hour and the hour the 0.9 point was reached); returns the
    paths written, or None when the files hold no job with the observer."""
    rows = disclosure_rows(paths)
    if not rows:
        return None
    curves = curve_rows(paths)
    os.makedirs(out, exist_ok=True)
    sizes = sorted({k[1] for k in rows})
    views = sorted({k[4] for k in rows}, key=lambda v: (v != "online", v))
    lines = sorted({(k[0], k[4]) for k in rows}, key=lambda x: (views.index(x[1]), x[0]))
    look = {ln: STYLES[i % len(STYLES)] for i, ln in enumerate(lines)}
    fracs = sorted({100 * k[3] for k in rows})
    if curve_corrupt is None and curves:
        curve_corrupt = max(k[3] for k in curves)
    curve_lines = [ln for ln in lines if any((k[0], k[4]) == ln and k[3] == curve_corrupt
                                             for k in curves)]
    end_metrics = [("membership_precision", "top-m precision, end"),
                   ("membership_auc", "membership AUC, end"),
                   ("source_top1", "source top-1, end")]
    durs = sorted({d for v in rows.values() for d in v["duration"]})
    n_rows = len(end_metrics) + (2 if curve_lines else 0)
    fig, axes = plt.subplots(n_rows, len(sizes), figsize=(max(9.0, 4.8 * len(sizes)),
                                                         3.0 * n_rows + 1.2), squeeze=False)
    for ci, m in enumerate(sizes):
        for mi, (key, ylabel) in enumerate(end_metrics):
            ax = axes[mi][ci]
            for ln in lines:
                style, marker = look[ln]
                for s in DISC_STRATEGIES:
                    pts = sorted((k[3], v[key]) for k, v in rows.items()
                                 if (k[0], k[4]) == ln and k[1] == m and k[2] == s)
                    if not pts:
                        continue
                    x = np.array([100 * f for f, _ in pts])
                    med = np.array([np.median(v) for _, v in pts])
                    lo = med - np.array([np.min(v) for _, v in pts])
                    hi = np.array([np.max(v) for _, v in pts]) - med
                    ax.errorbar(x, med, yerr=[lo, hi], ls=style, marker=marker, ms=4,
                                color=DISC_COLORS[s], capsize=2)
            if key == "membership_precision":
                for n in sorted({ln[0] for ln in lines}):
                    ax.axhline(m / n, color="k", lw=0.6, ls=":")
                ax.axhline(0.9, **NINETY)
            else:
                ax.axhline(0.5 if key == "membership_auc" else 1.0 / m, color="k", lw=0.6, ls=":")
            ax.set_ylim(-0.03, 1.03)
            ax.set_xlim(fracs[0] - 2, fracs[-1] + 2)
            ax.set_xticks(fracs, [f"{f:g}" for f in fracs])
            ax.set_xlabel("corrupted providers [%]", fontsize=8)
            if mi == 0:
                ax.set_title(f"target group of {m}", fontsize=10)
            if ci == 0:
                ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
        for j, (key, ylabel) in enumerate([("precision", "top-m precision over the day"),
                                           ("source_top1", "source top-1 so far")]):
            if not curve_lines:
                break
            ax = axes[len(end_metrics) + j][ci]
            for ln in curve_lines:
                style, _ = look[ln]
                for s in DISC_STRATEGIES:
                    r = curves.get((ln[0], m, s, curve_corrupt, ln[1]))
                    if not r:
                        continue
                    a = np.vstack(r[key])
                    ok = ~np.all(np.isnan(a), axis=0)
                    if not np.any(ok):
                        continue
                    ax.plot(GRID_H[ok], np.nanmedian(a[:, ok], axis=0), ls=style,
                            color=DISC_COLORS[s], lw=1.2)
                    ax.fill_between(GRID_H[ok], np.nanmin(a[:, ok], axis=0),
                                    np.nanmax(a[:, ok], axis=0), color=DISC_COLORS[s],
                                    alpha=0.12, lw=0)
            if key == "precision":
                ax.axhline(0.9, **NINETY)
            else:
                ax.axhline(1.0 / m, color="k", lw=0.6, ls=":")
            ax.axvline(1.0, color="k", lw=0.6, ls=":")
            ax.set_xscale("log")
            ticks = [0.1, 0.25, 1, 4, 12, 24]
            ax.set_xticks(ticks, [f"{h:g}" for h in ticks])
            ax.set_xlim(GRID_H[0], min(GRID_H[-1], max(durs) / HOUR))
            ax.set_ylim(-0.03, 1.03)
            ax.set_xlabel(f"simulated hours ({100 * curve_corrupt:g} % of the providers "
                          "corrupted)", fontsize=8)
            if ci == 0:
                ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
    handles = [plt.Line2D([], [], color=DISC_COLORS[s], lw=2) for s in DISC_STRATEGIES]
    labels = list(DISC_STRATEGIES)
    for ln in lines:
        style, marker = look[ln]
        handles.append(plt.Line2D([], [], color="k", ls=style, marker=marker, ms=4))
        labels.append(f"{ln[0]:,} users, {ln[1]}" + ("" if ln in curve_lines else " (no curve)"))
    handles.append(plt.Line2D([], [], **NINETY))
    labels.append("the 0.9 point")
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle("Long-term disclosure of a group over "
                 + ", ".join(f"{d / 3600:g} h" for d in durs)
                 + " (exact model; medians and range over seeds; dotted: chance)", fontsize=10)
    fig.tight_layout(rect=(0, 0.02 + 0.016 * ((len(labels) + 2) // 3), 1, 0.985))
    png = os.path.join(out, NAME + ".png")
    fig.savefig(png, dpi=100)
    plt.close(fig)

    md = ["| view | users | m | strategy | corrupted providers | seeds | AUC | top-m precision | "
          "to 0.9 (multicasts) | to 0.9 (hours) | source top-1 | source entropy (bits) | "
          "multicasts | top-m precision after 1 h | source top-1 after 1 h |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in sorted(rows, key=lambda k: (views.index(k[4]), k[0], k[1],
                                         DISC_STRATEGIES.index(k[2]), k[3])):
        v = rows[k]
        c = curves.get(k, {})
        ncp = int(np.median(v["corrupt_providers"]))
        md.append(f"| {k[4]} | {k[0]} | {k[1]} | {k[2]} | {100 * k[3]:g} % ({ncp}) | "
                  f"{len(v['seed'])} | {cell(v['membership_auc'])} | "
                  f"{cell(v['membership_precision'])} | {cell(v['multicasts_to_90'], '%.0f')} | "
                  f"{cell(c.get('first_90_h', []), '%.2f')} | {cell(v['source_top1'])} | "
                  f"{cell(v['source_entropy_bits'], '%.2f')} | {cell(v['multicasts'], '%.0f')} | "
                  f"{cell(c.get('h1_precision', []), never='–')} | "
                  f"{cell(c.get('h1_source_top1', []), never='–')} |")
    mdp = os.path.join(out, NAME + ".md")
    with open(mdp, "w") as f:
        f.write("\n".join(md) + "\n")
    return [png, mdp]
