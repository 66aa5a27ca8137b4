#!/usr/bin/python3
"""Unit tests of analysis/rcplot/results.py and rcplot/tools/paper_check.py on small HDF5 files written
here in the results layouts (docs/results-layout.md; layout 1 and layout 2): seed
grouping, name normalisation, median-over-seeds, comparison rows against paper values,
and the columnar reader (numpy columns, pandas, sparse histograms, deliveries)."""

import math
import os
import sys
import tempfile
import unittest

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "analysis"))

from rcplot import paper_compare, results, settle  # noqa: E402

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
            rows, missing = paper_compare.compare(res, "paper", paper)
        self.assertEqual(missing, 1)
        self.assertEqual(len(rows), 2)
        self.assertEqual(rows[0]["flag"], "ok")        # 11.0 vs 11.3: within ±5 %
        self.assertEqual(rows[0]["seeds"], 3)
        self.assertEqual(rows[1]["flag"], "OUT")       # 40.0 vs 36.6: +9 %
        self.assertEqual(rows[1]["paper_kind"], "exact")
        self.assertAlmostEqual(rows[0]["paper_quantile"], 2 / 3)  # 10, 11 of 10/11/12 below 11.3
        self.assertEqual(rows[1]["paper_quantile"], 0.0)         # one seed, 40 above 36.6
        self.assertEqual(paper_compare.beyond_seeds(rows), 0)          # the OUT row has one seed
        self.assertAlmostEqual(rows[1]["rel_diff"], 40.0 / 36.6 - 1)
        md = paper_compare.markdown(rows, missing, "paper")
        self.assertIn("**1 of 2**", md)
        self.assertIn("2 distinct (configuration, statistic) pairs, 1 of them", md)
        # the same run scored in two figures is one pair; it is ok only if both rows are
        twice = rows + [dict(rows[0], figure=9, flag="OUT")]
        self.assertEqual(paper_compare.distinct_pairs(twice), (0, 2))
        self.assertEqual(paper_compare.distinct_pairs(rows + [dict(rows[0], figure=9)]), (1, 2))

    def test_reference_runs_settle_or_confirm(self):
        """A row outside the tolerance is settled only when the reference's reseeded runs
        land where our seeds do, confirmed when they stay with the published value."""
        paper = [dict(figure="6", m="128", schedule="gen_os15", strategy="unicast", burst="1",
                      groups="1", lambda_div="1", stat="median", value_s="36.6", exact="yes",
                      note="")]
        head = ("# reference runs\nm,schedule,strategy,burst,groups,lambda_div,ref_seed,"
                "duration_s,n_online,mean_s,p1_s,q1_s,median_s,q3_s,p90_s,p99_s\n")
        cases = [("", ""),                                                    # no run
                 ("128,gen_os15,unicast,1,1,1,0,600,9,,,,36.6,,,\n", ""),     # seed 0 only
                 ("128,gen_os15,unicast,1,1,1,0,600,9,,,,36.6,,,\n"
                  "128,gen_os15,unicast,1,1,1,1,600,9,,,,39.5,,,\n", "settled"),
                 ("128,gen_os15,unicast,1,1,1,0,600,9,,,,36.6,,,\n"
                  "128,gen_os15,unicast,1,1,1,1,600,9,,,,36.0,,,\n", "confirmed"),
                 ("128,gen_os15,unicast,1,1,1,1,600,9,,,,42.5,,,\n", "undecided"),
                 ("128,gen_os15,unicast,1,1,1,1,600,9,,,,36.9,,,\n"              # one each
                  "128,gen_os15,unicast,1,1,1,2,600,9,,,,39.8,,,\n", "undecided"),
                 ("128,gen_os15,unicast,1,1,1,1,3600,9,,,,40.0,,,\n", "")]   # other span
        for body, want in cases:
            path = os.path.join(self.tmp.name, "ref.csv")
            with open(path, "w") as f:
                f.write(head + body)
            with results.load([self.path]) as res:
                rows, _ = paper_compare.compare(res, "paper", paper, ref_runs=settle.load(path))
            self.assertEqual(rows[0]["flag"], "OUT")
            self.assertEqual(rows[0]["settled"], want, body)
            if want:
                self.assertIn("seed 1:", rows[0]["reference_runs"])
                self.assertIn("(%s)" % want, paper_compare.markdown(rows, 0, "paper"))
        self.assertEqual(settle.load(os.path.join(self.tmp.name, "none.csv")), {})

    def test_tolerance_applied_to_the_reference_itself(self):
        """make_docs counts the reference's reruns (seed != 0) of pairs outside the
        tolerance that are themselves outside the tolerance of the published value, and
        counts the heatmap means apart; seed-0 runs and pairs within tolerance do not count."""
        from rcplot.tools import make_docs  # analysis/ is on sys.path (top of this file)
        path = os.path.join(self.tmp.name, "ref.csv")
        with open(path, "w") as f:
            f.write("m,schedule,strategy,burst,groups,lambda_div,ref_seed,duration_s,n_online,"
                    "mean_s,p1_s,q1_s,median_s,q3_s,p90_s,p99_s\n"
                    "128,gen_os15,unicast,1,1,1,0,600,9,,,,36.6,,,\n"   # the published run
                    "128,gen_os15,unicast,1,1,1,1,600,9,,,,39.5,,,\n"   # +8 %: outside ±5 %
                    "128,gen_os15,unicast,1,1,1,2,600,9,,,,37.0,,,\n"   # +1 %: inside
                    "128,gen_os10,rc-k1-p1,1,1,1,1,600,9,20.0,,,,,,\n"  # heatmap: -20 %
                    "128,online,unicast,1,1,1,1,600,9,,,,30.0,,,\n")     # pair within tol
        refs = settle.load(path)
        base = dict(m="128", burst="1", groups="1", lambda_div="1", duration_s="600")
        rows = [dict(base, figure="6", schedule="gen_os15", strategy="unicast", stat="median",
                     paper_s="36.6", flag="OUT"),
                dict(base, figure="14", schedule="gen_os10", strategy="rc-k1-p1", stat="mean",
                     paper_s="25", flag="OUT"),
                dict(base, figure="6", schedule="online", strategy="unicast", stat="median",
                     paper_s="30.0", flag="ok")]
        lines = []
        make_docs.self_check(rows, refs, lines)
        self.assertIn("Of the 3 reruns", lines[0])
        self.assertIn("2 are themselves outside", lines[0])
        self.assertIn("±10 %) 1 of 1", lines[0])
        lines = []
        make_docs.self_check(rows[2:], refs, lines)
        self.assertEqual(lines, [])

    def test_spread_verdicts(self):
        """With >= 20 independent runs, a row outside the tolerance is judged against their
        central 95 %: the published run alone (in/beyond spread), or the reference's reruns
        (settled/confirmed/undecided); too few runs leave the old verdicts."""
        paper = [dict(figure="6", m="128", schedule="gen_os15", strategy="unicast", burst="1",
                      groups="1", lambda_div="1", stat="median", value_s=v, exact="yes",
                      note="") for v in ("36.6", "45.0", "20.0")]
        spread_path = os.path.join(self.tmp.name, "spread.h5")

        def write_spread(n):
            # n runs with medians 30, 31, ..., 30 + n - 1 (central 95 % of 30..59: 30.7..58.3)
            with h5py.File(spread_path, "w") as f:
                f.attrs["layout"] = "rcsim-results/1"
                f["hist_edges_s"] = np.array([0.0, 1.0, 2.0, 3.0, np.inf])
                jobs = f.create_group("jobs")
                for i in range(n):
                    write_job(jobs, "s%d" % i, 11 + i, "unicast", 128, 30.0 + i)

        head = ("m,schedule,strategy,burst,groups,lambda_div,ref_seed,duration_s,n_online,"
                "mean_s,p1_s,q1_s,median_s,q3_s,p90_s,p99_s\n")
        cases = [(30, "", ["in spread", "in spread", "beyond spread"]),
                 (30, "128,gen_os15,unicast,1,1,1,1,600,9,,,,45.0,,,\n",
                  ["settled"] * 3),
                 (30, "128,gen_os15,unicast,1,1,1,1,600,9,,,,25.0,,,\n"
                      "128,gen_os15,unicast,1,1,1,2,600,9,,,,29.0,,,\n",
                  ["confirmed"] * 3),
                 (30, "128,gen_os15,unicast,1,1,1,1,600,9,,,,25.0,,,\n"
                      "128,gen_os15,unicast,1,1,1,2,600,9,,,,50.0,,,\n",
                  ["undecided"] * 3),
                 (19, "", ["", "", ""])]                 # fewer than 20 runs: no spread
        ref_path = os.path.join(self.tmp.name, "ref2.csv")
        for n, body, want in cases:
            write_spread(n)
            with open(ref_path, "w") as f:
                f.write(head + body)
            with results.load([self.path]) as res, results.load([spread_path]) as sp:
                rows, _ = paper_compare.compare(res, "paper", paper, ref_runs=settle.load(ref_path),
                                          spread_res=sp)
            self.assertEqual([r["flag"] for r in rows], ["OUT"] * 3)   # ours: 40.0
            self.assertEqual([r["settled"] for r in rows], want, (n, body))
            if n >= 20:
                self.assertEqual(rows[0]["spread_runs"], n)
                self.assertAlmostEqual(rows[0]["spread_lo_s"], 30.725)
                self.assertAlmostEqual(rows[0]["spread_hi_s"], 58.275)
                self.assertAlmostEqual(rows[2]["spread_quantile"], 0.0)
                md = paper_compare.markdown(rows, 0, "paper")
                self.assertIn("30.7–58.3 (30)", md)
            else:
                self.assertEqual(rows[0]["spread_runs"], 0)
        # the headline counts each verdict
        write_spread(30)
        with open(ref_path, "w") as f:
            f.write(head)
        with results.load([self.path]) as res, results.load([spread_path]) as sp:
            rows, _ = paper_compare.compare(res, "paper", paper, spread_res=sp)
        text = paper_compare.headline(rows)
        # a heatmap cell is an integer print: within ±0.5 s of the range counts as inside
        cell = [dict(paper[0], figure=f, value_s="58.7") for f in ("9", "6")]
        with results.load([self.path]) as res, results.load([spread_path]) as sp:
            cell_rows, _ = paper_compare.compare(res, "paper", cell, spread_res=sp)
        self.assertEqual([r["settled"] for r in cell_rows], ["in spread", "beyond spread"])
        self.assertIn("2 with the published run inside the central 95 % of 30", text)
        self.assertIn("1 with the published run beyond that range", text)

    def test_seed_quantile(self):
        self.assertEqual(paper_compare.seed_quantile([1.0, 2.0, 3.0, 4.0], 2.5), 0.5)
        self.assertEqual(paper_compare.seed_quantile([1.0, 2.0, 3.0, 4.0], 0.5), 0.0)
        self.assertEqual(paper_compare.seed_quantile([1.0, 2.0, 3.0, 4.0], 9.0), 1.0)
        self.assertEqual(paper_compare.seed_quantile([1.0, 2.0, 2.0, 4.0], 2.0), 0.5)  # ties half
        self.assertEqual(paper_compare.seed_quantile([float("nan"), 1.0], 2.0), 1.0)
        self.assertTrue(math.isnan(paper_compare.seed_quantile([], 2.0)))


