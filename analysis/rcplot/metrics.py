"""metrics: the per-job statistics a generic plot or table can show, with label and unit.

Each statistic is computed per job (one seed) from the job's exact summary vector
(summary_online: latencies of the deliveries made while the recipient was online,
docs/spec.md §5) or its counters, then aggregated over the seeds of a configuration by
the caller: an interval that respects the statistic's range (stats.seed_interval, chosen
by Metric.positive) for lines and tables, the seeds' spread for box plots.

Names accepted by lookup(): the latency statistics mean, median, min, max, sd, p1, p5,
p10, q1 (= p25), q3 (= p75), p90, p95, p99, p99.9; delivery_ratio, online_ratio,
undelivered, deliveries, packets_per_delivery, bundles_per_delivery, duplicates,
reassignments, timeouts, events, wall_s; anon_entropy, anon_entropy_median, anon_entropy_p5,
anon_min_entropy, anon_sender_entropy, anon_eps, anon_eps_p95, anon_delta (docs/spec.md
§10); and counter:NAME for any other
counter.  Spaces
and hyphens count as underscores ("delivery ratio").  An unknown name raises
sweep.UsageError listing the known ones.
"""

import difflib
import math

from . import results
from .sweep import UsageError


class Metric:
    def __init__(self, name, label, unit, fn, doc):
        self.name = name
        self.label = label      # e.g. "median latency"
        self.unit = unit        # e.g. "s"
        self.fn = fn            # job -> float (NaN when undefined)
        self.doc = doc
        # True for a statistic that is > 0 by nature and spreads multiplicatively over
        # seeds: summarised with the log-scale t-interval (stats.seed_interval).
        self.positive = False

    @property
    def axis_label(self):
        return "%s [%s]" % (self.label, self.unit)

    def __call__(self, job):
        try:
            v = float(self.fn(job))
        except (TypeError, ValueError, ZeroDivisionError):
            return math.nan
        return v


def _summary(key):
    def f(job):
        if not job.summary or job.summary.get("count", 0) == 0:
            return math.nan
        return job.summary.get(key, math.nan)
    return f


def _ratio(num, den):
    def f(job):
        c = results.job_counters(job)
        n = sum(c.get(k, 0) for k in num)
        d = sum(c.get(k, 0) for k in den)
        return n / d if d else math.nan
    return f


def _packets_per_delivery(job):
    """Sub-messages sent per first delivery, whoever sends them.  Clients' payload, ACK and
    repair sub-messages are counted by rcsim; the provider fan-out's copies are not (a
    provider is not a client, docs/spec.md, "Provider fan-out"): the provider sends one
    copy per member but the source, i.e. one per (recipient, payload) pair, so they are
    added as counter_expected_deliveries (an upper bound by the few multicasts whose
    source's packet had not reached its provider when the run ended).  Without them the
    fan-out looked 30 times cheaper than unicast."""
    c = results.job_counters(job)
    n = sum(c.get(k, 0) for k in ("payload_packets", "ack_packets", "repair_packets"))
    d = c.get("deliveries", 0)
    if not d:
        return math.nan
    strategy = results.job_params(job).get("strategy")
    if strategy:
        from . import strategies
        try:
            fam = strategies.family(strategy)
        except (ValueError, RuntimeError):
            fam = None
        if fam == "provider-fanout":
            n += c.get("expected_deliveries", 0)
    return n / d


def _counter(name):
    def f(job):
        return results.job_counters(job).get(name, math.nan)
    f.counter = name   # lookup("counter:NAME") finds the statistic reading it
    return f


_LATENCY = [("mean", "mean", "mean latency"), ("median", "p50", "median latency"),
            ("min", "min", "minimum latency"), ("max", "max", "maximum latency"),
            ("sd", "sd", "latency standard deviation"), ("p1", "p1", "p1 latency"),
            ("p5", "p5", "p5 latency"), ("p10", "p10", "p10 latency"),
            ("q1", "p25", "lower-quartile latency"), ("q3", "p75", "upper-quartile latency"),
            ("p90", "p90", "p90 latency"), ("p95", "p95", "p95 latency"),
            ("p99", "p99", "p99 latency"), ("p99.9", "p99.9", "p99.9 latency")]

METRICS = {}
for _n, _k, _l in _LATENCY:
    METRICS[_n] = Metric(_n, _l, "s", _summary(_k),
                         "%s of the online deliveries (summary_online %s)" % (_l, _k))
