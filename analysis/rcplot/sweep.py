"""sweep: any rcsim sweep seen as a table of configurations over its own axes.

The figure code (figures.py) knows the paper's parameters; this module knows none.  It
reads each job's result-affecting parameters (results.job_params), finds the axes of the
sweep (the parameters whose value differs between jobs, seeds aside), groups the seeds of
each configuration and picks default plot roles:

- an axis is dropped when another axis already fixes its value (group_size = users when
  groups are the whole population, the q_* switches that follow `model`), so a plot or a
  table shows each independent dimension once;
- axis values sort numerically when every value is a number (128 after 45), otherwise
  in natural order (rc-k2 before rc-k16);
- default roles: x = the numeric axis with the most values, hue = the axis with the most
  values among the rest, facets = the others (choose_roles()).

Strategy structure: every job's parameters also hold what its strategy name
stands for, as the simulator's strategy table says (strategies.structure: family, k, p,
ft, multiplier, dropoffline; "n/a" where the family has no such parameter).  They follow
`strategy`, so by default `strategy` is the axis and they are not (it fixes them).  Naming
one as a role (`--x k`, `--hue ft`, `--facet family`: Sweep.use_roles) puts the structure
axes in the strategy axis's place; `strategy` then stays an axis only when they do not
fix it.  --where takes them too (--where family=rc), and the table of configurations
shows the strategy parameters that vary beside `strategy` (Sweep.table_columns).

Labels carry the parameter's unit: the registry's unit (src/exp/param.c; the end-to-end
test checks this table against `rcsim run --help`) or, for dimensionless numbers, what
they count.  Errors in user input (--where on an unknown parameter, a role given twice)
raise UsageError with a message naming the bad value.
"""

import difflib
import math
import os
import re

from . import configtable, journal, results, strategies

# Unit of each registry parameter: the registry's own unit when it has one ("s", "1/s"),
# otherwise what a dimensionless number is ("count", "factor", "fraction"); None for
# parameters whose values are names (strategy, trace, model, switches).
UNITS = {
    "users": "count", "group_size": "count", "groups": "count", "strategy": None,
    "burst": "count", "app_rate": "1/s", "heavy_fraction": "fraction",
    "heavy_weight": "factor", "trace": None, "data_dir": None, "model": None,
    "q_lattice": None, "q_trace16": None, "q_frozen_pull": None, "q_ingress_delay": None,
    "q_arm_once": None, "q_acks_always": None, "q_seed0_groups": None,
    "q_nonce0_plain": None, "q_nonce_perm": None, "cover": None, "duration": "s",
    "seed": None, "rate_payload": "1/s", "rate_drop": "1/s", "rate_loop": "1/s",
    "rate_delay": "1/s", "pull_period": "s", "mix_rate_loop": "1/s",
    "mix_rate_loop_delay": "1/s", "lambda_div": "factor", "tick": "s", "mix_layers": "count",
    "mixes_per_layer": "count", "mix_capacity": "1/s", "users_per_provider": "count",
    "rc_base_delay_factor": "factor", "provider_rate": "1/s", "offline_members": None,
    "source_offline": None,
    "gossip_interval": "s", "gossip_push_max": "count", "gossip_window": "s",
    "membership_rate": "1/s", "store_raw": None, "check": None,
    "adversary": None, "adversary_fraction": "fraction", "adversary_delay": "s",
    "population": "count", "population_model": None, "group_size_dist": None,
    "packet_size": "B",
    "node_service": None, "provider_capacity": "1/s", "queue_limit": "count",
    "node_processing": "s",
    "mix_kind": None, "mix_threshold": "count", "mix_period": "s", "mix_pool": "count",
    "link_latency": "s", "link_latency_file": None, "topology": None,
    "disclosure": None, "disclosure_window": "s", "disclosure_group": None,
    # The strategy's structure (strategies.structure_names), not registry parameters: the
    # family, the branching factor and parallelism of the tree, RC-FT and its timeout
    # multiplier, and whether members that got their copy offline drop out.
    "family": None, "k": "count", "p": "count", "ft": None, "multiplier": "factor",
    "dropoffline": None,
}
# The registry's dimensionless units are written "" there; these are ours.
DIMENSIONLESS = ("count", "factor", "fraction")

NOT_AXES = ("seed",)


class UsageError(Exception):
    """Bad user input (exit status 2)."""


def param_label(name):
    """'users [count]', 'duration [s]', 'strategy'."""
    unit = UNITS.get(name)
    return "%s [%s]" % (name, unit) if unit else name


