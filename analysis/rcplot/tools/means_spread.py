"""means_spread: where the paper's single-run means fall among our per-run means.

The paper ran each configuration once (seed 0).  With availability traces a run's mean is
set by a few messages held for hours, so one run's mean can sit far from another's.  For
every paper "mean" row whose configuration is in the results, this prints our per-run
means (min, median, mean, max over seeds), the paper's value, its rank among our runs (as
a percentile) and the share of our runs within the §9.3 tolerance of the paper's value.

Usage: python3 -m rcplot means-spread [--model paper] [--md OUT.md] [--min-seeds N] RESULTS.h5 ...
Needs only Debian's python3-h5py and python3-numpy (run with /usr/bin/python3).
"""
import argparse
import math
import os
import sys

import numpy as np

from rcplot import provenance, results
from rcplot.paper_compare import find_config, read_paper
from rcplot.stats import tolerance_rule, within

PAPER_VALUES = os.path.join(provenance.ANALYSIS, "paper-values.csv")


def rows_for(res, model, paper_rows, min_seeds=5):
    seen, out = set(), []
    for r in paper_rows:
        if r["stat"] != "mean":
            continue
        key = (r["m"], r["schedule"], r["strategy"], r["burst"], r["groups"], r["lambda_div"])
        if key in seen:
            continue
        cfg = find_config(res, model, r)
        if cfg is None or cfg.n_seeds < min_seeds:
            continue
        seen.add(key)
        paper = float(r["value_s"])
        v = np.array([j.stat("mean") for j in cfg.jobs], dtype=float)
        v = v[~np.isnan(v)]
        rule = tolerance_rule(int(r["figure"]), r["schedule"], "mean", paper)
        share = float(np.mean([within(x, paper, rule) for x in v]))
        pct = 100.0 * (np.sum(v < paper) + 0.5 * np.sum(v == paper)) / len(v)
        out.append(dict(schedule=r["schedule"], strategy=r["strategy"],
                        lambda_div=float(r["lambda_div"]), seeds=len(v), lo=v.min(),
                        med=float(np.median(v)), mean=float(v.mean()), hi=v.max(),
                        paper=paper, pct=pct, share=share,
                        med_ok=within(float(np.median(v)), paper, rule),
                        mean_ok=within(float(v.mean()), paper, rule)))
    return out


def markdown(rows):
    lines = ["| schedule | strategy | λ/ | seeds | our per-run means: min · median · mean · max (s) "
             "| paper (s) | paper's percentile among our runs | our runs within tolerance "
             "| seed median ok | seed mean ok |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %s | %g | %d | %.1f · %.1f · %.1f · %.1f | %g | %.0f %% | %.0f %% | %s | %s |" % (
            r["schedule"], r["strategy"], r["lambda_div"], r["seeds"], r["lo"], r["med"],
            r["mean"], r["hi"], r["paper"], r["pct"], 100 * r["share"],
            "yes" if r["med_ok"] else "no", "yes" if r["mean_ok"] else "no"))
    n = len(rows)
    if n:
        lines.append("")
        lines.append("%d configurations: the paper's mean lies inside our per-run range in %d; "
                     "the median of our runs is within tolerance in %d, the mean of our runs in %d; "
                     "on average %.0f %% of single runs are within tolerance." % (
                         n, sum(r["lo"] <= r["paper"] <= r["hi"] for r in rows),
                         sum(r["med_ok"] for r in rows), sum(r["mean_ok"] for r in rows),
                         100 * sum(r["share"] for r in rows) / n))
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--model", default="paper")
    ap.add_argument("--paper", default=PAPER_VALUES)
    ap.add_argument("--md", help="also write the table to this Markdown file")
    ap.add_argument("--min-seeds", type=int, default=5,
                    help="skip configurations with fewer seeds (default 5)")
    a = ap.parse_args(argv)
    for p in a.results:
        if not os.path.exists(p):
            sys.exit("means-spread: %s does not exist" % p)
    with results.load(a.results) as res:
        rows = rows_for(res, a.model, read_paper(a.paper), a.min_seeds)
    if not rows:
        sys.exit("means-spread: no configuration with a paper mean and >= %d seeds in the results" % a.min_seeds)
    md = markdown(rows)
    sys.stdout.write(md)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md)
        # Which code and results drew the table (python3 -m rcplot check-figures).
        provenance.record(os.path.dirname(os.path.abspath(a.md)), [a.md], a.results,
                          "means-spread", extra_code=[a.paper])


if __name__ == "__main__":
    main()