for _m in (
        Metric("delivery_ratio", "delivery ratio", "fraction",
               _ratio(("deliveries",), ("expected_deliveries",)),
               "first deliveries / (recipients x payloads), online or not"),
        Metric("online_ratio", "online delivery ratio", "fraction",
               _ratio(("deliveries_online",), ("expected_deliveries",)),
               "deliveries to an online recipient / (recipients x payloads)"),
        Metric("undelivered", "undelivered", "deliveries", _counter("undelivered"),
               "(recipient, payload) pairs not delivered by the end of the run"),
        Metric("deliveries", "online deliveries", "deliveries", _summary("count"),
               "number of online deliveries (the latency samples)"),
        Metric("packets_per_delivery", "packets per delivery", "packets",
               _packets_per_delivery,
               "payload + ACK + repair sub-messages sent per first delivery, the provider "
               "fan-out's copies included (cover excluded)"),
        Metric("bundles_per_delivery", "bundles per delivery", "packets",
               _ratio(("bundles",), ("deliveries",)),
               "packets emitted by clients (bundles of p sub-messages) per first delivery"),
        Metric("duplicates", "duplicate copies", "copies", _counter("duplicates"),
               "copies received after the first"),
        Metric("reassignments", "RC-FT reassignments", "count", _counter("reassignments"),
               "role reassignments after a timeout"),
        Metric("timeouts", "RC-FT timeouts", "count", _counter("timeouts"),
               "ACK timeouts that fired"),
        Metric("events", "engine events", "events", _counter("events"),
               "events processed by the simulation engine"),
        Metric("wall_s", "wall time", "s", _counter("wall_s"),
               "wall-clock time of the simulation"),
        # anonymity against a global passive adversary (docs/spec.md §10), NaN without it
        Metric("anon_entropy", "entropy of a tracked message", "bits",
               _counter("anon_entropy_mean_bits"),
               "mean over the tracked messages of the adversary's entropy (§10.4)"),
        Metric("anon_entropy_median", "median entropy of a tracked message", "bits",
               _counter("anon_entropy_median_bits"), "median of the same"),
        Metric("anon_entropy_p5", "p5 entropy of a tracked message", "bits",
               _counter("anon_entropy_p5_bits"), "5th percentile of the same"),
        Metric("anon_min_entropy", "min-entropy of a tracked message", "bits",
               _counter("anon_min_entropy_mean_bits"),
               "mean of -log2 of the adversary's best guess's probability"),
        Metric("anon_sender_entropy", "sender entropy", "bits",
               _counter("anon_sender_entropy_mean_bits"),
               "mean entropy of the adversary's guess of the sender"),
        Metric("anon_eps", "unlinkability epsilon", "",
               _counter("anon_eps_mean"),
               "mean |ln(p0/p1)| of two challenge senders' posteriors (§10.4)"),
        Metric("anon_eps_p95", "p95 unlinkability epsilon", "",
               _counter("anon_eps_p95"), "95th percentile of the same"),
        Metric("anon_delta", "unlinkability delta", "",
               _counter("anon_delta"),
               "share of messages where one challenge sender is impossible (§10.4)")):
    METRICS[_m.name] = _m
# Bandwidth and unobservability (docs/spec.md §1.12): per client = per client-second online.
for _n, _l, _u, _d in (
        ("bw_payload_pps", "real sub-messages per client", "1/s",
         "payload + ACK + repair sub-messages a client sends per second online"),
        ("bw_cover_pps", "cover sub-messages per client", "1/s",
         "drop, loop and empty payload-slot covers per client-second (expected under --cover skip)"),
        ("bw_cover_used", "real share of payload slots", "fraction",
         "payload-stream firings that carried a real sub-message"),
        ("bw_bytes_per_client_s", "bandwidth per client", "B/s",
         "(real + cover sub-messages) x packet_size per client-second online"),
        ("bw_mix_load_mean_pps", "mean mix load", "1/s", "sub-messages a mix receives per second"),
        ("bw_mix_load_max_pps", "busiest mix load", "1/s",
         "sub-messages the busiest mix receives per second (--cover full)"),
        ("unobs_active_rate_pps", "departure rate while active", "1/s",
         "bundles per second of a client holding real mail (--cover full)"),
        ("unobs_idle_rate_pps", "departure rate while idle", "1/s",
         "bundles per second of a client holding none (--cover full)"),
        ("unobs_ks", "KS active vs idle gaps", "D",
         "two-sample KS statistic of inter-departure gaps, active vs idle (--cover full)"),
        ("unobs_real_per_pull_mean", "real messages per pull", "messages",
         "real sub-messages a provider hands out per pull")):
    METRICS[_n] = Metric(_n, _l, _u, _counter(_n), _d)
