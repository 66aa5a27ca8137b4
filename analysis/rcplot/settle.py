"""settle: comparison rows outside the tolerance, put against runs of the reference itself.

The paper ran every configuration once, with the reference simulator's one fixed seed, so
each published value is a single draw.  analysis/reference-runs.csv holds summary numbers of
runs of the reference (the paper's artefact, commit 8115413, run as its notebook builds the
configuration) made for this comparison: seed 0 is the run the paper published, other seeds
are the same configuration with the reference's random generator seeded differently before
the run (docs/figures.md, "Misses, one by one", gives the commands).  Only numbers are kept,
never the reference's outputs.

A row outside the tolerance gets a verdict from two kinds of evidence.

*rcsim's spread*: with at least MIN_SPREAD_RUNS independent runs of the configuration
(experiments/misses-spread.yaml: 30 seeds that no figure sweep uses), the central 95 %
of their per-run values (2.5 % to 97.5 %, linear interpolation) is the range a single run
of the same model lands in 19 times out of 20.

*The reference's own runs*: seed 0 is the published run; other seeds are reruns.

- **settled**: the reference, rerun with other seeds, gives values rcsim also gives: every
  reseeded value lies inside rcsim's central 95 % (without a spread: inside our seeds'
  range or within the row's tolerance of our value, and nearer our value than the
  published one is).  The published value is then one draw of the reference, and rcsim
  agrees with the reference's distribution.
- **confirmed**: every reseeded value lies beyond that range, all on one side (without a
  spread: beyond our seeds, on the published value's side): a model difference to
  explain.
- **undecided**: reruns exist and neither holds.
- **in spread** (no rerun): the published value, which is the reference's seed-0 run,
  lies inside rcsim's central 95 % (a heatmap cell, printed as an integer, within
  ±0.5 s of it): the test of a single reference run against rcsim's distribution.  Where we reran the reference at seed 0 it reproduced the published value
  (reference-runs.csv), which is what lets the published value stand for that run.
- **beyond spread** (no rerun): the published value lies outside rcsim's central 95 %: the
  entries where running the reference is worth its cost.
"""

import csv
import math
import os

import numpy as np

from .stats import HEATMAP_FIGURES, within

MIN_SPREAD_RUNS = 20
SPREAD_QUANTILES = (0.025, 0.975)

VERDICTS = ("settled", "confirmed", "undecided", "in spread", "beyond spread")

# Columns of reference-runs.csv that hold a statistic, by the comparison's stat names.
STAT_COLUMNS = {"mean": "mean_s", "p1": "p1_s", "q1": "q1_s", "median": "median_s",
                "q3": "q3_s", "p90": "p90_s", "p99": "p99_s"}
CONFIG_KEYS = ("m", "schedule", "strategy", "burst", "groups", "lambda_div", "duration_s")

DEFAULT_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "reference-runs.csv")


def _key(row):
    return tuple(str(int(float(row[k]))) if k != "schedule" and k != "strategy" else row[k]
                 for k in CONFIG_KEYS)


def load(path=DEFAULT_PATH):
    """{config key: [(seed, {stat: value})]} from reference-runs.csv ('#' lines are
    comments); {} when the file does not exist."""
    if not path or not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    runs = {}
    for r in rows:
        stats = {s: float(r[c]) for s, c in STAT_COLUMNS.items() if r.get(c, "") != ""}
        runs.setdefault(_key(r), []).append((int(r["ref_seed"]), stats))
    for v in runs.values():
        v.sort(key=lambda x: x[0])
    return runs


def reference_values(runs, row):
    """[(seed, value)] of the reference runs of a comparison row's configuration and stat."""
    key = _key(dict(row, duration_s=row["duration_s"]))
    return [(s, st[row["stat"]]) for s, st in runs.get(key, []) if row["stat"] in st]


def central_range(values):
    """(lo, hi, n): the central 95 % of the finite per-run values, or None when fewer than
    MIN_SPREAD_RUNS of them."""
    v = np.array([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    if v.size < MIN_SPREAD_RUNS:
        return None
    lo, hi = np.quantile(v, SPREAD_QUANTILES)
    return float(lo), float(hi), int(v.size)


def verdict(row, refs, rule, spread=None):
    """'' (no evidence), or one of VERDICTS for a row outside the tolerance; see the
    module docstring.  refs: reference_values(); rule: the row's tolerance rule
    (stats.tolerance_rule); spread: central_range() of independent runs, or None."""
    if row["flag"] == "ok":
        return ""
    ours, paper = float(row["ours_s"]), float(row["paper_s"])
    other = [v for s, v in refs if s != 0]
    if spread is not None:
        lo, hi, _ = spread
        if not other:
            # a heatmap cell is printed as an integer: the run's value is within ±0.5 s of it
            slack = 0.5 if int(row["figure"]) in HEATMAP_FIGURES else 0.0
            return "in spread" if lo - slack <= paper <= hi + slack else "beyond spread"
        inside = [lo <= v <= hi for v in other]
        if all(inside):
            return "settled"
        if all(v < lo for v in other) or all(v > hi for v in other):
            return "confirmed"
        return "undecided"
    if not other:
        return ""
    lo, hi = float(row["ours_min_s"]), float(row["ours_max_s"])
    if not all(math.isfinite(x) for x in (lo, hi, ours, paper)):
        return ""
    ours_like = [lo <= v <= hi or within(ours, v, rule) for v in other]
    if all(ours_like) and all(abs(v - ours) < abs(paper - ours) for v in other):
        return "settled"
    side = 1 if paper > ours else -1
    if not any(ours_like) and all((v - ours) * side > 0 for v in other):
        return "confirmed"
    return "undecided"


def format_refs(refs):
    """'seed 0: 25.8; seed 1: 14.2' for the comparison table."""
    return "; ".join("seed %d: %s" % (s, ("%.4g" % v)) for s, v in refs)
