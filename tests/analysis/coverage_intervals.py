#!/usr/bin/python3
"""Coverage study of the intervals over seeds (analysis/rcplot/stats.py, docs/analysis.md).

A "seed" here is a run: N latencies drawn from a known heavy-tailed distribution, of which
one statistic is taken (p99, mean), as rcsim takes it from a job's summary vector.  A seed
may also carry a multiplicative seed effect (exp(tau Z): one run caught a long offline
period, another did not), which makes the per-seed statistic itself skewed.  Over R
repetitions of S seeds, the 95 % interval of stats.seed_interval must cover the truth --
the statistic of the typical (median) seed, exp(mu + sigma z_q) for a lognormal quantile
-- in 95 +- 3 % of the repetitions.

The criterion can fail, and the test shows it: the plain t-interval (stats.seed_ci), the
log-t interval at a 90 % level, and the bootstrap with 5 seeds all land outside 92-98 %
on the same data.  Paired ratios of p99s (rcplot/baseline.py, `rcsim compare`) are checked
the same way.  Deterministic (fixed generator seeds); about 20 s on one core.

`--table` prints every scenario's coverage for the three intervals.
Registered as its own ctest (tests/analysis.cmake: unit_analysis_coverage), not
discovered by unit_analysis_stats (the file name does not start with test_).  Run:
  /usr/bin/python3 tests/analysis/coverage_intervals.py -v
"""

import math
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "analysis"))

from rcplot import stats  # noqa: E402

R = 1000          # repetitions per scenario: a coverage's standard error is 0.7 %
N = 1000          # latencies per seed
LO, HI = 0.92, 0.98
Z99 = 2.3263478740408408


def per_seed(rng, draw, S, tau, q, reps=R):
    """(reps, S) array of per-seed statistics: q in (0, 1) a quantile (numpy's
    median-unbiased rule, so a seed's sample quantile is centred on the true one), None
    the mean.  The seed effect multiplies every latency of a seed by exp(tau Z)."""
    out = np.empty((reps, S))
    chunk = 200
    for a in range(0, reps, chunk):
        b = min(reps, a + chunk)
        x = draw(rng, (b - a, S, N)) * np.exp(tau * rng.standard_normal((b - a, S, 1)))
        out[a:b] = x.mean(axis=-1) if q is None else np.percentile(
            x, 100 * q, axis=-1, method="median_unbiased")
    return out


def paired_ratio(rng, draw, S, tau, rho, reps=R):
    """(reps, S) per-seed ratios of p99s: a strategy whose latencies are rho times the
    baseline's, both sides of a seed sharing its effect exp(tau Z) (what pairing by seed
    cancels, rcplot/baseline.py).  The truth is rho."""
    out = np.empty((reps, S))
    for a in range(0, reps, 200):
        b = min(reps, a + 200)
        eff = np.exp(tau * rng.standard_normal((b - a, S, 1)))
        base = np.percentile(draw(rng, (b - a, S, N)) * eff, 99, axis=-1,
                             method="median_unbiased")
        strat = np.percentile(rho * draw(rng, (b - a, S, N)) * eff, 99, axis=-1,
                              method="median_unbiased")
        out[a:b] = strat / base
    return out


def lognormal(mu, sigma):
    return lambda rng, shape: np.exp(mu + sigma * rng.standard_normal(shape))


def pareto(alpha):
    # numpy's pareto is Lomax; + 1 gives the classical Pareto with x_m = 1
    return lambda rng, shape: rng.pareto(alpha, shape) + 1.0


def coverage(samples, truth, interval):
    hit = 0
    for row in samples:
        lo, hi = interval(row)
        hit += lo <= truth <= hi
    return hit / samples.shape[0]


def ours(row):
    est, lo, hi, n, how = stats.seed_interval(row, positive=True)
    assert how == stats.LOG_T, how
    return lo, hi