def write_v2(path, rows, edges=None):
    """A layout-2 file with the given rows (dicts of parameter/summary values)."""
    edges = np.array([0.0, 1.0, 2.0, 3.0, np.inf]) if edges is None else edges
    n = len(rows)
    with h5py.File(path, "w") as f:
        f.attrs["layout"] = "rcsim-results/2"
        t = f.create_group("table")
        t.attrs["rows"] = n
        def col(name, values, role, dtype, in_id=0, levels=None):
            d = t.create_dataset(name, data=np.array(values, dtype=dtype), maxshape=(None,),
                                 chunks=True)
            d.attrs["role"] = role
            d.attrs["units"] = ""
            if role == "parameter":
                d.attrs["in_job_id"] = in_id
            if levels is not None:
                d.attrs["levels"] = np.array(levels, dtype=h5py.string_dtype())
        col("job_id", [r["id"] for r in rows], "id", np.uint64)
        for name, kind in (("users", np.int64), ("seed", np.uint64), ("duration", np.float64),
                           ("groups", np.int64), ("burst", np.int64), ("lambda_div", np.float64),
                           ("group_size", np.int64)):
            col(name, [r.get(name, {"groups": 1, "burst": 1, "lambda_div": 1.0,
                                     "duration": 600.0, "group_size": r["users"]}.get(name))
                       for r in rows], "parameter", kind, in_id=1)
        for name in ("strategy", "trace", "model"):
            levels = [""] + sorted({r[name] for r in rows})
            col(name, [levels.index(r[name]) for r in rows], "parameter", np.uint32, in_id=1,
                levels=levels)
        col("store_raw", [0] * n, "parameter", np.uint8, in_id=0)
        for w in ("online", "all"):
            for k in NAMES:
                vals = [r["count"] if k == "count" else r["p50"] for r in rows]
                col("%s_%s" % (w, k), vals, "summary", np.uint64 if k == "count" else np.float64)
        col("counter_wall_s", [0.5] * n, "counter", np.float64)
        col("counter_deliveries", [r["count"] for r in rows], "counter", np.uint64)
        col("host", [1] * n, "provenance", np.uint32, levels=["", "node1"])
        t.create_dataset("canonical", data=np.array(
            [("users=%d\nseed=%d\n" % (r["users"], r["seed"])).encode() for r in rows],
            dtype="S64"))
        f.create_dataset("hist/edges_s", data=edges)
        for w in ("online", "all"):
            g = f.create_group("hist/" + w)
            ends, buckets, counts = [], [], []
            for r in rows:
                for b, c in r.get("hist", {}).items():
                    buckets.append(b)
                    counts.append(c)
                ends.append(len(buckets))
            g["end"] = np.array(ends, dtype=np.uint64)
            g["bucket"] = np.array(buckets, dtype=np.uint16)
            g["count"] = np.array(counts, dtype=np.uint32)
        g = f.create_group("deliveries")
        g["end"] = np.array([2 * (i + 1) for i in range(n)], dtype=np.uint64)
        for k, dt in (("message", np.uint32), ("group", np.uint32), ("sender", np.uint32),
                      ("recipient", np.uint32), ("sent_s", np.float64),
                      ("delivered_s", np.float64), ("online", np.uint8)):
            g[k] = np.arange(2 * n).astype(dt)


