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
