"""until: the stopping rule of a `seeds: until` sweep, as the results file records it.

A sweep run with `seeds: {min, max, until, step}` (or `rcsim sweep --until`) writes two
root attributes (docs/sweep-format.md, "Seeds until narrow"): `seeds_until`, the rule
("p99 rel_halfwidth < 0.05; min 5, max 200, step 5"), and `seeds_until_outcome`, one line
per configuration: "<job id of its first seed> seeds=N estimate=E rel_halfwidth=R
stopped=narrow|max|running".  read() returns them per file; attach() puts each
configuration's outcome on the rows of a summary table (summarize, report, the API), so
a reader sees where each configuration stopped and why.

The file is read through the one reader, rcplot/results.py (root_attrs, first_rows).
"""

import math

from . import results
from .sweep import fmt_value

RULE = "seeds_until"
OUTCOME = "seeds_until_outcome"
# Columns attach() adds to a summary row (and CSV/JSON show).
COLUMNS = ("until_seeds", "until_stopped", "until_estimate", "until_rel_halfwidth")
STOPPED = {"narrow": "narrow", "max": "max", "running": "running"}


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def _float(s):
    try:
        return float(s)
    except ValueError:
        return math.nan


def read(paths):
    """[{path, rule, configs: [{first, seeds, estimate, rel_halfwidth, stopped}]}] for each
    file of `paths` that records a rule (none: [])."""
    out = []
    for p in ([paths] if isinstance(paths, str) else paths):
        attrs = results.root_attrs(p, (RULE, OUTCOME))
        if RULE not in attrs:
            continue
        rule = attrs[RULE]
        lines = attrs.get(OUTCOME, "").strip().split("\n")
        configs = []
        for line in lines:
            if not line.strip():
                continue
            first, *kv = line.split()
            d = dict(x.split("=", 1) for x in kv if "=" in x)
            configs.append(dict(first=first, seeds=int(d.get("seeds", 0)),
                                estimate=_float(d.get("estimate", "nan")),
                                rel_halfwidth=_float(d.get("rel_halfwidth", "nan")),
                                stopped=d.get("stopped", "?")))
        out.append(dict(path=p, rule=rule, configs=configs))
    return out


def attach(paths, rows, columns):
    """Adds COLUMNS to every row of `rows` (summary rows keyed by `columns`, the table's
    configuration columns) from the files' recorded outcomes; returns read(paths).  A row
    no outcome names (a file without the rule) gets NaN and ""."""
    info = read(paths)
    for r in rows:
        r["until_seeds"], r["until_stopped"] = math.nan, ""
        r["until_estimate"] = r["until_rel_halfwidth"] = math.nan
    if not info:
        return info
    for part in info:
        firsts = {c["first"]: c for c in part["configs"]}
        vals = results.first_rows(part["path"], set(firsts), columns)
        for h, c in firsts.items():
            v = vals.get(h)
            c["config"] = v or {}
            if v is None:
                continue
            # Columns the table lacks (the strategy's structure) follow from the others.
            for r in rows:
                if all(fmt_value(r.get(col, "")) == fmt_value(v[col]) for col in v):
                    r["until_seeds"] = c["seeds"]
                    r["until_stopped"] = c["stopped"]
                    r["until_estimate"] = c["estimate"]
                    r["until_rel_halfwidth"] = c["rel_halfwidth"]
    return info


def stat_name(rule):
    """'p99 rel_halfwidth < 0.05; min 5, ...' -> 'p99'."""
    return rule.split()[0] if rule else "?"


def counts(part):
    """{narrow, max, running: number of configurations} of one read() entry."""
    out = {k: 0 for k in STOPPED}
    for c in part["configs"]:
        out[c["stopped"]] = out.get(c["stopped"], 0) + 1
    return out


def summary_line(part):
    """One sentence: the rule and how many configurations stopped how."""
    n = counts(part)
    return ("seeds until %s (in %s): %d configuration(s): %d narrow, %d at max, %d still "
            "running" % (part["rule"], part["path"], len(part["configs"]), n["narrow"],
                         n["max"], n["running"]))


def cell(r):
    """A row's outcome as a table cell: 'narrow, 5 seeds (0.031)'; '' without one."""
    if not r.get("until_stopped"):
        return ""
    rel = r.get("until_rel_halfwidth", math.nan)
    return "%s, %d seeds (%s)" % (STOPPED.get(r["until_stopped"], r["until_stopped"]),
                              int(r["until_seeds"]),
                              "%.3g" % rel if math.isfinite(rel) else "no interval")
