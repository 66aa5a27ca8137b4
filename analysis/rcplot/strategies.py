"""strategies: strategy families and the parameters of strategy names, as data.

The simulator's strategy table (src/multicast/strategy_table.c) owns the grammar of strategy
names; the analysis never parses a name itself.  It asks the rcsim binary, once per distinct
name, through `rcsim strategies --json NAME ...`, which prints (docs/extending.md,
"Strategies as data"):

    [{"name": "rc-k2-p2-ft", "given": "rollercoaster-k2-p2-timeout10x", "family": "rc",
      "pattern": "rc-kK-pP[-ft[M]][-dropoffline]",
      "params": {"k": 2, "p": 2, "ft": true, "multiplier": 1.0, "dropoffline": false}}]

and, without names, the families: [{"family", "pattern", "summary", "params": {NAME: {"type",
"help"}}}].

Strategy structure as data (docs/analysis.md, "Strategy structure as columns"):
structure_names() lists the columns a strategy name stands for, "family" and then every
family's parameters in table order (k, p, ft, multiplier, dropoffline today); structure(name) gives one name's values, None where its
family has no such parameter (unicast has no k).  The analysis adds them beside the
strategy column wherever it loads a results table (results.Table.to_pandas, sweep.Sweep,
the rcsim package), so that `rcsim plot --x k` and `load_jobs(path).groupby("k")` work.

The binary: $RCSIM_BIN (set by `rcsim plot|report|figures|summarize`), else $RCSIM (the
tests' variable), else the one this analysis directory belongs to (BUILD/share/rcsim/analysis
-> BUILD/rcsim; PREFIX/share/rcsim/analysis -> PREFIX/bin/rcsim; a source checkout's
build*/rcsim), else `rcsim` on PATH.
"""

import glob
import json
import os
import shutil
import subprocess

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the analysis directory
_cache = {}
_families = None


def binary():
    """Path of the rcsim binary the analysis asks; RuntimeError naming the places tried."""
    tried = []
    for var in ("RCSIM_BIN", "RCSIM"):
        v = os.environ.get(var)
        if v:
            if os.access(v, os.X_OK):
                return v
            tried.append("$%s=%s" % (var, v))
    share = os.path.dirname(_HERE)  # .../share/rcsim or the source checkout
    cands = [os.path.join(share, "..", "..", "rcsim"),
             os.path.join(share, "..", "..", "bin", "rcsim")]
    cands += sorted(glob.glob(os.path.join(share, "build*", "rcsim")),
                    key=lambda p: -os.path.getmtime(p))
    for c in cands:
        tried.append(c)
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.normpath(c)
    w = shutil.which("rcsim")
    if w:
        return w
    raise RuntimeError("rcsim binary not found (tried %s and PATH); set RCSIM_BIN"
                       % ", ".join(tried))


def _ask(args):
    p = subprocess.run([binary(), "strategies", "--json"] + list(args), capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise ValueError(p.stderr.strip() or "rcsim strategies exited %d" % p.returncode)
    return json.loads(p.stdout)


def _key(name):
    if isinstance(name, bytes):
        name = name.decode()
    return name.strip()


def prefetch(names):
    """Ask the binary once for every name not yet known (a sweep has a handful of
    strategies, each a subprocess otherwise).  A name the simulator refuses is left for
    info() to report."""
    todo = sorted({_key(n) for n in names} - set(_cache))
    if not todo:
        return
    try:
        for k, v in zip(todo, _ask(todo)):
            _cache[k] = v
    except ValueError:
        pass  # one bad name fails the whole call; info() asks one by one and names it


def info(name):
    """The table's view of one strategy name: dict with name (canonical), family, pattern,
    params.  ValueError naming the name when the simulator does not accept it."""
    key = _key(name)
    if key not in _cache:
        try:
            _cache[key] = _ask([key])[0]
        except ValueError as e:
            raise ValueError("unknown strategy name %r (%s)" % (name, e)) from None
    return _cache[key]


def families():
    """Every family of the table: list of dicts (family, pattern, summary, params)."""
    global _families
    if _families is None:
        _families = _ask([])
    return _families


def family(name):
    return info(name)["family"]


def params(name):
    return info(name)["params"]


def structure_names():
    """The columns a strategy name stands for: "family", then the parameters of every
    family of the table, in table order, each once."""
    out = ["family"]
    for f in families():
        for k in f["params"]:
            if k not in out:
                out.append(k)
    return out


def structure(name):
    """{column: value} over structure_names() for one strategy name: the family (str) and
    its parameters as the table types them (int, float, bool); None for a parameter the
    name's family does not have."""
    i = info(name)
    out = {c: None for c in structure_names()}
    out["family"] = i["family"]
    out.update(i["params"])
    return out


# How a structure value is written where parameters are text (sweep.Sweep, --where): as
# the canonical text writes a parameter, and MISSING where the family lacks it.
MISSING = "n/a"


def value_text(v):
    if v is None:
        return MISSING
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "%.17g" % v
    return str(v)
