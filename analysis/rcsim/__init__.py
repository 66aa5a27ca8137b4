"""rcsim: rcsim results files as pandas DataFrames (docs/analysis.md, "Python API").

    from rcsim import load_jobs, load_deliveries, load_summary
    jobs = load_jobs("r.h5")
    table = load_summary("r.h5")      # per configuration, the tools' estimate over seeds
    table[["strategy", "users", "median_est", "median_ci_lo", "median_ci_hi"]]

With `analysis/` on PYTHONPATH (the installed modulefile puts PREFIX/share/rcsim/analysis
there; in a checkout: PYTHONPATH=analysis).  Needs Debian's python3-h5py, python3-numpy
and python3-pandas, and the rcsim binary (the strategy table: rcplot.strategies.binary).

- load_jobs(path): one row per finished job, every column of the file's table under the
  file's own name (docs/results-layout.md: users, strategy, online_p50, counter_deliveries,
  ...), the strategy's structure beside `strategy` (family, k, p, ft, multiplier,
  dropoffline), string columns as ordered categoricals holding only the values present.
- load_deliveries(path): every per-delivery record (jobs run with store_raw) in one
  DataFrame, each with its job's id and parameters.
- load_histograms(path): the latency histograms as a [job x bucket] matrix with the
  bucket edges.
- load_summary(path): one row per configuration with each statistic's estimate over
  seeds and its interval, exactly the numbers of summarize's CSV, the report and the
  plots (`<stat>_est`: geometric mean for latencies and other positive statistics, mean
  for fractions and counts; docs/analysis.md, "One centre").
- seeds_until(path): the stopping rule of a `seeds: until` sweep and where each
  configuration stopped (load_summary has it as columns too).

`path` is one results file or a list of them (pooled; a job in several files is kept
once, from the first).  This package reads through rcplot.results, the reader every tool
of analysis/ uses; it adds the pandas shapes, nothing of its own about the file.
"""

import os

import numpy as np

from rcplot import palette, results, sweep
from rcplot import until as _until

try:
    import pandas as pd
except ImportError as e:  # pragma: no cover - depends on the machine
    raise ImportError("the rcsim package needs pandas (Debian: apt-get install python3-pandas; "
                      "scripts/deps.sh installs it)") from e

__all__ = ["load_jobs", "load_deliveries", "load_histograms", "load_summary", "seeds_until",
           "Histograms"]

# Roles of the table's columns (docs/results-layout.md), in the order load_jobs puts them.
_ROLE_ORDER = ("id", "parameter", "summary", "counter", "provenance")


def _paths(path):
    if isinstance(path, (str, os.PathLike)):
        paths = [os.fspath(path)]
    else:
        paths = [os.fspath(p) for p in path]
    for p in paths:
        if not os.path.isfile(p):
            raise FileNotFoundError("%s: no such results file" % p)
    return paths


def _strategy_key(name):
    """Table order of a strategy name (rcplot.palette.order_key: the order of every tool)."""
    return palette.order_key(name)


def _order_categories(df):
    """Every categorical column: only the values present, ordered naturally (numbers by
    value, strategies in the strategy table's order, families as the table lists them,
    other names by sweep.value_key: rc-k2 before rc-k16)."""
    for name in df.columns:
        col = df[name]
        if not isinstance(col.dtype, pd.CategoricalDtype):
            continue
        cats = list(col.cat.remove_unused_categories().cat.categories)
        if name == "strategy":
            cats.sort(key=_strategy_key)
        elif name == "family":
            pass  # already in the table's family order
        else:
            cats.sort(key=sweep.value_key)
        df[name] = col.cat.set_categories(cats, ordered=True)
    return df


def _column_order(tab, df):
    """job_id, the parameters in registry order (the canonical text's order) with the
    strategy structure after `strategy`, the summaries (online_, then all_, each in
    count, mean, sd, min, max, p1 ... p99.9 order), the counters, the provenance."""
    canon = tab.canonical(0) if len(tab) else ""
    registry = [ln.partition("=")[0] for ln in canon.splitlines() if "=" in ln]
    structure = [c for c in df.columns if tab.role.get(c) is None]
    summary = ["%s_%s" % (w, s) for w in ("online", "all") for s in results.SUMMARY_NAMES]

    def key(c):
        role = tab.role.get(c, "parameter")
        if c in structure:  # just after strategy
            return (1, registry.index("strategy") if "strategy" in registry else -1,
                    1 + structure.index(c))
        r = _ROLE_ORDER.index(role) if role in _ROLE_ORDER else len(_ROLE_ORDER)
        if role == "parameter":
            return (r, registry.index(c) if c in registry else len(registry), 0)
        if role == "summary":
            return (r, summary.index(c) if c in summary else len(summary), 0)
        return (r, 0, 0)  # counters and provenance keep the file's order
    return df[sorted(df.columns, key=key)]