class Table(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.tmp.name, "v2.h5")
        rows = [dict(id=10 + i, users=128, seed=i + 1, strategy="rc-k2-p2-ft-dropoffline",
                     trace="gen_os15", model="paper", p50=v, count=100, hist={1: 60, 2: 40})
                for i, v in enumerate((10.0, 12.0, 11.0))]
        rows.append(dict(id=20, users=64, seed=1, strategy="unicast", trace="online",
                         model="exact", p50=40.0, count=5, hist={0: 5}))
        write_v2(cls.path, rows)
        cls.path2 = os.path.join(cls.tmp.name, "v2b.h5")
        write_v2(cls.path2, [rows[0], dict(id=30, users=32, seed=1, strategy="rc-k1-p1",
                                           trace="online", model="paper", p50=3.0, count=1)])
        cls.other = os.path.join(cls.tmp.name, "v2c.h5")
        write_v2(cls.other, rows[:1], edges=np.array([0.0, 5.0, np.inf]))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_columns_and_levels(self):
        with results.load_table([self.path]) as t:
            self.assertEqual(len(t), 4)
            self.assertEqual(list(t["strategy"]), ["rc-k2-p2-ft-dropoffline"] * 3 + ["unicast"])
            self.assertEqual(t["online_p50"].tolist(), [10.0, 12.0, 11.0, 40.0])
            self.assertIn("users", t.in_job_id)
            self.assertNotIn("store_raw", t.in_job_id)
            self.assertEqual(t.role["online_p50"], "summary")
            self.assertEqual(t.canonical(3), "users=64\nseed=1\n")
            self.assertEqual(len(t.canonical_all()), 4)

    def test_sparse_histograms_as_rows_and_matrix(self):
        with results.load_table([self.path]) as t:
            self.assertEqual(t.hist(0).tolist(), [0, 60, 40, 0])
            self.assertEqual(t.hist(3).tolist(), [5, 0, 0, 0])
            m = t.hist_matrix([0, 3])
            self.assertEqual(m.shape, (2, 4))
            self.assertEqual(m.sum(), 105)
            d = t.deliveries(1)
            self.assertEqual(d["recipient"].tolist(), [2, 3])

    def test_first_row_of_a_job_wins_across_files(self):
        with results.load_table([self.path, self.path2]) as t:
            self.assertEqual(len(t), 5)
            self.assertEqual(sorted(t["job_id"].tolist()), [10, 11, 12, 20, 30])
            self.assertEqual(sorted(set(t["strategy"])),
                             ["rc-k1-p1", "rc-k2-p2-ft-dropoffline", "unicast"])

    def test_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("python3-pandas is not installed")
        df = results.load_dataframe([self.path])
        self.assertEqual(df.shape[0], 4)
        self.assertEqual(str(df["strategy"].dtype), "category")
        self.assertEqual(df["online_p50"].median(), 11.5)
        # the strategy's structure, from the simulator's table, right after strategy
        at = list(df.columns).index("strategy")
        self.assertEqual(list(df.columns[at + 1:at + 7]),
                         ["family", "k", "p", "ft", "multiplier", "dropoffline"])
        self.assertEqual(list(df["family"].astype(str)), ["rc"] * 3 + ["unicast"])
        self.assertEqual(str(df["k"].dtype), "Int64")  # unicast has no k
        self.assertEqual(df["k"].tolist()[:3], [2, 2, 2])
        self.assertTrue(df["k"].isna().tolist()[3])
        self.assertEqual(df["ft"].tolist()[:3], [True] * 3)
        self.assertEqual(df["dropoffline"].tolist()[:3], [True] * 3)
        self.assertNotIn("family", results.load_table([self.path]).to_pandas(structure=False))

    def test_load_groups_v2_rows_into_configurations(self):
        with results.load([self.path]) as res:
            cfg = res.find("paper", strategy="rc-k2-p2-ft-dropoffline", trace="gen_os15",
                           users=128)
            self.assertIsNotNone(cfg)
            self.assertEqual(cfg.n_seeds, 3)
            self.assertEqual(cfg.stat("median"), (11.0, 10.0, 12.0, 3))
            self.assertEqual(list(cfg.pooled_hist()), [0, 180, 120, 0])
            self.assertEqual(res.models(), ["exact", "paper"])
            self.assertEqual(len(res.edges), 5)

    def test_mixing_layouts_and_bucket_geometries(self):
        with results.load([self.path]) as res:
            self.assertEqual(len(res.jobs), 4)
        with self.assertRaises(ValueError):
            results.load([self.path, self.other])
        with self.assertRaises(ValueError):
            results.load_table([self.path, self.other])


if __name__ == "__main__":
    unittest.main()
