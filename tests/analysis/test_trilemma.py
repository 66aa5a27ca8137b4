#!/usr/bin/python3
"""Unit tests of analysis/fig_trilemma.py's CSV input (docs/trilemma.md): a
study grows by one strategy without rerunning the others, so the committed
figures/study/trilemma.csv must come back byte for byte when read and written again, and a
configuration given twice must be refused rather than averaged."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "analysis"))

import fig_trilemma  # noqa: E402

COMMITTED = os.path.join(ROOT, "figures", "study", "trilemma.csv")


class CsvInput(unittest.TestCase):
    def test_committed_csv_round_trips_byte_identical(self):
        with tempfile.TemporaryDirectory() as d:
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(fig_trilemma.main(["fig_trilemma", COMMITTED, d]), 0)
            with open(COMMITTED, "rb") as a, open(os.path.join(d, "trilemma.csv"), "rb") as b:
                self.assertEqual(a.read(), b.read())
            self.assertGreater(os.path.getsize(os.path.join(d, "trilemma.png")), 10000)

    def test_every_strategy_of_the_study_has_its_own_label_and_colour(self):
        strategies = {k[0] for k in fig_trilemma.read_csv(COMMITTED)}
        self.assertIn("provider-fanout", strategies)
        for s in strategies:
            self.assertIn(s, fig_trilemma.LABEL)
            self.assertIn(s, fig_trilemma.COLOR)
        colours = [fig_trilemma.COLOR[s] for s in strategies]
        self.assertEqual(len(set(colours)), len(colours))

    def test_colours_are_every_tools_and_dominated_points_are_grey(self):
        from rcplot import palette, plots
        for s, c in fig_trilemma.COLOR.items():
            self.assertEqual(c, palette.colour(s))
        rows = fig_trilemma.read_csv(COMMITTED)
        with tempfile.TemporaryDirectory() as d:
            seen = []
            orig = fig_trilemma.plt.Axes.scatter

            def spy(ax, *a, **kw):
                seen.append(kw.get("color"))
                return orig(ax, *a, **kw)
            fig_trilemma.plt.Axes.scatter = spy
            try:
                fig_trilemma.plot(rows, os.path.join(d, "t.png"))
            finally:
                fig_trilemma.plt.Axes.scatter = orig
        self.assertIn(plots.DOMINATED, seen)
        self.assertLess(seen.count(plots.DOMINATED), len(seen))

    def test_new_strategy_rows_sort_after_the_committed_ones(self):
        rows = fig_trilemma.read_csv(COMMITTED)
        key = next(iter(rows))
        extra = dict(rows[key])
        extra["entropy_mean_bits"] = 1.5
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "in.csv")
            fig_trilemma.write_csv({("a-strategy-not-in-the-study",) + key[1:]: extra}, path)
            out = os.path.join(d, "out.csv")
            fig_trilemma.write_csv(fig_trilemma.combine([COMMITTED, path]), out)
            with open(COMMITTED) as a, open(out) as b:
                old, new = a.read().splitlines(), b.read().splitlines()
            self.assertEqual(new[:len(old)], old)
            self.assertEqual(len(new), len(old) + 1)
            self.assertTrue(new[-1].startswith("a-strategy-not-in-the-study,"))
            self.assertIn(",1.5,", new[-1])

    def test_a_configuration_in_two_inputs_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = fig_trilemma.main(["fig_trilemma", COMMITTED, COMMITTED,
                                        os.path.join(d, "out")])
            self.assertEqual(rc, 2)
            self.assertIn("configuration", err.getvalue())
            self.assertFalse(os.path.exists(os.path.join(d, "out")), "nothing written")


if __name__ == "__main__":
    unittest.main()
