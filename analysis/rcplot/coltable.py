"""coltable: `rcsim summarize`'s table computed on the results table's columns.

The generic path (sweep.Sweep + table.rows) makes one Python object, one parameter dict and
one counter dict per job: 170 us and 14 kB a job, 3 minutes and 14 GB for 10^6 jobs.  This module gives the same rows from numpy columns:

- per file (opened through the one reader, results.table_group), only the columns the table needs are read (job_id, seed, the parameter
  columns one at a time, the summary and counter columns of the statistics);
- jobs are grouped by their parameter columns (seed aside) plus the trace identity, which
  is everything the canonical text (src/exp/job.c, rc_job_canonical) is made of, so the
  jobs of a group share their parameters but the seed; one canonical text per group is
  read and parsed exactly as results.job_params parses it, and its seed line is checked
  against the seed column;
- the axes come from sweep.detect_axes on one parameter dict per group, configurations
  and seed order as sweep.Sweep.configs (stable sort of the seeds by value);
- each statistic is a vector over jobs (the same formulas as metrics.py), aggregated per
  configuration with the same numpy calls as stats.seed_spread / seed_ci on the same
  arrays in the same order, sums as Python's left-to-right sum: the output is the generic
  path's byte for byte (bench/summarize.sh --against checks it).

summarize_fast() returns None whenever this path does not apply (layout-1 files, an
unreadable file, no jobs, a --where the generic path would refuse, a seed line that does
not match the seed column, a statistic it has no vector formula for): the caller then runs
the generic path, which also words every error.
"""

import math

import numpy as np

from . import journal, metrics, results, strategies
from .stats import seed_interval, seed_spread
from .sweep import _matches, _with_structure, detect_axes, table_columns, value_key

# Vector formulas of the metrics (metrics.py): ("summary", key) | ("ratio", num, den) |
# ("counter", name).
_SPECS = {n: ("summary", k) for n, k, _ in metrics._LATENCY}
_SPECS.update({
    "deliveries": ("summary", "count"),
    "delivery_ratio": ("ratio", ("deliveries",), ("expected_deliveries",)),
    "online_ratio": ("ratio", ("deliveries_online",), ("expected_deliveries",)),
    "packets_per_delivery": ("ratio", ("payload_packets", "ack_packets", "repair_packets"),
                             ("deliveries",)),
    "bundles_per_delivery": ("ratio", ("bundles",), ("deliveries",)),
})
for _n in ("undelivered", "duplicates", "reassignments", "timeouts", "events", "wall_s"):
    _SPECS[_n] = ("counter", _n)
for _m in metrics.METRICS.values():   # the statistics that read one counter as it is
    if getattr(_m.fn, "counter", None) and _m.name not in _SPECS:
        _SPECS[_m.name] = ("counter", _m.fn.counter)

# The trace's identity enters the canonical text in place of its spelling (job.c); these
# are provenance columns, so they join the parameter columns in the grouping key.
_TRACE_COLS = ("trace_name", "trace_sha256", "trace_lines")


class _Fallback(Exception):
    """This path does not apply; run the generic one."""


class _TabShim:
    """What results._fill_defaults reads of a Table."""

    def __init__(self, in_job_id, columns, codes):
        self.in_job_id, self.columns, self.codes = in_job_id, columns, codes


class _JobShim:
    def __init__(self, tab, attrs):
        self._tab, self.attrs = tab, attrs


def _parse_canonical(canon, tab, attrs):
    """(params without the seed's value, seed text) as results._table_job_params makes
    them: the registry's key order, defaults of later parameters filled in."""
    at = canon.find("seed=") if canon.startswith("seed=") else canon.find("\nseed=") + 1
    if not (at > 0 or canon.startswith("seed=")):
        raise _Fallback("no seed line")
    end = canon.find("\n", at)
    end = len(canon) if end < 0 else end
    seed = canon[at + 5:end].strip()
    base = {}
    for line in (canon[:at] + "seed=" + canon[end:]).splitlines():
        k, sep, v = line.partition("=")
        if sep:
            base[k.strip()] = v.strip()
    results._fill_defaults(base, _JobShim(tab, attrs))
    return base, seed


