"""diff: what changed between two results files (`rcsim diff A.h5 B.h5`).

A configuration is a job's parameters but the seed.  Parameters that have one value in
each file but not the same one (a changed default, `--set rate_delay=5`) are the change
itself: they are reported once and left out of the pairing, so configuration c of A meets
the configuration of B that differs from it only there.  In a pair of configurations:

- **identical**: every seed present on both sides, and each seed's results equal bit for
  bit (the latency summaries of the online and of all deliveries, and every counter but
  the machine's: wall time, peak memory) -- what an upgrade that changes no result gives;
- **differs**: some statistic (--stat; default mean, median and p99 latency and the
  delivery ratio, the entropy and bandwidth when measured) moved beyond seed noise: its
  95 % interval of B against A excludes "no change";
- **within noise**: it did not.

The interval pairs by seed where both files ran a seed (the same users, trace draw and
workload, so the seed's luck cancels): for a positive statistic the t-interval of the mean
log ratio B/A over the pairs (as `rcsim compare`), for the others the t-interval of the
mean difference.  With fewer than 2 pairs it compares the seeds unpaired (Welch's
interval on the same scale); with fewer than 2 seeds a side the verdict is "too few
seeds" unless the results are bit for bit the same.  Configurations in one file only are
listed as such.  Exit status of the command: 0 when nothing differs beyond noise, 3 when
something does (like diff(1)'s 1, which here means an error), 2 bad usage.
"""

import math

import numpy as np

from . import metrics, results
from .stats import t95
from .sweep import Sweep, fmt_value, load, value_key

STATS = ("mean", "median", "p99", "delivery_ratio")
OPTIONAL = ("anon_entropy", "bw_bytes_per_client_s")
# Counters that describe the machine, not the simulation: never compared.
MACHINE = ("wall_s", "peak_rss_kb")
IDENTICAL, DIFFERS, NOISE, FEW, ONLY_A, ONLY_B = (
    "identical", "differs", "within noise", "too few seeds", "only in A", "only in B")


def _fingerprint(job):
    """Everything a job's results say, but the machine's counters: equal bit for bit."""
    s = job.summary or {}
    c = results.job_counters(job)
    out = [("summary", k, _bits(v)) for k, v in sorted(s.items())]
    out += [("counter", k, _bits(v)) for k, v in sorted(c.items()) if k not in MACHINE]
    return tuple(out)


