#!/usr/bin/python3
"""Unit tests of analysis/rcplot: histogram statistics, re-binning, seed spread, the
docs/spec.md §9.3 tolerance rules and name canonicalisation.  Run:
  /usr/bin/python3 -m unittest discover -s tests/analysis -v
"""

import math
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "analysis"))

from rcplot import names, stats  # noqa: E402


def results_edges():
    """The results-layout edges: 10 ms to 100 s, 1 % log bins to >= 1e6 s, +inf."""
    lin = np.arange(10001) * 0.01
    log = 100.0 * 1.01 ** np.arange(1, 927)
    return np.concatenate([lin, log, [np.inf]])


def histogram(samples, edges):
    finite = edges[:-1].tolist() + [np.finfo(np.float64).max]
    h, _ = np.histogram(samples, bins=finite)
    return h


class HistQuantile(unittest.TestCase):
    def setUp(self):
        self.edges = results_edges()
        self.rng = np.random.default_rng(7)

    def check(self, x, tol_fn):
        h = histogram(x, self.edges)
        for q in (0.0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0):
            want = float(np.percentile(x, 100 * q))
            got = stats.hist_quantile(h, self.edges, q)
            self.assertLessEqual(abs(got - want), tol_fn(want),
                                 "q=%g: histogram %.6g vs numpy %.6g" % (q, got, want))

    def test_matches_numpy_in_linear_range(self):
        x = 1.4 + self.rng.gamma(2.0, 5.0, 50000)
        x = x[x < 100]
        self.check(x, lambda v: 0.0101)  # one 10 ms bin

    def test_matches_numpy_in_log_range(self):
        x = np.exp(self.rng.uniform(np.log(1.0), np.log(5e4), 20000))
        self.check(x, lambda v: 0.0101 if v < 100 else 0.0101 * v)  # one 1 % bin

    def test_lattice_samples(self):
        # paper mode: latencies are multiples of 10 ms, sitting on bin edges
        x = np.round(self.rng.uniform(1, 60, 10001), 2)
        self.check(x, lambda v: 0.0101)

    def test_bounds_contain_numpy_for_small_samples(self):
        # few samples: numpy interpolates across bins, so only the bracket is exact
        for n in (2, 3, 7, 31):
            x = np.round(self.rng.uniform(1, 30, n), 2)
            h = histogram(x, self.edges)
            for q in (0.01, 0.25, 0.5, 0.9, 0.99):
                want = float(np.percentile(x, 100 * q))
                lo, hi = stats.hist_quantile_bounds(h, self.edges, q)
                got = stats.hist_quantile(h, self.edges, q)
                self.assertTrue(lo - 1e-9 <= want <= hi + 1e-9, (n, q, lo, want, hi))
                self.assertTrue(lo - 1e-9 <= got <= hi + 1e-9, (n, q, lo, got, hi))

    def test_small_samples_and_degenerate(self):
        e = np.array([0.0, 1.0, 2.0, 3.0])
        self.assertEqual(stats.hist_quantile([0, 1, 0], e, 0.5), 1.5)
        self.assertTrue(math.isnan(stats.hist_quantile([0, 0, 0], e, 0.5)))
        self.assertEqual(stats.hist_quantile([0, 0, 4], np.array([0, 1, 2, np.inf]), 0.99), 2.0)
        with self.assertRaises(ValueError):
            stats.hist_quantile([1, 2], e, 0.5)
        with self.assertRaises(ValueError):
            stats.hist_quantile([1, 2, 3], e, 1.5)

    def test_mean(self):
        x = 1.4 + self.rng.gamma(2.0, 5.0, 30000)
        h = histogram(x, self.edges)
        self.assertAlmostEqual(stats.hist_mean(h, self.edges), float(np.mean(x)),
                               delta=0.01 * np.mean(x) * 0.01 + 0.006)


class Rebin(unittest.TestCase):
    def test_fifty_bins_match_numpy(self):
        edges = results_edges()
        rng = np.random.default_rng(3)
        x = rng.uniform(0, 150, 20000)
        # draw away from the coarse edges, where float rounding could flip a sample
        x = x[np.abs(x / 2.0 - np.round(x / 2.0)) > 1e-6]
        coarse = np.linspace(0, 100, 51)
        got = stats.rebin(histogram(x, edges), edges, coarse)
        want, _ = np.histogram(x[x < 100], bins=coarse)
        np.testing.assert_array_equal(got, want)
        self.assertEqual(got.sum(), (x < 100).sum())

    def test_edges_must_coincide(self):
        with self.assertRaises(ValueError):
            stats.rebin([1, 1, 1], [0.0, 1.0, 2.0, 3.0], [0.0, 1.5, 3.0])


class SeedSpread(unittest.TestCase):
    def test_median_range(self):
        self.assertEqual(stats.seed_spread([3.0, 1.0, 2.0, float("nan")]), (2.0, 1.0, 3.0, 3))
        m, lo, hi, n = stats.seed_spread([])
        self.assertTrue(math.isnan(m) and n == 0)


