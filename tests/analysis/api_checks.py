#!/usr/bin/python3
"""Checks of the Python API (analysis/rcsim) and of the strategy structure columns on a
real results file made by tests/e2e/analysis_api.sh (argument 1; its sweep: users 16/32 x
unicast, rc-k1-p1, rc-k2-p2, rc-k4-p2, rc-k2-p2-ft x 2 seeds, store_raw: true).  Not named
test_*.py: the unit-test discovery of tests/analysis must not pick it up without a file.

  RCSIM_BIN=build/rcsim PYTHONPATH=analysis python3 tests/analysis/api_checks.py R.h5
"""

import os
import sys
import unittest

import h5py
import numpy as np
import pandas as pd

from rcsim import load_deliveries, load_histograms, load_jobs  # noqa: E402  (PYTHONPATH)
from rcplot import results, sweep  # noqa: E402

PATH = None
STRATEGIES = ["unicast", "rc-k1-p1", "rc-k2-p2", "rc-k2-p2-ft", "rc-k4-p2"]


class Jobs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.jobs = load_jobs(PATH)
        with h5py.File(PATH, "r") as f:
            t = f["table"]
            cls.rows = int(t.attrs["rows"])
            cls.file_cols = list(t)
            cls.deliveries = int(np.sum(t["counter_deliveries"][:cls.rows]))
            cls.n_records = int(f["deliveries/end"][cls.rows - 1])

    def test_one_row_per_job_and_the_files_column_names(self):
        j = self.jobs
        self.assertEqual(len(j), self.rows)
        self.assertEqual(len(j), 20)
        # every column of the file's table under its own name (canonical is text for the
        # job id, read on demand), nothing renamed
        want = set(self.file_cols) - {"canonical"}
        self.assertEqual(want - set(j.columns), set())
        extra = set(j.columns) - want
        self.assertEqual(extra, {"family", "k", "p", "ft", "multiplier", "dropoffline"})
        self.assertEqual(list(j.columns[:2]), ["job_id", "users"])
        at = list(j.columns).index("strategy")
        self.assertEqual(list(j.columns[at:at + 7]),
                         ["strategy", "family", "k", "p", "ft", "multiplier", "dropoffline"])
        self.assertEqual(j.attrs["units"]["online_p50"], "s")
        self.assertEqual(j.attrs["units"]["k"], "count")

    def test_dtypes(self):
        j = self.jobs
        self.assertEqual(j["job_id"].dtype, np.uint64)
        self.assertEqual(j["users"].dtype, np.int64)
        self.assertEqual(j["online_p50"].dtype, np.float64)
        self.assertEqual(str(j["k"].dtype), "Int64")        # unicast has no k: <NA>
        self.assertEqual(str(j["ft"].dtype), "boolean")
        self.assertEqual(j["multiplier"].dtype, np.float64)
        for c in ("strategy", "family", "trace", "model", "host"):
            self.assertIsInstance(j[c].dtype, pd.CategoricalDtype, c)
            self.assertTrue(j[c].cat.ordered, c)

    def test_categories_are_the_values_present_in_natural_order(self):
        j = self.jobs
        self.assertEqual(list(j["strategy"].cat.categories), STRATEGIES)
        self.assertEqual(list(j["family"].cat.categories), ["unicast", "rc"])
        self.assertEqual(list(j["trace"].cat.categories), ["online"])
        for c in j.select_dtypes("category"):
            used = set(j[c].astype(object))
            self.assertEqual(set(j[c].cat.categories), used, "%s has unused levels" % c)
        # the file's own levels start with an unused "" (code 0)
        with h5py.File(PATH, "r") as f:
            self.assertEqual(results._text(f["table/strategy"].attrs["levels"][0]), "")

    def test_structure_values(self):
        j = self.jobs.drop_duplicates("strategy").set_index("strategy")
        self.assertEqual(int(j.loc["rc-k4-p2", "k"]), 4)
        self.assertEqual(int(j.loc["rc-k4-p2", "p"]), 2)
        self.assertTrue(bool(j.loc["rc-k2-p2-ft", "ft"]))
        self.assertFalse(bool(j.loc["rc-k2-p2", "ft"]))
        self.assertTrue(pd.isna(j.loc["unicast", "k"]))
        self.assertEqual(j.loc["unicast", "family"], "unicast")
        self.assertEqual(j.loc["rc-k1-p1", "multiplier"], 1.0)

    def test_groupby_in_order(self):
        g = self.jobs.groupby("k", observed=True)["online_p50"].median()
        self.assertEqual(list(g.index), [1, 2, 4])
        g = self.jobs.groupby("strategy", observed=True).size()
        self.assertEqual(list(g.index), STRATEGIES)
        self.assertTrue((g == 4).all())

    def test_columns_argument_limits_reading(self):
        j = load_jobs(PATH, columns=["users", "online_p50"])
        self.assertEqual(list(j.columns), ["job_id", "users", "online_p50"])

    def test_deliveries_one_frame_of_every_record(self):
        d = load_deliveries(PATH)
        self.assertEqual(len(d), self.deliveries)
        self.assertEqual(len(d), self.n_records)
        self.assertGreater(len(d), 1000)
        for c in ("job_id", "users", "strategy", "seed", "k", "message", "group", "sender",
                  "recipient", "sent_s", "delivered_s", "online", "latency_s"):
            self.assertIn(c, d.columns)
        for old in ("msg", "send_s", "deliver_s"):
            self.assertNotIn(old, d.columns)
        self.assertEqual(list(d["strategy"].cat.categories), STRATEGIES)
        # each job's records carry that job's parameters, as many as it counted
        per_job = d.groupby("job_id").size()
        want = self.jobs.set_index("job_id")["counter_deliveries"]
        self.assertEqual(per_job.reindex(want.index, fill_value=0).tolist(), want.tolist())
        first = self.jobs.iloc[0]
        mine = d[d["job_id"] == first["job_id"]]
        self.assertTrue((mine["users"] == first["users"]).all())
        self.assertTrue((mine["strategy"] == first["strategy"]).all())
        self.assertTrue((d["latency_s"] >= 0).all())
        # the online latencies are the ones the job's summary was computed from
        on = mine[mine["online"]]["latency_s"].to_numpy()
        self.assertEqual(len(on), int(first["online_count"]))
        self.assertAlmostEqual(float(np.median(on)), float(first["online_p50"]), places=6)
        d2 = load_deliveries(PATH, params=["users"])
        self.assertEqual(list(d2.columns[:2]), ["job_id", "users"])
        self.assertGreater(len(load_deliveries(PATH, params="all").columns), 40)

    def test_histograms(self):
        h = load_histograms(PATH)
        self.assertEqual(len(h), 20)
        self.assertEqual(h.edges.shape[0] - 1, h.n_buckets)
        m = h.matrix()
        self.assertEqual(m.shape, (20, h.n_buckets))
        self.assertEqual(m.sum(axis=1).tolist(), self.jobs["online_count"].astype(int).tolist())
        with results.load_table([PATH]) as t:
            self.assertEqual(m[3].tolist(), t.hist(3).tolist())
        uni = h.jobs["strategy"] == "unicast"
        self.assertEqual(int(h.pooled(uni).sum()),
                         int(self.jobs.loc[uni.to_numpy(), "online_count"].sum()))
        self.assertEqual(int(h.to_frame()["count"].sum()), int(m.sum()))
        a = load_histograms(PATH, which="all")
        self.assertEqual(a.matrix().sum(axis=1).tolist(),
                         self.jobs["all_count"].astype(int).tolist())
        with self.assertRaises(ValueError):
            load_histograms(PATH, which="offline")

    def test_missing_file(self):
        with self.assertRaises(FileNotFoundError):
            load_jobs(PATH + ".nope")