class Coverage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = np.random.default_rng(30)
        mu, sigma = 1.0, 1.0
        ln = lognormal(mu, sigma)
        cls.truth_p99 = math.exp(mu + sigma * Z99)
        cls.truth_mean = math.exp(mu + sigma ** 2 / 2)
        cls.data = {}
        for tau in (0.0, 0.8):
            for S in (5, 20):
                cls.data[("p99", tau, S)] = per_seed(rng, ln, S, tau, 0.99)
                cls.data[("mean", tau, S)] = per_seed(rng, ln, S, tau, None)
        cls.alpha = 2.5
        cls.data[("pareto-p99", 0.5, 8)] = per_seed(rng, pareto(cls.alpha), 8, 0.5, 0.99)
        cls.rho = 0.3
        cls.data[("ratio-p99", 0.8, 6)] = paired_ratio(rng, ln, 6, 0.8, cls.rho)

    def check(self, key, truth):
        c = coverage(self.data[key], truth, ours)
        self.assertTrue(LO <= c <= HI, "%s: 95 %% log-t interval covers the truth %.3g in "
                        "%.1f %% of %d repetitions (want 92-98 %%)" % (key, truth, 100 * c, R))
        return c

    def test_lognormal_p99(self):
        for tau in (0.0, 0.8):
            for S in (5, 20):
                self.check(("p99", tau, S), self.truth_p99)

    def test_lognormal_mean(self):
        for tau in (0.0, 0.8):
            for S in (5, 20):
                self.check(("mean", tau, S), self.truth_mean)

    def test_pareto_p99(self):
        self.check(("pareto-p99", 0.5, 8), 0.01 ** (-1.0 / self.alpha))

    def test_paired_ratio_p99(self):
        self.check(("ratio-p99", 0.8, 6), self.rho)

    def test_positive(self):
        """No interval of a positive statistic reaches 0; the plain t-interval does."""
        d = self.data[("p99", 0.8, 5)]
        lows = [stats.seed_interval(r, positive=True)[1] for r in d]
        self.assertGreater(min(lows), 0.0)
        self.assertTrue(any(stats.seed_ci(r)[1] < 0 for r in d),
                        "the plain t-interval was expected to go below 0 on this data")

    def test_criterion_can_fail(self):
        """The same check rejects intervals known to be wrong on the same data."""
        plain = coverage(self.data[("p99", 0.8, 20)], self.truth_p99,
                         lambda r: stats.seed_ci(r)[1:])
        self.assertFalse(LO <= plain <= HI, "plain t-interval: %.3f" % plain)
        z90 = coverage(self.data[("p99", 0.0, 20)], self.truth_p99,
                       lambda r: stats.log_t_interval(r, tq=1.645)[1:])
        self.assertFalse(LO <= z90 <= HI, "log-t at a 90 %% level: %.3f" % z90)
        boot = coverage(self.data[("p99", 0.0, 5)], self.truth_p99,
                        lambda r: stats.bootstrap_interval(r, n_boot=500)[1:])
        self.assertFalse(LO <= boot <= HI, "bootstrap with 5 seeds: %.3f" % boot)

    def test_few_seeds_range(self):
        v = [3.0, 40.0, 7.0]
        est, lo, hi, n, how = stats.seed_interval(v, positive=True)
        self.assertEqual((lo, hi, n, how), (3.0, 40.0, 3, stats.RANGE))
        self.assertAlmostEqual(est, (3.0 * 40.0 * 7.0) ** (1 / 3))
        est, lo, hi, n, how = stats.seed_interval([0.0, 1.0, 0.5, 0.5, 1.0], positive=False)
        self.assertEqual(how, stats.BOOT)
        self.assertTrue(0.0 <= lo <= est <= hi <= 1.0)
        # deterministic: the bootstrap has its own fixed-seed generator
        self.assertEqual(stats.seed_interval([0.2, 0.9, 0.4, 0.7, 0.1, 0.3]),
                         stats.seed_interval([0.2, 0.9, 0.4, 0.7, 0.1, 0.3]))


def table():
    """Prints each scenario's coverage for ours, the plain t-interval and the bootstrap
    (the table of docs/analysis.md)."""
    Coverage.setUpClass()
    c = Coverage
    for key, d in c.data.items():
        truth = c.truth_mean if key[0] == "mean" else (
            0.01 ** (-1.0 / c.alpha) if key[0].startswith("pareto") else
            c.rho if key[0].startswith("ratio") else c.truth_p99)
        print("%-12s tau=%.1f S=%2d  log-t %.3f  plain-t %.3f  bootstrap %.3f" % (
            key[0], key[1], key[2], coverage(d, truth, ours),
            coverage(d, truth, lambda r: stats.seed_ci(r)[1:]),
            coverage(d, truth, lambda r: stats.bootstrap_interval(r, n_boot=500)[1:])))


if __name__ == "__main__":
    if sys.argv[1:] == ["--table"]:
        table()
    else:
        unittest.main()
