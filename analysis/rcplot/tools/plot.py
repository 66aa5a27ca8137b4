#!/usr/bin/python3
"""Plot any rcsim sweep from its results file, with defaults taken from the sweep's axes.

  rcsim plot RESULTS.h5 [options]          (or: python3 -m rcplot plot RESULTS.h5 [options])

Without options: x = the numeric axis with the most values, colour (hue) = the axis with
the most values among the rest, one panel per value of the others; the statistic is the
median latency, as the estimate over seeds (geometric mean for latencies and other
positive statistics, mean for fractions and counts; the centre of every table and report)
with its 95 % interval (log-scale t-interval, or bootstrap; the min-max seed range below 5
seeds) (line) or the latency
distribution (box: whiskers p1/p99, box q1-q3).  Axes are labelled with the parameter and
its unit, go logarithmic where values span a factor of 10 or more, and a value outside
the drawn range is marked on the edge (a triangle in its series' colour with its value),
never cut.  Strategies keep one order (the strategy table's) and one colour in every tool.  The
strategy's structure (family, k, p, ft, multiplier, dropoffline, from the simulator's
strategy table) can take any role or --where: naming one makes them the axes in the place
of `strategy` (--list shows their values).

examples:
  rcsim plot r.h5 --out median.png
  rcsim plot r.h5 --stat p99 --x users --hue strategy --where trace=online --out p99.pdf
  rcsim plot r.h5 --kind box --out box.png                 # latency distributions
  rcsim plot r.h5 --kind box --stat delivery_ratio --out dr.png   # spread over seeds
  rcsim plot r.h5 --kind cdf --hue strategy --out cdf.png
  rcsim plot r.h5 --x k --where family=rc --out k.png     # k of rc-kK-pP as the x axis
  rcsim plot r.h5 --kind heatmap --x users --hue strategy --stat mean --out hm.png
  rcsim plot r.h5 --kind timeline --out tod.png            # needs store_raw: true
  rcsim plot r.h5 --kind tradeoff --out to.png    # latency vs entropy, Pareto front
  rcsim plot figures/study/trilemma.csv --kind tradeoff --facet trace \
      --facet corrupt_mixes --marker lambda_div --join rate_delay \
      --out figures/study/trilemma.png --record
                     # the trilemma study's figure (docs/trilemma.md), from its
                     # committed table of configurations, into its figure set's record
  rcsim plot r.h5 --list                                   # axes and statistics
  rcsim plot deployment-*.h5 --kind deployment --out figures/deployment
                     # the deployment study's figure set (docs/deployment.md): --out is
                     # a directory, with its tables and provenance record

Exit status: 0 written; 1 the data cannot give this plot (e.g. no per-delivery records
for a timeline) or an error while drawing; 2 bad usage or unreadable input.
"""

import argparse
import json
import os
import sys


from rcplot import metrics, plots
from rcplot.sweep import (Sweep, UsageError, choose_roles, fmt_value, load,
                          parse_where, value_key)

PROG = os.environ.get("RCSIM_PROG", "python3 -m rcplot plot")


def _range(text):
    try:
        lo, hi = (float(t) for t in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("expected LO,HI (two numbers), got %r" % text)
    if not lo < hi:
        raise argparse.ArgumentTypeError("LO must be below HI in %r" % text)
    return (lo, hi)


def parser():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1] + "\nstatistics (--stat):\n  "
                                 + "\n  ".join(metrics.describe()) +
                                 "\n  latency                (--kind box) the latency "
                                 "distribution itself")
    ap.add_argument("results", nargs="+", help="rcsim results file(s) (HDF5); several are "
                    "pooled; or tables of configurations (.csv, one seed a row: a study's "
                    "committed numbers, e.g. figures/study/trilemma.csv)")
    ap.add_argument("--kind", default=None, choices=plots.KINDS + ("deployment",),
                    help="line (default for a numeric x), box (default for a named x), cdf, "
                    "heatmap, hist, timeline, tradeoff (latency against entropy and "
                    "bandwidth, the Pareto front marked), deployment (the deployment "
                    "study's figure set into the directory --out: docs/deployment.md)")
    ap.add_argument("--stat", help="statistic per seed (default: median; box: latency; "
                    "tradeoff: mean)")
    ap.add_argument("--x", help="axis on the horizontal axis")
    ap.add_argument("--hue", help="axis shown as colours")
    ap.add_argument("--facet", action="append", default=[],
                    help="axis shown as panels (repeatable or comma-separated)")
    ap.add_argument("--marker", metavar="AXIS",
                    help="tradeoff: one marker shape per value of this axis")
    ap.add_argument("--join", metavar="AXIS",
                    help="tradeoff: thin lines join this axis's values, for each setting "
                    "of the other axes")
    ap.add_argument("--record", action="store_true",
                    help="add the figure to the provenance record of its directory (a "
                    "committed figure set: python3 -m rcplot check-figures)")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="keep only jobs with this parameter value (repeatable; the same "
                    "key twice keeps either value)")
    ap.add_argument("--out", help="output file, .png, .pdf or .svg (default: RESULTS-KIND-STAT.png "
                    "in the current directory)")
    ap.add_argument("--ylim", type=_range, metavar="LO,HI",
                    help="fixed value range (colour range for heatmaps); values outside are "
                    "marked on the edge")
    ap.add_argument("--xscale", choices=("auto", "linear", "log"), default="auto")
    ap.add_argument("--yscale", choices=("auto", "linear", "log"), default="auto")
    ap.add_argument("--title", help="figure title (default: sweep name and what is shown)")
    ap.add_argument("--dpi", type=int, default=150, help="PNG resolution (default 150)")
    ap.add_argument("--axes-json", metavar="FILE",
                    help="also write the drawn axes (labels, scales, legend, off-scale "
                    "marks) as JSON, for tests and scripts")
    ap.add_argument("--list", action="store_true",
                    help="print the sweep's axes and the default roles, draw nothing")
    return ap


