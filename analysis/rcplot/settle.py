"""settle: comparison rows outside the tolerance, put against runs of the reference itself.

The paper ran every configuration once, with the reference simulator's one fixed seed, so
each published value is a single draw.  analysis/reference-runs.csv holds summary numbers of
runs of the reference (the paper's artefact, commit 8115413, run as its notebook builds the
configuration) made for this comparison: seed 0 is the run the paper published, other seeds
are the same configuration with the reference's random generator seeded differently before
the run (docs/figures.md, "Misses, one by one", gives the commands).  Only numbers are kept,
never the reference's outputs.

A row outside the tolerance is *settled* when the reference, rerun with other seeds, gives
values that rcsim's seeds also give: every reseeded value lies inside our seeds' range (or
within the row's tolerance of our value) and nearer our value than the published one is.
The published value is then the reference's own seed-0 draw, and rcsim agrees with the
reference's distribution.  When every reseeded value lies beyond our seeds on the published
value's side, the difference is the model's: *confirmed* (a gap to explain).  Anything in
between is *undecided* (more reference runs needed).
"""

import csv
import math
import os

from .stats import within

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


def verdict(row, refs, rule):
    """'' (no reseeded reference run), 'settled', 'confirmed' or 'undecided' for a row
    outside the tolerance; see the module docstring.  rule: the row's tolerance rule
    (stats.tolerance_rule)."""
    if row["flag"] == "ok":
        return ""
    other = [v for s, v in refs if s != 0]
    if not other:
        return ""
    lo, hi = float(row["ours_min_s"]), float(row["ours_max_s"])
    ours, paper = float(row["ours_s"]), float(row["paper_s"])
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
