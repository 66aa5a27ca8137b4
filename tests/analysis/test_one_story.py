#!/usr/bin/python3
"""Unit tests of "one story in every view" (docs/analysis.md): every table, page and plot
shows the same centre over seeds with the same brackets; strategies keep one order and one
colour; the plot refuses what it cannot draw.  Jobs are the stand-ins of test_sweep.py."""

import io
import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "analysis"))

from rcplot.tools import summarize  # noqa: E402
from rcplot import interactive, metrics, palette, plots, report, sweep, table  # noqa: E402
from test_plot_fixes import with_records  # noqa: E402
from test_sweep import grid  # noqa: E402

# per-seed medians 1, 2, 100: median 2, arithmetic mean 34.3, geometric mean 5.85
SKEW = {1: 1.0, 2: 2.0, 3: 100.0}


def skewed(seeds=(1, 2, 3)):
    return grid(users=(8, 16), seeds=seeds, median=lambda u, s, seed: SKEW[seed])


class OneCentre(unittest.TestCase):
    def test_html_cell_is_the_estimate_of_report_md(self):
        sw = sweep.Sweep(skewed())
        r = table.rows(sw, stats=("median",))[0]
        text, numeric, sort, ci = report.html_cell(r, "median")
        self.assertEqual(text, table.fmt(r["median_est"]))
        self.assertAlmostEqual(sort, r["median_est"])
        self.assertAlmostEqual(r["median_est"], (1 * 2 * 100) ** (1 / 3))
        self.assertIn(text, table.fmt_ci(r, "median"))

    def test_seed_range_in_parentheses_in_html_too(self):
        sw = sweep.Sweep(skewed())
        r = table.rows(sw, stats=("median",))[0]
        _, _, _, ci = report.html_cell(r, "median")
        self.assertEqual(ci, "(1–100)")
        sw = sweep.Sweep(grid(users=(8, 16), seeds=(1, 2, 3, 4, 5, 6)))
        r = table.rows(sw, stats=("median",))[0]
        _, _, _, ci = report.html_cell(r, "median")
        self.assertTrue(ci.startswith("[") and ci.endswith("]"), ci)

    def test_summarize_prints_the_estimate_and_names_it(self):
        sw = sweep.Sweep(skewed())
        rows = table.rows(sw)
        out = io.StringIO()
        summarize.text_table(sw, rows, False, out)
        first = out.getvalue().splitlines()[1].split()
        self.assertIn("%.2f" % rows[0]["median_est"], first)
        self.assertNotIn("%.2f" % rows[0]["median"], first)
        self.assertIn("geometric mean", summarize.CENTRE_NOTE)


STRATS = ("rc-k2-p2-ft-dropoffline", "unicast", "provider-fanout", "rc-k2-p2", "rc-k1-p1")


class StrategyOrderAndColour(unittest.TestCase):
    def test_axis_and_rows_in_the_strategy_tables_order(self):
        sw = sweep.Sweep(grid(users=(8,), strategies=STRATS))
        want = ["unicast", "rc-k1-p1", "rc-k2-p2", "rc-k2-p2-ft-dropoffline", "provider-fanout"]
        self.assertEqual(sw.axis("strategy").values, want)
        self.assertEqual([r["strategy"] for r in table.rows(sw)], want)

    def test_a_strategy_keeps_its_colour_whatever_the_sweep_holds(self):
        a = sweep.Sweep(grid(users=(8, 16), strategies=STRATS))
        b = sweep.Sweep(grid(users=(8, 16), strategies=("rc-k2-p2", "unicast")))
        for sw in (a, b):
            pc = plots.strategy_colours(sw)
            self.assertEqual(plots.matplotlib.colors.to_hex(pc["rc-k2-p2"]),
                             palette.colour("rc-k2-p2"))
            _, _, hc, _ = interactive._styles(sw, "users")
            self.assertEqual(hc["rc-k2-p2"], palette.colour("rc-k2-p2"))
        self.assertEqual(palette.colour("rollercoaster-k2-p2-notimeout"),
                         palette.colour("rc-k2-p2"))
        cols = [palette.colour(s) for s in STRATS]
        self.assertEqual(len(set(cols)), len(cols))



def draw(res, **kw):
    fig, info = plots.draw(sweep.Sweep(res), plots.PlotSpec(**kw))
    return fig, info


