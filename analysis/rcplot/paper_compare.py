"""paper_compare: our results against the paper's numbers (analysis/paper-values.csv).

For every paper row whose configuration is in the results: our value (median over
seeds, with the seeds' min-max range), the paper's value and whether it is exact
(printed in the paper or its LaTeX macros) or read off a figure, the relative
difference, the docs/spec.md §9.3 rule applied, a flag ("ok" inside the tolerance, "OUT"
outside it) and the paper's quantile among our seeds: the fraction of our per-seed values
below the paper's (ties count half).  The paper ran one seed, so its value is one draw:
a quantile of 0 or 1 means it lies beyond every one of our seeds, which with n seeds
happens by chance with probability 2/(n+1) when the model is the same.

The paper's figures show some runs twice (the k = p = 1 column is in both heatmap
panels; the m = 128 unicast run is scored in four figures), so the rows are also
counted as distinct (configuration, statistic) pairs.  Rows whose configuration is not
in the results are counted, not listed.

Rows outside the tolerance are put against independent runs of rcsim (spread results:
experiments/misses-spread.yaml; the columns `spread_runs`, `spread_lo_s` and `spread_hi_s`
give the central 95 % of their per-run values, `spread_quantile` the paper's quantile
among them) and against runs of the reference itself when analysis/reference-runs.csv has
that configuration (`reference_runs`: the reference's values by seed; seed 0 is the
published run).  The column `settled` holds settle.py's verdict: settled, confirmed,
undecided (with reference reruns), in spread or beyond spread (without them).
"""

import csv
import math
import os

from . import names, settle
from .stats import tolerance_rule, within

# The paper's published numbers (docs/spec.md §6), read by paper-check and means-spread.
PAPER_VALUES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "paper-values.csv")

COLUMNS = ["figure", "m", "schedule", "strategy", "burst", "groups", "lambda_div", "stat",
           "paper_s", "paper_kind", "ours_s", "ours_min_s", "ours_max_s", "seeds",
           "duration_s", "rel_diff", "rule", "flag", "paper_quantile",
           "ours_mean_s", "ci95_lo_s", "ci95_hi_s", "reference_runs", "settled",
           "spread_runs", "spread_lo_s", "spread_hi_s", "spread_quantile"]


