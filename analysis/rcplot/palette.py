"""palette: one order and one colour per strategy, in every tool.

The order is the strategy table's (src/multicast/strategy_table.c, asked through
rcplot.strategies): the family's place in the table, then its parameters in the table's
order (numbers by value, false before true), then the canonical name.  `rcsim plot`,
`rcsim report` (PNG and HTML), `rcsim compare`, summarize.py, the tradeoff view and the
Python API (rcsim.load_jobs' categorical order) all sort strategies with order_key.

A strategy's colour does not depend on which other strategies a sweep holds, so it is the
same in every figure and every report: the strategies of the paper and the provider
fan-out baseline have fixed colours (FIXED, from matplotlib's tab10); any other name gets
one of EXTRA (tab20b's darker half and Dark2) chosen by a CRC-32 of its canonical name,
so it too keeps its colour from one sweep to the next.  Grey (#7f7f7f) is left out: the
tradeoff view greys the dominated configurations.
"""

import zlib

from . import strategies
from .sweep import value_key

FIXED = {
    "unicast": "#1f77b4",
    "rc-k1-p1": "#ff7f0e",
    "rc-k2-p2": "#2ca02c",
    "rc-k2-p2-ft-dropoffline": "#d62728",
    "rc-k2-p2-ft": "#9467bd",
    "rc-k1-p1-ft-dropoffline": "#8c564b",
    "rc-k2-p1-ft-dropoffline": "#e377c2",
    "provider-fanout": "#17becf",
    "rc-k1-p1-ft": "#bcbd22",
}
EXTRA = ("#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#5254a3", "#8ca252",
         "#bd9e39", "#ad494a", "#a55194", "#1b9e77", "#d95f02", "#7570b3", "#e7298a",
         "#66a61e", "#e6ab02", "#a6761d")


def canonical(name):
    """The canonical spelling, or the name itself when the simulator does not know it."""
    try:
        return strategies.info(name)["name"]
    except (ValueError, RuntimeError):
        return str(name)


def order_key(name):
    """Sort key of a strategy name in the strategy table's order; names the simulator does
    not know sort last, naturally."""
    try:
        i = strategies.info(name)
        fams = [f["family"] for f in strategies.families()]
    except (ValueError, RuntimeError):
        return (1, 0, (), value_key(name))
    at = fams.index(i["family"]) if i["family"] in fams else len(fams)
    ps = tuple((0, float(v), "") if isinstance(v, (int, float)) else (1, 0.0, str(v))
               for v in i["params"].values())
    return (0, at, ps, value_key(i["name"]))


def sort(names):
    names = list(names)
    strategies.prefetch(names)
    return sorted(names, key=order_key)


def colour(name):
    """'#rrggbb' of a strategy, the same in every figure and report."""
    c = canonical(name)
    if c in FIXED:
        return FIXED[c]
    return EXTRA[zlib.crc32(c.encode()) % len(EXTRA)]
