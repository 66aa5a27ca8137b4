#!/usr/bin/python3
"""Unit tests of the sweep-agnostic analysis (analysis/rcplot/sweep.py, table.py,
metrics.py, plots.py, analysis/summarize.py): axis detection and default roles, numeric
table order, full labels, --where, statistics and the drawn axes' labels and scales.

Jobs are stand-ins with the interface rcplot.results gives (attrs with the canonical
parameter text and counters, summary, hist), so these tests do not depend on the file
layout; the end-to-end test (tests/e2e/analysis_any_sweep.sh) covers real files."""

import io
import math
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "analysis"))

from rcplot.tools import summarize  # noqa: E402
from rcplot import metrics, plots, sweep, table  # noqa: E402

EDGES = np.array([0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, np.inf])


class FakeJob:
    def __init__(self, params, median=5.0, count=100, counters=None, hist=None):
        self.attrs = {"canonical": "\n".join("%s=%s" % kv for kv in params.items())}
        for k, v in (counters or {"deliveries": count, "expected_deliveries": count}).items():
            self.attrs["counter_" + k] = v
        self.summary = {"count": count, "mean": median * 1.1, "p1": median / 4,
                        "p25": median / 2, "p50": median, "p75": median * 1.5,
                        "p90": median * 2, "p99": median * 3, "max": median * 5}
        self.id = "job-%x" % (abs(hash(self.attrs["canonical"])) & 0xffffff)
        self._hist = np.asarray(hist if hist is not None else [0, 10, 50, 30, 10, 0, 0, 0])
        self._group = {}   # where results.job_deliveries looks for per-delivery records

    def hist(self):
        return self._hist


class FakeResults:
    def __init__(self, jobs):
        self.jobs = jobs
        self.edges = EDGES
        self.files, self.sources = [], []


def grid(users=(8, 16, 45, 128), strategies=("unicast", "rc-k2-p2"), seeds=(1, 2, 3),
         extra=None, median=lambda u, s, seed: u / 4 + seed * 0.1):
    jobs = []
    for u in users:
        for s in strategies:
            for seed in seeds:
                p = dict(users=u, group_size=u, strategy=s, model="exact", q_lattice="off",
                         duration=600, seed=seed)
                p.update(extra or {})
                jobs.append(FakeJob(p, median=median(u, s, seed)))
    return FakeResults(jobs)


class Axes(unittest.TestCase):
    def test_varying_parameters_are_axes_in_value_order(self):
        sw = sweep.Sweep(grid(users=(128, 8, 45, 16)))
        self.assertEqual([a.name for a in sw.axes], ["users", "strategy"])
        self.assertEqual(sw.axis("users").values, ["8", "16", "45", "128"])
        self.assertTrue(sw.axis("users").numeric)
        self.assertFalse(sw.axis("strategy").numeric)

    def test_dependent_parameters_and_seeds_are_not_axes(self):
        # group_size follows users; q_lattice follows model; seed is never an axis
        jobs = []
        for u in (32, 64):
            for model, lat in (("exact", "off"), ("paper", "on")):
                for seed in (1, 2):
                    jobs.append(FakeJob(dict(users=u, group_size=u, model=model,
                                             q_lattice=lat, seed=seed)))
        sw = sweep.Sweep(FakeResults(jobs))
        self.assertEqual([a.name for a in sw.axes], ["users", "model"])

    def test_names_sort_naturally(self):
        a = sweep.Axis("trace", ["gen_os15", "online", "gen_os5", "gen_os10"])
        self.assertEqual(a.values, ["gen_os5", "gen_os10", "gen_os15", "online"])
        # strategies in the strategy table's order: family, then k, p, ... by value
        a = sweep.Axis("strategy", ["rc-k16-p1", "unicast", "rc-k2-p2", "rc-k4-p1"])
        self.assertEqual(a.values, ["unicast", "rc-k2-p2", "rc-k4-p1", "rc-k16-p1"])

    def test_numbers_before_names_and_by_value(self):
        a = sweep.Axis("x", ["10", "9", "1e3", "0.5"])
        self.assertEqual(a.values, ["0.5", "9", "10", "1e3"])

    def test_labels_carry_units(self):
        self.assertEqual(sweep.param_label("users"), "users [count]")
        self.assertEqual(sweep.param_label("duration"), "duration [s]")
        self.assertEqual(sweep.param_label("app_rate"), "app_rate [1/s]")
        self.assertEqual(sweep.param_label("strategy"), "strategy")


