#!/usr/bin/python3
"""Do population models 3 and 4 keep model 2's counters?  (docs/beyond.md, "Population models")

Usage: python3 -m rcplot population-model-paired RESULTS.h5 [RESULTS.h5 ...] [--base 2]
                                           [--same 4] [--alpha A] [--out OUT.md]

RESULTS: a sweep with `population_model` as an axis over the base model (2) and newer ones
on the same seeds (experiments/population-model-ft.yaml).  For every configuration (every
job-id parameter but the model and the seed) and every other model m, the jobs are paired
seed by seed with the base model's and, for each measure (RC-FT's timeouts,
reassignments, duplicates and ACK packets, the deliveries, the mean latency and the p50
and p99 of the latencies of all deliveries):

- the means over the seeds and their relative difference;
- the sign test: in how many seeds model m is below / above the base (ties left out), and
  its exact two-sided binomial p-value;
- the paired t-test on the per-seed differences, its two-sided p-value (all equal: 1).

A seed's two jobs share its workload (groups, members, senders, when each group sends),
so the pairs cancel the workload's spread and leave the model's.  Model 3 hands a pull's
messages over in the order they left their senders, models 2 and 4 in the order they
arrived: model 3's rows show what the order changes, model 4's that it is restored.

Exits 1 when a model named by --same (default 4; comma-separated) differs from the base
in any measure: smallest p (sign test or t-test) times the number of its tests
(Bonferroni) below --alpha (default 0.05); 2 on bad usage.  Only Debian's python3-h5py and
numpy.
"""
import argparse
import math
import sys

import numpy as np

from rcplot.tools.population_model_ks import configs, label  # the grouping the KS test uses
from rcplot import results

MEASURES = (  # (column, label, format)
    ("counter_timeouts", "timeouts", "%.0f"),
    ("counter_reassignments", "reassignments", "%.0f"),
    ("counter_duplicates", "duplicates", "%.0f"),
    ("counter_ack_packets", "ACK packets", "%.0f"),
    ("counter_deliveries", "deliveries", "%.0f"),
    ("all_mean", "mean latency (s)", "%.4f"),
    ("all_p50", "p50 latency (s)", "%.4f"),
    ("all_p99", "p99 latency (s)", "%.3f"),
)


def sign_test(d):
    """(below, above, two-sided exact binomial p) of the nonzero differences d."""
    lo, hi = int(np.sum(d < 0)), int(np.sum(d > 0))
    n = lo + hi
    if n == 0:
        return lo, hi, 1.0
    k = min(lo, hi)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n
    return lo, hi, min(1.0, 2 * tail)


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1 - x) / b


def paired_t(d):
    """Two-sided p-value of the paired t-test on the differences d."""
    n = len(d)
    sd = float(np.std(d, ddof=1)) if n > 1 else 0.0
    if sd == 0.0:
        return 1.0 if float(np.mean(d)) == 0.0 else 0.0
    t = float(np.mean(d)) / (sd / math.sqrt(n))
    df = n - 1
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--base", type=int, default=2)
    ap.add_argument("--same", default="4")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--out", help="also write the table to this Markdown file")
    a = ap.parse_args(argv[1:])
    try:
        same = {int(m) for m in a.same.split(",") if m}
    except ValueError:
        print("population_model_paired: --same: '%s' is not a list of models" % a.same,
              file=sys.stderr)
        return 2
    tab = results.load_table(a.results)
    lines = ["| configuration | models | seeds | measure | mean (base / other) | diff "
             "| lower / higher | p (sign) | p (t) |",
             "|---|---|---|---|---|---|---|---|---|"]
    worst = {}  # model -> [smallest p, tests]
    try:
        if "population_model" not in tab:
            print("population_model_paired: %s has no population_model column" % a.results[0],
                  file=sys.stderr)
            return 2
        cols = {c: np.asarray(tab[c], dtype=np.float64) for c, _, _ in MEASURES}
        for key, models in sorted(configs(tab).items()):
            if a.base not in models:
                print("population_model_paired: skipped (no model %d): %s" % (a.base, label(key)),
                      file=sys.stderr)
                continue
            for m in sorted(x for x in models if x != a.base):
                seeds = sorted(set(models[a.base]) & set(models[m]))
                if len(seeds) < 2:
                    continue
                rb = [models[a.base][s] for s in seeds]
                rm = [models[m][s] for s in seeds]
                for col, name, fmt in MEASURES:
                    xb, xm = cols[col][rb], cols[col][rm]
                    d = xm - xb
                    lo, hi, p_s = sign_test(d)
                    p_t = paired_t(d)
                    w = worst.setdefault(m, [1.0, 0])
                    w[0] = min(w[0], p_s, p_t)
                    w[1] += 2
                    rel = (xm.mean() / xb.mean() - 1) * 100 if xb.mean() else float("nan")
                    lines.append(("| %s | %d / %d | %d | %s | " + fmt + " / " + fmt +
                                  " | %+.2f %% | %d / %d | %.3g | %.3g |") % (
                        label(key), a.base, m, len(seeds), name, xb.mean(), xm.mean(), rel,
                        lo, hi, p_s, p_t))
    finally:
        tab.close()
    if len(lines) == 2:
        print("population_model_paired: no configuration with model %d, another one and "
              "common seeds" % a.base, file=sys.stderr)
        return 2
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    rc = 0
    for m, (p, n) in sorted(worst.items()):
        verdict = "keeps" if p * n >= a.alpha else "DOES NOT keep"
        print("population_model_paired: model %d against %d: smallest p %.3g over %d tests "
              "(Bonferroni %.3g), alpha %.3g: %s its counters%s" % (
                  m, a.base, p, n, min(1.0, p * n), a.alpha, verdict,
                  "" if m in same else " (not checked)"))
        if m in same and p * n < a.alpha:
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