class Structure(unittest.TestCase):
    """Strategy structure in the sweep-agnostic tools (rcplot.sweep)."""

    def sweep(self, where=None):
        self.res = results.load([PATH])
        self.addCleanup(self.res.close)
        return sweep.Sweep(self.res, where)

    def test_default_axes_unchanged(self):
        sw = self.sweep()
        self.assertEqual([a.name for a in sw.axes], ["users", "strategy"])
        self.assertEqual(sw.table_columns(), ["users", "strategy", "k", "p", "ft"])
        self.assertNotIn("k", sw.fixed())

    def test_roles_swap_in_the_structure(self):
        sw = self.sweep()
        sw.use_roles("k", None, [])
        names = [a.name for a in sw.axes]
        self.assertIn("k", names)
        self.assertIn("ft", names)          # k=2 is both rc-k2-p2 and rc-k2-p2-ft
        self.assertNotIn("strategy", names)  # (k, ft) tell every strategy apart
        self.assertEqual(sw.axis("k").values, ["1", "2", "4", "n/a"])
        self.assertEqual(sw.axis("k").unit, "count")

    def test_where_on_structure(self):
        sw = self.sweep({"family": ["rc"], "ft": ["false"]})
        self.assertEqual(len(sw.jobs), 12)
        sw.use_roles("k")
        self.assertEqual([a.name for a in sw.axes], ["users", "k"])
        self.assertTrue(sw.axis("k").numeric)
        self.assertEqual(sw.axis("k").values, ["1", "2", "4"])
        with self.assertRaises(sweep.UsageError):
            self.sweep({"k": ["3"]})


if __name__ == "__main__":
    PATH = sys.argv.pop(1)
    if not os.path.isfile(PATH):
        sys.exit("api_checks.py: %s: no such file" % PATH)
    unittest.main()
