"""table: one row per configuration of a sweep, with its statistics over seeds.

Rows come in the sweep's numeric value order (sweep.Sweep.configs) and name each axis in
its own column, in full.  For every statistic (metrics.lookup names) a row holds the
per-seed values summarised two ways: the median with min and max over seeds (robust;
the text table of summarize.py) and an estimate with its 95 % interval that stays inside
the statistic's range (stats.seed_interval; the report): the geometric mean with the
log-scale t-interval for positive statistics, the mean with a bootstrap interval for the
others, and below stats.MIN_SEEDS_CI seeds the min-max seed range instead, labelled so.  Counts (deliveries, undelivered, wall time) are also summed over seeds.
"""

import csv
import math

from . import metrics
from .stats import MIN_SEEDS_CI, RANGE, seed_interval, seed_spread
from .sweep import UsageError, fmt_value

DEFAULT_STATS = ("mean", "p1", "median", "p90", "p99", "delivery_ratio",
                 "packets_per_delivery")
SUMS = ("deliveries", "undelivered", "wall_s")

# Column groups beyond latency (--columns takes their names as well as any statistic):
# a sweep whose jobs measured anonymity shows ANONYMITY and BANDWIDTH by default, one run
# with --cover full UNOBSERVABILITY too.
ANONYMITY = ("anon_entropy", "anon_min_entropy", "anon_sender_entropy")
BANDWIDTH = ("bw_bytes_per_client_s", "bw_payload_pps", "bw_cover_pps")
UNOBSERVABILITY = ("unobs_ks", "unobs_active_rate_pps", "unobs_idle_rate_pps")
GROUPS = {"default": None, "latency": ("mean", "p1", "median", "p90", "p99"),
          "anonymity": ANONYMITY, "bandwidth": BANDWIDTH, "unobservability": UNOBSERVABILITY,
          "delivery": ("delivery_ratio", "packets_per_delivery")}


def parse_columns(text, base):
    """The statistics a --columns value names, in its order: statistic names (metrics.lookup:
    aliases, counter:NAME, a counter's column name) and the groups of GROUPS ('default' is
    `base`), comma-separated.  UsageError on an unknown name (metrics.lookup says which)."""
    out = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        g = GROUPS.get(item.lower())
        names = (base if g is None else g) if item.lower() in GROUPS else (item,)
        for n in names:
            name = metrics.lookup(n).name
            if name not in out:
                out.append(name)
    if not out:
        raise UsageError("--columns %r names no statistic" % text)
    return out


def candidates(base):
    """base and the optional groups, each name once: what to compute before choosing."""
    return list(dict.fromkeys(list(base) + list(ANONYMITY) + list(BANDWIDTH) +
                              list(UNOBSERVABILITY)))


def shown(rows, base):
    """The statistics a table shows by default: base, then ANONYMITY and BANDWIDTH when
    some job measured anonymity, then UNOBSERVABILITY when some job measured it; within a
    group only the statistics with a value somewhere (sender entropy needs <= 1024 users).
    rows must hold every name of candidates(base)."""
    def has(name):
        return any(math.isfinite(r.get(name + "_est", math.nan)) for r in rows)
    out = list(base)
    if has(ANONYMITY[0]):
        out += [s for s in ANONYMITY + BANDWIDTH if has(s)]
    if has(UNOBSERVABILITY[0]):
        out += [s for s in UNOBSERVABILITY if has(s)]
    return list(dict.fromkeys(out))


def write_csv(f, fieldnames, rows):
    """Writes rows (dicts) to the open file f as CSV with a header, full precision; a
    value that is not a finite number (NaN: no data) is an empty cell, not "nan"."""
    w = csv.DictWriter(f, fieldnames=fieldnames, extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if isinstance(v, float) and not math.isfinite(v) else v)
                    for k, v in r.items()})


def rows(sw, stats=DEFAULT_STATS, per_seed=False):
    """[dict] with the axis values (text), 'seeds', per stat '<s>' (median over seeds),
    '<s>_min', '<s>_max', '<s>_mean' (arithmetic mean), '<s>_est' (the interval's centre),
    '<s>_ci_lo', '<s>_ci_hi' (the interval, or the seed range), '<s>_interval' (its kind:
    stats.LOG_T, BOOT or RANGE), and the SUMS totals.
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
                est, clo, chi, n, how = seed_interval(vals, positive=m.positive)
                fin = [v for v in vals if math.isfinite(v)]
                r[m.name] = med
                r[m.name + "_min"], r[m.name + "_max"] = lo, hi
                r[m.name + "_mean"] = sum(fin) / len(fin) if fin else math.nan
                r[m.name + "_est"], r[m.name + "_ci_lo"], r[m.name + "_ci_hi"] = est, clo, chi
                r[m.name + "_interval"] = how
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
        cols += [n, n + "_min", n + "_max", n + "_mean", n + "_est", n + "_ci_lo", n + "_ci_hi",
                 n + "_interval"]
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
    """'12.3 [11.9, 12.7]' (estimate and 95 % interval), '12.3 (9.8–15.1)' (estimate and
    the min–max over seeds, fewer than MIN_SEEDS_CI seeds), or the value alone for one
    seed."""
    m, lo, hi = r[name + "_est"], r[name + "_ci_lo"], r[name + "_ci_hi"]
    if not (math.isfinite(lo) and math.isfinite(hi)) or (r.get("seeds", 2) <= 1):
        return fmt(m)
    if r[name + "_interval"] == RANGE:
        return "%s (%s–%s)" % (fmt(m), fmt(lo), fmt(hi))
    return "%s [%s, %s]" % (fmt(m), fmt(lo), fmt(hi))


def split_ci(r, name):
    """(estimate text, interval text or None): fmt_ci's two parts, for a table that puts
    the interval on a line of its own (the HTML report).  The same centre and the same
    brackets as fmt_ci: '[lo, hi]' for a 95 % interval, '(lo–hi)' for the seed range."""
    m, lo, hi = r[name + "_est"], r[name + "_ci_lo"], r[name + "_ci_hi"]
    if not (math.isfinite(lo) and math.isfinite(hi)) or (r.get("seeds", 2) <= 1):
        return fmt(m), None
    if r[name + "_interval"] == RANGE:
        return fmt(m), "(%s–%s)" % (fmt(lo), fmt(hi))
    return fmt(m), "[%s, %s]" % (fmt(lo), fmt(hi))


def interval_note(rows, stats):
    """One sentence on how the table's brackets were made, naming the seed counts."""
    kinds = {r[metrics.lookup(s).name + "_interval"] for r in rows for s in stats}
    parts = []
    if any(k != RANGE for k in kinds):
        parts.append("in brackets, the 95 %% interval over seeds (%s)" % "; ".join(
            k for k in ("log-t 95 %: latencies and other positive statistics, around the "
                        "geometric mean", "bootstrap 95 %: fractions and counts, around "
                        "the mean") if k.split(":")[0] in kinds))
    if RANGE in kinds:
        parts.append("in parentheses, the min–max over seeds: with fewer than %d seeds no "
                     "interval is given, only the range (centre: geometric mean for "
                     "positive statistics, else the mean)" % MIN_SEEDS_CI)
    return "; ".join(parts)
