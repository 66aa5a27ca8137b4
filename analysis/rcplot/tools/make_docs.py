#!/usr/bin/python3
"""Regenerate docs/figures.md from the outputs of scripts/reproduce.sh.

  python3 -m rcplot make-docs [--root DIR] [--out docs/figures.md]

Scans ROOT/figures/<tag>/ (tag = paper, exact, paper-quick, exact-quick, ...) for the
figures (figN.png), coverage.json (rcplot figures), comparison.csv (rcplot paper-check) and
timings.tsv (reproduce.sh), and writes one Markdown page: per tag the wall times,
the comparison summary and, per figure, the image, its sweep and plot commands, which
configurations and seeds it drew on, how it compares with the paper and a generated
note on where and why we differ.  When both paper- and exact-model results exist, it
adds a paper-vs-exact table (docs/spec.md §0).  Only reads; never runs a simulation.
"""

import argparse
import csv
import json
import math
import os
import sys


from rcplot import paper_compare, names, settle, strategies
from rcplot.stats import HEATMAP_FIGURES, tolerance_rule, within
from rcplot.figures import FIGURES, YLIM

TITLE = {
    5: "Figure 5: latency vs group size, always online (box plots)",
    6: "Figure 6: latency with availability traces, m = 128 and 256",
    7: "Figure 7: several groups over the same 128 users",
    8: "Figure 8: bursts of b multicasts per application event",
    9: "Figure 9: p vs λ, mean latency, \"80 %\" trace",
    14: "Figure 14: p vs λ heatmaps for every schedule (appendix G)",
    15: "Figure 15: latency histograms, always online (appendix H)",
    16: "Figure 16: latency histograms with availability traces (appendix H)",
}

# "Where and why we differ" is generated per figure and per tag from the results it
# describes (comparison.csv, coverage.json, traces.tsv): each sentence states what our
# numbers show, and a model mechanism (docs/spec.md §9.1, docs/model.md) is named only for
# the model it belongs to and only when the numbers show its effect.

LATTICE_TICK_S = 0.01   # docs/spec.md §1.4: the paper model's lattice step
LAMBDA_P = 2.0          # docs/spec.md §1.3: payload rate per client


def _pct(x):
    return ("%+.1f %%" % (100 * x)).replace("-", "−")


def _label(strategy):
    return names.strategy_label(names.strategy(strategy))


def _rows(rows, **crit):
    return [r for r in rows if all(r[k] == str(v) for k, v in crit.items())]


def _ours(rows, **crit):
    rs = _rows(rows, **crit)
    return fnum(rs[0]["ours_s"]) if rs else math.nan


def _s(v):
    return "%.0f s" % v if v >= 100 else "%.3g s" % v


