#!/usr/bin/python3
"""The trilemma study's figure (docs/trilemma.md) is a use of `rcsim plot --kind tradeoff`:
its committed table of configurations (figures/study/trilemma.csv) loads through
rcplot.configtable as one-seed jobs with the table's own numbers, a mean over several seeds or
a configuration given twice is refused rather than taken for a job, and the plot's
--marker (one shape per lambda divisor) and --join (thin lines through the mu values)
draw what the study's own script drew, keyed in the legend with the marker sizes."""

import contextlib
import csv
import io
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "analysis"))

from rcplot import configtable, metrics, palette, plots, provenance, results, sweep  # noqa: E402
from rcplot.tools import plot as plot_tool  # noqa: E402

COMMITTED = os.path.join(ROOT, "figures", "study", "trilemma.csv")
ARGS = ["--kind", "tradeoff", "--facet", "trace", "--facet", "corrupt_mixes",
        "--marker", "lambda_div", "--join", "rate_delay"]


def rows():
    with open(COMMITTED, newline="") as f:
        return list(csv.DictReader(f))


def write(path, recs):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(recs[0]))
        w.writeheader()
        w.writerows(recs)


class TableOfConfigurations(unittest.TestCase):
    def test_committed_table_loads_as_one_seed_jobs_with_its_numbers(self):
        recs = rows()
        with sweep.load([COMMITTED]) as res:
            sw = sweep.Sweep(res)
            self.assertEqual(len(sw.jobs), len(recs))
            self.assertEqual(len(sw.configs()), len(recs))
            self.assertEqual(sw.seeds(), ["1"])
            self.assertEqual([a.name for a in sw.axes],
                             ["strategy", "trace", "lambda_div", "rate_delay", "corrupt_mixes"])
            self.assertIn("provider-fanout", sw.axis("strategy").values)
            j, r = sw.jobs[0], recs[0]
            self.assertEqual(metrics.lookup("mean")(j), float(r["latency_mean_s"]))
            self.assertEqual(metrics.lookup("anon_entropy")(j), float(r["entropy_mean_bits"]))
            self.assertEqual(metrics.lookup("bw_bytes_per_client_s")(j),
                             float(r["bw_bytes_per_client_s"]))
            # numbers spelled as a job's canonical text spells them
            self.assertEqual(results.job_params(j)["lambda_div"], "1")
            self.assertEqual(sweep.sweep_info(res)[0]["sweep_name"], "trilemma")

    def test_a_mean_over_seeds_a_repeat_and_a_results_file_beside_it_are_refused(self):
        recs = rows()
        with tempfile.TemporaryDirectory() as d:
            many = os.path.join(d, "many.csv")
            write(many, [dict(recs[0], seeds="3")])
            with self.assertRaisesRegex(ValueError, "3 seeds"):
                configtable.load([many])
            twice = os.path.join(d, "twice.csv")
            write(twice, [recs[0], recs[0]])
            with self.assertRaisesRegex(ValueError, "twice"):
                configtable.load([twice])
            one = os.path.join(d, "one.csv")
            write(one, [recs[0]])
            with self.assertRaisesRegex(ValueError, "earlier table"):
                configtable.load([COMMITTED, one])
            with self.assertRaisesRegex(sweep.UsageError, "earlier table"):
                sweep.load([COMMITTED, one])
            h5 = os.path.join(d, "r.h5")
            open(h5, "w").close()
            with self.assertRaisesRegex(sweep.UsageError, "not with results files"):
                sweep.load([one, h5])
            bad = os.path.join(d, "bad.csv")
            with open(bad, "w") as f:
                f.write("strategy,trace\nunicast,online\n")
            with self.assertRaisesRegex(sweep.UsageError, "no column"):
                sweep.load([bad])