class Roles(unittest.TestCase):
    def axes(self, **vals):
        return [sweep.Axis(k, v) for k, v in vals.items()]

    def test_defaults_x_numeric_with_most_values_then_hue_then_facets(self):
        ax = self.axes(trace=["a", "b"], strategy=["u", "r1", "r2"], users=["8", "16", "32", "64"])
        self.assertEqual(sweep.choose_roles(ax, "line"), ("users", "strategy", ["trace"]))

    def test_numeric_axis_wins_x_even_with_fewer_values(self):
        ax = self.axes(strategy=["a", "b", "c", "d", "e"], lambda_div=["1", "2"])
        self.assertEqual(sweep.choose_roles(ax, "line"), ("lambda_div", "strategy", []))

    def test_no_numeric_axis_takes_the_largest(self):
        ax = self.axes(trace=["a", "b"], strategy=["u", "r1", "r2"])
        self.assertEqual(sweep.choose_roles(ax, "box"), ("strategy", "trace", []))

    def test_explicit_roles_are_kept_and_the_rest_become_facets(self):
        ax = self.axes(trace=["a", "b"], strategy=["u", "r1", "r2"], users=["8", "16", "32"])
        self.assertEqual(sweep.choose_roles(ax, "line", hue="users"),
                         ("strategy", "users", ["trace"]))
        self.assertEqual(sweep.choose_roles(ax, "line", x="users", facets=["strategy"]),
                         ("users", "trace", ["strategy"]))

    def test_distribution_kinds_have_no_x(self):
        ax = self.axes(strategy=["u", "r"], users=["8", "16", "32"])
        self.assertEqual(sweep.choose_roles(ax, "cdf"), (None, "users", ["strategy"]))
        with self.assertRaises(sweep.UsageError):
            sweep.choose_roles(ax, "cdf", x="users")

    def test_bad_roles_are_usage_errors(self):
        ax = self.axes(strategy=["u", "r"], users=["8", "16"])
        with self.assertRaisesRegex(sweep.UsageError, "not an axis"):
            sweep.choose_roles(ax, "line", x="groups")
        with self.assertRaisesRegex(sweep.UsageError, "only one role"):
            sweep.choose_roles(ax, "line", x="users", hue="users")


class Where(unittest.TestCase):
    def test_numeric_values_match_by_value_and_keys_repeat_as_or(self):
        sw = sweep.Sweep(grid(), sweep.parse_where(["duration=600.0", "users=8", "users=128"]))
        self.assertEqual(sw.axis("users").values, ["8", "128"])

    def test_unknown_key_and_empty_result_are_errors(self):
        with self.assertRaisesRegex(sweep.UsageError, "no such parameter"):
            sweep.Sweep(grid(), {"usres": ["8"]})
        with self.assertRaisesRegex(sweep.UsageError, "matches none"):
            sweep.Sweep(grid(), {"users": ["7"]})
        with self.assertRaises(sweep.UsageError):
            sweep.parse_where(["users"])


class Table(unittest.TestCase):
    def test_rows_sort_numerically_and_aggregate_seeds(self):
        sw = sweep.Sweep(grid(users=(128, 45, 8)))
        rows = table.rows(sw)
        self.assertEqual([(r["users"], r["strategy"]) for r in rows],
                         [("8", "unicast"), ("8", "rc-k2-p2"), ("45", "unicast"),
                          ("45", "rc-k2-p2"), ("128", "unicast"), ("128", "rc-k2-p2")])
        r = rows[0]
        self.assertEqual(r["seeds"], 3)
        self.assertAlmostEqual(r["median"], 2.0 + 0.2)          # median over seeds
        self.assertAlmostEqual(r["median_mean"], 2.0 + 0.2)
        self.assertLess(r["median_ci_lo"], r["median_mean"])
        self.assertEqual(r["deliveries"], 300)

    def test_summarize_prints_full_labels_in_numeric_order_and_only_axes(self):
        long = "rc-k16-p16-ft1.5-dropoffline"
        sw = sweep.Sweep(grid(users=(128, 45), strategies=("unicast", long)))
        out = io.StringIO()
        summarize.text_table(sw, table.rows(sw), False, out)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[0].split()[:3], ["users", "strategy", "seeds"])
        self.assertNotIn("duration", lines[0])   # fixed in every job
        self.assertTrue(any(long in ln for ln in lines))
        first = [ln.split()[0] for ln in lines[1:]]
        self.assertEqual(first, ["45", "45", "128", "128"])


