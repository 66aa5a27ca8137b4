#!/usr/bin/python3
"""Do the population models give model 1's latencies?  (docs/beyond.md)

Usage: python3 -m rcplot population-model-ks RESULTS.h5 [RESULTS.h5 ...] [--permutations N]
                                       [--alpha A] [--out OUT.md]

RESULTS: a sweep with `population_model` as an axis over 1 and newer models and the same
seeds for all (experiments/population-model.yaml).  Model 2 draws other random numbers than
model 1 (a busy client's drop and loop firings are counted in aggregate; a packet's hops
are one Gamma draw), and model 3 also hands the messages one pull takes over in another
order (each is scheduled for its pull when it leaves), so a seed's results differ between
the models; what must not differ is the law.  For every configuration (every job-id
parameter but the model and the seed) and every model m > 1, against model 1:

- D: the two-sample Kolmogorov-Smirnov distance between the online latencies of all of
  model 1's seeds and all of model m's, pooled (read from the jobs' histograms, whose
  buckets are 0.1 % wide: D is the largest CDF gap over the bucket edges).
- p: its p-value by a paired permutation test over seeds.  The deliveries of one job are
  not independent (a multicast's copies share its sender's queue, the seed's workload is
  shared by both models), so the classic KS p-value over millions of deliveries would
  reject laws that agree; the seed is the independent unit.  Under the null hypothesis the
  two jobs of a seed are exchangeable, so each permutation swaps the models' labels of a
  random subset of the seeds and recomputes D; p = (1 + #{D_perm >= D}) / (1 + N).
- the same test for the mean latency per seed's job and for the cover sub-messages counted
  per payload slot (the aggregate counting of models 2 and 3 must keep the counters'
  expectation).

Exits 1 when any p is below --alpha (default 0.01), so a test can run it; 2 on bad usage.
Only Debian's python3-h5py and numpy.
"""
import argparse
import sys

import numpy as np

from rcplot import results

SKIP = ("population_model", "seed")


def ks_distance(h1, h2):
    """Largest gap between the CDFs of two histograms over the same buckets."""
    c1 = np.cumsum(h1, dtype=np.float64)
    c2 = np.cumsum(h2, dtype=np.float64)
    return float(np.max(np.abs(c1 / c1[-1] - c2 / c2[-1])))


def paired_permutation(a, b, stat, n_perm, rng):
    """p-value of stat(a, b) against label swaps within each pair (a[i], b[i])."""
    obs = stat(a, b)
    hits = 0
    for _ in range(n_perm):
        # one label swap per pair, broadcast over a pair's histogram
        swap = (rng.random(len(a)) < 0.5).reshape((-1,) + (1,) * (a.ndim - 1))
        if stat(np.where(swap, b, a), np.where(swap, a, b)) >= obs - 1e-15:
            hits += 1
    return obs, (1 + hits) / (1 + n_perm)


def configs(tab):
    """{config text: {model: {seed: row}}} from the rows' canonical texts."""
    out = {}
    for row in range(len(tab)):
        params = {}
        for line in tab.canonical_cached(row).splitlines():
            k, _, v = line.partition("=")
            params[k] = v
        model = int(tab["population_model"][row])
        seed = int(params["seed"])
        key = "\n".join("%s=%s" % kv for kv in params.items() if kv[0] not in SKIP)
        out.setdefault(key, {}).setdefault(model, {})[seed] = row
    return out


def label(key):
    p = dict(line.partition("=")[::2] for line in key.splitlines())
    return "%s, %s users, %s groups %s, %s, %s s" % (
        p.get("strategy"), p.get("population"), p.get("groups"), p.get("group_size_dist"),
        p.get("trace", "online"), p.get("duration"))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--permutations", type=int, default=1999)
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--out", help="also write the table to this Markdown file")
    a = ap.parse_args(argv[1:])
    rng = np.random.default_rng(20261205)
    tab = results.load_table(a.results)
    lines = ["| configuration | models | seeds | median (s) | mean (s) | p99 (s) "
             "| KS D | p (D) | p (mean) | cover per slot | p (cover) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    worst = 1.0
    try:
        if "population_model" not in tab:
            print("population_model_ks: %s has no population_model column" % a.results[0],
                  file=sys.stderr)
            return 2
        cover = np.asarray(tab["counter_cover_packets"], dtype=np.float64)
        slots = np.asarray(tab["counter_payload_slots"], dtype=np.float64)
        means = np.asarray(tab["online_mean"], dtype=np.float64)
        found = configs(tab)
        for key, models in sorted(found.items()):
            newer = sorted(m for m in models if m > 1)
            if 1 not in models or not newer:
                print("population_model_ks: skipped (not model 1 and a newer one): %s"
                      % label(key), file=sys.stderr)
                continue
            for m in newer:
                seeds = sorted(set(models[1]) & set(models[m]))
                if len(seeds) < 2:
                    continue
                r1 = [models[1][s] for s in seeds]
                r2 = [models[m][s] for s in seeds]
                h1 = tab.hist_matrix(r1).astype(np.float64)
                h2 = tab.hist_matrix(r2).astype(np.float64)
                d, p_d = paired_permutation(h1, h2,
                                            lambda x, y: ks_distance(x.sum(0), y.sum(0)),
                                            a.permutations, rng)
                _, p_m = paired_permutation(means[r1], means[r2],
                                            lambda x, y: abs(x.mean() - y.mean()),
                                            a.permutations, rng)
                c1, c2 = cover[r1] / slots[r1], cover[r2] / slots[r2]
                _, p_c = paired_permutation(c1, c2, lambda x, y: abs(x.mean() - y.mean()),
                                            a.permutations, rng)
                edges = tab.edges[1:len(h1[0]) + 1]

                def q(h, f):
                    c = np.cumsum(h.sum(0))
                    return edges[np.searchsorted(c, f * c[-1])]

                worst = min(worst, p_d, p_m, p_c)
                lines.append("| %s | 1 / %d | %d | %.2f / %.2f | %.2f / %.2f | %.1f / %.1f "
                             "| %.4f | %.3f | %.3f | %.3f / %.3f | %.3f |" % (
                                 label(key), m, len(seeds), q(h1, 0.5), q(h2, 0.5),
                                 means[r1].mean(), means[r2].mean(), q(h1, 0.99), q(h2, 0.99),
                                 d, p_d, p_m, c1.mean(), c2.mean(), p_c))
    finally:
        tab.close()
    if len(lines) == 2:
        print("population_model_ks: no configuration with model 1, a newer one and common seeds",
              file=sys.stderr)
        return 2
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    verdict = "agree" if worst >= a.alpha else "DIFFER"
    print("population_model_ks: smallest p %.3f, alpha %.3f: the models %s" %
          (worst, a.alpha, verdict))
    return 0 if worst >= a.alpha else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