def _group_ids(t, names, rows, keep):
    """Dense group number of each kept row over the given columns (bit patterns, so NaN
    and -0.0 only ever split groups, which is harmless)."""
    gid = np.zeros(keep.shape[0], dtype=np.int64)
    for n in names:
        a = t[n][:rows][keep]
        if a.dtype.kind == "f":
            a = np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)
        elif a.dtype.kind not in "iub":
            raise _Fallback("column %s of type %s" % (n, a.dtype))
        if a.shape[0] == 0 or (a == a[0]).all():
            continue
        _, inv = np.unique(a, return_inverse=True)
        gid = gid * (int(inv.max()) + 1) + inv.reshape(-1)
        _, gid = np.unique(gid, return_inverse=True)
        gid = gid.reshape(-1).astype(np.int64)
    return gid


def _is_fanout(name):
    if not name:
        return False
    try:
        return strategies.family(name) == "provider-fanout"
    except (ValueError, RuntimeError):
        return False


def _metric_vector(spec, summ, counters, n):
    """One statistic per kept row, as metrics.Metric computes it per job."""
    kind = spec[0]
    nan = np.full(n, math.nan)
    if kind == "summary":
        if not summ or "count" not in summ:
            return nan  # metrics._summary: no summary, or count 0 by default
        count = summ["count"]
        v = summ[spec[1]].astype(np.float64) if spec[1] in summ else nan
        return np.where(count == 0, math.nan, v)
    if kind == "counter":
        c = counters.get(spec[1])
        return nan if c is None else c.astype(np.float64)

    def total(names):
        # sum(c.get(k, 0) for k in names): exact in integers until a float joins in.
        acc = np.zeros(n, dtype=np.int64)
        for k in names:
            c = counters.get(k)
            if c is None:
                continue
            if acc.dtype.kind in "iu" and c.dtype.kind in "iu":
                acc = acc + c
            else:
                acc = acc.astype(np.float64) + c.astype(np.float64)
        return acc.astype(np.float64)

    num, den = total(spec[1]), total(spec[2])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / den, math.nan)


def _canonical_rows(ds, rows_wanted, rows, block=65536):
    """The canonical texts of the given (ascending) rows: one read each when they are few,
    otherwise the column in blocks (the whole column of 10^6 jobs would be ~1 GB)."""
    if len(rows_wanted) <= 64:
        return [results._text(ds[int(r)]).rstrip("\0") for r in rows_wanted]
    out = []
    rows_wanted = np.asarray(rows_wanted)
    for lo in range(0, rows, block):
        sel = rows_wanted[(rows_wanted >= lo) & (rows_wanted < lo + block)]
        if sel.shape[0]:
            chunk = ds[lo:min(rows, lo + block)]
            out += [results._text(chunk[int(r) - lo]).rstrip("\0") for r in sel]
    return out


