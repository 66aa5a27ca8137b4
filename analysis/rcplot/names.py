"""names: canonical strategy and trace names, and the paper's labels and colours.

Results files may spell a strategy the short way (rc-k2-p2-ft-dropoffline) or the
reference's long way (rollercoaster-k2-p2-timeout10x-dropoffline), which the simulator's
strategy table canonicalises (rcplot/strategies.py), and a trace as
"gen_os15", "os15" or a path.  Everything in the analysis is keyed by the canonical
short forms produced here, so paper-values.csv rows and HDF5 jobs meet on equal terms.
Unknown spellings raise ValueError naming the bad value.
"""

import os
import re

from . import strategies

def strategy(name):
    """Canonical short strategy name for any accepted spelling, from the simulator's own
    strategy table (rcplot.strategies: the analysis does not parse names itself)."""
    return strategies.info(name)["name"]


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
    # not in the paper: the trusted-provider baseline (docs/spec.md §2.6)
    "provider-fanout": ("Provider fan-out (trusted)", 10),
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
