"""stats: statistics helpers shared by the figures and the comparison table.

- Histogram statistics on the results' fixed-edge latency histogram
  (docs/results-layout.md: 10 ms bins to 100 s, then 1 % log bins, then an overflow
  bin whose upper edge is +inf): quantile, mean, and exact re-binning onto coarser
  edges that coincide with fine edges (the 50 x 2 s bins of Figs 15/16).
- Aggregation over seeds: every statistic is computed per seed from the exact
  summary vector, then summarised across seeds by its median with the min-max range
  (the "seed spread").  The median is robust to a single seed that caught a
  multi-hour outlier, which dominate means in the offline runs (docs/spec.md §9.3).
- Intervals over seeds that stay inside the statistic's range (seed_interval: the
  t-interval on the log scale for positive statistics, a fixed-seed bootstrap for the
  others, the min-max seed range below MIN_SEEDS_CI seeds; docs/analysis.md).  seed_ci,
  the plain t-interval, is kept for the paper comparison (tools/figures.py, tools/paper_check.py), whose
  committed figures must redraw byte for byte.
- Tolerance rules of docs/spec.md §9.3 used to flag the comparison table.

Pure numpy; no I/O.  Bad input (mismatched lengths, edges that do not line up) raises
ValueError.
"""

import math

import numpy as np

# The statistic names of paper-values.csv, mapped to the summary vector's names.
PAPER_STAT = {
    "p1": "p1",
    "q1": "p25",
    "median": "p50",
    "q3": "p75",
    "p90": "p90",
    "p99": "p99",
    "mean": "mean",
}


def _hist_setup(counts, edges, q):
    counts = np.asarray(counts, dtype=np.float64)
    edges = np.asarray(edges, dtype=np.float64)
    if edges.shape[0] != counts.shape[0] + 1:
        raise ValueError("edges must have len(counts)+1 entries")
    if not 0.0 <= q <= 1.0:
        raise ValueError("quantile %r outside [0, 1]" % q)
    return counts, edges, np.cumsum(counts)


def _bin_of_rank(cum, k):
    """Bin holding the sample of 0-based rank k."""
    return min(int(np.searchsorted(cum, k, side="right")), cum.shape[0] - 1)


def _sample_estimate(counts, edges, cum, k):
    """Value of the sample of rank k, taking a bin's samples as evenly spread in it."""
    i = _bin_of_rank(cum, k)
    lo, hi = edges[i], edges[i + 1]
    if not math.isfinite(hi):
        return float(lo)
    frac = (k - (cum[i] - counts[i]) + 0.5) / counts[i]
    return float(lo + min(max(frac, 0.0), 1.0) * (hi - lo))


def hist_quantile(counts, edges, q):
    """Quantile q in [0, 1] of the samples behind a histogram.

    Follows numpy.percentile's linear rule on ranks: the target rank is r = q*(n-1)
    (0-based) and the answer interpolates between the samples of ranks floor(r) and
    floor(r)+1, each estimated as evenly spread inside its bin.  So the answer is
    within one bin width of numpy's on the raw samples when both sit in one bin, and
    always inside hist_quantile_bounds().  The overflow bin (upper edge +inf) answers
    with its lower edge.
    """
    counts, edges, cum = _hist_setup(counts, edges, q)
    n = cum[-1] if cum.shape[0] else 0
    if n <= 0:
        return math.nan
    r = q * (n - 1)
    f = math.floor(r)
    v0 = _sample_estimate(counts, edges, cum, f)
    if r == f:
        return v0
    v1 = _sample_estimate(counts, edges, cum, f + 1)
    return v0 + (r - f) * (v1 - v0)


def hist_quantile_bounds(counts, edges, q):
    """(lo, hi) that surely contain numpy.percentile's answer on the raw samples: from
    the lower edge of the bin of rank floor(r) to the upper edge of the bin of rank
    ceil(r).  Used to check a summary against its histogram exactly."""
    counts, edges, cum = _hist_setup(counts, edges, q)
    n = cum[-1] if cum.shape[0] else 0
    if n <= 0:
        return (math.nan, math.nan)
    r = q * (n - 1)
    return (float(edges[_bin_of_rank(cum, math.floor(r))]),
            float(edges[_bin_of_rank(cum, math.ceil(r)) + 1]))