def _read_file(path, stats, seen):
    """Groups and statistic vectors of one layout-2 file's rows not in `seen` (ids)."""
    with results.table_group(path) as t:   # ValueError when not layout 2: the generic path
        rows = int(t.attrs["rows"])
        role, in_job_id, codes = {}, [], set()
        for name, ds in t.items():
            role[name] = results._text(ds.attrs.get("role", b""))
            if "levels" in ds.attrs:
                codes.add(name)
            if role[name] == "parameter" and int(ds.attrs.get("in_job_id", 0)):
                in_job_id.append(name)
        if "seed" not in t or "canonical" not in t or role.get("seed") != "parameter":
            raise _Fallback("%s: no seed or canonical column" % path)
        ids = t["job_id"][:rows]
        journal.check_journal(path, ids)
        _, first = np.unique(ids, return_index=True)
        keep = np.zeros(rows, dtype=bool)
        keep[first] = True
        if seen:
            keep &= ~np.isin(ids, np.concatenate(seen))
        seen.append(ids[keep])
        kept = np.nonzero(keep)[0]
        n = kept.shape[0]
        seeds = t["seed"][:rows][kept]
        if seeds.dtype.kind not in "iu":
            raise _Fallback("seed column of type %s" % seeds.dtype)
        params = [c for c in t if role.get(c) == "parameter"]
        key_cols = [c for c in params if c != "seed"] + [c for c in _TRACE_COLS if c in t]
        gid = _group_ids(t, key_cols, rows, kept)
        _, gfirst, ginv = np.unique(gid, return_index=True, return_inverse=True)
        # groups in the order of their first job; each group's kept-row positions
        order = np.argsort(gfirst, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.shape[0])
        grp = rank[ginv.reshape(-1)]
        by = np.argsort(grp, kind="stable")
        bounds = np.searchsorted(grp[by], np.arange(order.shape[0] + 1))
        members = [by[bounds[g]:bounds[g + 1]] for g in range(order.shape[0])]
        # one canonical text per group, parsed as results.job_params does
        shim = _TabShim(in_job_id, {c: t[c] for c in params if c not in codes}, codes)
        levels = {c: [results._text(x) for x in t[c].attrs["levels"]] for c in params
                  if c in codes}
        reps = kept[[int(m[0]) for m in members]]
        rep_vals = {}
        for c in params:  # each column read once, only the representatives kept
            v = t[c][:rows][reps]
            rep_vals[c] = [levels[c][int(x)] for x in v] if c in codes else v.tolist()
        texts = _canonical_rows(t["canonical"], reps, rows)
        groups = []
        for g, m in enumerate(members):
            attrs = {c: rep_vals[c][g] for c in params}
            base, seed = _parse_canonical(texts[g], shim, attrs)
            if seed != str(int(seeds[m[0]])):
                raise _Fallback("seed line %r against seed column %d" % (seed, seeds[m[0]]))
            groups.append((base, m))
        # only the summary columns the statistics use (count decides "no samples")
        want = {"count"} | {_SPECS[s][1] for s in stats if _SPECS[s][0] == "summary"}
        summ = {k: t["online_" + k][:rows][kept] for k in results.SUMMARY_NAMES
                if k in want and "online_" + k in t and "online_" + k not in codes}
        counters = {}
        vecs = {}
        for s in stats:
            spec = _SPECS[s]
            if s == "packets_per_delivery" and any(
                    _is_fanout(x) for x in levels.get("strategy", ())):
                # the provider's copies join the count per strategy (metrics.py)
                raise _Fallback("provider fan-out in packets_per_delivery")
            need = spec[1:] if spec[0] == "ratio" else ((spec[1],) if spec[0] == "counter" else ())
            for names_ in need:
                for k in (names_ if isinstance(names_, tuple) else (names_,)):
                    col = "counter_" + k
                    if k not in counters and col in t and role.get(col) == "counter" \
                            and col not in codes:
                        counters[k] = t[col][:rows][kept]
            vecs[s] = _metric_vector(spec, summ, counters, n)
    return n, seeds, groups, vecs


class FastSweep:
    """The parts of sweep.Sweep that summarize.py reads: axes, jobs (its length), where,
    seeds(), table_columns(), structure."""

    def __init__(self, n_jobs, axes, where, seeds, columns, structure):
        self.jobs = range(n_jobs)
        self.structure = structure
        self.axes = axes
        self.where = where
        self._seeds = seeds
        self._columns = columns

    def table_columns(self):
        return list(self._columns)

    def seeds(self):
        s = self._seeds
        if s.shape[0] and int(s.max()) < 2 ** 53:
            # distinct integers below 2^53 sort by value as their floats do (value_key)
            return [str(v) for v in np.unique(s).tolist()]
        return sorted({str(v) for v in s.tolist()}, key=value_key)


