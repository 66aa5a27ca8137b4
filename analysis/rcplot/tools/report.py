#!/usr/bin/python3
"""Write a one-page report of an rcsim sweep: Markdown and a self-contained HTML file.

  rcsim report RESULTS.h5 --out DIR        (or: python3 -m rcplot report RESULTS.h5 --out DIR)

DIR/report.html is one file that works offline (Chart.js from Debian's libjs-chart.js
inlined; charts with hover values and series toggles, a sortable, filterable table) to
open in any browser or send to a colleague; DIR/report.md is the same page for Markdown
viewers, with the images in DIR/img/; DIR/table.csv is the table at full precision.  The page
holds the sweep's description as stored in the results (name, description, sweep file
text, axes, provenance), one row per configuration with each statistic's estimate over
seeds (geometric mean for latencies and other positive statistics, mean for fractions and
counts; the same centre as summarize, plot and compare) with its 95 % interval (log-scale
t-interval or bootstrap; the min-max seed range, in parentheses, below 5 seeds), and the default plots of `rcsim plot` (median and p99 latency,
latency distribution, CDF; the delivery ratio when some messages were not delivered; a
heatmap when there are two axes or more; the time-of-day timeline when the results hold
per-delivery records).

Exit status: 0 written; 1 an error while drawing; 2 bad usage, unreadable input, or no
Chart.js (install the Debian package libjs-chart.js, or set RCSIM_CHARTJS).
"""

import argparse
import os
import sys


from rcplot import report, table
from rcplot.sweep import Sweep, UsageError, load, parse_where

PROG = os.environ.get("RCSIM_PROG", "python3 -m rcplot report")


def main(argv=None):
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("results", nargs="+", help="rcsim results file(s) (HDF5); several are pooled")
    ap.add_argument("--out", required=True, metavar="DIR", help="output directory")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="report only jobs with this parameter value (repeatable)")
    ap.add_argument("--dpi", type=int, default=110, help="image resolution (default 110)")
    ap.add_argument("--columns", metavar="LIST",
                    help="statistics of the table, comma-separated: any --stat of `rcsim "
                    "plot` or a group (default, latency, delivery, anonymity, bandwidth, "
                    "unobservability); default: mean, median, p90, p99 latency, delivery "
                    "ratio, packets per delivery, and anonymity and bandwidth when the sweep "
                    "measured anonymity")
    a = ap.parse_args(argv)
    try:
        where = parse_where(a.where)
        columns = table.parse_columns(a.columns, report.TABLE_STATS) if a.columns else None
        with load(a.results) as res:
            out = report.build(Sweep(res, where), a.results, a.out, dpi=a.dpi,
                               columns=columns)
    except UsageError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    print("%s: %s, %s (%d plots%s), %s" % (
        PROG, out["html"], out["md"], len(out["images"]),
        "; not drawn: " + ", ".join(s for s, _ in out["skipped"]) if out["skipped"] else "",
        out["csv"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
