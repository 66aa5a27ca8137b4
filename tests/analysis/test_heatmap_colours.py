#!/usr/bin/python3
"""The paper figures' heatmaps (figures 9 and 14, analysis/rcplot/figures.py) read the same
to a colour-blind reader: the colour map they draw with, and their colour bar's, must rise
(or fall) in lightness steadily from one end to the other, also as a reader with
protanopia or deuteranopia sees it, and span a wide range of lightness.  A red-green map
fails: its two ends have about the same lightness (RdYlGn's red and green, with a light
yellow between them), so under deuteranopia they are one colour.  The numbers printed in
the cells must stand out from their cell (WCAG contrast ratio at least 4.5)."""

import os
import sys
import unittest

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "analysis"))

from rcplot import figures  # noqa: E402

# Colour-vision deficiency on linear sRGB, severity 1 (Machado, Oliveira and Fernandes,
# "A physiologically-based model for simulation of color vision deficiency", 2009).
PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868],
                       [0.114503, 0.786281, 0.099216],
                       [-0.003882, -0.048116, 1.051998]])
DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968],
                         [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]])
MIN_SPAN = 40.0   # L* from one end of the map to the other (0 black .. 100 white)
SLACK = 0.5       # L* a step may go back (rounding in the map's 256-entry table)


def _linear(rgb):
    rgb = np.asarray(rgb, dtype=float)
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _lightness(lin):
    """CIE L* of linear sRGB colours (rows)."""
    y = np.clip(lin, 0, 1) @ np.array([0.2126, 0.7152, 0.0722])
    return np.where(y > (6 / 29) ** 3, 116 * np.cbrt(y) - 16, y * (29 / 3) ** 3)


def map_problems(cmap, n=256):
    """Why `cmap` is not safe for colour-blind readers ([] when it is)."""
    lin = _linear(cmap(np.linspace(0, 1, n))[:, :3])
    out = []
    for name, m in (("normal vision", np.eye(3)), ("protanopia", PROTANOPIA),
                    ("deuteranopia", DEUTERANOPIA)):
        L = _lightness(lin @ m.T)
        d = np.diff(L) * np.sign(L[-1] - L[0] or 1)
        if (d < -SLACK).any():
            out.append("%s: lightness goes back by %.1f L* at %.2f of the map" % (
                name, -d.min(), (np.argmin(d) + 1) / (n - 1)))
        if abs(L[-1] - L[0]) < MIN_SPAN:
            out.append("%s: the ends differ by %.1f L* (< %g)" % (
                name, abs(L[-1] - L[0]), MIN_SPAN))
    return out


def _contrast(a, b):
    la, lb = figures.relative_luminance(a), figures.relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


class HeatmapColours(unittest.TestCase):
    def setUp(self):
        # A figure-9-like pair of panels over four decades, with one cell lacking results.
        grid = np.array([[3.0 * 10 ** (c / 2 + r / 5) for c in range(5)] for r in range(5)])
        grid[2, 3] = np.nan
        self.grid = grid
        norm = figures._heat_norm([grid])
        self.fig, axes = plt.subplots(1, 2)
        for ax, pk in zip(axes, (False, True)):
            figures._heatmap(ax, grid, "gen_os15", pk, norm)
        figures._colourbar(self.fig, list(axes), norm)
        self.axes = axes

    def tearDown(self):
        plt.close(self.fig)

    def test_the_checker_refuses_red_green_maps(self):
        self.assertTrue(map_problems(matplotlib.colormaps["RdYlGn_r"]))
        self.assertTrue(map_problems(matplotlib.colormaps["RdYlGn"]))
        red_green = matplotlib.colors.LinearSegmentedColormap.from_list(
            "red-green", ["#d62728", "#2ca02c"])
        self.assertTrue(map_problems(red_green))
        self.assertEqual(map_problems(matplotlib.colormaps["viridis"]), [])

    def test_heatmaps_and_colour_bar_use_a_colour_blind_safe_map(self):
        images = [im for ax in self.fig.axes for im in ax.get_images()]
        self.assertEqual(len(images), 2)
        bars = [c for c in self.fig.axes if c not in self.axes]
        self.assertEqual(len(bars), 1)
        for cmap in [im.get_cmap() for im in images] + [bars[0].collections[-1].cmap
                                                        if bars[0].collections else
                                                        bars[0].images[-1].get_cmap()]:
            self.assertEqual(map_problems(cmap), [], cmap.name)

    def test_missing_cell_stands_apart_from_every_colour_of_the_map(self):
        im = self.axes[0].get_images()[0]
        bad = im.get_cmap().get_bad()
        colours = im.get_cmap()(np.linspace(0, 1, 256))
        self.assertGreater(min(np.abs(colours[:, :3] - bad[:3]).sum(axis=1)), 0.2)

    def test_cell_numbers_stand_out(self):
        ax = self.axes[0]
        im = ax.get_images()[0]
        for t in ax.texts:
            c, r = (int(round(v)) for v in t.get_position())
            v = self.grid[r, c]
            cell = im.get_cmap()(im.norm(v)) if np.isfinite(v) else im.get_cmap().get_bad()
            self.assertGreaterEqual(_contrast(t.get_color(), cell), 4.5,
                                    "%s on %s (cell %d,%d)" % (t.get_color(), cell, r, c))


if __name__ == "__main__":
    unittest.main()