class Sources:
    """What results.sweep_info and summarize.py's `with res:` need of a Results."""

    def __init__(self, paths):
        self.sources = list(paths)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def summarize_fast(paths, where, stats, sums):
    """(sweep, rows, sources) as summarize.py's generic path gets them from
    sweep.Sweep(results.load(paths), where) and table.rows(sw, stats), or None."""
    try:
        return _summarize(paths, where, stats, sums)
    except (_Fallback, OSError, KeyError, ValueError, TypeError):
        return None


def _summarize(paths, where, stats, sums):
    ms = [metrics.lookup(s) for s in stats]
    sm = [metrics.lookup(s) for s in sums]
    if any(m.name not in _SPECS for m in ms + sm):
        raise _Fallback("a statistic without a vector formula")
    names_ = list(dict.fromkeys(m.name for m in ms + sm))
    seen, groups, seeds, vecs = [], [], [], {s: [] for s in names_}
    offset = 0
    for p in paths:
        n, s, gs, vs = _read_file(p, names_, seen)
        groups += [(base, m + offset) for base, m in gs]
        seeds.append(s)
        for k in names_:
            vecs[k].append(vs[k])
        offset += n
    if offset == 0:
        raise _Fallback("no jobs")
    seeds = np.concatenate(seeds).astype(np.uint64)
    vecs = {k: np.concatenate(v) for k, v in vecs.items()}
    # --where, as sweep.Sweep filters: by group, and by job for the seed
    known = set().union(*[g[0] for g in groups])
    if any(k not in known for k in where):
        raise _Fallback("--where on an unknown parameter")
    kept = []
    for base, m in groups:
        if not all(_matches(base.get(k, ""), w) for k, w in where.items() if k != "seed"):
            continue
        if "seed" in where:
            ok = [_matches(str(v), where["seed"]) for v in seeds[m].tolist()]
            m = m[np.asarray(ok, dtype=bool)]
        if m.shape[0]:
            kept.append((base, m))
    if not kept:
        raise _Fallback("--where matches nothing")
    kept.sort(key=lambda g: int(g[1][0]))  # detect_axes sees keys in job order
    # the strategy's structure columns, as sweep.Sweep inserts them (_with_structure)
    bases, structure = _with_structure([b for b, _ in kept])
    kept = [(b, m) for b, (_, m) in zip(bases, kept)]
    axes = detect_axes(bases)
    columns = table_columns(axes, structure, bases)
    cfgs, first = {}, {}
    for base, m in kept:
        key = tuple(base.get(a.name, "") for a in axes)
        cfgs.setdefault(key, []).append(m)
        first.setdefault(key, base)
    keys = sorted(cfgs, key=lambda k: [a.values.index(v) for a, v in zip(axes, k)])
    all_jobs = np.sort(np.concatenate([m for _, m in kept]))
    rows = []
    for k in keys:
        js = np.sort(np.concatenate(cfgs[k]))
        js = js[np.argsort(seeds[js].astype(np.float64), kind="stable")]
        r = {n: first[k].get(n, "") for n in columns}
        r["seeds"] = int(js.shape[0])
        for m in ms:
            # the same functions as table.rows, on the seeds in the same order
            x = vecs[m.name][js]
            fin = x[np.isfinite(x)]
            med, lo, hi, _ = seed_spread(x)
            est, clo, chi, _, how = seed_interval(x, positive=m.positive)
            r[m.name] = med
            r[m.name + "_min"], r[m.name + "_max"] = lo, hi
            r[m.name + "_mean"] = sum(fin.tolist()) / fin.shape[0] if fin.shape[0] else math.nan
            r[m.name + "_est"], r[m.name + "_ci_lo"], r[m.name + "_ci_hi"] = est, clo, chi
            r[m.name + "_interval"] = how
        for m in sm:
            x = vecs[m.name][js]
            t = sum(x[np.isfinite(x)].tolist())
            r[m.name] = int(t) if m.unit != "s" else t
        rows.append(r)
    sw = FastSweep(int(all_jobs.shape[0]), axes, where, seeds[all_jobs], columns,
                   structure)
    return sw, rows, Sources(paths)