class TrilemmaFigure(unittest.TestCase):
    def draw(self, **kw):
        res = sweep.load([COMMITTED])
        self.addCleanup(res.close)
        spec = plots.PlotSpec(kind="tradeoff", facets=["trace", "corrupt_mixes"], **kw)
        fig, info = plots.draw(sweep.Sweep(res), spec)
        self.addCleanup(plots.plt.close, fig)
        return fig, info

    def test_markers_per_lambda_divisor_lines_through_mu_and_keys(self):
        fig, info = self.draw(marker="lambda_div", join="rate_delay")
        self.assertEqual(len(info["panels"]), 6)
        ax = fig.axes[0]
        # one point per configuration of the panel; one marker shape per divisor
        pts = [c for c in ax.collections if c.get_gid() in ("front", "dominated")]
        self.assertEqual(len(pts), 432 // 6)
        shapes = {tuple(map(tuple, c.get_paths()[0].vertices.round(3))) for c in pts}
        self.assertEqual(len(shapes), 4)
        # a line per (strategy, divisor) through mu = 1, 3, 10, in the strategy's colour
        joins = [ln for ln in ax.get_lines() if ln.get_gid() == "join"]
        self.assertEqual(len(joins), 6 * 4)
        self.assertTrue(all(len(ln.get_xdata()) == 3 for ln in joins))
        colours = {plots.matplotlib.colors.to_hex(ln.get_color()) for ln in joins}
        self.assertEqual(colours, {plots.matplotlib.colors.to_hex(palette.colour(s))
                                   for s in sweep.Sweep(sweep.load([COMMITTED]))
                                   .axis("strategy").values})
        legend = info["panels"][0]["legend"]
        for d in (1, 2, 4, 8):
            self.assertIn("lambda_div = %d" % d, legend)
        self.assertTrue(any(t.startswith("joins rate_delay = 1, 3, 10") for t in legend),
                        legend)
        # the size key: three areas, in kB/s
        self.assertEqual(sum(t.endswith("kB/s") for t in legend), 3, legend)
        self.assertIn("dominated", legend)

    def test_without_marker_every_point_is_a_circle_and_nothing_is_joined(self):
        fig, _ = self.draw()
        ax = fig.axes[0]
        pts = [c for c in ax.collections if c.get_gid() in ("front", "dominated")]
        self.assertEqual(len({tuple(map(tuple, c.get_paths()[0].vertices.round(3)))
                              for c in pts}), 1)
        self.assertFalse([ln for ln in ax.get_lines() if ln.get_gid() == "join"])

    def test_bad_roles_are_usage_errors(self):
        for kw, msg in ((dict(marker="lambda_div", join="lambda_div"), "same axis"),
                        (dict(marker="strategy"), "colour"),
                        (dict(join="trace"), "panels"),
                        (dict(marker="users"), "not an axis")):
            with self.assertRaisesRegex(sweep.UsageError, msg):
                self.draw(**kw)
        res = sweep.load([COMMITTED])
        self.addCleanup(res.close)
        with self.assertRaisesRegex(sweep.UsageError, "tradeoff only"):
            plots.draw(sweep.Sweep(res), plots.PlotSpec(kind="line", marker="lambda_div"))

    def test_the_tool_records_the_figure_and_its_table_in_the_set(self):
        with tempfile.TemporaryDirectory() as d:
            table = os.path.join(d, "trilemma.csv")
            shutil.copy(COMMITTED, table)
            out = os.path.join(d, "trilemma.png")
            with contextlib.redirect_stdout(io.StringIO()):
                rc = plot_tool.main([table] + ARGS + ["--out", out, "--record"])
            self.assertEqual(rc, 0)
            provenance.keep(d, "trilemma.csv", "the study's sweeps", ["trilemma.h5"], "input")
            self.assertEqual(provenance.check(d), [])
            prov = provenance.load(d)
            o = prov["outputs"]["trilemma.png"]
            self.assertEqual(o["tool"], "plot " + " ".join(ARGS[:2] + ARGS[6:] + ARGS[2:6]))
            self.assertEqual(list(prov["results"][o["results"]].values())[0]["sha256"],
                             provenance.sha256_file(COMMITTED))
            self.assertIn("rcplot/plots.py", prov["code"][o["code"]])
            # the table is held to its bytes: an edit makes the set stale
            with open(table, "a") as f:
                f.write("\n")
            self.assertTrue(any("trilemma.csv: changed since it was kept" in p
                                for p in provenance.check(d)))


if __name__ == "__main__":
    unittest.main()
