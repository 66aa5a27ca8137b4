"""results: read rcsim results files (docs/results-layout.md, "rcsim-results/1").

load() opens one or more HDF5 files and returns a Results holding one Job per finished
job (status "ok"); a job id that appears in several files is kept once.  Jobs are
grouped into configurations (every result-affecting parameter except the seed, taken
from the job's `canonical` attribute), so the seeds of one configuration can be
aggregated.  Histograms are read lazily, only when a figure needs them; the files stay
open until Results.close() (or the `with` block ends).

Errors: a file with another layout, or without /jobs, raises ValueError naming it.
"""

import math

import h5py
import numpy as np

from . import names
from .stats import PAPER_STAT, seed_ci, seed_spread

LAYOUT = "rcsim-results/1"
SUMMARY_NAMES = ["count", "mean", "sd", "min", "max", "p1", "p5", "p10", "p25", "p50",
                 "p75", "p90", "p95", "p99", "p99.9"]
MODEL_NAMES = {0: "exact", 1: "paper"}  # exp/param.c: enum "exact|paper"


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


class Job:
    """One finished job: parameters, the online summary, lazily its histogram."""

    def __init__(self, group, path):
        self._group = group
        self.path = path
        self.attrs = {k: _value(v) for k, v in group.attrs.items()}
        self.id = self.attrs.get("job_id", group.name.rsplit("/", 1)[-1])
        self.strategy = names.strategy(self.attrs.get("strategy", "unicast"))
        self.trace = names.trace(self.attrs.get("trace", "online"))
        model = self.attrs.get("model", "exact")
        self.model = MODEL_NAMES.get(model, model) if isinstance(model, int) else str(model)
        self.users = int(self.attrs.get("users", 0))
        gs = int(self.attrs.get("group_size", 0) or 0)
        self.group_size = gs if gs > 0 else self.users
        self.groups = int(self.attrs.get("groups", 1))
        self.burst = int(self.attrs.get("burst", 1))
        self.lambda_div = float(self.attrs.get("lambda_div", 1.0))
        self.duration = float(self.attrs.get("duration", 86400.0))
        self.seed = self.attrs.get("seed", 0)
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

    def stat(self, name):
        """A summary statistic by summary name (p50) or paper name (median)."""
        key = PAPER_STAT.get(name, name)
        v = self.summary.get(key, math.nan)
        if self.summary.get("count", 0) == 0:
            return math.nan
        return v

    def hist(self, which="hist_online"):
        return np.asarray(self._group[which][()], dtype=np.int64)


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
        self.jobs = []
        self.edges = None
        self.sources = []

    def close(self):
        for f in self.files:
            f.close()
        self.files = []

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


def load(paths):
    res = Results()
    seen = set()
    for path in paths:
        f = h5py.File(path, "r")
        layout = _text(f.attrs.get("layout", b""))
        if layout != LAYOUT:
            f.close()
            raise ValueError("%s: layout %r, expected %r" % (path, layout, LAYOUT))
        res.files.append(f)
        res.sources.append(path)
        if "hist_edges_s" in f and res.edges is None:
            res.edges = np.asarray(f["hist_edges_s"][()], dtype=np.float64)
        if "jobs" not in f:
            continue
        for key in f["jobs"]:
            g = f["jobs"][key]
            status = _text(g.attrs.get("status", b"ok"))
            if status != "ok" or key in seen:
                continue
            seen.add(key)
            res.jobs.append(Job(g, path))
    return res


# --- Adapter for the generic analysis (plot.py, report.py, summarize.py) -------------------
# What the sweep-agnostic tools need beyond the figure code above: a job's parameters and
# counters, the sweep's own description, and the optional per-delivery records.  New code
# reads results only through these functions and the classes above, never with h5py, so a
# change of the file layout (docs/results-layout.md) is absorbed here.  Keep the signatures.

# Keys of the sweep description, as load() found them on the file's root.
SWEEP_KEYS = ("sweep_name", "sweep_file", "sweep_text", "sweep_hash", "created_utc",
              "rcsim_version", "git_revision", "layout")

# Fields of one per-delivery record (store_raw; docs/results-layout.md), in this order.
DELIVERY_FIELDS = ("msg", "group", "sender", "recipient", "send_s", "deliver_s", "online")


def job_params(job):
    """{name: value text} of every result-affecting parameter of a job, seed included, in
    registry order: the job's canonical text (docs/sweep-format.md, "Job ids").  Files
    without it fall back to the parameter attributes the figure code reads."""
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


def job_counters(job):
    """{name: number} of a job's counters (rc_counters: deliveries, expected_deliveries,
    payload_packets, ...), without the counter_ prefix of the attributes."""
    return {k[len("counter_"):]: v for k, v in job.attrs.items()
            if k.startswith("counter_") and isinstance(v, (int, float))}


def sweep_info(res):
    """One dict per loaded file (in load order) with the keys of SWEEP_KEYS that the file
    holds (sweep_text is the sweep file's bytes as stored) and "path"."""
    out = []
    for f, path in zip(res.files, res.sources):
        d = {"path": path}
        for k in SWEEP_KEYS:
            if k in f.attrs:
                d[k] = _value(f.attrs[k])
        out.append(d)
    return out


def job_deliveries(job):
    """The job's per-delivery records as {field: numpy array} over DELIVERY_FIELDS, one
    entry per first delivery (online or not), or None when the job has none (store_raw off,
    or a file written before rcsim recorded send times).  Expected as the per-job table
    `deliveries` with those column names."""
    if "deliveries" not in job._group:
        return None
    ds = job._group["deliveries"]
    names_ = ds.dtype.names or ()
    if not all(k in names_ for k in DELIVERY_FIELDS):
        return None
    data = ds[()]
    return {k: np.asarray(data[k]) for k in DELIVERY_FIELDS}
