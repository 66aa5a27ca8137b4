"""results: read rcsim results files (docs/results-layout.md).

Two ways in:

- load_table(paths) reads the summary table of layout "rcsim-results/2" as numpy
  columns (one array per parameter, summary statistic, counter and provenance field;
  string columns as codes into their levels): the fast path for sweeps of 10^5-10^6
  jobs.  Table.to_pandas() (or load_dataframe) gives a pandas DataFrame when Debian's
  python3-pandas is installed, with the strategy's structure (family, k, p, ft,
  multiplier, dropoffline: strategies.structure) as columns beside `strategy`.
  Table.hist / hist_matrix / deliveries read the ragged per-job data (sparse histograms
  as dense rows or a [job x bucket] matrix, the per-delivery records of store_raw jobs)
  only when asked; deliveries_all / hist_sparse / ragged_all read them for many jobs at
  once, each file's columns whole (what the rcsim package's loaders use).
- load(paths) returns a Results holding one Job per finished job, grouped into
  configurations (every parameter that is part of the job id, except the seed), as the
  figures and the comparison with the paper use them.  It reads both layout 2 and the
  old layout 1 (one HDF5 group per job; `rcsim convert` turns those into layout 2).

A job id that appears in several files is kept once (the first).  Histograms are read
lazily, so load() keeps the files open until Results.close() (or the `with` block ends).

Errors: a file of another layout raises ValueError naming it and the layout.
"""

import contextlib
import math

import h5py
import numpy as np

from . import names, strategies
from .stats import PAPER_STAT, seed_ci, seed_spread

LAYOUT = "rcsim-results/2"
LAYOUT_V1 = "rcsim-results/1"
SUMMARY_NAMES = ["count", "mean", "sd", "min", "max", "p1", "p5", "p10", "p25", "p50",
                 "p75", "p90", "p95", "p99", "p99.9"]
MODEL_NAMES = {0: "exact", 1: "paper"}  # exp/param.c: enum "exact|paper"
RAGGED = {"hist_online": "hist/online", "hist_all": "hist/all"}


def _text(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray) and v.dtype.kind in "SO" and v.size == 1:
        return _text(v.reshape(-1)[0])
    return str(v)


def _value(v):
    if isinstance(v, (bytes, str)):
        return _text(v)
    if isinstance(v, np.ndarray):
        if v.size == 1:
            return _value(v.reshape(-1)[0])
        return v
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def _layout(f, path):
    layout = _text(f.attrs.get("layout", b""))
    if layout not in (LAYOUT, LAYOUT_V1):
        raise ValueError("%s: layout %r, expected %r (or the old %r)" % (path, layout, LAYOUT,
                                                                         LAYOUT_V1))
    return layout


def _levels(ds):
    return np.array([_text(x) for x in ds.attrs["levels"]], dtype=object)


# ---------------------------------------------------------------------------------------
# Layout 2: the columnar table


