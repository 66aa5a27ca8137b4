#!/usr/bin/python3
"""Draw a study's figures (rcplot/study_figures.py) from its results.

  python3 -m rcplot study-figures adversary RESULTS.h5 [RESULTS.h5 ...] OUTDIR
  python3 -m rcplot study-figures reconcile RESULTS.h5 OUTDIR
  python3 -m rcplot study-figures disclosure RESULTS.h5 [RESULTS.h5 ...] OUTDIR
  python3 -m rcplot study-figures network RESULTS.h5 [RESULTS.h5 ...] OUTDIR

adversary: experiments/adversary.yaml; writes OUTDIR/adversary.{png,md}.
reconcile: experiments/reconcile.yaml; writes OUTDIR/reconcile.{png,pdf,md}.
disclosure: experiments/disclosure.yaml; writes OUTDIR/disclosure.{png,md}.
network: experiments/network.yaml and network-rules.yaml; writes OUTDIR/network.{png,md}.
Records the code and results that drew them in OUTDIR/provenance.json
(`python3 -m rcplot check-figures`).  Exit status: 0 drawn, 1 no jobs to draw, 2 bad usage.
"""
import argparse
import os
import sys

from rcplot import provenance, study_figures


def main(argv=None):
    ap = argparse.ArgumentParser(prog=os.environ.get("RCSIM_PROG",
                                                     "python3 -m rcplot study-figures"),
                                 description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("study", choices=("adversary", "reconcile", "disclosure", "network"))
    ap.add_argument("paths", nargs="+", metavar="RESULTS.h5 ... OUTDIR")
    a = ap.parse_args(argv)
    if len(a.paths) < 2 or (a.study == "reconcile" and len(a.paths) != 2):
        ap.error("want RESULTS.h5 %sOUTDIR"
                 % ("[RESULTS.h5 ...] " if a.study != "reconcile" else ""))
    paths, out = a.paths[:-1], a.paths[-1]
    if a.study == "adversary":
        written = study_figures.adversary(paths, out)
    elif a.study == "disclosure":
        written = study_figures.disclosure(paths, out)
    elif a.study == "network":
        written = study_figures.network(paths, out)
    else:
        written = study_figures.reconcile(paths[0], out)
    if written is None:
        print("study-figures %s: no jobs to draw in %s" % (a.study, ", ".join(paths)),
              file=sys.stderr)
        return 1
    provenance.record(out, written, paths, "study-figures " + a.study)
    print("study-figures %s: wrote %s" % (a.study, ", ".join(written)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
