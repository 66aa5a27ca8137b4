#!/usr/bin/python3
"""Prints one line per configuration of an rcsim results file, its seeds aggregated.

  python3 -m rcplot summarize RESULTS.h5 [RESULTS.h5 ...] [--per-seed] [--where KEY=VALUE]
                        [--csv FILE|-] [--json FILE|-]

Only the sweep's axes (the parameters that differ between jobs, seeds aside) are shown,
one column each, never shortened (--csv and --json add, after `strategy`, the strategy
parameters that vary: k, p, ft, multiplier, dropoffline); rows sort by
value (numbers numerically: 45 before 128).  The text table gives each latency
statistic as the geometric mean over seeds of the per-seed value (online deliveries, seconds) and
sums samples, undelivered pairs and wall time.  --csv and --json write every statistic with
its estimate and 95 % interval (`_est`, `_ci_lo`, `_ci_hi`, `_interval`), its median, min
and max over seeds and its arithmetic mean ("-" for standard output, then the text
table is not printed).  Every view shows the same centre over seeds: the geometric
mean for latencies and other positive statistics, the mean for fractions and counts
(docs/analysis.md, "One centre").

Needs only Debian's python3-h5py and python3-numpy (run with /usr/bin/python3).
Exit status: 0 ok; 2 bad usage, unreadable input or no finished jobs.
"""
import argparse
import json
import math
import os
import sys


from rcplot import coltable, metrics, results, table, until
from rcplot.sweep import Sweep, UsageError, load, parse_where

TEXT_STATS = ("mean", "p1", "median", "p90", "p99")
# The centre of every latency statistic over seeds, in every view (stats.seed_interval).
CENTRE_NOTE = "geometric mean over seeds of each seed's value"


WIDTH = {"mean": 8, "p1": 6, "median": 7, "p90": 7, "p99": 8}


def _cell(r, name):
    v = r[name + "_est"]
    if not math.isfinite(v):
        return "n/a"
    return "%.2f" % v if metrics.lookup(name).unit == "s" else table.fmt(v)


def text_table(sw, rows, per_seed, out, stats=TEXT_STATS):
    # The axes only, to stay narrow; --csv/--json add the strategy structure columns.
    keys = [a.name for a in sw.axes] + (["seed"] if per_seed else [])
    head = keys or ["configuration"]
    cells = [[table.fmt(r[k]) for k in keys] or ["(the only one)"] for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(head)]
    num = [("seeds", 5), ("samples", 9)]
    num += [(s, WIDTH.get(s, max(len(s), 6))) for s in stats]
    num += [("undeliv", 8), ("wall s", 7)]
    # A `seeds: until` sweep: where each configuration stopped (rcplot/until.py).
    stopped = any(r.get("until_stopped") for r in rows)
    if stopped:
        num.append(("stopped (rel. half-width)", max([25] + [len(until.cell(r)) for r in rows])))
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)) + " " +
          " ".join(h.rjust(w) for h, w in num), file=out)
    for r, c in zip(rows, cells):
        vals = ["%d" % r["seeds"], "%d" % r["deliveries"]]
        # The estimate over seeds of every other view (plots, report, CSV `_est`).
        vals += [_cell(r, s) for s in stats]
        vals += ["%d" % r["undelivered"], "%.2f" % r["wall_s"]]
        if stopped:
            vals.append(until.cell(r))
        print("  ".join(v.ljust(w) for v, w in zip(c, widths)) + " " +
              " ".join(v.rjust(w) for v, (_, w) in zip(vals, num)), file=out)


