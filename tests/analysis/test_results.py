#!/usr/bin/python3
"""Unit tests of analysis/rcplot/results.py and compare.py on a small HDF5 file written
here in the results layout (docs/results-layout.md): seed grouping, name normalisation,
median-over-seeds, and comparison rows against paper values."""

import math
import os
import sys
import tempfile
import unittest

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "analysis"))

from rcplot import compare, results  # noqa: E402

NAMES = ["count", "mean", "sd", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90",
         "p95", "p99", "p99.9"]


def write_job(jobs, jid, seed, strategy, users, p50, count=100, **extra):
    g = jobs.create_group(jid)
    params = dict(users=users, group_size=0, groups=1, burst=1, lambda_div=1.0,
                  strategy=strategy, trace="os15", model="paper", duration=600.0, seed=seed)
    params.update(extra)
    for k, v in params.items():
        g.attrs[k] = v
    g.attrs["status"] = "ok"
    g.attrs["job_id"] = jid
    g.attrs["canonical"] = "\n".join("%s=%s" % (k, params[k]) for k in sorted(params))
    s = np.full(15, p50)
    s[0] = count
    ds = g.create_dataset("summary_online", data=s)
    ds.attrs["names"] = np.array(NAMES, dtype=h5py.string_dtype())
    h = np.zeros(4, dtype=np.uint32)
    h[1] = count
    g.create_dataset("hist_online", data=h)


class Results(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.tmp.name, "r.h5")
        with h5py.File(cls.path, "w") as f:
            f.attrs["layout"] = "rcsim-results/1"
            f["hist_edges_s"] = np.array([0.0, 1.0, 2.0, 3.0, np.inf])
            jobs = f.create_group("jobs")
            # one configuration, three seeds, spelled with the reference's long name
            for i, v in enumerate((10.0, 12.0, 11.0)):
                write_job(jobs, "a%d" % i, i + 1, "rollercoaster-k2-p2-timeout10x-dropoffline",
                          128, v)
            write_job(jobs, "b0", 1, "unicast", 128, 40.0)
            write_job(jobs, "c0", 1, "unicast", 128, 99.0, count=0)  # another duration, no samples
            f["jobs"]["c0"].attrs["duration"] = 60.0
            f["jobs"]["c0"].attrs["canonical"] = "other"
        bad = os.path.join(cls.tmp.name, "bad.h5")
        with h5py.File(bad, "w") as f:
            f.attrs["layout"] = "something-else"
        cls.bad = bad

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_groups_seeds_and_takes_median(self):
        with results.load([self.path]) as res:
            cfg = res.find("paper", strategy="rc-k2-p2-ft-dropoffline", trace="gen_os15",
                           users=128)
            self.assertIsNotNone(cfg)
            self.assertEqual(cfg.n_seeds, 3)
            self.assertEqual(cfg.stat("median"), (11.0, 10.0, 12.0, 3))
            self.assertEqual(list(cfg.pooled_hist()), [0, 300, 0, 0])
            self.assertIsNone(res.find("exact", strategy="unicast"))

    def test_longest_duration_wins(self):
        with results.load([self.path]) as res:
            cfg = res.find("paper", strategy="unicast", users=128)
            self.assertEqual(cfg.duration, 600.0)
            self.assertEqual(cfg.stat("p50")[0], 40.0)
            self.assertEqual(len(res.configs("paper", strategy="unicast")), 2)

    def test_empty_job_gives_nan(self):
        with results.load([self.path]) as res:
            cfg = [c for c in res.configs("paper", strategy="unicast") if c.duration == 60.0][0]
            self.assertTrue(math.isnan(cfg.stat("median")[0]))

    def test_duplicate_files_counted_once(self):
        with results.load([self.path, self.path]) as res:
            self.assertEqual(len(res.jobs), 5)

    def test_bad_layout_refused(self):
        with self.assertRaises(ValueError):
            results.load([self.bad])

    def test_compare_rows(self):
        paper = [
            dict(figure="16", m="128", schedule="gen_os15",
                 strategy="rollercoaster-k2-p2-timeout10x-dropoffline", burst="1", groups="1",
                 lambda_div="1", stat="median", value_s="11.3", exact="read-off", note=""),
            dict(figure="6", m="128", schedule="gen_os15", strategy="unicast", burst="1",
                 groups="1", lambda_div="1", stat="median", value_s="36.6", exact="yes", note=""),
            dict(figure="6", m="256", schedule="gen_os15", strategy="unicast", burst="1",
                 groups="1", lambda_div="1", stat="median", value_s="69.7", exact="read-off",
                 note=""),
        ]
        with results.load([self.path]) as res:
            rows, missing = compare.compare(res, "paper", paper)
        self.assertEqual(missing, 1)
        self.assertEqual(len(rows), 2)
        self.assertEqual(rows[0]["flag"], "ok")        # 11.0 vs 11.3: within ±5 %
        self.assertEqual(rows[0]["seeds"], 3)
        self.assertEqual(rows[1]["flag"], "OUT")       # 40.0 vs 36.6: +9 %
        self.assertEqual(rows[1]["paper_kind"], "exact")
        self.assertAlmostEqual(rows[0]["paper_quantile"], 2 / 3)  # 10, 11 of 10/11/12 below 11.3
        self.assertEqual(rows[1]["paper_quantile"], 0.0)         # one seed, 40 above 36.6
        self.assertEqual(compare.beyond_seeds(rows), 0)          # the OUT row has one seed
        self.assertAlmostEqual(rows[1]["rel_diff"], 40.0 / 36.6 - 1)
        md = compare.markdown(rows, missing, "paper")
        self.assertIn("**1 of 2**", md)
        self.assertIn("2 distinct (configuration, statistic) pairs, 1 of them", md)
        # the same run scored in two figures is one pair; it is ok only if both rows are
        twice = rows + [dict(rows[0], figure=9, flag="OUT")]
        self.assertEqual(compare.distinct_pairs(twice), (0, 2))
        self.assertEqual(compare.distinct_pairs(rows + [dict(rows[0], figure=9)]), (1, 2))

    def test_seed_quantile(self):
        self.assertEqual(compare.seed_quantile([1.0, 2.0, 3.0, 4.0], 2.5), 0.5)
        self.assertEqual(compare.seed_quantile([1.0, 2.0, 3.0, 4.0], 0.5), 0.0)
        self.assertEqual(compare.seed_quantile([1.0, 2.0, 3.0, 4.0], 9.0), 1.0)
        self.assertEqual(compare.seed_quantile([1.0, 2.0, 2.0, 4.0], 2.0), 0.5)  # ties half
        self.assertEqual(compare.seed_quantile([float("nan"), 1.0], 2.0), 1.0)
        self.assertTrue(math.isnan(compare.seed_quantile([], 2.0)))


if __name__ == "__main__":
    unittest.main()
