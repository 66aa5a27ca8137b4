"""Draw the paper's figures (5, 6, 7, 8, 9, 14, 15, 16) from rcsim results files.

  python3 -m rcplot figures [--out DIR] [--model paper|exact] [--fig N ...] RESULTS.h5 ...

Writes DIR/figN.png and DIR/figN.pdf for each figure and DIR/coverage.json (which
configurations each figure found or missed, seeds, durations; read by make-docs), and
records the code and results that drew them in DIR/provenance.json (check-figures).
All given files are pooled; each figure picks its configurations by their parameters
(docs/spec.md §6), so one file holding everything or one file per figure both work.
Exit status: 0 when every requested figure was drawn, 1 when one could not be drawn
(no data, or an error while drawing), 2 on bad usage or unreadable input.
"""

import argparse
import json
import os
import sys
import time

from rcplot import figures, provenance, results


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("results", nargs="+", help="rcsim results files (HDF5)")
    ap.add_argument("--out", default="figures", help="output directory (default: figures)")
    ap.add_argument("--model", choices=("paper", "exact"),
                    help="which model's jobs to plot (needed when the files hold both)")
    ap.add_argument("--fig", type=int, action="append", choices=figures.FIGURES,
                    help="figure to draw (repeatable; default: every figure with data)")
    ap.add_argument("--dpi", type=int, default=150, help="PNG resolution (default 150)")
    args = ap.parse_args(argv)

    try:
        res = results.load(args.results)
    except (OSError, ValueError) as e:
        print("figures: %s" % e, file=sys.stderr)
        return 2
    with res:
        model = args.model
        models = res.models()
        if model is None:
            if len(models) > 1:
                print("figures: the results hold models %s; choose one with --model"
                      % ", ".join(models), file=sys.stderr)
                return 2
            model = models[0] if models else None
        os.makedirs(args.out, exist_ok=True)
        wanted = args.fig or list(figures.FIGURES)
        strict = bool(args.fig)
        cov_path = os.path.join(args.out, "coverage.json")
        coverage = {}
        if os.path.exists(cov_path):
            with open(cov_path) as f:
                coverage = json.load(f)
        rc = 0
        written = []
        for n in wanted:
            t0 = time.monotonic()
            try:
                fig, cov = figures.DRAW[n](res, model)
            except figures.NoData as e:
                if strict:
                    print("figures: %s" % e, file=sys.stderr)
                    rc = 1
                else:
                    print("figures: skipping figure %d (no data)" % n)
                continue
            base = os.path.join(args.out, "fig%d" % n)
            figures.save(fig, base + ".png", dpi=args.dpi)
            figures.save(fig, base + ".pdf")
            figures.plt.close(fig)
            written += [base + ".png", base + ".pdf"]
            coverage[str(n)] = dict(model=model, found=len(cov.found),
                                    missing=[list(map(str, m)) for m in cov.missing],
                                    seeds=sorted(cov.seeds), durations_s=sorted(cov.durations),
                                    sources=res.sources, offscale=cov.offscale)
            print("figure %d: %d configurations, %d missing, seeds %s -> %s.{png,pdf} (%.1f s)%s"
                  % (n, len(cov.found), len(cov.missing), sorted(cov.seeds), base,
                     time.monotonic() - t0, "; %d value(s) beyond the axis, marked"
                     % len(cov.offscale) if cov.offscale else ""))
        with open(cov_path, "w") as f:
            json.dump(coverage, f, indent=1, sort_keys=True)
        # Which code and results drew these files (python3 -m rcplot check-figures).
        provenance.record(args.out, written + [cov_path], args.results, "figures")
        return rc


if __name__ == "__main__":
    sys.exit(main())