def _units(tab, df):
    u = {c: tab.units.get(c, "") for c in df.columns if c in tab.units}
    for c in df.columns:
        if c not in tab.units:
            u[c] = sweep.UNITS.get(c) or ""
    return u


def _jobs_frame(tab, paths):
    df = tab.to_pandas(structure=True)
    df = _order_categories(_column_order(tab, df))
    df.attrs["units"] = _units(tab, df)
    df.attrs["sources"] = list(paths)
    return df


def load_jobs(path, columns=None):
    """DataFrame of per-job summaries: one row per finished job (rows in file order),
    columns under the file's names (job_id, the parameters, online_* and all_* latency
    summaries in seconds, counter_*, provenance) plus the strategy structure after
    `strategy`.  `columns` (names) limits what is read (job_id always is).
    df.attrs["units"] maps each column to its unit ("s", "1/s", "count", ...)."""
    paths = _paths(path)
    with results.load_table(paths, columns) as tab:
        return _jobs_frame(tab, paths)


# Job parameters copied onto each delivery by default: those that differ between the
# loaded jobs (the sweep's axes, seed included) and the strategy structure.
def _varying(jobs, tab):
    params = [c for c in jobs.columns if tab.role.get(c) == "parameter"]
    keep = [c for c in params if jobs[c].nunique(dropna=False) > 1]
    if "strategy" in keep:
        keep += [c for c in jobs.columns if tab.role.get(c) is None
                 and jobs[c].nunique(dropna=True) > 1]
    return [c for c in jobs.columns if c in keep]  # in load_jobs' order


def load_deliveries(path, params="varying"):
    """DataFrame of every per-delivery record (jobs run with store_raw: true; a job
    without records adds no rows): job_id, the record's fields under the file's names
    (message, group, sender, recipient, sent_s, delivered_s, online), latency_s =
    delivered_s - sent_s, and the job's parameters: params="varying" (default) those that
    differ between the jobs with the strategy structure, "all" every parameter column, or
    a list of load_jobs column names.  Categoricals as in load_jobs."""
    paths = _paths(path)
    with results.load_table(paths) as tab:
        jobs = _jobs_frame(tab, paths)
        row, rec = tab.deliveries_all()
    if isinstance(params, str):
        if params == "varying":
            cols = _varying(jobs, tab)
        elif params == "all":
            cols = [c for c in jobs.columns if tab.role.get(c, "parameter") == "parameter"]
        else:
            raise ValueError("params: 'varying', 'all' or a list of column names, not %r"
                             % params)
    else:
        cols = list(params)
        bad = [c for c in cols if c not in jobs.columns]
        if bad:
            raise KeyError("not columns of load_jobs: %s" % ", ".join(bad))
    data = {"job_id": jobs["job_id"].to_numpy()[row]}
    for c in cols:
        if c != "job_id":
            data[c] = jobs[c].take(row).reset_index(drop=True) if len(row) else jobs[c][:0]
    if rec is None:
        rec = {k: np.zeros(0) for k in results.DELIVERY_FIELDS}
    for k in results.DELIVERY_FIELDS:
        data[k] = rec[k]
    data["online"] = np.asarray(rec["online"]).astype(bool)
    data["latency_s"] = np.asarray(rec["delivered_s"], dtype=np.float64) - \
        np.asarray(rec["sent_s"], dtype=np.float64)
    df = pd.DataFrame(data)
    df.attrs["units"] = dict(_units(tab, df), sent_s="s", delivered_s="s", latency_s="s")
    df.attrs["sources"] = list(paths)
    return df