def hist_mean(counts, edges):
    """Mean from bin centres (overflow counted at its lower edge)."""
    counts = np.asarray(counts, dtype=np.float64)
    edges = np.asarray(edges, dtype=np.float64)
    if edges.shape[0] != counts.shape[0] + 1:
        raise ValueError("edges must have len(counts)+1 entries")
    n = counts.sum()
    if n <= 0:
        return math.nan
    hi = np.where(np.isfinite(edges[1:]), edges[1:], edges[:-1])
    mid = 0.5 * (edges[:-1] + hi)
    return float((counts * mid).sum() / n)


def rebin(counts, edges, new_edges, tol=1e-9):
    """Sums fine bins into coarser bins whose edges are a subset of the fine edges.

    Counts outside [new_edges[0], new_edges[-1]) are dropped.  Raises ValueError when
    a new edge does not coincide with a fine edge (which would need splitting a bin).
    """
    counts = np.asarray(counts)
    edges = np.asarray(edges, dtype=np.float64)
    new_edges = np.asarray(new_edges, dtype=np.float64)
    idx = np.searchsorted(edges, new_edges - tol)
    if np.any(idx >= edges.shape[0]) or np.any(np.abs(edges[idx] - new_edges) > tol * max(
            1.0, float(np.max(np.abs(new_edges))))):
        raise ValueError("new edges must coincide with histogram edges")
    cum = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
    return np.diff(cum[idx])


def seed_spread(values):
    """(median, min, max, n) over the finite per-seed values; NaNs when none."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=np.float64)
    if v.size == 0:
        return (math.nan, math.nan, math.nan, 0)
    return (float(np.median(v)), float(v.min()), float(v.max()), int(v.size))


# Two-sided 95 % Student t quantiles for 1..30 degrees of freedom (then the normal value).
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def seed_ci(values):
    """(mean, lo, hi) of a t-based 95 % confidence interval for the mean over seeds of a
    per-seed statistic; NaNs below two finite values."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=np.float64)
    if v.size < 2:
        m = float(v[0]) if v.size else math.nan
        return (m, math.nan, math.nan)
    t = _T95[v.size - 2] if v.size - 1 <= len(_T95) else 1.960
    half = t * float(v.std(ddof=1)) / math.sqrt(v.size)
    m = float(v.mean())
    return (m, m - half, m + half)


# --- intervals over seeds that respect the statistic (docs/analysis.md, "Intervals") -------

# Below this many seeds no interval is computed: the seed range (min-max) is shown instead
# and labelled as such.  With 3 seeds a 95 % t-interval multiplies the spread by 4.3/sqrt(3)
# and a bootstrap has only 10 distinct resamples, so neither says more than the range.
MIN_SEEDS_CI = 5
# The bootstrap's own random stream: a fixed seed, so a table is the same on every run.
BOOT_SEED = 20261205
BOOT_N = 4000
# Above this many seeds the bootstrap of the mean is the normal interval of the mean up to
# its own Monte Carlo noise (the central limit theorem holds long before), and it would
# cost BOOT_N x seeds draws (10^5 seeds: 3.2 GB): the normal interval is used instead.
BOOT_MAX_SEEDS = 1000

RANGE, LOG_T, BOOT, NORMAL = "seed range", "log-t 95 %", "bootstrap 95 %", "normal 95 %"


def _finite(values):
    return np.asarray([x for x in values if x is not None and math.isfinite(x)],
                      dtype=np.float64)


def t95(df):
    """Two-sided 95 % Student t quantile for df degrees of freedom (normal beyond 30)."""
    return _T95[df - 1] if 1 <= df <= len(_T95) else 1.960


def log_t_interval(values, tq=None):
    """(geometric mean, lo, hi): the t-interval of the mean of log(values), mapped back.

    For a positive statistic whose spread over seeds is multiplicative (a latency
    quantile: one seed that caught a long offline period scales it, it cannot drive it
    below zero) this is the classical interval on the log scale: exact when the log of
    the per-seed value is normal, always inside (0, inf).  It covers the geometric mean
    over seeds, which equals the median seed's value when the log is symmetric.  `tq`
    overrides the t quantile (tests use it to check that a wrong level is caught).
    NaNs below two values or with a value <= 0."""
    v = _finite(values)
    if v.size < 2 or np.any(v <= 0):
        return (math.nan, math.nan, math.nan)
    lv = np.log(v)
    m = float(lv.mean())
    half = (t95(v.size - 1) if tq is None else tq) * float(lv.std(ddof=1)) / math.sqrt(v.size)
    return (math.exp(m), math.exp(m - half), math.exp(m + half))