class PlotDefects(unittest.TestCase):
    def test_timeline_draws_online_dots_over_offline_crosses(self):
        res = with_records(grid(users=(8, 16), seeds=(1,)), 1800.0)
        for j in res.jobs:
            j._group["deliveries"]["online"][::2] = 0
        fig, _ = draw(res, kind="timeline")
        z = {c.get_gid(): c.get_zorder() for c in fig.axes[0].collections}
        self.assertGreater(z["online"], z["offline"])
        plots.plt.close(fig)

    def test_offscale_marks_take_the_series_colour_and_do_not_overprint(self):
        fig, info = draw(grid(users=(8, 16, 45, 128)), kind="line", stat="median",
                         ylim=(1.0, 10.0))
        by = {}
        for o in info["offscale"]:
            s = "unicast" if "unicast" in o["what"] else "rc-k2-p2"
            self.assertEqual(o["colour"], palette.colour(s))
            by.setdefault(o["x"], []).append(o)
        ax = fig.axes[0]
        spots = [(t.xy, t.xyann) for t in ax.texts]
        self.assertEqual(len(spots), len(set(spots)), spots)
        plots.plt.close(fig)

    def test_ylim_from_zero_gives_a_linear_axis_not_a_dropped_limit(self):
        fig, info = draw(grid(), kind="line", stat="median", ylim=(0.0, 100.0))
        self.assertEqual(info["panels"][0]["yscale"], "linear")
        self.assertEqual(fig.axes[0].get_ylim(), (0.0, 100.0))
        plots.plt.close(fig)
        with self.assertRaisesRegex(sweep.UsageError, "--ylim 0,100 with --yscale log"):
            draw(grid(), kind="line", stat="median", ylim=(0.0, 100.0), yscale="log")

    def test_a_statistic_nan_everywhere_is_no_data(self):
        with self.assertRaisesRegex(plots.NoData, "anonymity: on"):
            draw(grid(), kind="line", stat="anon_entropy")
        with self.assertRaises(plots.NoRecords):   # plot.py: exit 1
            draw(grid(), kind="box", stat="counter:anon_entropy_mean_bits")

    def test_counters_by_any_name_with_their_unit(self):
        m = metrics.lookup("counter:anon_entropy_mean_bits")
        self.assertEqual((m.name, m.axis_label), ("anon_entropy",
                                                  "entropy of a tracked message [bits]"))
        self.assertIs(metrics.lookup("anon_entropy_mean_bits"), m)
        self.assertIs(metrics.lookup("counter_anon_entropy_mean_bits"), m)
        self.assertEqual(metrics.lookup("counter:unobs_ks_crit05").unit, "count")
        self.assertEqual(metrics.lookup("counter_so_latency_sum_ms").unit, "ms")
        with self.assertRaisesRegex(sweep.UsageError, "did you mean delivery_ratio"):
            metrics.lookup("delivery_ration")

    def test_derived_ratios_of_counters(self):
        from test_sweep import FakeJob
        j = FakeJob(dict(users=8), counters=dict(deliveries=200, duplicates=50, ack_packets=30,
                                                 payload_packets=70))
        m = metrics.lookup("ratio:duplicates/deliveries")
        self.assertAlmostEqual(m(j), 0.25)
        self.assertEqual(m.axis_label, "duplicates per deliveries [ratio]")
        self.assertAlmostEqual(metrics.lookup("ratio:counter_ack_packets+payload_packets/"
                                              "deliveries")(j), 0.5)
        self.assertEqual(table.parse_columns("median,ratio:duplicates/deliveries", ()),
                         ["median", "ratio:duplicates/deliveries"])
        with self.assertRaises(sweep.UsageError):
            metrics.lookup("ratio:duplicates")

    def test_where_strategy_in_any_spelling_and_a_hint_for_a_typo(self):
        res = grid(strategies=("unicast", "rc-k2-p2"))
        sw = sweep.Sweep(res, {"strategy": ["rollercoaster-k2-p2-notimeout"]})
        self.assertEqual({p["strategy"] for p in sw.params}, {"rc-k2-p2"})
        with self.assertRaisesRegex(sweep.UsageError, "did you mean rc-k2-p2"):
            sweep.Sweep(res, {"strategy": ["rc-k2-p3"]})
        with self.assertRaisesRegex(sweep.UsageError, "did you mean users"):
            sweep.Sweep(res, {"user": ["8"]})


    def test_packets_per_delivery_counts_the_providers_copies(self):
        from test_sweep import FakeJob
        c = dict(deliveries=300, expected_deliveries=310, payload_packets=10)
        fan = FakeJob(dict(users=32, strategy="provider-fanout"), counters=c)
        uni = FakeJob(dict(users=32, strategy="unicast"),
                      counters=dict(c, payload_packets=310))
        ppd = metrics.lookup("packets_per_delivery")
        self.assertAlmostEqual(ppd(fan), 320 / 300)
        self.assertAlmostEqual(ppd(uni), 310 / 300)