def _json_value(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _open(path):
    return sys.stdout if path == "-" else open(path, "w", newline="")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--per-seed", action="store_true",
                    help="one line per job instead of per configuration")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="keep only jobs with this parameter value (repeatable)")
    ap.add_argument("--columns", metavar="LIST",
                    help="statistics to show, comma-separated: any --stat of `rcsim plot` "
                    "(counter:NAME or a counter's column name, ratio:NUM/DEN of counters) or a "
                    "group: default, "
                    "latency, delivery, anonymity, bandwidth, unobservability (default: "
                    "latency; with anonymity and bandwidth when the sweep measured anonymity)")
    ap.add_argument("--csv", metavar="FILE", help="write the full table as CSV ('-': stdout)")
    ap.add_argument("--json", metavar="FILE", help="write the full table as JSON ('-': stdout)")
    a = ap.parse_args(argv)
    # The table from numpy columns (rcplot/coltable.py: 10^6 jobs in seconds); None when
    # it does not apply (--per-seed, layout-1 files, any error: the generic path words it).
    # RCSIM_SUMMARIZE_GENERIC=1 forces the generic path: tests/e2e/summarize_columns.sh
    # compares the two on real files.
    try:
        asked = table.parse_columns(a.columns, TEXT_STATS) if a.columns else None
    except UsageError as e:
        print("summarize: %s" % e, file=sys.stderr)
        return 2
    # Computed: the defaults and the optional groups (or what --columns asks); shown: what
    # --columns asks, else the defaults and the groups the sweep measured (table.shown).
    want = list(dict.fromkeys(list(table.DEFAULT_STATS) + (asked or table.candidates(()))))
    fast = None
    if not a.per_seed and os.environ.get("RCSIM_SUMMARIZE_GENERIC") != "1":
        try:
            where = parse_where(a.where)
        except UsageError:
            where = None
        if where is not None:
            fast = coltable.summarize_fast(a.results, where, want, table.SUMS)
    if fast is not None:
        sw, rows, res = fast
    else:
        try:
            res = load(a.results)
            sw = Sweep(res, parse_where(a.where))
        except UsageError as e:
            print("summarize: %s" % e, file=sys.stderr)
            return 2
        rows = None
    with res:
        if rows is None:
            rows = table.rows(sw, stats=want, per_seed=a.per_seed)
        text_stats = asked or table.shown(rows, TEXT_STATS)
        csv_stats = asked or table.shown(rows, table.DEFAULT_STATS)
        cols = table.columns(sw, stats=csv_stats, per_seed=a.per_seed)
        # The stopping rule the results record, and where each configuration stopped.
        if a.per_seed:
            stops = until.read(a.results)
        else:
            stops = until.attach(a.results, rows, sw.table_columns())
            if stops:
                cols = cols + list(until.COLUMNS)
        info = results.sweep_info(res)
        if a.csv:
            f = _open(a.csv)
            table.write_csv(f, cols, rows)
            if f is not sys.stdout:
                f.close()
        if a.json:
            doc = dict(results=a.results,
                       sweeps=[{k: v for k, v in i.items() if k != "sweep_text"} for i in info],
                       axes=[dict(name=x.name, unit=x.unit, numeric=x.numeric,
                                  values=x.values) for x in sw.axes],
                       seeds=sw.seeds(), where=sw.where, columns=cols,
                       seeds_until=[{k: v for k, v in p.items()} for p in stops],
                       rows=[{k: _json_value(r[k]) for k in cols} for r in rows])
            f = _open(a.json)
            json.dump(doc, f, indent=1)
            f.write("\n")
            if f is not sys.stdout:
                f.close()
        if "-" in (a.csv, a.json):
            return 0
        names = ", ".join(sorted({str(i.get("sweep_name", "?")) for i in info}))
        print("%s: %d jobs, sweep %s" % (", ".join(a.results), len(sw.jobs), names))
        text_table(sw, rows, a.per_seed, sys.stdout, text_stats)
        print("(latencies in seconds, online-only deliveries; %s, as in plots and "
              "reports; samples, undelivered and wall time summed)" % CENTRE_NOTE)
        other = [s for s in text_stats if metrics.lookup(s).unit != "s"]
        if other:
            print("(%s; fractions, counts and bits: mean over seeds)" % "; ".join(
                "%s: %s" % (s, metrics.lookup(s).axis_label) for s in other))
        for p in stops:
            print(until.summary_line(p) + "; the column stopped: at how many seeds each "
                  "configuration stopped, and the %s's relative half-width there" %
                  until.stat_name(p["rule"]))
        extra = [c for c in cols if c in sw.structure]
        if extra:
            print("strategy structure in --csv/--json and --where: %s" % ", ".join(extra))
        for i in info:
            # What ran (the file's last run): the stored sweep text may say otherwise.
            if i.get("run_command"):
                print("ran: %s (%s)" % (i["run_command"], i.get("run_layout", "?")))
            if i.get("run_overrides"):
                print("overrides: %s" % " ".join(i["run_overrides"].split("\n")).strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