def default_kind(sw, x):
    if x is None:
        a = next((a for a in sw.axes if a.numeric), None)
        return "line" if a is not None or not sw.axes else "box"
    return "line" if sw.axis(x).numeric else "box"


def run_deployment(args):
    """--kind deployment: the deployment study's figure, tables and provenance record
    (rcplot/deployment.py), into the directory --out; the roles do not apply."""
    from rcplot import deployment
    given = [o for o in ("stat", "x", "hue", "ylim", "title", "axes_json", "marker", "join")
             if getattr(args, o) is not None] + (["facet"] if args.facet else []) + (
        ["where"] if args.where else []) + (["list"] if args.list else []) + (
        ["record"] if args.record else [])
    if given:
        raise UsageError("--kind deployment takes only results files, --out DIR and --dpi "
                         "(not --%s)" % ", --".join(g.replace("_", "-") for g in given))
    if args.out is None:
        raise UsageError("--kind deployment needs --out DIR (the figure set's directory)")
    for p in args.results:
        if not os.path.exists(p):
            raise UsageError("%s: no such file" % p)
    try:
        outs, missing = deployment.draw(args.results, args.out, dpi=args.dpi)
    except ValueError as e:
        raise UsageError(str(e))
    except deployment.NoData as e:
        raise plots.NoRecords(str(e))
    print("%s: deployment, %s (not measured: %s)" % (args.out, ", ".join(
        os.path.basename(o) for o in outs), ", ".join(missing) or "none"))
    return 0


def record(out, args):
    """The figure into its directory's provenance record: drawn by the plot code (the
    modules plots.py takes names from, not the other plot kinds' tools) with these options
    from these inputs, each hashed (a table of configurations as any results file)."""
    from rcplot import provenance
    opts = []
    for name in ("kind", "stat", "x", "hue", "marker", "join", "title"):
        v = getattr(args, name)
        if v is not None:
            opts += ["--" + name, v]
    for f in args.facet:
        opts += ["--facet", f]
    for w in args.where:
        opts += ["--where", w]
    if args.ylim:
        opts += ["--ylim", "%g,%g" % args.ylim]
    for name in ("xscale", "yscale"):
        if getattr(args, name) != "auto":
            opts += ["--" + name, getattr(args, name)]
    if args.dpi != 150:
        opts += ["--dpi", str(args.dpi)]
    provenance.record(os.path.dirname(os.path.abspath(out)), [out], args.results,
                      " ".join(["plot"] + opts), roots=[plots])


def run(args):
    if args.kind == "deployment":
        return run_deployment(args)
    where = parse_where(args.where)
    facets = [f.strip() for item in args.facet for f in item.split(",") if f.strip()]
    res = load(args.results)
    with res:
        sw = Sweep(res, where)
        sw.use_roles(args.x, args.hue, facets)  # --x k: the strategy's structure as axes
        kind = args.kind or default_kind(sw, args.x)
        if args.list:
            x, hue, fac = choose_roles(sw.axes, kind, args.x, args.hue, facets)
            print("%d jobs, %d configurations, seeds %s" % (
                len(sw.jobs), len(sw.configs()), ", ".join(sw.seeds())))
            for a in sw.axes:
                print("axis %-20s %s%s" % (a.label, ", ".join(fmt_value(v) for v in a.values),
                                          "" if a.numeric else "  (names)"))
            print("default roles for --kind %s: x=%s hue=%s facets=%s"
                  % (kind, x, hue, ",".join(fac) or "none"))
            if sw.structure and not sw.structured:
                print("strategy structure (as --x, --hue, --facet or --where): %s"
                      % ", ".join("%s=%s" % (n, "|".join(sorted(
                          {p.get(n, "") for p in sw.params}, key=value_key)))
                                  for n in sw.structure))
            return 0
        spec = plots.PlotSpec(kind=kind, stat=args.stat, x=args.x, hue=args.hue,
                              facets=facets, ylim=args.ylim, xscale=args.xscale,
                              yscale=args.yscale, title=args.title, marker=args.marker,
                              join=args.join)
        out = args.out
        if out is None:
            stem = os.path.splitext(os.path.basename(args.results[0]))[0]
            out = "%s-%s-%s.png" % (stem, kind, metrics.normalise(
                spec.stat or plots.default_stat(kind)).replace(":", "_"))
        fig, info = plots.draw(sw, spec)
        plots.save(fig, out, dpi=args.dpi)
        plots.plt.close(fig)
    if args.record:
        record(out, args)
    info["out"] = out
    if args.axes_json:
        with open(args.axes_json, "w") as f:
            json.dump(info, f, indent=1, sort_keys=True)
    p = info["panels"][0]
    print("%s: %s, x=%s hue=%s facets=%s; %d panel(s); axes '%s' / '%s'%s"
          % (out, kind, info["x"], info["hue"], ",".join(info["facets"]) or "none",
             len(info["panels"]), p["xlabel"], p["ylabel"],
             "; %d value(s) off scale, marked" % len(info["offscale"]) if info["offscale"]
             else ""))
    return 0


def main(argv=None):
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    args = parser().parse_args(argv)
    try:
        return run(args)
    except UsageError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    except plots.NoRecords as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