# Positive by nature: latencies, costs per delivery, rates and times (never 0 in a run
# that delivered anything).  Fractions, counts that may be 0 and bits are not.
for _n, _m in METRICS.items():
    _m.positive = (_n in dict((a, 1) for a, _, _ in _LATENCY) or _n in (
        "packets_per_delivery", "bundles_per_delivery", "events", "wall_s", "deliveries")
        or (_m.unit in ("1/s", "B/s")))
ALIASES = {"p50": "median", "p25": "q1", "p75": "q3", "average": "mean",
           "ratio": "delivery_ratio", "packets": "packets_per_delivery"}

# Not a scalar: the latency distribution itself, drawn as boxes (p1, q1, median, q3, p99).
LATENCY_BOX = "latency"


def normalise(name):
    return name.strip().lower().replace(" ", "_").replace("-", "_")


# The unit of a counter that no statistic above names, by its name's ending
# (docs/results-layout.md: entropies in bits, rates per second, times in seconds).
_COUNTER_UNITS = (("_bits", "bits"), ("_pps", "1/s"), ("_per_client_s", "B/s"),
                  ("_ms", "ms"), ("_s", "s"), ("_kb", "KiB"))


def _by_counter(c):
    """The statistic that reads counter c, if one does."""
    for m in METRICS.values():
        if getattr(m.fn, "counter", None) == c:
            return m
    return None


def lookup(name):
    """The Metric for a name: a statistic's name or alias, counter:NAME, or a counter's
    column name (counter_NAME or NAME itself, e.g. anon_entropy_mean_bits), which gives
    the statistic reading that counter when there is one (its label and unit), else the
    counter with the unit its name says."""
    n = normalise(name)
    n = ALIASES.get(n, n)
    if n in METRICS:
        return METRICS[n]
    if n.startswith("ratio:"):
        # A derived ratio of counters: ratio:NUM[+NUM...]/DEN[+DEN...] (counter names, with
        # or without counter_), e.g. ratio:duplicates/deliveries.
        num, sep, den = n[len("ratio:"):].partition("/")
        parts = [[t.strip()[len("counter_"):] if t.strip().startswith("counter_") else t.strip()
                  for t in side.split("+")] for side in (num, den)]
        if not sep or not all(t for side in parts for t in side):
            raise UsageError("%r: a ratio is ratio:NUM/DEN of counters (NUM and DEN may be "
                             "sums: a+b)" % name)
        m = Metric(n, "%s per %s" % (" + ".join(parts[0]), " + ".join(parts[1])), "ratio",
                   _ratio(tuple(parts[0]), tuple(parts[1])),
                   "sum of counters %s / sum of %s" % (", ".join(parts[0]), ", ".join(parts[1])))
        return m
    c = None
    if n.startswith("counter:") and len(n) > len("counter:"):
        c = n[len("counter:"):]
    elif n.startswith("counter_") and len(n) > len("counter_"):
        c = n[len("counter_"):]
    elif n.startswith(("anon_", "bw_", "unobs_", "so_", "adv_")):
        c = n
    if c is not None:
        m = _by_counter(c)
        if m is not None:
            return m
        unit = next((u for suf, u in _COUNTER_UNITS if c.endswith(suf)), "count")
        m = Metric("counter:" + c, c.replace("_", " "), unit, _counter(c), "counter %s" % c)
        m.positive = unit in ("1/s", "B/s")
        return m
    near = difflib.get_close_matches(n, list(METRICS) + list(ALIASES), n=3, cutoff=0.6)
    raise UsageError("unknown statistic %r%s; known: %s, counter:NAME, ratio:NUM/DEN (and --kind box "
                     "--stat latency for the latency distribution)"
                     % (name, " (did you mean %s?)" % " or ".join(near) if near else "",
                        ", ".join(METRICS)))


def describe():
    """Lines 'name: meaning [unit]' for --help."""
    return ["%-22s %s [%s]" % (m.name, m.doc, m.unit) for m in METRICS.values()]