class Metrics(unittest.TestCase):
    def test_lookup_aliases_and_ratios(self):
        self.assertEqual(metrics.lookup("delivery ratio").name, "delivery_ratio")
        self.assertEqual(metrics.lookup("p50").name, "median")
        self.assertEqual(metrics.lookup("median").axis_label, "median latency [s]")
        j = FakeJob(dict(users=8), counters=dict(deliveries=90, expected_deliveries=100,
                                                 payload_packets=150, ack_packets=30))
        self.assertAlmostEqual(metrics.lookup("delivery_ratio")(j), 0.9)
        self.assertAlmostEqual(metrics.lookup("packets_per_delivery")(j), 2.0)
        with self.assertRaises(sweep.UsageError):
            metrics.lookup("p42")

    def test_no_samples_is_nan_not_zero(self):
        j = FakeJob(dict(users=8), count=0)
        self.assertTrue(math.isnan(metrics.lookup("median")(j)))


class Draw(unittest.TestCase):
    def draw(self, res, **kw):
        fig, info = plots.draw(sweep.Sweep(res), plots.PlotSpec(**kw))
        plots.plt.close(fig)
        return info

    def test_line_axes_labels_and_log_scales(self):
        info = self.draw(grid(), kind="line", stat="median")
        p = info["panels"][0]
        self.assertEqual((info["x"], info["hue"]), ("users", "strategy"))
        self.assertEqual((p["xlabel"], p["ylabel"]), ("users [count]", "median latency [s]"))
        self.assertEqual(p["xscale"], "log")       # 8..128 spans more than a decade
        self.assertEqual(p["yscale"], "log")       # medians 2..32 s too
        self.assertEqual(p["legend_title"], "strategy")
        self.assertEqual(p["xticklabels"], ["8", "16", "45", "128"])

    def test_narrow_ranges_stay_linear(self):
        info = self.draw(grid(users=(30, 40, 50)), kind="line", stat="median")
        self.assertEqual(info["panels"][0]["xscale"], "linear")
        self.assertEqual(info["panels"][0]["yscale"], "linear")

    def test_values_beyond_a_fixed_range_are_marked(self):
        info = self.draw(grid(), kind="line", stat="median", ylim=(1.0, 10.0))
        self.assertTrue(info["offscale"])
        self.assertTrue(all(o["value"] > 10.0 for o in info["offscale"]))

    def test_box_defaults_to_the_latency_distribution(self):
        info = self.draw(grid(), kind="box")
        self.assertEqual(info["stat"], "latency")
        self.assertEqual(info["panels"][0]["ylabel"], "latency [s]")

    def test_cdf_and_heatmap_labels(self):
        info = self.draw(grid(), kind="cdf")
        self.assertEqual(len(info["panels"]), 2)   # one per strategy
        self.assertEqual(info["panels"][0]["xlabel"], "latency [s]")
        self.assertEqual(info["panels"][0]["title"], "strategy = unicast")
        info = self.draw(grid(), kind="heatmap", stat="p99")
        self.assertEqual(info["panels"][0]["ylabel"], "strategy")
        self.assertTrue(info["colorbar_label"].startswith("p99 latency [s]"))

    def test_timeline_without_records_says_store_raw(self):
        with self.assertRaisesRegex(plots.NoRecords, "store_raw"):
            self.draw(grid(), kind="timeline")

    def test_timeline_with_records(self):
        res = grid(users=(8, 16), seeds=(1,))
        rng = np.random.default_rng(1)
        dt = np.dtype([("message", "u4"), ("group", "u4"), ("sender", "u4"),
                       ("recipient", "u4"), ("sent_s", "f8"), ("delivered_s", "f8"),
                       ("online", "u1")])
        for j in res.jobs:
            d = np.zeros(500, dtype=dt)
            d["sent_s"] = rng.uniform(0, 86400, 500)
            d["delivered_s"] = d["sent_s"] + rng.exponential(5.0, 500)
            d["online"] = rng.uniform(size=500) < 0.9
            j._group["deliveries"] = d
        info = self.draw(res, kind="timeline")
        p = info["panels"][0]
        self.assertEqual((p["xlabel"], p["ylabel"]), ("time of day of the send [h]", "latency [s]"))
        self.assertEqual(info["hue"], "users")

    def test_scalar_kinds_refuse_the_distribution(self):
        with self.assertRaises(sweep.UsageError):
            self.draw(grid(), kind="line", stat="latency")


if __name__ == "__main__":
    unittest.main()
