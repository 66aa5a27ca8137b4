"""names: canonical strategy and trace names, and the paper's labels and colours.

Results files may spell a strategy the short way (rc-k2-p2-ft-dropoffline) or the
reference's long way (rollercoaster-k2-p2-timeout10x-dropoffline), and a trace as
"gen_os15", "os15" or a path.  Everything in the analysis is keyed by the canonical
short forms produced here, so paper-values.csv rows and HDF5 jobs meet on equal terms.
Unknown spellings raise ValueError naming the bad value.
"""

import os
import re

_SHORT = re.compile(r"^rc-k(\d+)-p(\d+)(-ft([0-9.]+)?)?(-dropoffline)?$")
_LONG = re.compile(r"^rollercoaster-k(\d+)(?:-p(\d+))?(-notimeout|-timeout(\d\d)x)?(-dropoffline)?$")


def _short(k, p, mult, drop):
    name = "rc-k%d-p%d" % (k, p)
    if mult is not None:
        # The multiplier 1.0 is the default and is not written (docs/spec.md §2.5, strategy_name.h).
        name += "-ft" if abs(mult - 1.0) < 1e-9 else "-ft%g" % mult
    if drop:
        name += "-dropoffline"
    return name


def strategy(name):
    """Canonical short strategy name for either grammar."""
    if isinstance(name, bytes):
        name = name.decode()
    name = name.strip().lower()
    if name == "unicast":
        return name
    m = _SHORT.match(name)
    if m:
        mult = None
        if m.group(3):
            mult = float(m.group(4)) if m.group(4) else 1.0
        return _short(int(m.group(1)), int(m.group(2)), mult, bool(m.group(5)))
    m = _LONG.match(name)
    if m:
        p = int(m.group(2)) if m.group(2) else 1
        mult = None
        if m.group(3) and m.group(3).startswith("-timeout"):
            mult = int(m.group(4)) / 10.0
        return _short(int(m.group(1)), p, mult, bool(m.group(5)))
    raise ValueError("unknown strategy name %r" % name)


def trace(name):
    """Canonical trace name: 'online' or 'gen_osNN'; other traces keep their base name."""
    if isinstance(name, bytes):
        name = name.decode()
    base = os.path.basename(name.strip())
    for suffix in (".txt.gz", ".gz", ".txt"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    if base.startswith("schedules_"):
        base = base[len("schedules_"):]
    if base in ("", "online"):
        return "online"
    m = re.match(r"^(?:gen_)?os(\d\d)$", base)
    if m:
        return "gen_os" + m.group(1)
    return base


# docs/spec.md §5: legend labels and tab20 indices of the paper's figures.
STRATEGY_STYLE = {
    "unicast": ("Unicast", 0),
    "rc-k1-p1": ("RC (k=p=1)", 5),
    "rc-k2-p2": ("RC (k=p=2)", 4),
    "rc-k1-p1-ft-dropoffline": ("RC-FT (k=p=1)", 3),
    "rc-k2-p2-ft-dropoffline": ("RC-FT (k=p=2)", 2),
    "rc-k2-p2-ft": ("RC-FT (k=p=2, w/o drop)", 8),
}

TRACE_LABEL = {
    "gen_os10": "65 % online",
    "gen_os15": "80 % online",
    "gen_os20": "88 % online",
    "online": "100 % online",
}


def strategy_label(s):
    return STRATEGY_STYLE.get(s, (s, None))[0]


def strategy_colour(s):
    import matplotlib

    idx = STRATEGY_STYLE.get(s, (None, 14))[1]
    return matplotlib.colormaps["tab20"](idx)


def trace_label(t):
    return TRACE_LABEL.get(t, t)
