#!/usr/bin/python3
"""What changed between two results files: configurations whose results differ beyond
seed noise, and those identical bit for bit.

  rcsim diff A.h5 B.h5 [--stat S ...] [--where KEY=VALUE] [--csv FILE|-] [--all]
                                   (or: python3 -m rcplot diff A.h5 B.h5 ...)

What to run after upgrading rcsim (rerun the sweep into B.h5: every configuration should
be "identical", or say why not) or after changing a parameter (`--set rate_delay=5`: the
changed parameters are listed, and the configurations are paired across it).  A
configuration pair is "identical" when every seed's results are equal bit for bit
(latency summaries and counters, the machine's wall time and memory aside), "differs"
when a statistic's 95 % interval of B against A excludes no change -- the log ratio's
t-interval for latencies and other positive statistics, the difference's for fractions
and counts, paired by seed where both files ran it (Welch's unpaired interval otherwise)
-- and "within noise" when none does (docs/analysis.md, "rcsim diff").  The text lists
the configurations that differ (--all: every one) and counts the rest.

examples:
  rcsim diff old.h5 new.h5
  rcsim diff old.h5 new.h5 --stat p99 --where trace=online --all
  rcsim diff a.h5 b.h5 --csv -

Exit status: 0 nothing differs beyond seed noise; 3 something does; 2 bad usage or
unreadable input.
"""

import argparse
import csv
import math
import os
import sys


from rcplot import diff
from rcplot.sweep import UsageError, fmt_value, parse_where

PROG = os.environ.get("RCSIM_PROG", "python3 -m rcplot diff")


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("a", metavar="A.h5")
    ap.add_argument("b", metavar="B.h5")
    ap.add_argument("--stat", action="append", help="statistic to compare (repeatable; "
                    "default mean, median, p99, delivery_ratio, and anon_entropy and "
                    "bw_bytes_per_client_s when measured)")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="compare only jobs with this parameter value (repeatable)")
    ap.add_argument("--csv", metavar="FILE", help="every configuration as CSV ('-': stdout)")
    ap.add_argument("--all", action="store_true",
                    help="list every configuration, not only those that differ")
    a = ap.parse_args(argv)
    try:
        changed, stats, rows = diff.diff(a.a, a.b, a.stat, parse_where(a.where))
    except UsageError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    if a.csv:
        f = sys.stdout if a.csv == "-" else open(a.csv, "w", newline="")
        w = csv.writer(f)
        w.writerow(["configuration", "verdict", "seeds"] + [
            "%s_%s" % (s, k) for s in stats for k in ("est", "lo", "hi", "how")])
        for r in rows:
            cells = [r["config"], r["verdict"], r["seeds"]]
            for s in stats:
                v = r["stats"].get(s, (math.nan,) * 3 + ("",))
                cells += ["" if isinstance(x, float) and not math.isfinite(x) else x for x in v]
            w.writerow(cells)
        if f is not sys.stdout:
            f.close()
    if a.csv != "-":
        print("A = %s\nB = %s" % (a.a, a.b))
        for k, (va, vb) in changed.items():
            print("changed parameter: %s = %s in A, %s in B (configurations paired across it)"
                  % (k, fmt_value(va), fmt_value(vb)))
        counts = {}
        for r in rows:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        print("%d configurations: %s" % (len(rows), ", ".join(
            "%d %s" % (counts[v], v) for v in (diff.IDENTICAL, diff.NOISE, diff.DIFFERS,
                                               diff.FEW, diff.ONLY_A, diff.ONLY_B)
            if v in counts)))
        print("(B against A: xR = ratio B/A for latencies and other positive statistics, "
              "+D = difference B-A otherwise; 95 % intervals)")
        for r in rows:
            if a.all or r["verdict"] in (diff.DIFFERS, diff.ONLY_A, diff.ONLY_B):
                print("%-13s %s  seeds %s" % (r["verdict"], r["config"], r["seeds"]))
                for s, v in r["stats"].items():
                    print("    %-22s %s" % (s, diff.fmt_stat(v)))
    return 3 if any(r["verdict"] == diff.DIFFERS for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