class HelpTexts(unittest.TestCase):
    def test_help_says_what_the_tools_do(self):
        from rcplot.tools import plot as plot_py
        from rcplot.tools import report as report_py
        for mod in (plot_py, report_py, summarize):
            doc = mod.__doc__
            self.assertNotIn("mean over seeds with its 95 % t-interval", doc)
            self.assertNotIn("mean over seeds\nand 95 % t-interval", doc)
            self.assertIn("geometric mean", doc)
        self.assertIn(".svg", plot_py.parser().format_help())

    def test_compare_names_its_centre(self):
        from rcplot import baseline
        n = baseline.note([dict(interval="seed range")])
        self.assertIn("each side: its estimate over the paired seeds (geometric mean", n)

    def test_line_note_names_each_interval_once(self):
        _, info = draw(grid(seeds=(1, 2, 3, 4, 5)), kind="line", stat="median")
        self.assertIn("95 % t-interval on the log scale", info["note"])
        self.assertNotIn("scale interval", info["note"])



def anon_grid(seeds=(1, 2, 3, 4, 5), users=(16,)):
    """A rate_delay x strategy sweep whose jobs measured anonymity (x users when several)."""
    from test_sweep import FakeJob, FakeResults
    jobs = []
    for u, rd in ((u, rd) for u in users for rd in (2, 10)):
        for s in ("unicast", "rc-k2-p2"):
            for seed in seeds:
                c = dict(deliveries=100, expected_deliveries=100, payload_packets=100,
                         anon_entropy_mean_bits=3.0 + rd / 4 + (s == "unicast") + seed / 100,
                         anon_min_entropy_mean_bits=2.0 + rd / 5,
                         bw_bytes_per_client_s=12000.0 + seed, bw_payload_pps=0.2,
                         bw_cover_pps=5.8)
                jobs.append(FakeJob(dict(users=u, strategy=s, rate_delay=rd, seed=seed),
                                    median=((8 if s == "unicast" else 4) / rd ** 0.5 +
                                            seed / 50) * u / 16,
                                    counters=c))
    return FakeResults(jobs)


class Columns(unittest.TestCase):
    def test_parse_columns_names_groups_and_counters(self):
        self.assertEqual(table.parse_columns("median,anonymity,counter_duplicates", ()),
                         ["median", "anon_entropy", "anon_min_entropy",
                          "anon_sender_entropy", "duplicates"])
        self.assertEqual(table.parse_columns("default,p99", ("mean",)), ["mean", "p99"])
        with self.assertRaisesRegex(sweep.UsageError, "did you mean"):
            table.parse_columns("medain", ())

    def test_an_anonymity_sweep_shows_entropy_and_bandwidth_by_default(self):
        sw = sweep.Sweep(anon_grid())
        rows = table.rows(sw, stats=table.candidates(table.DEFAULT_STATS))
        got = table.shown(rows, table.DEFAULT_STATS)
        for s in ("anon_entropy", "anon_min_entropy", "bw_bytes_per_client_s"):
            self.assertIn(s, got)
        self.assertNotIn("anon_sender_entropy", got)    # n/a everywhere here
        plain = sweep.Sweep(grid())
        rows = table.rows(plain, stats=table.candidates(table.DEFAULT_STATS))
        self.assertEqual(table.shown(rows, table.DEFAULT_STATS), list(table.DEFAULT_STATS))

    def test_summarize_text_table_has_the_columns(self):
        sw = sweep.Sweep(anon_grid())
        rows = table.rows(sw, stats=table.candidates(summarize.TEXT_STATS))
        out = io.StringIO()
        summarize.text_table(sw, rows, False, out, table.shown(rows, summarize.TEXT_STATS))
        head = out.getvalue().splitlines()[0].split()
        self.assertIn("anon_entropy", head)
        self.assertIn("bw_bytes_per_client_s", head)



