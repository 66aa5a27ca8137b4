#!/usr/bin/python3
"""Unit tests of the deployment study's reduction over seeds (analysis/rcplot/deployment.py,
docs/deployment.md): the Student t 95 % interval of the mean over seeds (n - 1 degrees of
freedom) that its entropy, min-entropy, sender entropy, ε, latency and bandwidth get from
two seeds on, with the seed range beside it, in the CSV and the tables; the Welch interval of
the gain against the dedicated network.  A tiny synthetic table stands in for the results
(the interface of rcplot.results.Table); tests/e2e/mix_capacity.sh draws the set from real
files.  Run:
  /usr/bin/python3 -m unittest discover -s tests/analysis -p 'test_deployment.py' -v
"""

import csv
import math
import os
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "analysis"))

from rcplot import deployment  # noqa: E402


class FakeTable:
    """Rows of dicts as the columns rcplot.results.Table gives."""

    def __init__(self, rows):
        self.rows = rows
        self.cols = sorted({k for r in rows for k in r})

    def __len__(self):
        return len(self.rows)

    def names(self):
        return list(self.cols)

    def __getitem__(self, name):
        vals = [r.get(name, math.nan) for r in self.rows]
        if name == "strategy":
            return np.array(vals, dtype=object)
        return np.array(vals, dtype=np.float64)


def job(users, seed, entropy, latency, sized=False, strategy="unicast"):
    return {"users": users, "seed": seed, "strategy": strategy, "anonymity": 1,
            "duration": 40.0, "mixes_per_layer": 0 if sized else 3,
            "mix_capacity": 300 if sized else 0,
            "counter_anon_entropy_mean_bits": entropy,
            "counter_anon_min_entropy_mean_bits": entropy - 1,
            "counter_anon_sender_entropy_mean_bits": entropy - 4,
            "counter_anon_eps_mean": 0.3, "counter_anon_delta": 0.0,
            "online_mean": latency, "counter_bw_bytes_per_client_s": 12288.0,
            "counter_bw_mix_load_mean_pps": 262.0}


# Three seeds of entropy 10, 11, 12 bits: mean 11, sd 1, so the half-width is
# t(0.975, 2) / sqrt(3) = 4.303 / 1.7321 = 2.4843 (n - 1 = 2 degrees of freedom; with n = 3
# degrees of freedom it would be 3.182 / 1.7321 = 1.8371, with the normal 1.960 1.1316).
# Two seeds of latency 4 and 6 s: mean 5, sd sqrt(2), half-width 12.706 * sqrt(2) / sqrt(2).
TABLE = ([job(1000, s, e, 30.0) for s, e in ((1, 10.0), (2, 11.0), (3, 12.0))] +
         [job(128, s, e, lat) for s, e, lat in ((1, 7.0, 4.0), (2, 7.5, 6.0))] +
         [job(10000, 2, 14.0, 20.0)])


class DeploymentIntervals(unittest.TestCase):
    def setUp(self):
        self.rows = deployment.configurations(FakeTable(TABLE))
        self.k3 = (1000, "unicast", False, True)
        self.k2 = (128, "unicast", False, True)
        self.k1 = (10000, "unicast", False, True)

    def test_three_seeds_t_interval_with_n_minus_1_df(self):
        r = self.rows[self.k3]
        est, lo, hi, n, kind = r["entropy"]
        self.assertEqual((est, lo, hi, n), (11.0, 10.0, 12.0, 3))  # mean and seed range
        clo, chi = r["ci"]["entropy"]
        half = 4.303 / math.sqrt(3)
        self.assertAlmostEqual(clo, 11.0 - half, places=6)
        self.assertAlmostEqual(chi, 11.0 + half, places=6)
        self.assertAlmostEqual(r["ci"]["min_entropy"][1], 10.0 + half, places=6)
        self.assertAlmostEqual(r["ci"]["sender_entropy"][0], 7.0 - half, places=6)

    def test_two_seeds_and_arithmetic_mean_of_latency(self):
        r = self.rows[self.k2]
        # the mean, not the geometric mean sqrt(24) = 4.899
        self.assertEqual(r["latency_mean"][0], 5.0)
        clo, chi = r["ci"]["latency_mean"]
        self.assertAlmostEqual(clo, 5.0 - 12.706, places=6)
        self.assertAlmostEqual(chi, 5.0 + 12.706, places=6)

    def test_one_seed_no_interval(self):
        r = self.rows[self.k1]
        self.assertEqual(r["entropy"][:4], (14.0, 14.0, 14.0, 1))
        self.assertTrue(all(math.isnan(v) for v in r["ci"]["entropy"]))

    def test_csv_and_table(self):
        with tempfile.TemporaryDirectory() as d:
            deployment.write_csv(self.rows, os.path.join(d, "t.csv"))
            deployment.write_md(self.rows, os.path.join(d, "t.md"), ["x.h5"])
            with open(os.path.join(d, "t.csv")) as f:
                got = {int(r["users"]): r for r in csv.DictReader(f)}
            with open(os.path.join(d, "t.md")) as f:
                md = f.read()
        r = got[1000]
        self.assertAlmostEqual(float(r["entropy_ci_lo"]), 11.0 - 4.303 / math.sqrt(3), 3)
        self.assertAlmostEqual(float(r["entropy_ci_hi"]), 11.0 + 4.303 / math.sqrt(3), 3)
        self.assertEqual((r["entropy"], r["entropy_lo"], r["entropy_hi"]), ("11", "10", "12"))
        self.assertEqual(got[10000]["entropy_ci_lo"], "")
        self.assertIn("11 ± 2.5 (10–12)", md)         # mean ± half-width (seed range)
        self.assertIn("5 ± 13 (4–6)", md)             # latency, 2 seeds
        self.assertIn("n − 1 degrees of freedom", md)  # said in the caption
        # the gain against N = 128 (2 seeds) at N = 1000 (3 seeds): 11 - 7.25 = +3.75 bits
        # with the Welch interval: se^2 = 1/3 + 0.125/2, df = 2.97 -> 2: t = 4.303
        se = math.sqrt(1 / 3 + 0.125 / 2)
        self.assertIn("+3.75 ± %s" % deployment._fmt(4.303 * se, 2), md)

    def test_welch_difference(self):
        d, lo, hi = deployment.diff_ci([10.0, 11.0, 12.0], [7.0, 7.5])
        se = math.sqrt(1 / 3 + 0.125 / 2)
        df = se ** 4 / ((1 / 3) ** 2 / 2 + (0.125 / 2) ** 2 / 1)
        self.assertEqual(int(df), 2)
        self.assertAlmostEqual(d, 3.75)
        self.assertAlmostEqual(hi - d, 4.303 * se, places=6)
        self.assertAlmostEqual(d - lo, 4.303 * se, places=6)
        self.assertTrue(math.isnan(deployment.diff_ci([1.0], [2.0, 3.0])[1]))


if __name__ == "__main__":
    unittest.main()