class Table:
    """The summary table of one or more layout-2 files as numpy columns.

    columns: name -> numpy array (one element per job row); string columns (strategy,
    trace, model, host, build, ...) are kept as codes: `codes[name]` and `levels[name]`,
    and table[name] decodes them.  `role[name]` says what a column is ("id",
    "parameter", "summary", "counter", "provenance"); `in_job_id` lists the parameters
    that are part of a job's id.  `units[name]` holds each column's unit.
    """

    def __init__(self):
        self.columns = {}
        self.codes = {}
        self.levels = {}
        self.role = {}
        self.units = {}
        self.in_job_id = []
        self.sources = []
        self.file_of_row = np.zeros(0, dtype=np.int32)
        self.row_in_file = np.zeros(0, dtype=np.int64)
        self.edges = None
        self.order = []  # column names in the files' order
        self._files = {}
        self._counter_lists = None

    def __len__(self):
        return int(self.file_of_row.shape[0])

    def names(self):
        return list(self.columns) + list(self.codes)

    def __contains__(self, name):
        return name in self.columns or name in self.codes

    def __getitem__(self, name):
        if name in self.columns:
            return self.columns[name]
        if name in self.codes:
            return self.levels[name][self.codes[name]]
        raise KeyError(name)

    # -- per-job ragged data ------------------------------------------------------------

    def _file(self, i):
        f = self._files.get(i)
        if f is None:
            f = self._files[i] = h5py.File(self.sources[i], "r")
        return f

    def close(self):
        for f in self._files.values():
            f.close()
        self._files = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _slice(self, group, row):
        fi, r = int(self.file_of_row[row]), int(self.row_in_file[row])
        g = self._file(fi)[group]
        end = g["end"]
        lo = int(end[r - 1]) if r > 0 else 0
        return g, lo, int(end[r])

    def hist(self, row, which="online"):
        """Dense histogram (counts per bucket of self.edges) of one job row."""
        g, lo, hi = self._slice("hist/" + which, row)
        h = np.zeros(self.edges.shape[0] - 1, dtype=np.int64)
        if hi > lo:
            np.add.at(h, g["bucket"][lo:hi].astype(np.int64), g["count"][lo:hi])
        return h

    def hist_matrix(self, rows, which="online"):
        """The [job x bucket] matrix of the given rows' histograms."""
        rows = np.asarray(rows, dtype=np.int64)
        m = np.zeros((rows.shape[0], self.edges.shape[0] - 1), dtype=np.int64)
        for k, row in enumerate(rows):
            m[k] = self.hist(int(row), which)
        return m

    def deliveries(self, row):
        """Per-delivery records (store_raw) of one job row: dict of arrays."""
        g, lo, hi = self._slice("deliveries", row)
        return {k: g[k][lo:hi] for k in DELIVERY_FIELDS}

    def deliveries_all(self, rows=None):
        """Per-delivery records of many job rows (default: all), reading each column of
        each file once rather than one slice per job: (row, {field: array}) where row[i]
        is the job row of record i; records in row order, each job's in file order;
        ({...} is None when no file has records)."""
        return self.ragged_all("deliveries", DELIVERY_FIELDS, rows)

    def hist_sparse(self, which="online", rows=None):
        """The nonzero buckets of many rows' histograms: (row, {"bucket", "count"})."""
        return self.ragged_all("hist/" + which, ("bucket", "count"), rows)

    def ragged_all(self, group, fields, rows=None):
        """Ragged per-job data (`group`/end and its `fields`, docs/results-layout.md) of
        many rows, each file's columns read whole once: (row, {field: array})."""
        rows = np.arange(len(self)) if rows is None else np.asarray(rows, dtype=np.int64)
        out_rows, out = [], {k: [] for k in fields}
        for fi in sorted(set(self.file_of_row[rows].tolist())):
            mine = rows[self.file_of_row[rows] == fi]
            g = self._file(fi).get(group)
            if g is None or "end" not in g:
                continue
            end = np.asarray(g["end"][()], dtype=np.int64)
            r = self.row_in_file[mine]
            hi = end[r]
            lo = np.where(r > 0, end[np.maximum(r - 1, 0)], 0)
            n = hi - lo
            # index of every element: the lo of its job plus its place within the job
            idx = np.repeat(lo - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))
            out_rows.append(np.repeat(mine, n))
            for k in fields:
                out[k].append(np.asarray(g[k][()])[idx])
        if not out_rows:
            return np.zeros(0, dtype=np.int64), None
        # Jobs back in the order asked for (files were read one after the other).
        row = np.concatenate(out_rows)
        place = np.zeros(len(self), dtype=np.int64)
        place[rows] = np.arange(rows.shape[0])
        order = np.argsort(place[row], kind="stable")
        return row[order], {k: np.concatenate(v)[order] for k, v in out.items()}

    def canonical(self, row):
        """The canonical parameter text (the job id is its hash) of one job row."""
        fi, r = int(self.file_of_row[row]), int(self.row_in_file[row])
        return _text(self._file(fi)["table/canonical"][r]).rstrip("\0")

    def canonical_cached(self, row):
        """canonical(row), reading each file's column once (many rows are asked for)."""
        if getattr(self, "_canon", None) is None:
            self._canon = self.canonical_all()
        return self._canon[row]

    def counters(self, row):
        """{name: value} of a row's counters, without the counter_ prefix."""
        # Each counter column as a Python list, made once: per row and column, .item()
        # cost 170 us a job in `rcsim summarize` (docs/performance.md, "`rcsim summarize` at
        # scale"); the values are the same.
        lists = self._counter_lists
        if lists is None:
            lists = self._counter_lists = [(k[len("counter_"):], self.columns[k].tolist())
                                           for k in self.columns
                                           if self.role.get(k) == "counter"]
        return {k: v[row] for k, v in lists}

    def canonical_all(self):
        """Every row's canonical text (reads the whole column of each file once)."""
        cols = {}
        out = []
        for fi, r in zip(self.file_of_row.tolist(), self.row_in_file.tolist()):
            if fi not in cols:
                cols[fi] = self._file(fi)["table/canonical"][()]
            out.append(_text(cols[fi][r]).rstrip("\0"))
        return out

    # -- pandas ---------------------------------------------------------------------------

    def to_pandas(self, structure=True):
        """A pandas DataFrame (strings as categoricals; columns in the files' order);
        needs python3-pandas.  structure=True adds the strategy's structure columns
        (structure_columns) right after `strategy`."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise ImportError("Table.to_pandas needs pandas (Debian: apt-get install "
                              "python3-pandas); the numpy columns work without it") from e
        data = {}
        for name in self.order or self.names():
            if name in self.codes:
                data[name] = pd.Categorical.from_codes(
                    self.codes[name].astype(np.int64), categories=pd.Index(self.levels[name]))
            elif name in self.columns:
                data[name] = self.columns[name]
            if name == "strategy" and structure:
                data.update(self.structure_columns(pd))
        return pd.DataFrame(data, copy=False)

    def structure_columns(self, pd):
        """{column: pandas array} of the strategy structure of every row
        (docs/analysis.md, "Strategy structure as columns"):
        `family` as a categorical in the strategy table's family order, each family
        parameter typed as the table types it: int -> int64 (nullable Int64 when some
        row's family lacks it), bool -> bool (nullable boolean), number -> float64 (NaN)."""
        if "strategy" not in self.codes:
            return {}
        codes = self.codes["strategy"].astype(np.int64)
        used = np.unique(codes).tolist()
        lv = self.levels["strategy"]
        strategies.prefetch([lv[c] for c in used])
        per = {c: strategies.structure(lv[c]) for c in used}
        types = {"family": "family"}
        for f in strategies.families():
            for k, d in f["params"].items():
                types.setdefault(k, d.get("type", "number"))
        fams = [f["family"] for f in strategies.families()]
        out = {}
        for col in strategies.structure_names():
            # One value per level, spread over the rows by the codes (numpy indexing).
            vals = np.empty(len(lv), dtype=object)
            for c in range(len(lv)):
                vals[c] = per[c][col] if c in per else None
            rows = vals[codes]
            missing = any(per[c][col] is None for c in used)
            t = types.get(col, "number")
            if t == "family":
                out[col] = pd.Categorical(rows, categories=fams)
            elif t == "int":
                out[col] = pd.array(rows, dtype="Int64") if missing else rows.astype(np.int64)
            elif t == "bool":
                out[col] = pd.array(rows, dtype="boolean") if missing else rows.astype(bool)
            else:
                out[col] = np.array([np.nan if v is None else v for v in vals],
                                    dtype=np.float64)[codes]
        return out


def _read_file_table(f, path, columns):
    t = f["table"]
    rows = int(t.attrs["rows"])
    out = {}
    for name, ds in t.items():
        if columns is not None and name not in columns:
            continue
        if name == "canonical":
            continue  # wide text; Table.canonical(row) reads it on demand
        role = _text(ds.attrs.get("role", b""))
        units = _text(ds.attrs.get("units", b""))
        arr = ds[:rows]
        levels = _levels(ds) if "levels" in ds.attrs else None
        out[name] = (arr, levels, role, units, int(ds.attrs.get("in_job_id", 0)))
    edges = np.asarray(f["hist/edges_s"][()], dtype=np.float64)
    return rows, out, edges


def load_table(paths, columns=None):
    """The table of layout-2 files as numpy columns (see Table).  `columns` (names)
    limits what is read; job_id is always read.  A job id in several files is kept once."""
    if isinstance(paths, str):
        paths = [paths]
    if columns is not None:
        columns = set(columns) | {"job_id"}
    tab = Table()
    parts = []
    for i, path in enumerate(paths):
        with h5py.File(path, "r") as f:
            if _layout(f, path) != LAYOUT:
                raise ValueError("%s: layout %r; the table reader needs %r (convert it with "
                                 "`rcsim convert %s --out NEW.h5`, or use results.load)"
                                 % (path, LAYOUT_V1, LAYOUT, path))
            rows, cols, edges = _read_file_table(f, path, columns)
        if tab.edges is None:
            tab.edges = edges
        elif not np.array_equal(tab.edges, edges):
            raise ValueError("%s: its histogram buckets differ from %s's" % (path, paths[0]))
        tab.sources.append(path)
        parts.append((i, rows, cols))
    names_ = []
    for _, _, cols in parts:
        for n in cols:
            if n not in names_:
                names_.append(n)
    # Keep the first row of every job id.
    ids = np.concatenate([cols["job_id"][0] for _, _, cols in parts]) if parts else \
        np.zeros(0, dtype=np.uint64)
    file_of_row = np.concatenate([np.full(rows, i, dtype=np.int32) for i, rows, _ in parts]) \
        if parts else np.zeros(0, dtype=np.int32)
    row_in_file = np.concatenate([np.arange(rows, dtype=np.int64) for _, rows, _ in parts]) \
        if parts else np.zeros(0, dtype=np.int64)
    _, first = np.unique(ids, return_index=True)
    keep = np.sort(first)
    whole = keep.shape[0] == ids.shape[0]
    tab.file_of_row = file_of_row if whole else file_of_row[keep]
    tab.row_in_file = row_in_file if whole else row_in_file[keep]
    for n in names_:
        arrays, role, units, canon = [], "", "", 0
        levels = None
        for _, rows, cols in parts:
            if n in cols:
                arr, lv, role, units, canon = cols[n]
                if lv is not None:
                    # re-code into the union of the files' levels
                    if levels is None:
                        levels = list(lv)
                    index = {s: k for k, s in enumerate(levels)}
                    for s in lv:
                        if s not in index:
                            index[s] = len(levels)
                            levels.append(s)
                    remap = np.array([index[s] for s in lv], dtype=np.uint32)
                    arr = remap[arr] if arr.shape[0] else arr.astype(np.uint32)
                arrays.append(arr)
            else:
                arrays.append(np.zeros(rows, dtype=np.float64) * np.nan)
        col = np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
        if not whole:
            col = col[keep]
        if levels is not None:
            tab.codes[n] = col
            tab.levels[n] = np.array(levels, dtype=object)
        else:
            tab.columns[n] = col
        tab.role[n] = role
        tab.units[n] = units
        if role == "parameter" and canon:
            tab.in_job_id.append(n)
    tab.order = names_
    return tab


@contextlib.contextmanager
def table_group(path):
    """The `table` group of one layout-2 file, open for reading column by column and block
    by block (summarize's column path over 10^6 jobs, coltable.py, which Table would hold
    whole in memory).  ValueError when the file is not layout 2 or has no table."""
    with h5py.File(path, "r") as f:
        if _text(f.attrs.get("layout", b"")) != LAYOUT or "table" not in f:
            raise ValueError("%s: no table of layout %r" % (path, LAYOUT))
        yield f["table"]


def root_attrs(path, names_):
    """{name: text} of the file's root attributes among `names_` that it has (a
    `seeds: until` sweep's record, until.py)."""
    with h5py.File(path, "r") as f:
        return {n: _text(f.attrs[n]) for n in names_ if n in f.attrs}


def first_rows(path, ids, columns):
    """{job id (16 hex digits): {column: shown value}} of the table rows whose job id is in
    `ids`, for the `columns` the table has (string columns by their level names)."""
    from .sweep import fmt_value   # sweep imports this module
    out = {}
    with h5py.File(path, "r") as f:
        if "table" not in f:
            return out
        t = f["table"]
        jid = t["job_id"][:]
        hexes = [_text(x) for x in jid] if jid.dtype.kind in "SO" else \
            ["%016x" % int(x) for x in jid]
        where = {h: i for i, h in enumerate(hexes) if h in ids}
        have = [c for c in columns if c in t]
        vals = {}
        for c in have:
            ds = t[c]
            col = ds[:]
            if "levels" in ds.attrs:
                levels = [_text(x) for x in ds.attrs["levels"]]
                vals[c] = [levels[int(i)] for i in col]
            elif col.dtype.kind in "SO":
                vals[c] = [_text(x) for x in col]
            else:
                vals[c] = [fmt_value(repr(float(x))) for x in np.asarray(col, dtype=np.float64)]
        for h, i in where.items():
            out[h] = {c: vals[c][i] for c in have}
    return out


def load_dataframe(paths, columns=None):
    """load_table(paths, columns).to_pandas(): a pandas DataFrame of the summaries."""
    tab = load_table(paths, columns)
    try:
        return tab.to_pandas()
    finally:
        tab.close()


# ---------------------------------------------------------------------------------------
# Jobs and configurations (both layouts)


class Job:
    """One finished job: parameters, the online summary, lazily its histogram."""

    def stat(self, name):
        """A summary statistic by summary name (p50) or paper name (median)."""
        key = PAPER_STAT.get(name, name)
        v = self.summary.get(key, math.nan)
        if self.summary.get("count", 0) == 0:
            return math.nan
        return v

    def _init_common(self, attrs):
        self.strategy = names.strategy(attrs.get("strategy", "unicast"))
        self.trace = names.trace(attrs.get("trace", "online"))
        model = attrs.get("model", "exact")
        self.model = MODEL_NAMES.get(model, model) if isinstance(model, int) else str(model)
        self.users = int(attrs.get("users", 0))
        gs = int(attrs.get("group_size", 0) or 0)
        self.group_size = gs if gs > 0 else self.users
        self.groups = int(attrs.get("groups", 1))
        self.burst = int(attrs.get("burst", 1))
        self.lambda_div = float(attrs.get("lambda_div", 1.0))
        self.duration = float(attrs.get("duration", 86400.0))
        self.seed = attrs.get("seed", 0)


class TableJob(Job):
    """A row of a layout-2 table.  `attrs` (every parameter, and job_id) is built when
    first asked for: a sweep of 10^6 jobs would otherwise hold 10^6 dicts of 50 entries."""

    __slots__ = ("_tab", "row", "_values", "_params", "id", "summary", "config", "wall_s",
                 "_attrs", "_counters", "_canon_params", "strategy", "trace", "model",
                 "users", "group_size", "groups", "burst", "lambda_div", "duration", "seed")

    def __init__(self, tab, row, values, params, job_id, summary, config, wall_s):
        self._tab = tab
        self.row = row
        self._values = values
        self._params = params
        self.id = job_id
        self.summary = summary
        self.config = config
        self.wall_s = wall_s
        self._attrs = None
        self._counters = None
        self._canon_params = None
        common = _COMMON_CACHE.get(config) if config else None
        if common is None:
            self._init_common(_AttrView(values, params, row))
            common = (self.strategy, self.trace, self.model, self.users, self.group_size,
                      self.groups, self.burst, self.lambda_div, self.duration)
            if config:
                _COMMON_CACHE[config] = common
        else:
            (self.strategy, self.trace, self.model, self.users, self.group_size, self.groups,
             self.burst, self.lambda_div, self.duration) = common
            self.seed = _AttrView(values, params, row).get("seed", 0)

    @property
    def path(self):
        return self._tab.sources[int(self._tab.file_of_row[self.row])]

    @property
    def attrs(self):
        if self._attrs is None:
            a = {c: self._values[c][self.row] for c in self._params}
            a["job_id"] = self.id
            self._attrs = a
        return self._attrs

    def hist(self, which="hist_online"):
        return self._tab.hist(self.row, which.replace("hist_", ""))

    def canonical(self):
        return self._tab.canonical_cached(self.row)

    def counters(self):
        if self._counters is None:
            self._counters = self._tab.counters(self.row)
        return self._counters


# What _init_common derives from the parameters that make a configuration (everything but
# the seed), per configuration: the same for all its seeds.
_COMMON_CACHE = {}


class _AttrView:
    """attrs.get() over the table's value lists, for Job._init_common."""

    __slots__ = ("_values", "_params", "_row")

    def __init__(self, values, params, row):
        self._values, self._params, self._row = values, params, row

    def get(self, key, default=None):
        if key in self._values:
            return self._values[key][self._row]
        return default


class LegacyJob(Job):
    """A job group of a layout-1 file."""

    def __init__(self, group, path):
        self._group = group
        self.path = path
        self.attrs = {k: _value(v) for k, v in group.attrs.items()}
        self.id = self.attrs.get("job_id", group.name.rsplit("/", 1)[-1])
        self._init_common(self.attrs)
        self.wall_s = float(self.attrs.get("wall_s", math.nan))
        self.summary = self._read_summary("summary_online")
        canon = self.attrs.get("canonical")
        if canon:
            lines = [ln for ln in str(canon).splitlines() if not ln.startswith("seed=")]
            self.config = "\n".join(lines)
        else:
            self.config = repr(sorted((k, str(v)) for k, v in self.attrs.items()
                                      if k in ("users", "group_size", "groups", "strategy",
                                               "trace", "burst", "lambda_div", "model",
                                               "duration")))

    def _read_summary(self, name):
        if name not in self._group:
            return {}
        ds = self._group[name]
        vals = np.asarray(ds[()], dtype=np.float64)
        nm = ds.attrs.get("names")
        if nm is None:
            keys = SUMMARY_NAMES
        elif isinstance(nm, (bytes, str)):
            keys = [s.strip() for s in _text(nm).replace(",", " ").split()]
        else:
            keys = [_text(x) for x in nm]
        if len(keys) != vals.shape[0]:
            keys = SUMMARY_NAMES[: vals.shape[0]]
        return dict(zip(keys, vals.tolist()))

    def hist(self, which="hist_online"):
        return np.asarray(self._group[which][()], dtype=np.int64)


def _table_jobs(tab, seen):
    """TableJob objects for every row whose id is not in `seen` (updated)."""
    n = len(tab)
    ids = ["%016x" % v for v in tab.columns["job_id"].tolist()]
    params = [c for c in tab.names() if tab.role.get(c) == "parameter"]
    values = {}
    for c in params:
        if c in tab.codes:
            values[c] = tab.levels[c][tab.codes[c]].tolist()
        else:
            values[c] = tab.columns[c].tolist()
    summary = {}
    for k in SUMMARY_NAMES:
        col = "online_" + k
        if col in tab.columns:
            summary[k] = tab.columns[col].tolist()
    wall = tab.columns["counter_wall_s"].tolist() if "counter_wall_s" in tab.columns \
        else [math.nan] * n
    key_cols = [c for c in tab.in_job_id if c != "seed"]
    # Row tuples by zip (in C) rather than one generator per row and column.
    keys = list(zip(*[values[c] for c in key_cols])) if key_cols else [()] * n
    sum_names = list(summary)
    sums = list(zip(*[summary[k] for k in sum_names])) if sum_names else [()] * n
    configs = {}  # one config tuple per configuration, shared by its seeds
    jobs = []
    for r in range(n):
        if ids[r] in seen:
            continue
        seen.add(ids[r])
        vals = keys[r]
        config = configs.get(vals)
        if config is None:
            config = configs[vals] = tuple(zip(key_cols, vals))
        jobs.append(TableJob(tab, r, values, params, ids[r], dict(zip(sum_names, sums[r])),
                             config, wall[r]))
    return jobs


class Config:
    """The seeds of one configuration."""

    def __init__(self, jobs):
        self.jobs = sorted(jobs, key=lambda j: str(j.seed))
        j = self.jobs[0]
        self.strategy, self.trace, self.model = j.strategy, j.trace, j.model
        self.users, self.group_size, self.groups = j.users, j.group_size, j.groups
        self.burst, self.lambda_div, self.duration = j.burst, j.lambda_div, j.duration

    @property
    def n_seeds(self):
        return len(self.jobs)

    def stat(self, name):
        """(median over seeds, min, max, n) of one statistic."""
        return seed_spread([j.stat(name) for j in self.jobs])

    def stat_ci(self, name):
        """(mean over seeds, 95 % t-interval lo, hi) of one statistic."""
        return seed_ci([j.stat(name) for j in self.jobs])

    def pooled_hist(self, edges=None):
        h = None
        for j in self.jobs:
            x = j.hist()
            h = x if h is None else h + x
        return h

    def count(self):
        return sum(int(j.summary.get("count", 0) or 0) for j in self.jobs)


class Results:
    def __init__(self):
        self.files = []
        self.tables = []
        self.jobs = []
        self.edges = None
        self.sources = []

    def close(self):
        for f in self.files:
            f.close()
        for t in self.tables:
            t.close()
        self.files = []
        self.tables = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def models(self):
        return sorted({j.model for j in self.jobs})

    def configs(self, model=None, **crit):
        """Configurations matching every criterion (attribute=value or a collection).

        When several configurations match (e.g. one file holds 2 h and 24 h runs of the
        same setting), the one with the longest duration, then most seeds, wins.
        """
        picked = {}
        for j in self.jobs:
            if model is not None and j.model != model:
                continue
            ok = True
            for k, want in crit.items():
                have = getattr(j, k)
                if isinstance(want, (list, tuple, set, frozenset)):
                    if have not in want:
                        ok = False
                        break
                elif have != want:
                    ok = False
                    break
            if ok:
                picked.setdefault(j.config, []).append(j)
        return [Config(js) for js in picked.values()]

    def find(self, model=None, **crit):
        """The single best configuration matching the criteria, or None."""
        cs = self.configs(model=model, **crit)
        if not cs:
            return None
        cs.sort(key=lambda c: (c.duration, c.n_seeds), reverse=True)
        return cs[0]

    def _set_edges(self, edges, path):
        if self.edges is None:
            self.edges = edges
        elif not np.array_equal(self.edges, edges):
            raise ValueError("%s: its histogram buckets differ from %s's (a file converted "
                             "from layout 1 keeps that layout's bins; analyse it on its own)"
                             % (path, self.sources[0]))


def load(paths):
    res = Results()
    seen = set()
    for path in paths:
        f = h5py.File(path, "r")
        try:
            layout = _layout(f, path)
        except ValueError:
            f.close()
            raise
        res.sources.append(path)
        if layout == LAYOUT:
            f.close()
            tab = load_table([path])
            res.tables.append(tab)
            res._set_edges(tab.edges, path)
            res.jobs.extend(_table_jobs(tab, seen))
            continue
        res.files.append(f)
        if "hist_edges_s" in f:
            res._set_edges(np.asarray(f["hist_edges_s"][()], dtype=np.float64), path)
        if "jobs" not in f:
            continue
        for key in f["jobs"]:
            g = f["jobs"][key]
            status = _text(g.attrs.get("status", b"ok"))
            if status != "ok" or key in seen:
                continue
            seen.add(key)
            res.jobs.append(LegacyJob(g, path))
    return res


# --- Adapter for the generic analysis (plot.py, report.py, summarize.py) -------------------
# What the sweep-agnostic tools need beyond the figure code above: a job's parameters and
# counters, the sweep's own description, and the optional per-delivery records.  New code
# reads results only through these functions and the classes above, never with h5py, so a
# change of the file layout (docs/results-layout.md) is absorbed here.  Keep the signatures.

# Keys of the sweep description, as load() found them on the file's root.
SWEEP_KEYS = ("sweep_name", "sweep_file", "sweep_text", "sweep_hash", "created_utc",
              "rcsim_version", "git_revision", "layout",
              # What the run that last wrote the file ran: the parameters after
              # --set, the --set options, the command line, the ranks and hosts.
              "run_effective", "run_overrides", "run_command", "run_layout")

# Fields of one per-delivery record (store_raw; docs/results-layout.md), in this order:
# the file's own column names, the same in every reader (no second spelling).
DELIVERY_FIELDS = ("message", "group", "sender", "recipient", "sent_s", "delivered_s", "online")
# The spelling this adapter used before (msg, send_s, deliver_s): a layout-1 job group's
# `deliveries` table may use it.
_OLD_DELIVERY_FIELDS = ("msg", "group", "sender", "recipient", "send_s", "deliver_s", "online")


def job_params(job):
    """{name: value text} of every result-affecting parameter of a job, seed included, in
    registry order: the job's canonical text (docs/sweep-format.md, "Job ids").  Files
    without it fall back to the parameter attributes the figure code reads."""
    if isinstance(job, TableJob):
        return _table_job_params(job)
    canon = job.attrs.get("canonical")
    if canon:
        out = {}
        for line in str(canon).splitlines():
            k, sep, v = line.partition("=")
            if sep:
                out[k.strip()] = v.strip()
        return out
    keys = ("users", "group_size", "groups", "strategy", "burst", "trace", "model",
            "duration", "seed", "lambda_div")
    return {k: str(job.attrs[k]) for k in keys if k in job.attrs}


def _fill_defaults(out, job):
    """Parameters added after results existed (anonymity, corrupt_mixes, adversary, ...)
    enter the canonical text only when they differ from their default
    (RC_PF_CANON_NONDEF): take the default rows' values from their columns, in the
    canonical text's spelling, so that 0 and 0.67 make one numeric axis."""
    tab = job._tab
    for k in tab.in_job_id:
        if k in out or k not in job.attrs:
            continue
        v = job.attrs[k]
        col = tab.columns.get(k)
        if k in tab.codes or col is None:
            out[k] = str(v)
        elif col.dtype == np.uint8:
            out[k] = "true" if v else "false"
        elif col.dtype.kind == "f":
            out[k] = "%.17g" % v
        else:
            out[k] = str(int(v))


def _table_job_params(job):
    """job_params of a table row.  The canonical texts of a configuration's seeds differ
    only in their seed line, so each distinct text without it is parsed once per table
    (parsing every job's ~50 lines was 4 of the 5 s that 20,000 jobs took) and
    copied with the job's own seed, which keeps the registry's key order."""
    if job._canon_params is None:
        tab = job._tab
        cache = getattr(tab, "_params_cache", None)
        if cache is None:
            cache = tab._params_cache = {}
        canon = job.canonical()
        at = canon.find("seed=") if canon.startswith("seed=") else canon.find("\nseed=") + 1
        if at > 0 or canon.startswith("seed="):
            end = canon.find("\n", at)
            end = len(canon) if end < 0 else end
            rest, seed = canon[:at] + canon[end:], canon[at + 5:end].strip()
        else:
            rest, seed = canon, None
        base = cache.get(rest)
        if base is None:
            base = {}
            for line in (canon if seed is None else canon[:at] + "seed=" + canon[end:]).splitlines():
                k, sep, v = line.partition("=")
                if sep:
                    base[k.strip()] = v.strip()
            _fill_defaults(base, job)
            cache[rest] = base
        out = base.copy()
        if seed is not None:
            out["seed"] = seed
        job._canon_params = out
    return job._canon_params


def job_counters(job):
    """{name: number} of a job's counters (rc_counters: deliveries, expected_deliveries,
    payload_packets, ...), without the counter_ prefix of the attributes."""
    if isinstance(job, TableJob):
        return job.counters()
    return {k[len("counter_"):]: v for k, v in job.attrs.items()
            if k.startswith("counter_") and isinstance(v, (int, float))}


def sweep_info(res):
    """One dict per loaded file (in load order) with the keys of SWEEP_KEYS that the file
    holds (sweep_text is the sweep file's bytes as stored) and "path"."""
    out = []
    for path in res.sources:
        d = {"path": path}
        with h5py.File(path, "r") as f:
            for k in SWEEP_KEYS:
                if k in f.attrs:
                    d[k] = _value(f.attrs[k])
        out.append(d)
    return out


def job_deliveries(job):
    """The job's per-delivery records as {field: numpy array} over DELIVERY_FIELDS, one
    entry per first delivery (online or not), or None when the job has none (store_raw off,
    or a file of layout 1, which kept no delivery records)."""
    if not isinstance(job, TableJob):
        # A layout-1 job group with a `deliveries` table of DELIVERY_FIELDS columns (or
        # of the old spelling).
        if "deliveries" not in job._group:
            return None
        ds = job._group["deliveries"]
        have = ds.dtype.names or ()
        for spelling in (DELIVERY_FIELDS, _OLD_DELIVERY_FIELDS):
            if all(k in have for k in spelling):
                data = ds[()]
                return {k: np.asarray(data[c]) for k, c in zip(DELIVERY_FIELDS, spelling)}
        return None
    if not int(job.attrs.get("store_raw", 0) or 0):
        return None
    d = job._tab.deliveries(job.row)
    return {k: np.asarray(d[k]) for k in DELIVERY_FIELDS}
