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


def info(name):
    """The table's view of one strategy name: dict with name (canonical), family, pattern,
    params.  ValueError naming the name when the simulator does not accept it."""
    if isinstance(name, bytes):
        name = name.decode()
    key = name.strip()
    if key not in _cache:
        try:
            _cache[key] = _ask([key])[0]
        except ValueError as e:
            raise ValueError("unknown strategy name %r (%s)" % (name, e)) from None
    return _cache[key]


def infos(names):
    """info() for many names with one call of the binary for those not yet known."""
    todo = sorted({n.decode() if isinstance(n, bytes) else n for n in names} - set(_cache))
    todo = [n.strip() for n in todo]
    if todo:
        try:
            for n, d in zip(todo, _ask(todo)):
                _cache[n] = d
        except ValueError:
            pass  # one bad name: fall back to one call each, so the error names it
    return [info(n) for n in names]


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