class Histograms:
    """The latency histograms of the loaded jobs, kept sparse (a dense [job x bucket]
    matrix of 10^5 jobs would be 26 GB: there are 32770 buckets).

    jobs: load_jobs' DataFrame of the same jobs; edges: float64 bucket edges in seconds
    (bucket b is [edges[b], edges[b+1]), the last edge +inf; docs/results-layout.md);
    job, bucket, count: the nonzero cells (job = row position in `jobs`).  which: "online"
    or "all"."""

    def __init__(self, jobs, edges, job, bucket, count, which):
        self.jobs, self.edges, self.which = jobs, edges, which
        self.job, self.bucket, self.count = job, bucket, count

    def __len__(self):
        return len(self.jobs)

    @property
    def n_buckets(self):
        return self.edges.shape[0] - 1

    def matrix(self, jobs=None):
        """Dense int64 [job x bucket] counts of the given job positions (default all)."""
        pos = np.arange(len(self.jobs)) if jobs is None else np.asarray(jobs, dtype=np.int64)
        place = np.full(len(self.jobs), -1, dtype=np.int64)
        place[pos] = np.arange(pos.shape[0])
        m = np.zeros((pos.shape[0], self.n_buckets), dtype=np.int64)
        sel = place[self.job] >= 0
        np.add.at(m, (place[self.job[sel]], self.bucket[sel]), self.count[sel])
        return m

    def pooled(self, mask=None):
        """Counts per bucket summed over the jobs (or those where the boolean mask over
        jobs is True, e.g. jobs["strategy"] == "unicast")."""
        sel = np.ones(self.job.shape[0], dtype=bool) if mask is None else \
            np.asarray(mask, dtype=bool)[self.job]
        return np.bincount(self.bucket[sel], weights=self.count[sel],
                           minlength=self.n_buckets).astype(np.int64)

    def to_frame(self):
        """Long DataFrame of the nonzero cells: job_id, bucket, lo_s, hi_s, count."""
        b = self.bucket
        return pd.DataFrame({"job_id": self.jobs["job_id"].to_numpy()[self.job],
                             "bucket": b, "lo_s": self.edges[b], "hi_s": self.edges[b + 1],
                             "count": self.count})


def load_summary(path, stats=None, where=None):
    """One row per configuration, as summarize.py's CSV and the report's table.csv: the
    axes (and the strategy structure that varies), `seeds`, and per statistic `<s>_est`
    (the one centre every tool shows), `<s>_ci_lo`, `<s>_ci_hi`, `<s>_interval`, with the
    median, min, max and arithmetic mean over seeds beside it; for a sweep that stopped
    adding seeds by a rule, until_seeds, until_stopped (narrow, max or running),
    until_estimate and until_rel_halfwidth (seeds_until).  stats: statistic names
    (rcsim plot --stat; default summarize's, with entropy and bandwidth when measured);
    where: {parameter: [values]} as --where.  Rows in the tools' order (strategies in the
    strategy table's)."""
    from rcplot import table as _table
    res = sweep.load(_paths(path))
    with res:
        sw = sweep.Sweep(res, where)
        want = list(stats) if stats else _table.candidates(_table.DEFAULT_STATS)
        rows = _table.rows(sw, stats=want)
        shown = list(stats) if stats else _table.shown(rows, _table.DEFAULT_STATS)
        cols = _table.columns(sw, stats=shown)
        # A `seeds: until` sweep: where each configuration stopped, as summarize's CSV.
        if _until.attach(_paths(path), rows, sw.table_columns()):
            cols = cols + list(_until.COLUMNS)
    return pd.DataFrame([{c: r[c] for c in cols} for r in rows], columns=cols)


def seeds_until(path):
    """The stopping rule a `seeds: until` sweep (or `rcsim sweep --until`) recorded: a list
    with one dict per file that has one, {path, rule, configs}, each config {first (the job
    id of its first seed), seeds, estimate, rel_halfwidth, stopped: narrow|max|running};
    [] for a sweep with fixed seeds (docs/sweep-format.md, "Seeds until narrow")."""
    return _until.read(_paths(path))


def load_histograms(path, which="online"):
    """Histograms of every job's latencies (Histograms): which="online" (deliveries to an
    online recipient, the population of the online_* summaries) or "all" (every first
    delivery, the all_* summaries)."""
    if which not in ("online", "all"):
        raise ValueError("which: 'online' or 'all', not %r" % which)
    paths = _paths(path)
    with results.load_table(paths) as tab:
        jobs = _jobs_frame(tab, paths)
        row, cells = tab.hist_sparse(which)
        edges = np.asarray(tab.edges, dtype=np.float64)
    if cells is None:
        cells = {"bucket": np.zeros(0, np.int64), "count": np.zeros(0, np.int64)}
    # load_table's rows are the jobs' rows in order: a row is its position in `jobs`.
    return Histograms(jobs, edges, row.astype(np.int64), cells["bucket"].astype(np.int64),
                      cells["count"].astype(np.int64), which)