def read_paper(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def find_config(res, model, row):
    """Our configuration (all its seeds) for one row of paper-values.csv, or None."""
    return res.find(model, users=int(row["m"]), strategy=names.strategy(row["strategy"]),
                    trace=names.trace(row["schedule"]), burst=int(row["burst"]),
                    groups=int(row["groups"]), lambda_div=float(row["lambda_div"]))


def compare(res, model, paper_rows, figures=None, ref_runs=None, spread_res=None):
    """Returns (rows, n_missing): rows are dicts with COLUMNS.  ref_runs: settle.load()
    (runs of the reference itself), or None for none; spread_res: results.load() of
    independent runs (their configurations' per-run values give the spread), or None."""
    out, missing = [], 0
    ref_runs = ref_runs or {}
    for r in paper_rows:
        fig = int(r["figure"])
        if figures and fig not in figures:
            continue
        strat, trace = names.strategy(r["strategy"]), names.trace(r["schedule"])
        cfg = find_config(res, model, r)
        if cfg is None:
            missing += 1
            continue
        paper = float(r["value_s"])
        med, lo, hi, n = cfg.stat(r["stat"])
        mean, ci_lo, ci_hi = cfg.stat_ci(r["stat"])
        q = seed_quantile([j.stat(r["stat"]) for j in cfg.jobs], paper)
        rule = tolerance_rule(fig, trace, r["stat"], paper)
        ok = within(med, paper, rule)
        rel = (med - paper) / paper if paper != 0 and math.isfinite(med) else math.nan
        row = dict(figure=fig, m=int(r["m"]), schedule=trace, strategy=strat,
                   burst=int(r["burst"]), groups=int(r["groups"]),
                   lambda_div=int(float(r["lambda_div"])), stat=r["stat"],
                   paper_s=paper, paper_kind="exact" if r["exact"] == "yes" else "read-off",
                   ours_s=med, ours_min_s=lo, ours_max_s=hi, seeds=n,
                   duration_s=cfg.duration, rel_diff=rel, rule=rule[4],
                   flag="ok" if ok else "OUT",
                   paper_quantile=q,
                   ours_mean_s=mean, ci95_lo_s=ci_lo, ci95_hi_s=ci_hi)
        spread = None
        # empty in the CSV when there is no spread (a row's NaN means a missing value)
        row.update(spread_runs=0, spread_lo_s=None, spread_hi_s=None, spread_quantile=None)
        scfg = find_config(spread_res, model, r) if spread_res is not None else None
        if scfg is not None and not ok:
            vals = [j.stat(r["stat"]) for j in scfg.jobs]
            spread = settle.central_range(vals)
            if spread is not None:
                row.update(spread_lo_s=spread[0], spread_hi_s=spread[1],
                           spread_runs=spread[2], spread_quantile=seed_quantile(vals, paper))
        refs = settle.reference_values(ref_runs, row)
        row["reference_runs"] = settle.format_refs(refs)
        row["settled"] = settle.verdict(row, refs, rule, spread)
        out.append(row)
    return out, missing


def seed_quantile(values, paper):
    """Fraction of the finite per-seed values below `paper` (ties count half); NaN
    without values."""
    v = [x for x in values if x is not None and math.isfinite(x)]
    if not v:
        return math.nan
    below = sum(1 for x in v if x < paper)
    equal = sum(1 for x in v if x == paper)
    return (below + 0.5 * equal) / len(v)


def _quantile(r):
    try:
        return float(r["paper_quantile"])
    except (KeyError, TypeError, ValueError):
        return math.nan


def beyond_seeds(rows):
    """OUT rows whose paper value lies below or above every one of our seeds (quantile 0
    or 1): the ones a difference in the model, not the paper's single seed (docs/spec.md
    §7), has to explain.  Rows from a single seed are not counted."""
    return sum(1 for r in rows if r["flag"] != "ok" and int(r["seeds"]) > 1
               and _quantile(r) in (0.0, 1.0))


def has_quantiles(rows):
    """True when the rows carry the paper's seed quantile (tables written before it
    existed do not)."""
    return any(math.isfinite(_quantile(r)) for r in rows)


PAIR_KEYS = ("m", "schedule", "strategy", "burst", "groups", "lambda_div", "stat")


def distinct_pairs(rows):
    """(ok, n) over the distinct (configuration, statistic) pairs of the rows; a pair is
    ok when every row naming it is within tolerance."""
    pairs = {}
    for r in rows:
        k = tuple(str(r[c]) for c in PAIR_KEYS)
        pairs[k] = pairs.get(k, True) and r["flag"] == "ok"
    return sum(pairs.values()), len(pairs)


def headline(rows):
    """One sentence with both counts (rows of the paper's figures and distinct pairs), and
    how many of the rows outside the tolerance reruns of the reference settle."""
    ok = sum(r["flag"] == "ok" for r in rows)
    pok, pn = distinct_pairs(rows)
    text = ("**%d of %d** values within the docs/spec.md §9.3 tolerance (rows of the paper's "
            "figures); they are %d distinct (configuration, statistic) pairs, %d of them "
            "within tolerance in every row" % (ok, len(rows), pn, pok))
    counts = verdict_counts(rows)
    if any(counts.values()):
        out = len(rows) - ok
        parts = []
        if counts["settled"]:
            parts.append("%d settled by reruns of the reference itself (its other seeds give "
                         "what ours give: the published value is one run's draw)"
                         % counts["settled"])
        if counts["in spread"]:
            parts.append("%d with the published run inside the central 95 %% of %s "
                         "independent rcsim runs" % (counts["in spread"], spread_runs(rows)))
        if counts["confirmed"]:
            parts.append("%d confirmed as differences by reruns of the reference"
                         % counts["confirmed"])
        if counts["undecided"]:
            parts.append("%d undecided" % counts["undecided"])
        if counts["beyond spread"]:
            parts.append("%d with the published run beyond that range (not yet rerun in "
                         "the reference)" % counts["beyond spread"])
        rest = out - sum(counts.values())
        if rest:
            parts.append("%d without independent runs or reference reruns" % rest)
        text += "; of the %d rows outside: %s" % (out, "; ".join(parts))
    return text


def verdict_counts(rows):
    """{verdict: number of rows} over settle.VERDICTS."""
    return {v: sum(r.get("settled") == v for r in rows) for v in settle.VERDICTS}


def spread_runs(rows):
    """'30' (or '20–30') runs behind the rows' spread verdicts."""
    n = sorted({int(r["spread_runs"]) for r in rows if int(r.get("spread_runs") or 0) > 0})
    if not n:
        return "0"
    return str(n[0]) if n[0] == n[-1] else "%d–%d" % (n[0], n[-1])


def summary(rows):
    """{figure: (n_ok, n)} plus the key 'all'."""
    s = {}
    for r in rows:
        for key in (r["figure"], "all"):
            ok, n = s.get(key, (0, 0))
            s[key] = (ok + (r["flag"] == "ok"), n + 1)
    return s


def _fmt(v, digits=3):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "nan"
    if abs(v) >= 1000:
        return "%.0f" % v
    return "%.*g" % (digits, v)


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})


