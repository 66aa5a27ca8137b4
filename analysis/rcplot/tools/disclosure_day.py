#!/usr/bin/python3
"""Draw the day-long disclosure study (rcplot/disclosure_day.py) from its results.

  python3 -m rcplot disclosure-day RESULTS.h5 [RESULTS.h5 ...] OUTDIR [--curve-corrupt F]

experiments/disclosure.yaml (docs/disclosure.md, "The day-long study"); writes
OUTDIR/disclosure-day.{png,md}: the day's end against the corrupted providers and, for
the jobs run with store_raw, the learning curves over the day at the corrupted fraction F
(default: the largest with curves).  Records the code and results that drew them in
OUTDIR/provenance.json (`python3 -m rcplot check-figures`).
Exit status: 0 drawn, 1 no jobs to draw, 2 bad usage.
"""
import argparse
import os
import sys

from rcplot import disclosure_day, provenance


def main(argv=None):
    ap = argparse.ArgumentParser(prog=os.environ.get("RCSIM_PROG",
                                                     "python3 -m rcplot disclosure-day"),
                                 description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("paths", nargs="+", metavar="RESULTS.h5 ... OUTDIR")
    ap.add_argument("--curve-corrupt", type=float, default=None, metavar="F",
                    help="corrupted fraction of the providers whose curves are drawn")
    a = ap.parse_args(argv)
    if len(a.paths) < 2:
        ap.error("want RESULTS.h5 [RESULTS.h5 ...] OUTDIR")
    if a.curve_corrupt is not None and not 0 <= a.curve_corrupt <= 1:
        ap.error("--curve-corrupt: %g is not a fraction in [0, 1]" % a.curve_corrupt)
    paths, out = a.paths[:-1], a.paths[-1]
    written = disclosure_day.draw(paths, out, a.curve_corrupt)
    if written is None:
        print("disclosure-day: no jobs with the observer in %s" % ", ".join(paths),
              file=sys.stderr)
        return 1
    provenance.record(out, written, paths, "disclosure-day"
                      + ("" if a.curve_corrupt is None else " --curve-corrupt %g" % a.curve_corrupt))
    print("disclosure-day: wrote %s" % ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