class Tradeoff(unittest.TestCase):
    def test_pareto(self):
        self.assertEqual(plots.pareto([(1, 5), (2, 4), (2, 6), (3, 3), (float("nan"), 0)]),
                         [0, 1, 3])
        self.assertEqual(plots.pareto([(1, 1), (1, 1)]), [0, 1])   # equal: neither dominates

    def test_front_coloured_dominated_grey(self):
        fig, info = draw(anon_grid(), kind="tradeoff")
        ax = fig.axes[0]
        self.assertTrue(ax.get_xlabel().startswith("entropy of a tracked message [bits]"))
        self.assertEqual(ax.get_ylabel(), "mean latency [s]")
        front = info["pareto"][0]
        # rc-k2-p2 is faster and unicast has more entropy at each rate_delay: both on the
        # front at rate_delay 10 (no bandwidth difference breaks the tie)
        self.assertEqual(sorted(front), ["strategy=rc-k2-p2, rate_delay=10",
                                         "strategy=unicast, rate_delay=10"])
        greys = [c for c in ax.collections if c.get_gid() == "dominated"]
        self.assertEqual(len(greys), 2)
        for c in greys:
            self.assertEqual(plots.matplotlib.colors.to_hex(c.get_facecolor()[0]),
                             plots.DOMINATED)
        self.assertIn("Pareto front (not dominated)", info["panels"][0]["legend"])
        plots.plt.close(fig)

    def test_the_situation_makes_panels_not_one_front(self):
        # users and trace are not choices: by default each of their values is a panel with
        # its own front (one front across them put every 32-user point behind fan-out's)
        fig, info = draw(anon_grid(users=(16, 64)), kind="tradeoff")
        self.assertEqual(len(info["panels"]), 2)
        self.assertEqual(len(info["pareto"]), 2)
        for front in info["pareto"]:
            self.assertEqual(len(front), 2, info["pareto"])
        plots.plt.close(fig)
        # an explicit --facet still wins
        fig, info = draw(anon_grid(users=(16, 64)), kind="tradeoff", facets=["rate_delay"])
        self.assertEqual(len(info["panels"]), 2)
        plots.plt.close(fig)

    def test_coincident_configurations_are_set_apart(self):
        # two strategies with equal numbers (RC and RC-FT always online) drew one marker
        # over the other: the earlier one was hidden, or their rings blended
        from test_sweep import FakeJob, FakeResults
        jobs = list(anon_grid().jobs)
        for j in anon_grid().jobs:
            params = dict(kv.split("=", 1) for kv in j.attrs["canonical"].split("\n"))
            if params["strategy"] != "rc-k2-p2":
                continue
            params["strategy"] = "rc-k2-p2-ft"
            jobs.append(FakeJob(params, median=j.summary["p50"],
                                counters={k[len("counter_"):]: v for k, v in j.attrs.items()
                                          if k.startswith("counter_")}))
        fig, info = draw(FakeResults(jobs), kind="tradeoff")
        ax = fig.axes[0]
        fig.canvas.draw()
        where = []
        for c in ax.collections:
            if c.get_gid() in ("front", "dominated"):
                where.append(tuple(c.get_offset_transform().transform(c.get_offsets())[0]))
        self.assertEqual(len(where), 6)
        # ... and inside the axes (a shifted marker still counts for the axis limits)
        box = ax.get_window_extent()
        for x, y in where:
            self.assertTrue(box.x0 < x < box.x1 and box.y0 < y < box.y1, (where, box))
        # every marker at its own place on screen, 7 points (about 10 px) apart at least
        for i, a in enumerate(where):
            for b in where[i + 1:]:
                self.assertGreater(math.hypot(a[0] - b[0], a[1] - b[1]), 5.0, where)
        plots.plt.close(fig)

    def test_without_anonymity_the_bandwidth_is_x_or_no_data(self):
        with self.assertRaises(plots.NoData):
            draw(grid(), kind="tradeoff")
        with self.assertRaisesRegex(sweep.UsageError, "--x does not apply"):
            draw(anon_grid(), kind="tradeoff", x="rate_delay")

    def test_report_has_a_tradeoff_section_for_an_anonymity_sweep(self):
        stems = [s for s, _, _ in report.default_specs(sweep.Sweep(anon_grid()))]
        self.assertIn("tradeoff", stems)
        stems = [s for s, _, _ in report.default_specs(sweep.Sweep(grid()))]
        self.assertNotIn("tradeoff", stems)


if __name__ == "__main__":
    unittest.main()
