#!/usr/bin/python3
"""Unit tests of analysis/rcplot/baseline.py (`rcsim compare`): pairing by seed, the
configuration key (every parameter but strategy and seed, and columns the strategy
determines), ratios and differences with their intervals, seed ranges below 5 pairs, the
error for an absent baseline, and the ratio plot's log axis.  Jobs are the stand-ins of
test_sweep.py."""

import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "analysis"))

from rcplot import baseline, plots, stats, sweep  # noqa: E402
from test_sweep import FakeJob, FakeResults  # noqa: E402


def jobs(seeds, ratio=lambda seed: 0.5, strategies=("unicast", "rc-k2-p2"), users=(16, 64),
         k_column=False):
    out = []
    for u in users:
        for s in strategies:
            for seed in seeds:
                base = u * (1.0 + 0.3 * seed)     # the seed's luck, shared by both sides
                med = base if s == "unicast" else base * ratio(seed)
                p = dict(users=u, strategy=s, seed=seed)
                if k_column:
                    p["k"] = 1 if s == "unicast" else 2
                out.append(FakeJob(p, median=med))
    return FakeResults(out)


class Compare(unittest.TestCase):
    def test_paired_ratio_cancels_the_seed(self):
        # every seed's own factor (1 + 0.3 seed) cancels: the ratio is exactly 0.5
        sw = sweep.Sweep(jobs(range(1, 7)))
        rows = baseline.compare(sw, "unicast", ["median", "p99"])
        self.assertEqual(len(rows), 2 * 2)   # 2 users x 1 strategy x 2 stats
        for r in rows:
            self.assertEqual(r["pairs"], 6)
            self.assertAlmostEqual(r["ratio"], 0.5)
            self.assertAlmostEqual(r["ratio_lo"], 0.5)
            self.assertEqual(r["interval"], stats.LOG_T)
            self.assertLess(r["diff"], 0)
            self.assertLessEqual(r["diff_lo"], r["diff"])

    def test_interval_and_range(self):
        ratio = lambda seed: [0.4, 0.6, 0.5, 0.45, 0.55, 0.5][seed - 1]  # noqa: E731
        r = baseline.compare(sweep.Sweep(jobs(range(1, 7), ratio)), "unicast", ["median"])[0]
        self.assertTrue(0.4 < r["ratio_lo"] < r["ratio"] < r["ratio_hi"] < 0.6, r)
        r = baseline.compare(sweep.Sweep(jobs(range(1, 4), ratio)), "unicast", ["median"])[0]
        self.assertEqual(r["interval"], stats.RANGE)
        self.assertAlmostEqual(r["ratio_lo"], 0.4)
        self.assertAlmostEqual(r["ratio_hi"], 0.6)
        self.assertIn("(", baseline.fmt_interval(r["ratio"], r["ratio_lo"], r["ratio_hi"],
                                                  r["interval"]))
        self.assertIn("fewer than 5 pairs", baseline.note([r]))

    def test_unpaired_seeds_are_left_out(self):
        res = jobs(range(1, 4))
        res.jobs = [j for j in res.jobs if not ("strategy=unicast" in j.attrs["canonical"]
                                                and "seed=3" in j.attrs["canonical"])]
        rows = baseline.compare(sweep.Sweep(res), "unicast", ["median"])
        self.assertEqual({(r["pairs"], r["unpaired"]) for r in rows}, {(2, 1)})

    def test_columns_derived_from_the_strategy_are_not_configurations(self):
        sw = sweep.Sweep(jobs(range(1, 4), k_column=True))
        self.assertEqual([a.name for a in baseline.group_axes(sw)], ["users"])
        self.assertEqual(len(baseline.compare(sw, "unicast", ["median"])), 2)

    def test_absent_baseline(self):
        sw = sweep.Sweep(jobs(range(1, 4)))
        with self.assertRaises(sweep.UsageError) as e:
            baseline.compare(sw, "rc-k9-p9", ["median"])
        self.assertIn("unicast, rc-k2-p2", str(e.exception))

    def test_plot_is_log_with_the_strategy_colour(self):
        sw = sweep.Sweep(jobs(range(1, 7), strategies=("rc-k2-p2", "rc-k3-p3", "unicast")))
        rows = baseline.compare(sw, "unicast", ["median", "p99"])
        fig = baseline.draw(sw, rows, plots)
        axes = fig.axes
        self.assertEqual([a.get_yscale() for a in axes], ["log", "log"])
        colours = plots.strategy_colours(sw)
        hs, labels = axes[0].get_legend_handles_labels()
        self.assertEqual(labels, ["rc-k2-p2", "rc-k3-p3"])
        # the errorbar container's data line carries the colour of every plot of the sweep
        self.assertEqual(tuple(hs[1].lines[0].get_color()), tuple(colours["rc-k3-p3"]))
        self.assertNotEqual(colours["rc-k2-p2"], colours["rc-k3-p3"])
        plots.plt.close(fig)


if __name__ == "__main__":
    unittest.main()