def _bits(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return "nan" if math.isnan(f) else f.hex()


def _configs(sw, drop):
    """{key: {seed: job}} with key = sorted (parameter, value) pairs, seed and `drop` left
    out."""
    out = {}
    for j, p in zip(sw.jobs, sw.params):
        key = tuple(sorted((k, v) for k, v in p.items() if k != "seed" and k not in drop
                           and k not in sw.structure))
        out.setdefault(key, {})[p.get("seed", "")] = j
    return out


def _changed(pa, pb):
    """{parameter: (value in A, value in B)} for the parameters with one value in each
    file but not the same one."""
    out = {}
    for k in sorted(set().union(*pa) & set().union(*pb)):
        va, vb = {p.get(k) for p in pa}, {p.get(k) for p in pb}
        if k != "seed" and len(va) == 1 and len(vb) == 1 and va != vb:
            out[k] = (va.pop(), vb.pop())
    return out


def _interval(a, b, positive):
    """(estimate, lo, hi, how) of B against A: a ratio for positive statistics, else a
    difference.  a, b: {seed: value}."""
    seeds = [s for s in a if s in b and math.isfinite(a[s]) and math.isfinite(b[s])]
    logs = positive and all(v > 0 for v in list(a.values()) + list(b.values())
                            if math.isfinite(v))
    f = np.log if logs else (lambda x: x)
    if len(seeds) >= 2:
        d = np.array([f(b[s]) - f(a[s]) for s in seeds], dtype=np.float64)
        m = float(d.mean())
        half = t95(len(d) - 1) * float(d.std(ddof=1)) / math.sqrt(len(d))
        how = "paired, %d seeds" % len(d)
    else:
        xa = np.array([f(v) for v in a.values() if math.isfinite(v)], dtype=np.float64)
        xb = np.array([f(v) for v in b.values() if math.isfinite(v)], dtype=np.float64)
        if xa.size < 2 or xb.size < 2:
            return (math.nan, math.nan, math.nan, "too few seeds")
        va, vb = xa.var(ddof=1) / xa.size, xb.var(ddof=1) / xb.size
        m = float(xb.mean() - xa.mean())
        se = math.sqrt(va + vb)
        dof = (va + vb) ** 2 / ((va ** 2 / (xa.size - 1) if va else 0) +
                                (vb ** 2 / (xb.size - 1) if vb else 0)) if va + vb else 1e9
        half = t95(int(max(1, math.floor(dof)))) * se
        how = "unpaired, %d + %d seeds" % (xa.size, xb.size)
    if logs:
        return (math.exp(m), math.exp(m - half), math.exp(m + half), "ratio, " + how)
    return (m, m - half, m + half, "difference, " + how)


def diff(path_a, path_b, stats=None, where=None):
    """(changed parameters, rows): one row per configuration pair with its verdict and,
    for each statistic, (estimate, lo, hi, how)."""
    with load([path_a]) as ra, load([path_b]) as rb:
        sa, sb = Sweep(ra, where), Sweep(rb, where)
        changed = _changed(sa.params, sb.params)
        if stats is None:
            stats = list(STATS) + [s for s in OPTIONAL if any(
                math.isfinite(metrics.lookup(s)(j)) for j in sa.jobs + sb.jobs)]
        ms = [metrics.lookup(s) for s in stats]
        ca, cb = _configs(sa, changed), _configs(sb, changed)
        axes = sorted({k for key in list(ca) + list(cb) for k, _ in key
                       if len({dict(kk).get(k) for kk in list(ca) + list(cb)}) > 1})
        rows = []
        for key in sorted(set(ca) | set(cb), key=lambda k: [value_key(v) for _, v in k]):
            d = dict(key)
            r = dict(config=", ".join("%s=%s" % (k, fmt_value(d[k])) for k in axes
                                      if k in d) or "(the only configuration)",
                     key=d, stats={})
            if key not in cb or key not in ca:
                r["verdict"] = ONLY_A if key not in cb else ONLY_B
                r["seeds"] = len((ca if key in ca else cb)[key])
                rows.append(r)
                continue
            ja, jb = ca[key], cb[key]
            common = [s for s in ja if s in jb]
            r["seeds"] = "%d / %d (%d paired)" % (len(ja), len(jb), len(common))
            same = (set(ja) == set(jb) and
                    all(_fingerprint(ja[s]) == _fingerprint(jb[s]) for s in common))
            moved, few = False, False
            for m in ms:
                va = {s: m(j) for s, j in ja.items()}
                vb = {s: m(j) for s, j in jb.items()}
                est, lo, hi, how = _interval(va, vb, m.positive)
                r["stats"][m.name] = (est, lo, hi, how)
                if not math.isfinite(lo):
                    few = few or how == "too few seeds"
                    continue
                none = 1.0 if how.startswith("ratio") else 0.0
                if lo > none or hi < none:
                    moved = True
            r["verdict"] = IDENTICAL if same else DIFFERS if moved else FEW if few else NOISE
            rows.append(r)
    return changed, stats, rows


def fmt_stat(v):
    est, lo, hi, how = v
    if not math.isfinite(est):
        return "n/a"
    if not math.isfinite(lo):
        return "%.3g" % est
    if how.startswith("ratio"):
        return "x%.3g [%.3g, %.3g]" % (est, lo, hi)
    return "%+.3g [%+.3g, %+.3g]" % (est, lo, hi)

