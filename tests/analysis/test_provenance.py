#!/usr/bin/python3
"""Unit tests of analysis/rcplot/provenance.py and rcplot.tools.check_figures: a set
recorded with today's code is current; an edited output, an unrecorded file, a changed
analysis source or a missing record each make it stale, named; the code hash covers the
sources a drawing loaded and not the others."""

import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

ANALYSIS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "analysis")
sys.path.insert(0, ANALYSIS)

from rcplot.tools import check_figures  # noqa: E402
from rcplot import provenance  # noqa: E402


class Provenance(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.figs = os.path.join(self.tmp.name, "figures")
        self.set = os.path.join(self.figs, "paper")
        os.makedirs(self.set)
        self.res = os.path.join(self.tmp.name, "fig5.h5")
        with open(self.res, "wb") as f:
            f.write(b"results")
        self.out = os.path.join(self.set, "fig5.png")
        with open(self.out, "wb") as f:
            f.write(b"png bytes")
        provenance.record(self.set, [self.out], [self.res], "test")

    def tearDown(self):
        self.tmp.cleanup()

    def run_check(self, *sets):
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = check_figures.main(["--figures", self.figs] + list(sets))
        return rc, buf.getvalue()

    def test_current(self):
        self.assertEqual(provenance.check(self.set), [])
        rc, out = self.run_check("paper")
        self.assertEqual(rc, 0, out)
        prov = provenance.load(self.set)
        self.assertEqual(prov["outputs"]["fig5.png"]["tool"], "test")
        self.assertEqual(list(prov["results"].values())[0]["fig5.h5"]["bytes"], 7)

    def test_kept_file_is_held_to_its_bytes_and_ends_when_drawn(self):
        old = os.path.join(self.set, "study.md")
        with open(old, "w") as f:
            f.write("a table whose results are gone\n")
        self.assertIn("study.md: not recorded (drawn by older code, or not redrawn)",
                      provenance.check(self.set))
        provenance.keep(self.set, "study.md", "python3 -m rcplot x r.h5", ["r.h5"],
                        "its results are not kept")
        self.assertEqual(provenance.check(self.set), [])
        rc, out = self.run_check("paper")
        self.assertEqual(rc, 0, out)
        self.assertIn("1 kept as committed", out)
        self.assertIn("kept study.md: its results are not kept", out)
        with open(old, "a") as f:
            f.write("edited\n")
        self.assertIn("study.md: changed since it was kept (redraw it with python3 -m rcplot "
                      "x r.h5, which records it)", provenance.check(self.set))
        os.remove(old)
        self.assertIn("study.md: kept but missing", provenance.check(self.set))
        with open(old, "w") as f:
            f.write("redrawn\n")
        provenance.record(self.set, [old], [self.res], "x")
        self.assertNotIn("study.md", provenance.kept(self.set))
        self.assertEqual(provenance.check(self.set), [])
        with self.assertRaises(ValueError):   # a drawn file is not kept
            provenance.keep(self.set, "study.md", "x", [], "no")

    def test_edited_output(self):
        with open(self.out, "ab") as f:
            f.write(b"!")
        self.assertIn("fig5.png: changed since it was drawn", provenance.check(self.set))
        rc, out = self.run_check("paper")
        self.assertEqual(rc, 1)
        self.assertIn("STALE figures/paper", out)

    def test_unrecorded_and_missing(self):
        with open(os.path.join(self.set, "fig6.png"), "w") as f:
            f.write("old")
        with open(os.path.join(self.set, "timings.tsv"), "w") as f:
            f.write("not drawn, not checked")
        os.remove(self.out)
        p = provenance.check(self.set)
        self.assertEqual(len(p), 2, p)
        self.assertTrue(p[0].startswith("fig6.png: not recorded"), p)
        self.assertIn("fig5.png: recorded but missing", p)

    def test_code_changed(self):
        path = os.path.join(self.set, provenance.NAME)
        with open(path) as f:
            prov = json.load(f)
        (files,) = prov["code"].values()
        # This test module's own record stands for an analysis source edited since.
        self.assertIn("rcplot/tools/check_figures.py", files)
        files["rcplot/tools/check_figures.py"] = "0" * 64
        with open(path, "w") as f:
            json.dump(prov, f)
        p = provenance.check(self.set)
        self.assertEqual(len(p), 1, p)
        self.assertIn("changed since fig5.png were drawn: analysis/rcplot/tools/check_figures.py", p[0])
        files["rcplot/gone.py"] = "0" * 64
        with open(path, "w") as f:
            json.dump(prov, f)
        self.assertIn("analysis/rcplot/gone.py (deleted)", provenance.check(self.set)[0])

    def test_results_changed(self):
        # Results are recorded by base name when outside the repository.
        self.assertEqual(provenance.check(self.set, results_root=self.tmp.name), [])
        with open(self.res, "ab") as f:
            f.write(b"more jobs")
        p = provenance.check(self.set, results_root=self.tmp.name)
        self.assertEqual(p, ["results fig5.h5 differ from those the figures were drawn from"])

    def test_no_record(self):
        os.makedirs(os.path.join(self.figs, "exact"))
        rc, out = self.run_check("paper", "exact")
        self.assertEqual(rc, 1)
        self.assertIn("STALE figures/exact:\n  - no provenance.json", out)
        self.assertIn("ok    figures/paper", out)

    def test_hash_covers_loaded_sources_only(self):
        code = ("import json, sys; sys.path.insert(0, %r); "
                "from rcplot import provenance, stats; "
                "print(json.dumps(provenance.code_files()))" % ANALYSIS)
        files = json.loads(subprocess.check_output([sys.executable, "-c", code]))
        self.assertIn("rcplot/stats.py", files)
        self.assertIn("rcplot/__init__.py", files)
        self.assertNotIn("rcplot/report.py", files)
        self.assertNotIn("rcplot/provenance.py", files)

    def test_roots_cover_what_the_drawing_imports_only(self):
        # A drawing that a general command dispatches to (rcsim plot --kind deployment)
        # records its own module and what it imports, transitively, not the command's
        # other tools loaded beside it (plots.py, metrics.py, report.py here).
        code = ("import json, sys; sys.path.insert(0, %r); "
                "from rcplot import plots, metrics, report, deployment, provenance; "
                "print(json.dumps([provenance.code_files(roots=[deployment]), "
                "provenance.code_files()]))" % ANALYSIS)
        files, loaded = json.loads(subprocess.check_output([sys.executable, "-c", code]))
        for f in ("rcplot/deployment.py", "rcplot/stats.py", "rcplot/results.py",
                  "rcplot/palette.py", "rcplot/names.py", "rcplot/__init__.py"):
            self.assertIn(f, files)
        for f in ("rcplot/plots.py", "rcplot/metrics.py", "rcplot/report.py",
                  "rcplot/provenance.py"):
            self.assertNotIn(f, files)
        self.assertIn("rcplot/plots.py", loaded)
        self.assertLess(set(files), set(loaded))


if __name__ == "__main__":
    unittest.main()
