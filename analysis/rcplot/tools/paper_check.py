"""Compare rcsim results with the paper's numbers (docs/spec.md §6, §9.3 tolerances).

  python3 -m rcplot paper-check [--paper CSV] [--model paper|exact] [--fig N ...]
                                [--spread SPREAD.h5 ...] [--csv OUT.csv] [--md OUT.md] RESULTS.h5 ...

For every row of the paper-values table whose configuration is in the results, prints
(and writes) our value as the median over seeds with the seed range, the paper's value
(exact or read-off), the relative difference and an ok/OUT flag, then a summary line
"N of M within tolerance".  Rows outside the tolerance get a verdict
(analysis/rcplot/settle.py) from independent runs of the same configurations (--spread:
experiments/misses-spread.yaml, 30 seeds no figure uses) and from runs of the reference
itself (analysis/reference-runs.csv).  Exit status 0 whatever the agreement (a comparison is a
report, not a test); 1 when no row could be compared; 2 on bad usage or input.
"""

import argparse
import os
import sys

from rcplot import paper_compare, provenance, results, settle


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("results", nargs="+", help="rcsim results files (HDF5)")
    ap.add_argument("--paper", default=paper_compare.PAPER_VALUES,
                    help="paper values table (default: analysis/paper-values.csv)")
    ap.add_argument("--model", choices=("paper", "exact"),
                    help="which model's jobs to compare (needed when the files hold both)")
    ap.add_argument("--fig", type=int, action="append", help="only these figures")
    ap.add_argument("--reference-runs", default=settle.DEFAULT_PATH, metavar="CSV",
                    help="summaries of runs of the reference itself, to settle rows outside "
                         "the tolerance (default: analysis/reference-runs.csv; '' for none)")
    ap.add_argument("--spread", action="append", default=[], metavar="H5",
                    help="results of independent runs of the configurations outside the "
                         "tolerance (experiments/misses-spread.yaml; repeatable): the "
                         "published value is put against their central 95 %%")
    ap.add_argument("--csv", help="write the table as CSV here")
    ap.add_argument("--md", help="write the table as Markdown here")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only the summary")
    args = ap.parse_args(argv)

    try:
        paper = paper_compare.read_paper(args.paper)
        refs = settle.load(args.reference_runs)
        res = results.load(args.results)
        spread = results.load(args.spread) if args.spread else None
    except (OSError, ValueError, KeyError) as e:
        print("paper-check: %s" % e, file=sys.stderr)
        return 2
    with res:
        model = args.model
        models = res.models()
        if model is None:
            if len(models) > 1:
                print("paper-check: the results hold models %s; choose one with --model"
                      % ", ".join(models), file=sys.stderr)
                return 2
            model = models[0] if models else "paper"
        rows, missing = paper_compare.compare(res, model, paper, set(args.fig or []),
                                        refs, spread)
    if spread is not None:
        spread.close()
    md = paper_compare.markdown(rows, missing, model)
    if args.csv:
        paper_compare.write_csv(rows, args.csv)
    if args.md:
        with open(args.md, "w") as f:
            f.write(md)
    # Which code, tables and results drew the comparison (python3 -m rcplot check-figures);
    # recorded per output directory, as the CSV and the Markdown may go to different ones.
    written = [p for p in (args.csv, args.md) if p]
    inputs = [args.paper] + ([args.reference_runs] if args.reference_runs else [])
    for d in sorted({os.path.dirname(os.path.abspath(p)) for p in written}):
        provenance.record(d, [p for p in written if os.path.dirname(os.path.abspath(p)) == d],
                          args.results + args.spread, "paper-check", extra_code=inputs)
    if not args.quiet:
        print(md)
    s = paper_compare.summary(rows).get("all", (0, 0))
    pok, pn = paper_compare.distinct_pairs(rows)
    print("paper-check: %d of %d paper values within tolerance; %d of %d distinct "
          "(configuration, statistic) pairs (%d without results)"
          % (s[0], s[1], pok, pn, missing))
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