class SeedCI(unittest.TestCase):
    def test_t_interval_matches_the_formula(self):
        v = [10.0, 12.0, 11.0, 13.0]
        m, lo, hi = stats.seed_ci(v)
        sd = np.std(v, ddof=1)
        self.assertAlmostEqual(m, 11.5)
        self.assertAlmostEqual(hi - m, 3.182 * sd / 2.0, places=6)
        self.assertAlmostEqual(m - lo, hi - m, places=9)

    def test_covers_the_true_mean_about_95_percent_of_the_time(self):
        rng = np.random.default_rng(7)
        hits = 0
        for _ in range(2000):
            _, lo, hi = stats.seed_ci(list(rng.normal(5.0, 2.0, size=5)))
            hits += lo <= 5.0 <= hi
        self.assertTrue(0.93 < hits / 2000 < 0.97, hits / 2000)

    def test_one_value_has_no_interval(self):
        m, lo, hi = stats.seed_ci([3.0, float("nan")])
        self.assertEqual(m, 3.0)
        self.assertTrue(math.isnan(lo) and math.isnan(hi))


class Tolerance(unittest.TestCase):
    def flag(self, fig, sched, stat, paper, ours):
        return stats.within(ours, paper, stats.tolerance_rule(fig, sched, stat, paper))

    def test_online_median_three_percent_or_03s(self):
        self.assertTrue(self.flag(5, "online", "median", 34.5, 35.5))    # +2.9 %
        self.assertFalse(self.flag(5, "online", "median", 34.5, 35.6))   # +3.2 %
        self.assertTrue(self.flag(5, "online", "median", 5.1, 5.39))     # 0.29 s
        self.assertFalse(self.flag(5, "online", "mean", 5.1, 5.45))

    def test_online_p99_five_percent(self):
        self.assertTrue(self.flag(5, "online", "p99", 75.6, 79.3))
        self.assertFalse(self.flag(5, "online", "p99", 75.6, 79.5))

    def test_offline_rules(self):
        self.assertTrue(self.flag(6, "gen_os10", "median", 33.2, 34.8))   # +4.8 %
        self.assertFalse(self.flag(6, "gen_os10", "median", 33.2, 35.0))
        self.assertTrue(self.flag(6, "gen_os10", "p99", 30888, 45000))   # ×1.46
        self.assertFalse(self.flag(6, "gen_os10", "p99", 30888, 47000))
        self.assertTrue(self.flag(6, "gen_os10", "median", 1337, 900))   # >100 s: ×1.5
        self.assertTrue(self.flag(16, "gen_os15", "mean", 13.9, 9.3))
        self.assertFalse(self.flag(16, "gen_os15", "mean", 13.9, 9.2))

    def test_heatmap_rules(self):
        self.assertTrue(self.flag(9, "gen_os15", "mean", 19, 20.9))
        self.assertFalse(self.flag(9, "gen_os15", "mean", 19, 21.0))
        self.assertTrue(self.flag(14, "online", "mean", 4, 4.45))        # rounding half-unit
        self.assertTrue(self.flag(14, "gen_os10", "mean", 4576, 3100))   # ×1.48
        self.assertFalse(self.flag(14, "gen_os10", "mean", 4576, 3000))

    def test_nan_is_out(self):
        self.assertFalse(self.flag(5, "online", "median", 10, float("nan")))


class Names(unittest.TestCase):
    def test_strategy_grammars(self):
        self.assertEqual(names.strategy("unicast"), "unicast")
        self.assertEqual(names.strategy("rollercoaster-k2-p2-notimeout"), "rc-k2-p2")
        self.assertEqual(names.strategy("rollercoaster-k1-p1-timeout10x-dropoffline"),
                         "rc-k1-p1-ft-dropoffline")
        self.assertEqual(names.strategy("rollercoaster-k2-p2-timeout15x"), "rc-k2-p2-ft1.5")
        self.assertEqual(names.strategy("rc-k16-p16-ft-dropoffline"), "rc-k16-p16-ft-dropoffline")
        self.assertEqual(names.strategy("rc-k2-p2-ft1.0"), "rc-k2-p2-ft")
        self.assertEqual(names.strategy(b"rc-k2-p2"), "rc-k2-p2")
        with self.assertRaises(ValueError):
            names.strategy("gossip")

    def test_trace_names(self):
        self.assertEqual(names.trace("online"), "online")
        self.assertEqual(names.trace("os15"), "gen_os15")
        self.assertEqual(names.trace("/x/schedules_gen_os20.txt.gz"), "gen_os20")
        self.assertEqual(names.trace("gen_os10"), "gen_os10")


def layout2_edges():
    """The results layout 2 bucket edges (docs/results-layout.md): 0, then 1024 buckets
    per octave from 2^-10 to 2^22 s, then +inf."""
    e = [0.0]
    for k in range(-10, 22):
        e.extend(math.ldexp(1024 + j, k - 10) for j in range(1024))
    e.extend([math.ldexp(1, 22), math.inf])
    return np.array(e)


class Layout2Accuracy(unittest.TestCase):
    def test_quantiles_within_a_tenth_of_a_percent(self):
        edges = layout2_edges()
        self.assertEqual(len(edges), 32771)
        rng = np.random.default_rng(5)
        # log-normal with p1 near 1 s and p99 near 1e4 s
        v = 10.0 ** rng.normal(2.0, 2.0 / 2.326, 200000)
        counts, _ = np.histogram(v, bins=edges)
        for q in (0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 0.999):
            exact = float(np.percentile(v, 100 * q))
            est = stats.hist_quantile(counts, edges, q)
            self.assertLessEqual(abs(est - exact) / exact, 1e-3, (q, est, exact))
        self.assertTrue(0.8 < np.percentile(v, 1) < 1.25)
        self.assertTrue(8e3 < np.percentile(v, 99) < 1.25e4)


if __name__ == "__main__":
    unittest.main()