def _number(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def natural_key(text):
    """Sort key that orders embedded numbers by value: rc-k2-p2 < rc-k16-p1."""
    parts = re.split(r"(\d+(?:\.\d+)?)", str(text))
    return [(0, float(p), "") if i % 2 else (1, 0.0, p) for i, p in enumerate(parts)]


def value_key(text):
    """Sort key of one parameter value: numbers by value, before any name."""
    v = _number(text)
    return (0, v, []) if v is not None else (1, 0.0, natural_key(text))


def fmt_value(text):
    """A parameter value as shown: numbers without trailing noise (0.0333333 -> 0.0333333,
    600 -> 600, 1.0 -> 1), names unchanged."""
    v = _number(text)
    if v is None:
        return str(text)
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return "%.6g" % v


class Axis:
    def __init__(self, name, values):
        self.name = name
        self.numeric = all(_number(v) is not None for v in values)
        if name == "strategy" and not self.numeric:
            from . import palette  # the strategy table's order, as in every tool
            self.values = palette.sort(set(values))
        else:
            self.values = sorted(set(values), key=value_key)
        self.unit = UNITS.get(name)
        self.label = param_label(name)

    def __len__(self):
        return len(self.values)

    def __repr__(self):
        return "Axis(%s, %s)" % (self.name, self.values)

    def floats(self):
        return [float(v) for v in self.values]

    def spans_decades(self, ratio=20.0):
        """True for a numeric axis of positive values whose max/min >= ratio."""
        if not self.numeric:
            return False
        f = self.floats()
        return min(f) > 0 and max(f) / min(f) >= ratio


def detect_axes(params):
    """The independent axes of a list of parameter dicts (one per job), in parameter
    order: the parameters with more than one value, seeds aside, minus those whose value
    is a function of an axis already kept."""
    order = []
    for p in params:
        for k in p:
            if k not in order:
                order.append(k)
    kept = []
    for k in order:
        if k in NOT_AXES:
            continue
        vals = [p.get(k, "") for p in params]
        if len(set(vals)) < 2:
            continue
        if any(_determines([p.get(a.name, "") for p in params], vals) for a in kept):
            continue
        kept.append(Axis(k, vals))
    return kept


def _determines(a_vals, b_vals):
    seen = {}
    for a, b in zip(a_vals, b_vals):
        if seen.setdefault(a, b) != b:
            return False
    return True


def load(paths):
    """results.load() with the user's mistakes (a missing file, another file format, no
    finished jobs) as UsageError."""
    for p in paths:
        if not os.path.isfile(p):
            raise UsageError("%s: no such file" % p)
    tables = [p for p in paths if configtable.is_table(p)]
    if tables and len(tables) < len(paths):
        raise UsageError("%s: a table of configurations is read alone or with other tables, "
                         "not with results files (its rows lack their other parameters)"
                         % tables[0])
    try:
        if tables:
            res = configtable.load(paths)
            if not res.jobs:
                raise ValueError("no rows")
            return res
        journal.check_files(paths)
        res = results.load(paths)
    except (OSError, ValueError) as e:
        raise UsageError("cannot read %s: %s" % (", ".join(paths), e))
    if not res.jobs:
        res.close()
        raise UsageError("%s: no finished jobs" % ", ".join(paths))
    return res


def sweep_info(res):
    """results.sweep_info(res), or what a table of configurations says of itself
    (configtable.Tables: its file's name)."""
    own = getattr(res, "sweep_info", None)
    return own() if own is not None else results.sweep_info(res)


def parse_where(items):
    """['users=128', 'strategy=unicast', 'users=64'] -> {'users': ['128', '64'], ...}."""
    out = {}
    for it in items or ():
        k, sep, v = it.partition("=")
        k = k.strip().replace("-", "_")
        if not sep or not k or not v.strip():
            raise UsageError("--where %r: expected KEY=VALUE" % it)
        out.setdefault(k, []).append(v.strip())
    return out


def _matches(have, wants):
    hv = _number(have)
    for w in wants:
        wv = _number(w)
        if (hv is not None and wv is not None and abs(hv - wv) <= 1e-9 * max(1.0, abs(wv))) \
                or str(have) == w:
            return True
    return False


def _with_structure(params):
    """(params with the strategy's structure columns inserted after `strategy`, their
    names).  Values as text (strategies.value_text); jobs without a strategy unchanged."""
    names_ = {p["strategy"] for p in params if "strategy" in p}
    if not names_:
        return params, []
    strategies.prefetch(names_)
    have = set().union(*params)
    cols = [c for c in strategies.structure_names() if c not in have]  # a parameter wins
    text = {n: {k: strategies.value_text(v) for k, v in strategies.structure(n).items()}
            for n in names_}
    out = []
    for p in params:
        if "strategy" not in p:
            out.append(p)
            continue
        q = {}
        for k, v in p.items():
            q[k] = v
            if k == "strategy":
                q.update((c, text[v][c]) for c in cols)
        out.append(q)
    return out, cols


def table_columns(axes, structure, params):
    """Columns naming a configuration in a table: the axes, and after `strategy` the
    strategy parameters (not already axes) with more than one value among `params` (the
    jobs', or the configurations') where their family has them (a multiplier that is 1
    wherever it applies says nothing).  Not the family: every strategy name starts with it."""
    names = [a.name for a in axes]
    if "strategy" not in names:
        return names
    extra = [n for n in structure if n not in names and n != "family"
             and len({p.get(n) for p in params} - {strategies.MISSING}) > 1]
    at = names.index("strategy") + 1
    return names[:at] + extra + names[at:]


class Config:
    """The seeds of one configuration: `key` maps each axis name to its value text."""

    def __init__(self, key, jobs, params):
        self.key = key
        self.jobs = jobs
        self.params = params

    @property
    def n_seeds(self):
        return len(self.jobs)

    def label(self, names):
        return ", ".join("%s=%s" % (n, fmt_value(self.key[n])) for n in names)


class Sweep:
    """Jobs of one or more loaded results (results.load), filtered by --where."""

    def __init__(self, res, where=None):
        where = where or {}
        self.res = res
        jobs, params = [], []
        for j in res.jobs:
            p = results.job_params(j)
            jobs.append(j)
            params.append(p)
        params, self.structure = _with_structure(params)
        known = set().union(*params)
        for k in where:
            if k not in known:
                near = difflib.get_close_matches(k, sorted(known), n=3, cutoff=0.6)
                raise UsageError("--where %s: no such parameter in the results%s (parameters: "
                                 "%s)" % (k, " (did you mean %s?)" % " or ".join(near)
                                          if near else "", ", ".join(sorted(known))))
        # A strategy matches in any spelling the simulator accepts (rc-k2-p2 and
        # rollercoaster-k2-p2-notimeout are one strategy): both sides canonical.
        canon = {}
        if "strategy" in where:
            from . import palette
            have = {p.get("strategy", "") for p in params}
            strategies.prefetch(list(have) + where["strategy"])
            canon = {v: palette.canonical(v) for v in list(have) + where["strategy"]}

        def ok(p, k, w):
            if k == "strategy":
                return canon.get(p.get(k, ""), p.get(k, "")) in [canon.get(x, x) for x in w]
            return _matches(p.get(k, ""), w)

        keep = [i for i, p in enumerate(params) if all(ok(p, k, w) for k, w in where.items())]
        if not keep:
            hints = []
            for k, w in where.items():
                present = sorted({p.get(k, "") for p in params}, key=value_key)
                if k == "strategy":
                    present = palette.sort(present)   # the order of every tool
                if any(any(ok(p, k, w) for p in params) for _ in (0,)):
                    continue
                near = difflib.get_close_matches(w[0], present, n=3, cutoff=0.5)
                hints.append("%s has %s%s" % (k, ", ".join(present[:12]) + (
                    ", ..." if len(present) > 12 else ""),
                    " (did you mean %s?)" % " or ".join(near) if near else ""))
            raise UsageError("--where %s matches none of the %d jobs%s"
                             % (" ".join("%s=%s" % (k, "|".join(v)) for k, v in where.items()),
                                len(jobs), "; " + "; ".join(hints) if hints else ""))
        self.jobs = [jobs[i] for i in keep]
        self.params = [params[i] for i in keep]
        self.axes = detect_axes(self.params)
        self.where = where
        self.structured = False

    def use_roles(self, *names):
        """Make the strategy's structure columns axes when a role names one of them (a
        name, a list of names or None each): they replace the strategy axis, which stays
        only when they do not fix it.  Idempotent; other names change nothing."""
        wanted = set()
        for n in names:
            if isinstance(n, (list, tuple)):
                wanted.update(x for x in n if x)
            elif n:
                wanted.add(n)
        if self.structured or not (wanted & set(self.structure)):
            return
        if wanted <= {a.name for a in self.axes}:
            return
        order = []
        for p in self.params:
            for k in p:
                if k not in order and k not in self.structure:
                    order.append(k)
        # The family last: it is the coarsest (k = n/a already says unicast), so it stays
        # an axis only when the parameters do not tell the families apart.
        at = order.index("strategy")
        order[at:at] = [n for n in self.structure if n != "family"] + \
            [n for n in self.structure if n == "family"]
        axes = detect_axes([{k: p[k] for k in order if k in p} for p in self.params])
        parts = [a.name for a in axes if a.name in self.structure]
        st = next((a for a in axes if a.name == "strategy"), None)
        if st is not None and parts and _determines(
                [tuple(p[n] for n in parts) for p in self.params],
                [p["strategy"] for p in self.params]):
            axes.remove(st)
        self.axes = axes
        self.structured = True

    def table_columns(self):
        """Columns naming a configuration in a table (table_columns)."""
        return table_columns(self.axes, self.structure, self.params)

    def axis(self, name):
        for a in self.axes:
            if a.name == name:
                return a
        raise UsageError("%s is not an axis of this sweep (axes: %s)"
                         % (name, ", ".join(a.name for a in self.axes) or "none: one "
                            "configuration"))

    def fixed(self):
        """{name: value} of the parameters that are the same in every job (the strategy
        structure aside: `strategy` says it)."""
        out = {}
        for k in self.params[0]:
            vals = {p.get(k) for p in self.params}
            if len(vals) == 1 and k not in NOT_AXES and k not in self.structure:
                out[k] = self.params[0][k]
        return out

    def seeds(self):
        return sorted({p.get("seed", "") for p in self.params}, key=value_key)

    def configs(self):
        """Configurations in table order: sorted by each axis's value order, first axis
        slowest."""
        groups = {}
        for j, p in zip(self.jobs, self.params):
            key = tuple(p.get(a.name, "") for a in self.axes)
            groups.setdefault(key, ([], []))
            groups[key][0].append(j)
            groups[key][1].append(p)
        # each axis in its own value order (strategies in the strategy table's order)
        keys = sorted(groups, key=lambda k: [a.values.index(v) for a, v in zip(self.axes, k)])
        out = []
        for k in keys:
            js, ps = groups[k]
            order = sorted(range(len(js)), key=lambda i: value_key(ps[i].get("seed", "")))
            out.append(Config(dict(zip((a.name for a in self.axes), k)),
                              [js[i] for i in order], [ps[i] for i in order]))
        return out


# Plot kinds whose horizontal axis is the latency itself, not a parameter.
DISTRIBUTION_KINDS = ("cdf", "hist", "timeline")


def choose_roles(axes, kind, x=None, hue=None, facets=None):
    """(x, hue, facets) axis names for a plot.  Explicit choices are kept; the defaults
    are x = the numeric axis with the most values (any axis when none is numeric), hue =
    the axis with the most values among the rest, facets = all others (an axis left out
    would mix configurations in one mark).  Distribution kinds have no parameter on x:
    their hue defaults to what x would be."""
    names = [a.name for a in axes]
    by_name = {a.name: a for a in axes}
    facets = list(facets or [])
    given = [n for n in [x, hue] + facets if n]
    for n in given:
        if n not in by_name:
            raise UsageError("%s is not an axis of this sweep (axes: %s)"
                             % (n, ", ".join(names) or "none: one configuration"))
    if len(set(given)) != len(given):
        raise UsageError("an axis can have only one role: %s" % ", ".join(given))
    if kind in DISTRIBUTION_KINDS and x:
        raise UsageError("--x does not apply to --kind %s: its horizontal axis is the "
                         "latency%s; use --hue or --facet" % (kind, " or time of day"
                                                                if kind == "timeline" else ""))
    free = [a for a in axes if a.name not in given]

    def most(cands, numeric_first):
        if not cands:
            return None
        pool = [a for a in cands if a.numeric] if numeric_first else []
        pool = pool or cands
        best = max(len(a) for a in pool)
        return next(a for a in pool if len(a) == best)

    if kind not in DISTRIBUTION_KINDS and x is None:
        a = most(free, True)
        if a is not None:
            x = a.name
            free.remove(a)
    if hue is None:
        a = most(free, kind in DISTRIBUTION_KINDS)
        if a is not None:
            hue = a.name
            free.remove(a)
    facets = facets + [a.name for a in free]
    return x, hue, facets