def _shift_by_strategy(frows):
    """'Unicast −1.2 % (35), ...': median signed difference from the paper per strategy."""
    by = {}
    for r in frows:
        d = fnum(r["rel_diff"])
        if math.isfinite(d):
            by.setdefault(r["strategy"], []).append(d)
    parts = []
    for st, ds in sorted(by.items(), key=lambda kv: _label(kv[0])):
        ds.sort()
        mid = ds[len(ds) // 2] if len(ds) % 2 else 0.5 * (ds[len(ds) // 2 - 1] + ds[len(ds) // 2])
        parts.append("%s %s (%d)" % (_label(st), _pct(mid), len(ds)))
    return ", ".join(parts)


def _misses(frows):
    """A sentence sorting the values outside the tolerance into: the paper's single run
    lies inside our seeds' range (seed noise explains it), our seeds vary as much as the
    gap (noise could), and our seeds agree more closely than the gap (systematic)."""
    seen, out = set(), []
    for r in frows:
        if r["flag"] != "ok" and describe(r) not in seen:
            seen.add(describe(r))
            out.append(r)
    if not out:
        return []
    seeds = sorted({r["seeds"] for r in out}, key=lambda x: int(x or 0))
    if all(int(x or 0) < 2 for x in seeds):
        return ["The %d value%s outside the tolerance come%s from one seed each, so these "
                "results cannot tell seed noise from a systematic difference."
                % (len(out), "" if len(out) == 1 else "s", "s" if len(out) == 1 else "")]
    inside, wide, tight = [], [], []
    for r in out:
        lo, hi, ours, paper = (fnum(r["ours_min_s"]), fnum(r["ours_max_s"]), fnum(r["ours_s"]),
                               fnum(r["paper_s"]))
        q = fnum(r.get("paper_quantile"))
        if (0 < q < 1) if math.isfinite(q) else r.get("paper_in_seed_range") == "yes":
            inside.append(r)
        elif all(math.isfinite(v) for v in (lo, hi, ours, paper)) and hi - lo >= abs(ours - paper):
            wide.append(r)
        else:
            tight.append(r)

    def eg(rs):
        r = max(rs, key=lambda r: abs(fnum(r["rel_diff"])))
        return "%s: seeds %s–%s, paper %s" % (_where(r), _s(fnum(r["ours_min_s"])),
                                              _s(fnum(r["ours_max_s"])), _s(fnum(r["paper_s"])))

    parts = []
    if inside:
        parts.append("%d have the paper's single run inside the range of our seeds (e.g. %s)"
                     % (len(inside), eg(inside)))
    if wide:
        parts.append("for %d our seeds differ from each other by as much as the gap, so one "
                     "published run can land there by chance (e.g. %s)" % (len(wide), eg(wide)))
    if tight:
        parts.append("for %d our seeds agree more closely than the gap, so the difference is "
                     "systematic (largest: %s)" % (len(tight), eg(tight)))
    return ["Of the %d value%s outside the tolerance (%s seeds per configuration), %s."
            % (len(out), "" if len(out) == 1 else "s", "/".join(seeds), "; ".join(parts))]


def _where(r):
    return _config(r, r["stat"])


def _trace_sentence(model, traces, which=("gen_os10", "gen_os15", "gen_os20")):
    have = [t for t in which if t in traces]
    if not have:
        return None
    if model == "paper":
        return ("In `paper` mode user U_i of every provider gets trace line i, so only the "
                "first 16 lines of a trace are used (docs/spec.md §9.1.1); online share of "
                "those lines against all lines: %s (`rcsim trace stats`, traces.tsv)."
                % ", ".join("\"%s\" %.1f %% against %.1f %%"
                            % (names.trace_label(t), 100 * fnum(traces[t]["first16_online"]),
                               100 * fnum(traces[t]["mean_online"])) for t in have))
    return ("In `exact` mode user j gets line j, so the schedules are as labelled; online "
            "share over all lines: %s (`rcsim trace stats`, traces.tsv)."
            % ", ".join("\"%s\" %.1f %%" % (names.trace_label(t),
                                             100 * fnum(traces[t]["mean_online"]))
                        for t in have))


def _offscale_sentence(n, frows):
    """Boxes or whiskers beyond the paper's value axis of a box figure (figures.YLIM),
    from our values: figures.py marks them on the edge of the axis."""
    if n not in YLIM:
        return None
    lo, hi = YLIM[n]
    cfgs = {}
    for r in frows:
        key = (r["strategy"], r["schedule"], r["m"], r["burst"], r["groups"])
        cfgs.setdefault(key, {})[r["stat"]] = fnum(r["ours_s"])
    out = []
    for (st, sch, m, b, g), v in cfgs.items():
        where = "%s, %s, m = %s%s%s" % (_label(st), names.trace_label(names.trace(sch)), m,
                                        ", b = %s" % b if b != "1" else "",
                                        ", g = %s" % g if g != "1" else "")
        if v.get("q1", -math.inf) > hi:
            out.append("%s (median %s)" % (where, _s(v.get("median", math.nan))))
        elif v.get("p99", -math.inf) > hi:
            out.append("%s (p99 %s)" % (where, _s(v["p99"])))
        elif v.get("p1", math.inf) < lo:
            out.append("%s (p1 %s)" % (where, _s(v["p1"])))
    if not out:
        return None
    return ("Beyond the paper's %g–%g s value axis (`rcsim figures` marks these on the "
            "edge of the axis with their value): %s." % (lo, hi, "; ".join(out)))


# The settlement of each miss is generated from analysis/reference-runs.csv (numbers of
# runs of the reference itself) in misses_section(); the figure note points there.
SETTLED_NOTE = ("Every value outside the tolerance has its own entry under \"Misses, one by "
                "one\" below, with the reference's own runs where we made them.")


def figure_note(n, model, frows, traces, spread):
    """The "where and why we differ" paragraph of figure n for one tag's results."""
    out = []
    if frows:
        out.append("Median difference from the paper by strategy (number of values): %s."
                   % _shift_by_strategy(frows))
        ro = sum(r["paper_kind"] != "exact" for r in frows)
        if ro:
            out.append("%d of the %d paper values were read off the published figure "
                       "(±0.15 s at best)." % (ro, len(frows)))
    out += _misses(frows)
    if n in (5, 15):
        if model == "paper":
            fired = (1 - math.exp(-LAMBDA_P * LATTICE_TICK_S)) / LATTICE_TICK_S
            out.append("In `paper` mode the %g ms lattice draws one Bernoulli trial per tick, "
                       "so λ_P = %g/s fires at %.3g/s, and every hop delay is lifted to a "
                       "whole tick (docs/spec.md §1.4); unicast, whose latency is mostly "
                       "queueing behind λ_P, feels this most."
                       % (LATTICE_TICK_S * 1000, LAMBDA_P, fired))
        else:
            out.append("`exact` mode has no lattice: Poisson rates and delays are continuous "
                       "(docs/model.md), so it is not expected to meet the paper's "
                       "tolerances where the lattice matters.")
    if n in (6, 16):
        out.append(_trace_sentence(model, traces))
        a = _ours(frows, m=128, schedule="gen_os10", strategy="rc-k2-p2-ft-dropoffline",
                  stat="median")
        b = _ours(frows, m=128, schedule="gen_os15", strategy="rc-k2-p2-ft-dropoffline",
                  stat="median")
        if math.isfinite(a) and math.isfinite(b):
            out.append("Our RC-FT (k=p=2) median at m = 128 is %s with the 65 %% schedule and "
                       "%s with the 80 %% one." % (_s(a), _s(b)))
    if n == 6:
        p99 = _ours(frows, m=128, schedule="gen_os15", strategy="rc-k2-p2", stat="p99")
        if math.isfinite(p99) and p99 >= 1000:
            out.append("RC without FT has a p99 of %s at m = 128 and 80 %%: sessions stuck "
                       "until a member returns, right-censored at the end of the run "
                       "(§9.1.10), so it depends on the simulated span and is compared only "
                       "within a factor 1.5." % _s(p99))
    if n == 7:
        g1 = _ours(frows, m=128, schedule="online", strategy="unicast", groups=1, stat="median")
        g16 = _ours(frows, m=128, schedule="online", strategy="unicast", groups=16,
                    stat="median")
        if math.isfinite(g1) and math.isfinite(g16):
            out.append("All groups share each user's send queue (§9.1.9), so load grows with "
                       "g: our unicast median goes from %s at g = 1 to %s at g = 16."
                       % (_s(g1), _s(g16)))
        out.append(_trace_sentence(model, traces, ("gen_os15",)))
    if n == 8:
        sat = [r for r in _rows(frows, stat="median") if fnum(r["ours_s"]) >= 300]
        if sat:
            out.append("Saturated (median above 300 s): %s. Their queues grow through the run, "
                       "so their latencies are right-censored at its end and their tails "
                       "depend on the simulated span." % "; ".join(
                           "%s, %s, b = %s: %s" % (
                               _label(r["strategy"]), names.trace_label(names.trace(r["schedule"])),
                               r["burst"], _s(fnum(r["ours_s"]))) for r in sat))
    if n in (9, 14):
        ratios = [fnum(r["ours_max_s"]) / fnum(r["ours_min_s"]) for r in frows
                  if fnum(r["ours_min_s"]) > 0 and r["schedule"] != "online"
                  and int(r["seeds"] or 0) > 1]
        if ratios:
            out.append("Cells are means of one run each in the paper; with traces our seeds' "
                       "means of one cell differ by up to %.1f× (max/min)%s." % (
                           max(ratios), ", and \"Means with traces\" below places the "
                           "paper's means among 20 runs" if spread else ""))
        deep = [r for r in _rows(frows, lambda_div=16)
                if _rc_p1_ft(r["strategy"]) and fnum(r["paper_s"]) > 0]
        if deep:
            rs = [fnum(r["ours_s"]) / fnum(r["paper_s"]) for r in deep]
            out.append("The λ/16, p = 1 cells are %.2f–%.2f× the paper's." % (min(rs), max(rs)))
            if model == "paper":
                out.append("They depend on the reference's tree shuffle (`--q-nonce-perm`, "
                           "docs/model.md).")
            elif max(rs) >= 1.5:
                out.append("In `exact` mode a reassigned copy re-arms its timeout (the fix of "
                           "§9.1.5), which feeds retransmissions once queues are long "
                           "(docs/model.md, \"Re-arming under saturation\").")
        if n == 9:
            out.append(_trace_sentence(model, traces, ("gen_os15",)))
    if model == "paper" and any(r["flag"] != "ok" for r in frows):
        out.append(SETTLED_NOTE)
    if n in (15, 16):
        boxed = [r for r in _rows(frows, stat="mean") if fnum(r["ours_s"]) > 100]
        if boxed:
            out.append("Means above the 100 s axis are written in a box: %s."
                       % "; ".join("%s, %s: %s" % (_label(r["strategy"]),
                                                    names.trace_label(names.trace(r["schedule"])),
                                                    _s(fnum(r["ours_s"]))) for r in boxed))
    if n == 15:
        v = _ours(frows, m=128, schedule="online", strategy="rc-k2-p2", stat="mean")
        if math.isfinite(v):
            out.append("The paper's m = 128 RC (k=p=2) mean is 7.0 s in its text and 7.1 s in "
                       "the plotted line (docs/spec.md §9.2); ours is %s." % _s(v))
    if n == 16:
        mean = _ours(frows, m=128, schedule="gen_os15", strategy="unicast", stat="mean")
        p90 = _ours(frows, m=128, schedule="gen_os15", strategy="unicast", stat="p90")
        if math.isfinite(mean) and math.isfinite(p90) and mean > p90:
            out.append("Means with traces are set by a few multi-hour outliers: our unicast "
                       "mean at 80 %% (%s) is above its p90 (%s), so means are compared within "
                       "a factor 1.5." % (_s(mean), _s(p90)))
    out.append(_offscale_sentence(n, frows))
    return " ".join(x for x in out if x) or "No comparison values for this figure."


TAG_ORDER = ["paper", "exact", "paper-quick", "exact-quick"]


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def fmt(v):
    if not math.isfinite(v):
        return "nan"
    return "%.0f" % v if abs(v) >= 1000 else "%.3g" % v


def hms(s):
    s = fnum(s)
    if not math.isfinite(s):
        return "?"
    return "%d:%02d:%02d" % (s // 3600, s % 3600 // 60, s % 60)


def worst(rows, n=3):
    # paper-values.csv lists a shared run twice (k=p=1 is both heatmap columns): once here
    seen, out = set(), []
    for r in rows:
        if r["flag"] != "ok" and describe(r) not in seen:
            seen.add(describe(r))
            out.append(r)
    out.sort(key=lambda r: -abs(math.log(max(fnum(r["ours_s"]), 1e-9) / max(fnum(r["paper_s"]),
                                                                            1e-9)))
             if math.isfinite(fnum(r["ours_s"])) else -1e9)
    return out[:n]


def describe(r):
    where = "m=%s %s %s" % (r["m"], r["schedule"], r["strategy"])
    for k, fmt_ in (("burst", " b=%s"), ("groups", " g=%s"), ("lambda_div", " λ/%s")):
        if r[k] != "1":
            where += fmt_ % r[k]
    return "%s %s: ours %s vs paper %s (%s)" % (where, r["stat"], fmt(fnum(r["ours_s"])),
                                               fmt(fnum(r["paper_s"])), r["paper_kind"])


def section(tag, figdir, rel, lines):
    cov = {}
    if os.path.exists(os.path.join(figdir, "coverage.json")):
        with open(os.path.join(figdir, "coverage.json")) as f:
            cov = json.load(f)
    rows = read_csv(os.path.join(figdir, "comparison.csv"))
    traces = {}
    tr = os.path.join(figdir, "traces.tsv")
    if os.path.exists(tr):
        with open(tr) as f:
            traces = {r["trace"]: r for r in csv.DictReader(f, delimiter="\t")}
    timings = {}
    tpath = os.path.join(figdir, "timings.tsv")
    if os.path.exists(tpath):
        with open(tpath) as f:
            timings = {r["figure"]: r for r in csv.DictReader(f, delimiter="\t")}
    quick = tag.endswith("-quick")
    model = tag.split("-")[0]
    lines.append("## `%s` results%s" % (tag, " (quick)" if quick else ""))
    lines.append("")
    durations = sorted({d for c in cov.values() for d in c.get("durations_s", [])})
    seeds = sorted({s for c in cov.values() for s in c.get("seeds", [])})
    lines.append("Model `%s`; simulated span per job: %s; seeds per configuration: %s. "
                 "Reproduce with `scripts/reproduce.sh --model %s%s`."
                 % (model, ", ".join("%g h" % (d / 3600) for d in durations) or "?",
                    ", ".join(map(str, seeds)) or "?", model, " --quick" if quick else ""))
    if quick:
        lines.append("")
        lines.append("*Quick runs are far shorter than the paper's 24 h and use fewer seeds: "
                     "central statistics of online runs are meaningful, tails and means of "
                     "offline and saturated runs are not (censoring).*")
    lines.append("")
    if timings:
        lines.append("| figure | jobs | MPI ranks | sweep wall time | analysis wall time |")
        lines.append("|---|---|---|---|---|")
        tot = 0.0
        for n in FIGURES:
            t = timings.get(str(n))
            if t:
                tot += fnum(t.get("sweep_s")) if math.isfinite(fnum(t.get("sweep_s"))) else 0
                lines.append("| %d | %s | %s | %s | %s |" % (n, t.get("jobs", "?"),
                                                         t.get("np", "?"), hms(t.get("sweep_s")),
                                                         hms(t.get("analysis_s"))))
        lines.append("| total | | | %s | |" % hms(tot))
        lines.append("")
    if rows:
        ok = sum(r["flag"] == "ok" for r in rows)
        beyond = ("Of the %d rows outside, %d have the paper's single-seed value beyond "
                  "every one of our seeds (its quantile among our seeds is 0 or 1); the "
                  "tables give that quantile for every value"
                  % (len(rows) - ok, paper_compare.beyond_seeds(rows))
                  if paper_compare.has_quantiles(rows) else
                  "%d rows are outside; this table predates the seed-quantile column"
                  % (len(rows) - ok))
        lines.append("**Comparison with the paper:** %s. %s (full table: "
                     "[comparison.md](%s/comparison.md), [comparison.csv](%s/comparison.csv))."
                     % (paper_compare.headline(rows), beyond, rel, rel))
        lines.append("")
    old = [n for n in FIGURES if str(n) in cov and "offscale" not in cov[str(n)]]
    if old:
        lines.append("*Figure%s %s of `%s` were drawn by an earlier `rcsim figures`: boxes "
                     "beyond the value axis are cut there instead of marked, and heatmaps use "
                     "a linear colour scale. The numbers below are unaffected; `scripts/"
                     "reproduce.sh --model %s%s` redraws them (it reruns the sweeps "
                     "whose results are not in results/).*" % ("s" if len(old) > 1 else "", ", ".join(map(str, old)), tag,
                                 model, " --quick" if quick else ""))
        lines.append("")
    absent = [str(n) for n in FIGURES if not os.path.exists(os.path.join(figdir, "fig%d.png" % n))]
    if absent:
        lines.append("Not drawn yet for `%s`: figure %s (run `scripts/reproduce.sh --model %s%s "
                     "%s`)." % (tag, ", ".join(absent), model, " --quick" if quick else "",
                                " ".join(absent)))
        lines.append("")
    for n in FIGURES:
        png = os.path.join(figdir, "fig%d.png" % n)
        if not os.path.exists(png):
            continue
        lines.append("### %s" % TITLE[n])
        lines.append("")
        lines.append("![Figure %d (%s)](%s/fig%d.png)" % (n, tag, rel, n))
        lines.append("")
        lines.append("PDF: [fig%d.pdf](%s/fig%d.pdf). Sweep: `experiments/fig%d.yaml`; plot: "
                     "`rcsim figures --fig %d --model %s --out figures/%s "
                     "results/%s/fig%d.h5`." % (n, rel, n, n, n, model, tag, tag, n))
        c = cov.get(str(n))
        if c:
            miss = len(c.get("missing", []))
            lines.append("Drawn from %d configurations%s, %s seed(s) each."
                         % (c.get("found", 0),
                            " (%d missing, left blank)" % miss if miss else "",
                            "/".join(map(str, c.get("seeds", []))) or "?"))
        t = timings.get(str(n))
        if t:
            lines.append("Sweep wall time %s for %s jobs on %s MPI ranks."
                         % (hms(t.get("sweep_s")), t.get("jobs", "?"), t.get("np", "?")))
        frows = [r for r in rows if r["figure"] == str(n)]
        lines.append("")
        if frows:
            ok = sum(r["flag"] == "ok" for r in frows)
            beyond = paper_compare.beyond_seeds(frows)
            ex = [r for r in frows if r["paper_kind"] == "exact"]
            exok = sum(r["flag"] == "ok" for r in ex)
            lines.append("*Comparison:* %d of %d paper values within tolerance (%s)."
                         % (ok, len(frows),
                            "all of them exact" if len(ex) == len(frows) else
                            "%d of the %d exact ones; the rest are read off the figure"
                            % (exok, len(ex)) if ex else "all read off the figure"))
            if ok < len(frows) and paper_compare.has_quantiles(frows):
                lines.append("Of the values outside, %d have the paper's (single-seed) value "
                             "beyond every one of our seeds." % beyond)
            w = worst(frows)
            if w:
                lines.append("Largest differences: " + "; ".join(describe(r) for r in w) + ".")
            lines.append("")
        spread = os.path.exists(os.path.join(figdir, "means-spread.md"))
        lines.append("*Where and why we differ:* " + figure_note(n, model, frows, traces, spread))
        lines.append("")
    if model == "paper" and not quick:
        misses_section(rows, lines)
    spread = os.path.join(figdir, "means-spread.md")
    if os.path.exists(spread):
        lines.append("### Means with traces: one run against twenty")
        lines.append("")
        lines.append("The paper reports one run (seed 0) per cell. With availability traces a "
                     "run's mean is set by the few messages that wait hours for a sender or "
                     "forwarder to come back, so it is a noisy quantity: "
                     "`experiments/means-spread.yaml` runs 20 seeds of the heatmap cells at "
                     "λ/1 and λ/2 for three schedules, and `python3 -m rcplot means-spread` places "
                     "each published mean among our 20 per-run means. The comparison table "
                     "above scores the median over the figure's seeds (10 for every mean "
                     "under a trace), which sits below the mean of a right-skewed quantity; "
                     "the seed mean is the estimate of what one run measures on average, and "
                     "the quantile column places the published run among ours. Reproduce: `scripts/reproduce.sh spread` "
                     "(360 jobs; 5 min on a busy 2-core machine, see timings above).")
        lines.append("")
        with open(spread) as f:
            lines.extend(f.read().rstrip().splitlines())
        lines.append("")


def paper_vs_exact(root, lines, suffix=""):
    a = read_csv(os.path.join(root, "figures", "paper" + suffix, "comparison.csv"))
    b = read_csv(os.path.join(root, "figures", "exact" + suffix, "comparison.csv"))
    if not a or not b:
        return
    key = lambda r: tuple(r[k] for k in ("figure", "m", "schedule", "strategy", "burst",  # noqa
                                         "groups", "lambda_div", "stat", "paper_kind"))
    bi = {key(r): r for r in b}
    both = [(r, bi[key(r)]) for r in a if key(r) in bi and r["paper_kind"] == "exact"]
    if not both:
        return
    lines.append("## `paper%s` vs `exact%s`: the two models on the same configurations"
                 % (suffix, suffix))
    lines.append("")
    sa, sb = sum(r["flag"] == "ok" for r in a), sum(r["flag"] == "ok" for r in b)
    lines.append("The paper's exact numbers (LaTeX macros and printed cells) against both "
                 "model modes. `exact` is continuous-time Loopix without the reference's "
                 "quirks (docs/spec.md §0, §9.1), so differences show what the quirks do; it is not "
                 "expected to meet the tolerances. Within tolerance overall: %d of %d values in "
                 "`paper` mode, %d of %d in `exact` mode. \"(out)\" marks a value outside "
                 "the tolerance." % (sa, len(a), sb, len(b)))
    lines.append("")
    lines.append("| fig | m | schedule | strategy | b | g | λ/ | stat | paper | `paper` mode | "
                 "`exact` mode |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for r, e in both:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s %s | %s %s |" % (
            r["figure"], r["m"], r["schedule"], r["strategy"], r["burst"], r["groups"],
            r["lambda_div"], r["stat"], fmt(fnum(r["paper_s"])), fmt(fnum(r["ours_s"])),
            "" if r["flag"] == "ok" else "(out)", fmt(fnum(e["ours_s"])),
            "" if e["flag"] == "ok" else "(out)"))
    lines.append("")


def _rc_p1_ft(name):
    """Rollercoaster with p = 1 and timeouts or drop-offline (the λ/16 heatmap cells)."""
    info = strategies.info(name)
    p = info["params"]
    return info["family"] == "rc" and p["p"] == 1 and (p["ft"] or p["dropoffline"])


# Our strategy names -> the reference's (its notebook's names), for the commands; the
# parameters come from the simulator's strategy table (rcplot/strategies.py).
def _ref_strategy(ours):
    info = strategies.info(ours)
    if info["family"] != "rc":
        return info["name"]
    p = info["params"]
    base = "rollercoaster-k%d-p%d" % (p["k"], p["p"])
    if not p["ft"]:
        return base + "-notimeout"
    return base + "-timeout%02dx" % round(p["multiplier"] * 10) + (
        "-dropoffline" if p["dropoffline"] else "")


def _ref_config(r):
    if r["burst"] != "1":
        return "rs-m" + r["burst"]
    if r["lambda_div"] != "1":
        return "rs-l" + r["lambda_div"]
    return "rs"


def _rcsim_cmd(r):
    opts = "--model paper --users %s --trace %s --strategy %s" % (r["m"], r["schedule"],
                                                                 r["strategy"])
    for k, flag in (("burst", "--burst"), ("groups", "--groups"), ("lambda_div", "--lambda-div")):
        if r[k] != "1":
            opts += " %s %s" % (flag, r[k])
    return ("for s in $(seq 1 %s); do build/rcsim run %s --seed $s --json; done"
            % (r["seeds"], opts))


def _ref_cmd(r):
    g = int(r["groups"])
    return ("reference (PyPy): `create_scenario(%s, [%s]%s, %s, \"%s\", %d, %s schedules)`, "
            "then `sim.rnd._random.seed(S)` (S = 0 is the published run) and `sim.run(...)`; "
            "the statistic over `output.e2e_delays_online_only`"
            % (r["m"], r["m"], " * %d" % g if g > 1 else "", _ref_config(r),
               _ref_strategy(r["strategy"]), int(float(r["duration_s"])) * 1000,
               r["schedule"] if r["schedule"] != "online" else "no"))


def _config(r, stat=None):
    """The configuration of a comparison row in words, with the statistic after the
    strategy when given (_where)."""
    w = "m = %s, %s, %s" % (r["m"], names.trace_label(names.trace(r["schedule"])),
                            _label(r["strategy"]))
    if stat:
        w += " " + stat
    for k, f in (("burst", "b = %s"), ("groups", "g = %s"), ("lambda_div", "λ/%s")):
        if r[k] != "1":
            w += ", " + f % r[k]
    return w


def _spread_text(r):
    """'12.3–45.6 s' for a row's central 95 % of independent runs, or '–'."""
    if not int(r.get("spread_runs") or 0):
        return "–"
    return "%s–%s" % (_s(fnum(r["spread_lo_s"])), _s(fnum(r["spread_hi_s"])))


def self_check(rows, refs, lines):
    """The tolerance applied to the reference itself: for every pair outside the tolerance
    that has reruns of the reference (seed != 0), is the rerun within the tolerance of the
    value the reference published?"""
    n = fail = n_mean = fail_mean = 0
    done = set()
    for r in rows:
        k = tuple(r[c] for c in paper_compare.PAIR_KEYS)
        if r["flag"] == "ok" or k in done:
            continue
        done.add(k)
        paper = fnum(r["paper_s"])
        rule = tolerance_rule(r["figure"], r["schedule"], r["stat"], paper)
        for seed, v in settle.reference_values(refs, r):
            if seed == 0:
                continue
            ok = within(v, paper, rule)
            n += 1
            fail += not ok
            if int(r["figure"]) in HEATMAP_FIGURES:
                n_mean += 1
                fail_mean += not ok
    if n == 0:
        return
    lines.append("**The tolerance applied to the reference itself.** Of the %d reruns of the "
                 "reference (seed ≠ 0) made for pairs outside the tolerance, %d are themselves "
                 "outside the tolerance of the value the reference published for that pair; "
                 "for the heatmap means under a trace (Figs 9 and 14, ±10 %%) %d of %d. There "
                 "the tolerance is narrower than the reference's own run-to-run spread: "
                 "rerun, the reference itself misses the values it published." %
                 (n, fail, fail_mean, n_mean))
    lines.append("")


def misses_section(rows, lines):
    """One entry per distinct (configuration, statistic) pair outside the tolerance: our
    seeds, the paper's quantile among them, the reference's own runs when we made them
    (analysis/reference-runs.csv) and the verdict, with the commands for both sides."""
    seen, out = {}, []
    for r in rows:
        if r["flag"] == "ok":
            continue
        k = tuple(r[c] for c in paper_compare.PAIR_KEYS)
        if k in seen:
            if r["figure"] not in seen[k]["figures"]:
                seen[k]["figures"].append(r["figure"])
            continue
        e = dict(r, figures=[r["figure"]])
        seen[k] = e
        out.append(e)
    if not out:
        return
    order = {"settled": 0, "in spread": 1, "confirmed": 2, "undecided": 3,
             "beyond spread": 4, "": 5}
    out.sort(key=lambda e: (order.get(e.get("settled", ""), 5), int(e["figures"][0]),
                            e["schedule"], e["strategy"], int(e["burst"]),
                            int(e["lambda_div"]), e["stat"]))
    n = {v: sum(e.get("settled") == v for e in out) for v in order}
    lines.append("### Misses, one by one")
    lines.append("")
    lines.append("%d distinct (configuration, statistic) pairs are outside the tolerance. "
                 "The paper ran each configuration once, with the reference's single fixed "
                 "seed, so each published value is one draw of the reference. Two kinds of "
                 "evidence put it against rcsim (analysis/rcplot/settle.py):" % len(out))
    lines.append("")
    lines.append("- **rcsim's spread**: `experiments/misses-spread.yaml` runs every "
                 "configuration outside the tolerance with 30 seeds no figure uses "
                 "(`scripts/reproduce.sh misses`); the central 95 % of those runs' values "
                 "(2.5 % to 97.5 %) is where a single run of the same model lands 19 times "
                 "out of 20.")
    lines.append("- **The reference's own runs**: the reference rerun with its generator "
                 "seeded otherwise (analysis/reference-runs.csv, summary numbers only; seed 0 "
                 "is the published run).")
    lines.append("")
    lines.append("Verdicts: **settled** (the reference's reruns all land inside rcsim's "
                 "central 95 %%: the published value is one draw of a distribution rcsim "
                 "shares) %d; **in spread** (not rerun, but the published run itself lies "
                 "inside rcsim's central 95 %%: a single reference run that rcsim's "
                 "distribution produces) %d; **confirmed** (the reruns all lie beyond that "
                 "range on one side: a model difference to explain) %d; **undecided** %d; "
                 "**beyond spread** (not rerun, and the published run lies outside rcsim's "
                 "central 95 %%: where a reference rerun is worth its cost) %d; without "
                 "either kind of evidence %d. Where the reference was rerun at seed 0 it "
                 "reproduced the published value, which is what lets a published value "
                 "stand for the reference's run."
                 % (n["settled"], n["in spread"], n["confirmed"], n["undecided"],
                    n["beyond spread"], n[""]))
    lines.append("")
    refs = settle.load()
    if refs:
        lines.append("The reference's own runs (analysis/reference-runs.csv) against our seeds, "
                     "for every statistic the paper publishes for that configuration:")
        lines.append("")
        lines.append("| configuration | reference seed | statistic | reference | paper | ours: "
                     "median (range, seeds) | rcsim central 95 % (runs) |")
        lines.append("|---|---|---|---|---|---|---|")
        done = set()
        for r in rows:
            k = tuple(r[c] for c in paper_compare.PAIR_KEYS)
            if k in done:
                continue
            done.add(k)
            for seed, v in settle.reference_values(refs, r):
                lines.append("| %s | %d | %s | %s | %s | %s (%s–%s, %s) | %s |" % (
                    _config(r), seed, r["stat"],
                    _s(v), _s(fnum(r["paper_s"])), _s(fnum(r["ours_s"])),
                    _s(fnum(r["ours_min_s"])), _s(fnum(r["ours_max_s"])), r["seeds"],
                    _spread_text(r)))
        lines.append("")
        self_check(rows, refs, lines)
    for e in out:
        figs = "/".join("Fig %s" % f for f in e["figures"])
        q = fnum(e.get("paper_quantile"))
        verdict = {"settled": "**settled**", "confirmed": "**confirmed difference**",
                   "undecided": "undecided (the reference's reruns do not all land on one "
                                "side of rcsim's range)",
                   "in spread": "**in spread**",
                   "beyond spread": "**beyond spread** (a reference rerun would tell)"}.get(
            e.get("settled", ""), "open (no independent runs, no reference rerun)")
        sp = ""
        if int(e.get("spread_runs") or 0):
            sq = fnum(e.get("spread_quantile"))
            sp = ("; rcsim's central 95 %% of %s independent runs %s, the paper's quantile "
                  "among them %s" % (e["spread_runs"], _spread_text(e),
                                     "%.2f" % sq if math.isfinite(sq) else "–"))
        lines.append("- %s, %s — paper %s, ours %s (%s seeds: %s–%s; paper's quantile %s%s); "
                     "%s." % (figs, _where(e), _s(fnum(e["paper_s"])), _s(fnum(e["ours_s"])),
                              e["seeds"], _s(fnum(e["ours_min_s"])), _s(fnum(e["ours_max_s"])),
                              "%.2f" % q if math.isfinite(q) else "–", sp, verdict))
        if e.get("reference_runs"):
            lines.append("  Reference runs (seed: value): %s." % e["reference_runs"])
        lines.append("  Reproduce: `%s`; %s." % (_rcsim_cmd(e), _ref_cmd(e)))
    lines.append("")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--root", default=".", help="repository root (default: .)")
    ap.add_argument("--out", help="output file (default: ROOT/docs/figures.md)")
    args = ap.parse_args(argv)
    out = args.out or os.path.join(args.root, "docs", "figures.md")
    figroot = os.path.join(args.root, "figures")
    # Only directories figures.py wrote (they hold coverage.json); other studies may keep
    # their own plots under figures/ and are not part of this page.
    def is_tag(t):
        return os.path.isfile(os.path.join(figroot, t, "coverage.json"))
    tags = [t for t in TAG_ORDER if is_tag(t)]
    tags += sorted(t for t in (os.listdir(figroot) if os.path.isdir(figroot) else [])
                   if t not in tags and is_tag(t))
    lines = ["# Reproducing the paper's figures", "",
             "<!-- Generated by python3 -m rcplot make-docs (run by scripts/reproduce.sh); "
             "edit the generator, not this file. -->", "",
             "One command runs the sweeps, draws the figures and compares them with the "
             "paper: `scripts/reproduce.sh [--quick] [--model paper|exact] [--np N] "
             "[FIGURE ...]` (figures 5 6 7 8 9 14 15 16; default all). It builds rcsim if "
             "needed, runs `experiments/figN.yaml` into `results/<tag>/figN.h5` (resuming an "
             "existing file), draws `figures/<tag>/figN.{png,pdf}` with "
             "`rcsim figures` (`python3 -m rcplot figures`), compares with the paper's numbers "
             "(`analysis/paper-values.csv`, docs/spec.md §6) using `python3 -m rcplot paper-check`, and "
             "regenerates this page. `<tag>` is the model, with `-quick` for `--quick` runs.",
             "",
             "How several seeds are shown: every statistic is computed exactly per seed "
             "(the `online_*` summary columns of the results table) and the figures and tables use its median over "
             "seeds. Box plots draw a thick black bar over each median spanning the seeds' "
             "min-max; the tables give the seed range. Histograms pool the seeds' "
             "histograms and divide by the number of seeds (counts per run, like the "
             "paper's single runs). A box or whisker beyond the paper's value axis is marked "
             "on the axis edge with a red triangle and its value; heatmaps use a logarithmic "
             "colour scale shared by their panels, in cividis (dark blue: short, yellow: "
             "long), which reads the same to colour-blind readers, where the paper used "
             "red-yellow-green. Tolerances are those of docs/spec.md §9.3, with a ±0.3 s floor "
             "for online p1/p99 (the paper's values are read off at ±0.15 s) and the ±0.5 s "
             "rounding of the heatmaps' integer cells.", ""]
    if not tags:
        lines.append("*No results yet: run `scripts/reproduce.sh`.*")
        lines.append("")
    docdir = os.path.dirname(os.path.abspath(out))
    for t in tags:
        figdir = os.path.join(figroot, t)
        rel = os.path.relpath(figdir, docdir)
        section(t, figdir, rel, lines)
    paper_vs_exact(args.root, lines)
    paper_vs_exact(args.root, lines, "-quick")
    os.makedirs(docdir, exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    print("make_docs: wrote %s (%s)" % (out, ", ".join(tags) or "no results"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
