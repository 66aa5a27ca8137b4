#!/usr/bin/python3
"""Unit tests of the plot fixes: the timeline's axis fits a short
run's span; a log value axis reaches a labelled tick below its lowest box and above its
highest; the report colours every plot by strategy, with one colour per strategy in all
of them.  Jobs are the stand-ins of test_sweep.py."""

import math
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "analysis"))

from rcplot import plots, report, sweep  # noqa: E402
from test_sweep import grid  # noqa: E402

DT = np.dtype([("msg", "u4"), ("group", "u4"), ("sender", "u4"), ("recipient", "u4"),
               ("send_s", "f8"), ("deliver_s", "f8"), ("online", "u1")])


def with_records(res, span_s):
    rng = np.random.default_rng(3)
    for j in res.jobs:
        d = np.zeros(400, dtype=DT)
        d["send_s"] = rng.uniform(0, span_s, 400)
        d["deliver_s"] = d["send_s"] + rng.exponential(5.0, 400)
        d["online"] = 1
        j._group["deliveries"] = d
    return res


def draw(res, **kw):
    fig, info = plots.draw(sweep.Sweep(res), plots.PlotSpec(**kw))
    return fig, info


class Timeline(unittest.TestCase):
    def test_short_run_is_drawn_over_its_span(self):
        fig, info = draw(with_records(grid(users=(8, 16), seeds=(1,)), 1800.0),
                         kind="timeline")
        ax = fig.axes[0]
        self.assertEqual(ax.get_xlabel(), "time of the send since the run's start [min]")
        lo, hi = ax.get_xlim()
        self.assertEqual(lo, 0.0)
        self.assertTrue(25.0 < hi <= 30.0, hi)
        plots.plt.close(fig)

    def test_hours_and_day(self):
        fig, _ = draw(with_records(grid(users=(8, 16), seeds=(1,)), 6 * 3600.0),
                      kind="timeline")
        self.assertTrue(fig.axes[0].get_xlabel().endswith("[h]"))
        self.assertLessEqual(fig.axes[0].get_xlim()[1], 6.0)
        plots.plt.close(fig)
        fig, _ = draw(with_records(grid(users=(8, 16), seeds=(1,)), 3 * 86400.0),
                      kind="timeline")
        self.assertEqual(fig.axes[0].get_xlim(), (0.0, 24.0))
        plots.plt.close(fig)


class LogTicks(unittest.TestCase):
    def test_every_box_between_labelled_ticks(self):
        # p99 = 3 x median: 16.5 s for the lowest box, ~700 s for the highest
        res = grid(users=(24, 96), median=lambda u, s, seed: (5.5 if s == "unicast" else 230)
                   + seed * 0.1)
        fig, info = draw(res, kind="box", stat="p99")
        ax = fig.axes[0]
        fig.canvas.draw()
        lo, hi = ax.get_ylim()
        ticks = [t for t, lab in zip(ax.get_yticks(), ax.get_yticklabels())
                 if lab.get_text() and lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9)]
        vals = [5.6 * 3, 230.3 * 3]
        self.assertLessEqual(min(ticks), min(vals) - 1e-9, (ticks, ax.get_ylim()))
        self.assertGreaterEqual(max(ticks), max(vals), (ticks, ax.get_ylim()))
        plots.plt.close(fig)


class ReportColours(unittest.TestCase):
    def test_every_plot_is_coloured_by_strategy(self):
        res = with_records(grid(users=(8, 16, 45), strategies=("unicast", "rc-k2-p2",
                                                               "rc-k3-p2")), 1800.0)
        sw = sweep.Sweep(res)
        specs = report.default_specs(sw)
        colour = {}
        for stem, spec, _ in specs:
            if spec.kind == "heatmap":
                continue   # its colour is the value
            fig, info = plots.draw(sw, spec)
            self.assertEqual(info["hue"], "strategy", stem)
            leg = fig.legends[0]
            handles = getattr(leg, "legend_handles", None) or leg.legendHandles
            for h, t in zip(handles, leg.get_texts()):
                c = h.get_color() if hasattr(h, "get_color") else h.get_facecolor()
                c = tuple(np.round(np.asarray(matplotlib_rgba(c)), 4))
                colour.setdefault(t.get_text(), set()).add(c)
            plots.plt.close(fig)
        self.assertEqual(sorted(colour), ["rc-k2-p2", "rc-k3-p2", "unicast"])
        for name, cs in colour.items():
            self.assertEqual(len(cs), 1, "%s drawn in %s" % (name, cs))


def matplotlib_rgba(c):
    from matplotlib.colors import to_rgba
    return to_rgba(c)


if __name__ == "__main__":
    unittest.main()
