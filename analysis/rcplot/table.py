"""table: one row per configuration of a sweep, with its statistics over seeds.

Rows come in the sweep's numeric value order (sweep.Sweep.configs) and name each axis in
its own column, in full.  For every statistic (metrics.lookup names) a row holds the
per-seed values summarised two ways: the median with min and max over seeds (robust;
the text table of summarize.py) and the mean with its 95 % t-interval (stats.seed_ci;
the report).  Counts (deliveries, undelivered, wall time) are also summed over seeds.
"""

import math

from . import metrics
from .stats import seed_ci, seed_spread
from .sweep import fmt_value

DEFAULT_STATS = ("mean", "p1", "median", "p90", "p99", "delivery_ratio",
                 "packets_per_delivery")
SUMS = ("deliveries", "undelivered", "wall_s")


def rows(sw, stats=DEFAULT_STATS, per_seed=False):
    """[dict] with the axis values (text), 'seeds', per stat '<s>' (median over seeds),
    '<s>_min', '<s>_max', '<s>_mean', '<s>_ci_lo', '<s>_ci_hi', and the SUMS totals.
    per_seed=True gives one row per job instead (with 'seed')."""
    ms = [metrics.lookup(s) for s in stats]
    sums = [metrics.lookup(s) for s in SUMS]
    out = []
    for c in sw.configs():
        groups = [([j], p) for j, p in zip(c.jobs, c.params)] if per_seed else [(c.jobs, None)]
        for jobs, p in groups:
            # The axes, and the strategy structure columns that vary (Sweep.table_columns).
            r = {n: c.params[0].get(n, "") for n in sw.table_columns()}
            if per_seed:
                r["seed"] = p.get("seed", "")
            r["seeds"] = len(jobs)
            for m in ms:
                vals = [m(j) for j in jobs]
                med, lo, hi, _ = seed_spread(vals)
                mean, clo, chi = seed_ci(vals)
                r[m.name] = med
                r[m.name + "_min"], r[m.name + "_max"] = lo, hi
                r[m.name + "_mean"], r[m.name + "_ci_lo"], r[m.name + "_ci_hi"] = mean, clo, chi
            for m in sums:
                v = [m(j) for j in jobs]
                t = sum(x for x in v if math.isfinite(x))
                r[m.name] = int(t) if m.unit != "s" else t
            out.append(r)
    return out


def columns(sw, stats=DEFAULT_STATS, per_seed=False):
    cols = sw.table_columns() + (["seed"] if per_seed else []) + ["seeds"]
    for s in stats:
        n = metrics.lookup(s).name
        cols += [n, n + "_min", n + "_max", n + "_mean", n + "_ci_lo", n + "_ci_hi"]
    return cols + [metrics.lookup(s).name for s in SUMS]


def fmt(v, digits=3):
    """A number for a table: 3 significant digits, integers in full, NaN as 'n/a'."""
    if isinstance(v, str):
        return fmt_value(v)
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    if isinstance(v, int) or (float(v) == int(v) and abs(v) >= 1000):
        return "%d" % v
    av = abs(v)
    if av >= 10 ** digits:
        return "%.0f" % v
    return "%.*g" % (digits, v)


def fmt_ci(r, name):
    """'12.3 [11.9, 12.7]' (mean and 95 % t-interval), or the mean alone for one seed."""
    m, lo, hi = r[name + "_mean"], r[name + "_ci_lo"], r[name + "_ci_hi"]
    if not math.isfinite(lo):
        return fmt(m)
    return "%s [%s, %s]" % (fmt(m), fmt(lo), fmt(hi))