def _spread(r):
    n = int(r.get("spread_runs") or 0)
    if not n:
        return "–"
    return "%s–%s (%d)" % (_fmt(float(r["spread_lo_s"])), _fmt(float(r["spread_hi_s"])), n)


def _flag(r):
    if r["flag"] == "ok":
        return "ok"
    return "**OUT** (%s)" % r["settled"] if r.get("settled") else "**OUT**"


def markdown(rows, n_missing, model):
    s = summary(rows)
    ok, n = s.get("all", (0, 0))
    lines = ["Model `%s`: %s (%d paper values have no matching configuration in the "
             "results)." % (model, headline(rows), n_missing), "",
             "Of the %d values outside the tolerance, %d lie beyond every one of our seeds "
             "(the paper's quantile among our seeds is 0 or 1); the others are one draw our "
             "seeds also produce (the paper ran a single seed, docs/spec.md §7), only not "
             "near their median.  The quantile column is the fraction of our seeds below "
             "the paper's value." % (n - ok, beyond_seeds(rows)), ""]
    lines.append("| figure | within tolerance | outside, paper beyond all our seeds |")
    lines.append("|---|---|---|")
    for fig in sorted(k for k in s if k != "all"):
        lines.append("| %d | %d / %d | %d |" % (fig, s[fig][0], s[fig][1],
                                                beyond_seeds([r for r in rows
                                                              if r["figure"] == fig])))
    lines.append("")
    lines.append("| fig | m | schedule | strategy | b | g | λ/ | stat | paper [s] | kind | "
                 "ours [s] (seed range) | 95 % CI of the seed mean | rel. diff | rule | flag | "
                 "paper's quantile among our seeds | reference's own runs (seed: value) | "
                 "rcsim central 95 % (independent runs) |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        spread = ("%s (%s–%s, %d seeds)" % (_fmt(r["ours_s"]), _fmt(r["ours_min_s"]),
                                            _fmt(r["ours_max_s"]), r["seeds"])
                  if r["seeds"] > 1 else _fmt(r["ours_s"]))
        rel = "%+.1f%%" % (100 * r["rel_diff"]) if math.isfinite(r["rel_diff"]) else "nan"
        ci = ("%s–%s" % (_fmt(r["ci95_lo_s"]), _fmt(r["ci95_hi_s"]))
              if math.isfinite(r["ci95_lo_s"]) else "–")
        q = r["paper_quantile"]
        qs = "%.2f (%d)" % (q, r["seeds"]) if math.isfinite(q) else "–"
        lines.append("| %d | %d | %s | %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s "
                     "| %s | %s | %s |" % (
            r["figure"], r["m"], r["schedule"], r["strategy"], r["burst"], r["groups"],
            r["lambda_div"], r["stat"], _fmt(r["paper_s"]), r["paper_kind"], spread, ci, rel,
            r["rule"], _flag(r), qs, r.get("reference_runs") or "–", _spread(r)))
    return "\n".join(lines) + "\n"
