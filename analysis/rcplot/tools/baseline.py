#!/usr/bin/python3
"""Compare every strategy of a sweep with a baseline strategy, paired by seed.

  rcsim compare RESULTS.h5 [--baseline unicast] [options]
                                   (or: python3 -m rcplot baseline RESULTS.h5 ...)

A configuration is every parameter but the strategy and the seed.  In each configuration,
each strategy's run of seed s is paired with the baseline's run of seed s (same users,
trace draw and workload), and each statistic (--stat; default mean, median, p90, p99 of
the online deliveries' latency) gives per pair a ratio (strategy / baseline) and a
difference (strategy - baseline).  Over the pairs: the ratio's geometric mean with the
95 % t-interval of the mean log ratio, the difference's mean with a bootstrap interval
(fixed seed); with fewer than 5 pairs, the min-max over the pairs instead, in
parentheses and said so (docs/analysis.md, "Comparing with a baseline").

examples:
  rcsim compare r.h5                                  # every strategy against unicast
  rcsim compare r.h5 --baseline rc-k2-p2 --stat p99 --stat mean
  rcsim compare r.h5 --csv ratios.csv --plot ratios.png
  rcsim compare r.h5 --where trace=gen_os20 --csv -   # CSV on standard output

Exit status: 0 ok; 1 an error while drawing; 2 bad usage, unreadable input or a
baseline that is not in the results.
"""

import argparse
import os
import sys


from rcplot import baseline, metrics, table
from rcplot.sweep import Sweep, UsageError, load, parse_where

PROG = os.environ.get("RCSIM_PROG", "python3 -m rcplot baseline")


def main(argv=None):
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("results", nargs="+", help="rcsim results file(s) (HDF5); several are pooled")
    ap.add_argument("--baseline", default="unicast",
                    help="the strategy the others are divided by (default: unicast)")
    ap.add_argument("--stat", action="append", default=[],
                    help="statistic (repeatable; default: mean, median, p90, p99); any "
                    "`rcsim plot --stat` name")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="keep only jobs with this parameter value (repeatable)")
    ap.add_argument("--csv", metavar="FILE",
                    help="write every row at full precision as CSV ('-': standard output, "
                    "then no text table)")
    ap.add_argument("--plot", metavar="FILE.png|pdf",
                    help="draw the ratios (log axis, one panel per statistic)")
    ap.add_argument("--dpi", type=int, default=150, help="PNG resolution (default 150)")
    a = ap.parse_args(argv)
    try:
        stats = [metrics.lookup(s).name for s in a.stat] or list(baseline.STATS)
        where = parse_where(a.where)
        with load(a.results) as res:
            sw = Sweep(res, where)
            rows = baseline.compare(sw, a.baseline, stats)
            if a.csv:
                f = sys.stdout if a.csv == "-" else open(a.csv, "w", newline="")
                table.write_csv(f, baseline.columns(sw), rows)
                if f is not sys.stdout:
                    f.close()
            if a.plot:
                from rcplot import plots
                fig = baseline.draw(sw, rows, plots)
                plots.save(fig, a.plot, dpi=a.dpi)
                plots.plt.close(fig)
            if a.csv != "-":
                print("\n".join(baseline.text(sw, rows)))
                print("(%s; latencies in seconds, online deliveries)" % baseline.note(rows))
                for p in (a.csv, a.plot):
                    if p and p != "-":
                        print("%s: wrote %s" % (PROG, p))
    except UsageError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