def bootstrap_interval(values, n_boot=BOOT_N, seed=BOOT_SEED):
    """(mean, lo, hi): percentile bootstrap of the mean over seeds, resampling seeds.

    Deterministic (its own generator with a fixed seed).  The interval lies inside
    [min, max] of the values, so it never leaves the statistic's range (a fraction stays in
    [0, 1], a count at or above 0), but it is too narrow with few seeds (measured coverage
    of a 95 % interval on lognormal data: 84 % with 5 seeds, 89 % with 10; docs/analysis.md)."""
    v = _finite(values)
    if v.size < 2:
        return (float(v[0]) if v.size else math.nan, math.nan, math.nan)
    rng = np.random.default_rng(seed)
    means = v[rng.integers(0, v.size, size=(n_boot, v.size))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return (float(v.mean()), float(lo), float(hi))


def seed_interval(values, positive=False):
    """(estimate, lo, hi, n, method) summarising a per-seed statistic over seeds.

    - fewer than MIN_SEEDS_CI finite values: method RANGE, lo/hi are the min and max over
      seeds (no interval is claimed);
    - positive=True and every value > 0 (latencies, per-delivery costs, rates): LOG_T,
      estimate = geometric mean (log_t_interval);
    - otherwise (fractions, counts that can be 0, bits): BOOT, estimate = mean
      (bootstrap_interval); above BOOT_MAX_SEEDS values NORMAL, the normal interval of
      the mean clipped to [min, max].
    The estimate with RANGE follows the same rule (geometric mean or mean), so a row's
    centre does not change meaning when seeds are added."""
    v = _finite(values)
    n = int(v.size)
    if n == 0:
        return (math.nan, math.nan, math.nan, 0, RANGE)
    log = positive and bool(np.all(v > 0))
    if n < MIN_SEEDS_CI:
        est = float(np.exp(np.log(v).mean())) if log else float(v.mean())
        return (est, float(v.min()), float(v.max()), n, RANGE)
    if log:
        return log_t_interval(v) + (n, LOG_T)
    if n > BOOT_MAX_SEEDS:
        m = float(v.mean())
        half = 1.960 * float(v.std(ddof=1)) / math.sqrt(n)
        # inside [min, max] like the bootstrap's, so a fraction stays a fraction
        return (m, max(m - half, float(v.min())), min(m + half, float(v.max())), n, NORMAL)
    return bootstrap_interval(v) + (n, BOOT)


# --- docs/spec.md §9.3 tolerances ---------------------------------------------------------------

HEATMAP_FIGURES = (9, 14)


def tolerance_rule(figure, schedule, stat, paper_value):
    """The §9.3 rule for one paper number, as (kind, rel, abs_s, factor, text).

    kind is "rel" (|ours-paper| <= max(rel*paper, abs_s)) or "factor" (ratio within
    [1/factor, factor]).  Two additions to the letter of §9.3, both documented in
    docs/figures.md: read-off quantiles in online runs get the ±0.3 s floor for p1/p99
    too (pixel precision of Fig 5 is ±0.15 s, tighter than 5 % of 1.7 s), and heatmap
    cells, printed as integers, get their ±0.5 s rounding.
    """
    figure = int(figure)
    if figure in HEATMAP_FIGURES:
        if paper_value <= 100:
            return ("rel", 0.10, 0.5, None, "±10% (heatmap ≤100 s)")
        return ("factor", None, None, 1.5, "×1.5 (heatmap >100 s)")
    if schedule == "online":
        if stat in ("p1", "p99"):
            return ("rel", 0.05, 0.3, None, "±5% or ±0.3 s (online p1/p99)")
        return ("rel", 0.03, 0.3, None, "±3% or ±0.3 s (online)")
    if stat in ("p99", "mean") or paper_value >= 100:
        return ("factor", None, None, 1.5, "×1.5 (offline tail/mean)")
    return ("rel", 0.05, 0.3, None, "±5% or ±0.3 s (offline <100 s)")


def within(ours, paper_value, rule):
    """True when `ours` satisfies the rule from tolerance_rule()."""
    kind, rel, abs_s, factor, _ = rule
    if ours is None or not math.isfinite(ours):
        return False
    if kind == "rel":
        return abs(ours - paper_value) <= max(rel * abs(paper_value), abs_s)
    if paper_value <= 0 or ours <= 0:
        return ours == paper_value
    ratio = ours / paper_value
    return 1.0 / factor <= ratio <= factor
