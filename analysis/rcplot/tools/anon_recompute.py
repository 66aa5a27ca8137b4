#!/usr/bin/env python3
"""Recompute every tracked message's anonymity from an observation file alone.

rcsim run --anonymity on --anon-trace FILE writes what a global passive
adversary sees (docs/spec.md §10.6): every link of every packet with node ids
and times, the nodes the adversary owns, and which packets carry the tracked
messages.  This script knows nothing of rcsim's code: it re-derives the
adversary's estimates from those rows by the rule of docs/spec.md §10.3
(dense vectors, no pruning, its own event order from the documented key) and
prints, per tracked message, the entropy H, the min-entropy, the sender
entropy, the probability that left the mixes and the latency.  The sender
estimates are dense vectors over the users here, whatever rcsim used (dense
vectors or its log read backward, docs/spec.md §10.4).

With --rule batch the departures of an honest mixing node at one instant are
taken as one flush (docs/spec.md §1.15, the threshold, timed and pool mixes):
each output carries the mean of what the node held at that instant, after the
instant's arrivals, and the node keeps (held - sent) / held of its sums --
computed from that snapshot, not one departure after the other as the
pool-mean rule does.  The two rules are the same law; rcsim computes the
latter, so --rule batch with --check is an independent check of a batch mix.

With --check FILE.targets.csv (rcsim's own values, written beside the
observations) it compares the two and exits 1 if any value differs by more
than --tol (default 1e-9); that file also names each message's challenge
partner, so epsilon = |ln(p_sender / p_partner)| is recomputed and compared
too.

usage: anon_recompute.py TRACE.csv [--check TRACE.csv.targets.csv] [--tol 1e-9]
                         [--rule pool-mean|batch]
"""
import argparse
import math
import sys

import numpy as np


def read_trace(path):
    meta, corrupt, rows = {}, set(), []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                body = line[1:].strip()
                if body.startswith("corrupt="):
                    v = body[len("corrupt="):]
                    corrupt = {int(x) for x in v.split(";") if x}
                elif "=" in body:
                    for kv in body.split():
                        k, _, v = kv.partition("=")
                        meta[k] = int(v)
                continue
            if line.startswith("row,"):
                continue
            c = line.rstrip("\n").split(",")
            rows.append((int(c[0]), c[1], int(c[2]), int(c[3]), int(c[4]), int(c[5]),
                         int(c[6]), int(c[7]), int(c[8]), c[9] == "1", int(c[10])))
    return meta, corrupt, rows


def recompute(meta, corrupt, rows, ties="arrivals-first", rule="pool-mean"):
    users, providers = meta["users"], meta["providers"]
    nodes = users + providers + meta["mix_layers"] * meta["mixes_per_layer"]
    stop = meta["stop_us"]
    sender_view = True  # dense over the users at any size (small runs only)

    def honest_mixing(v):
        if v < users or v in corrupt:
            return False
        if v < users + providers:
            return meta["provider_mixes"] == 1
        return True

    mixing = [honest_mixing(v) for v in range(nodes)]
    targets = {}  # k -> dict
    initial = {}  # packet -> {k: 1.0}
    loops = {}  # packet -> the mix that created it
    dropped = set()  # tracked for a while, then left out of the sample (X rows)
    split_of = {}
    for r in rows:
        row, kind, packet, parent, frm, to, sent, received, split, exits, target = r
        if kind == "T":
            initial.setdefault(packet, {})[target] = 1.0
            targets[target] = dict(sender=frm, recipient=to, sent=sent, pulled=None, h=0.0,
                                   maxq=0.0, mass=0.0, sender_h=float("nan"), exited=False,
                                   send=None)
        elif kind == "C" and to >= users + providers:
            loops[packet] = to  # a mix's loop (at a provider: a packet made for a strategy)
        elif kind == "X":
            dropped.add(target)
        elif kind == "L" and split > 1:
            split_of[packet] = split
    for r in rows:
        if r[1] == "P" and r[10] >= 0 and targets[r[10]]["pulled"] is None:
            targets[r[10]]["pulled"] = r[7]  # at the client: the pull answer's link ends there

    # The adversary's order: (time, arrivals before departures, row).
    events = []
    for r in rows:
        row, kind, sent, received = r[0], r[1], r[6], r[7]
        if kind == "L":
            events.append((sent, 1, row, "D", r))
            if received > sent:
                events.append((received, 0, row, "A", r))
        elif kind == "C":
            events.append((sent, 0, row, "C", r))
        elif kind == "E":
            events.append((received, 0, row, "E", r))
    if ties == "arrivals-first":
        events.sort(key=lambda e: (e[0], e[1], e[2]))
    else:  # "report": at one instant, strictly in the order of the rows (for comparison)
        events.sort(key=lambda e: (e[0], e[2]))

    ntg = max(len(targets), 1)
    pool_n = [0] * nodes
    pool_s = [np.zeros(ntg) if mixing[v] else None for v in range(nodes)]
    pool_b = [np.zeros(users) if mixing[v] and sender_view else None for v in range(nodes)]
    dist = {}  # packet -> np.array over targets (or None = zero)
    send = {}  # packet -> np.array over users (or None = no client mass)

    def reset(v):
        pool_s[v][:] = 0.0
        if sender_view:
            pool_b[v][:] = 0.0

    def arrive(r):
        packet, to, split, exits, target = r[2], r[5], r[8], r[9], r[10]
        d, s = dist.get(packet), send.get(packet)
        if split == 0:
            # every sub-message in it was for this provider: it ends here
            dist[packet], send[packet] = None, None
            return
        if packet in loops and to == loops[packet]:
            # a loop back at its mix: known to hold nothing; its share is dropped
            dist[packet], send[packet] = None, None
            return
        if exits:
            if d is not None:
                for k in np.nonzero(d)[0]:
                    q = d[k]
                    g = targets[int(k)]
                    g["h"] -= q * math.log2(q)
                    g["maxq"] = max(g["maxq"], q)
                    g["mass"] += q
            if target >= 0:
                g = targets[target]
                g["exited"] = True
                if sender_view:
                    h = 0.0
                    if s is not None and s.sum() > 0:
                        x = s / s.sum()
                        x = x[x > 0]
                        h = float(-(x * np.log2(x)).sum())
                    g["sender_h"] = h
                    g["send"] = s
            dist[packet], send[packet] = None, None
            if packet not in loops:
                return
            split, d, s = 1, None, None
        if mixing[to]:
            if d is not None:
                pool_s[to] += d
            if sender_view and s is not None:
                pool_b[to] += split * s
            pool_n[to] += split

    flush = {}  # --rule batch: node -> [time, held, mean s, mean b, pool s, pool b, sent]

    def depart(r):
        packet, parent, frm = r[2], r[3], r[4]
        if rule == "batch" and frm >= users and mixing[frm]:
            t = r[6]
            f = flush.get(frm)
            if f is None or f[0] != t or f[6] >= f[1]:
                n = pool_n[frm]
                f = [t, n, pool_s[frm] / n, pool_b[frm] / n if sender_view else None,
                     pool_s[frm].copy(), pool_b[frm].copy() if sender_view else None, 0]
                flush[frm] = f
            f[6] += 1
            dist[packet] = f[2].copy()
            if sender_view:
                send[packet] = f[3].copy()
            left = (f[1] - f[6]) / f[1]
            pool_s[frm] = f[4] * left
            if sender_view:
                pool_b[frm] = f[5] * left
            pool_n[frm] -= 1
            if pool_n[frm] == 0:
                reset(frm)
            if r[7] == r[6]:
                arrive(r)
            return
        if frm < users:
            d = np.zeros(ntg)
            for k, q in initial.get(packet, {}).items():
                d[k] = q
            dist[packet] = d
            s = np.zeros(users)
            s[frm] = 1.0
            send[packet] = s
        elif mixing[frm]:
            n = pool_n[frm]
            d = pool_s[frm] / n
            pool_s[frm] -= d
            dist[packet] = d
            if sender_view:
                s = pool_b[frm] / n
                pool_b[frm] -= s
                send[packet] = s
            pool_n[frm] -= 1
            if pool_n[frm] == 0:
                reset(frm)
        elif parent >= 0:
            pd = dist.get(parent)
            dist[packet] = None if pd is None else pd / split_of.get(parent, 1)
            send[packet] = send.get(parent)
        if r[7] == r[6]:
            arrive(r)

    for t, _, _, what, r in events:
        if t >= stop:
            break
        if what == "D":
            depart(r)
        elif what == "A":
            arrive(r)
        elif what == "C":
            to, packet = r[5], r[2]
            d = None
            if packet in initial:  # a tracked message in a packet a provider makes
                d = np.zeros(ntg)
                for k, q in initial[packet].items():
                    d[k] = q
            if mixing[to]:
                pool_n[to] += 1
                if d is not None:
                    pool_s[to] += d
                dist[packet], send[packet] = None, None
            else:
                dist[packet], send[packet] = d, None
        elif what == "E":
            pass
    out = []
    for k in sorted(targets):
        g = targets[k]
        if not g["exited"] or k in dropped:
            continue
        lat = (g["pulled"] - g["sent"]) / 1e6 if g["pulled"] is not None else float("nan")
        out.append(dict(target=k, sender=g["sender"], recipient=g["recipient"],
                        # normalised over what left the mixes: -sum (q/M) log2 (q/M)
                        entropy_bits=g["h"] / g["mass"] + math.log2(g["mass"]),
                        min_entropy_bits=-math.log2(g["maxq"] / g["mass"]),
                        sender_entropy_bits=g["sender_h"], mass=g["mass"], latency_s=lat,
                        send=g["send"]))
    return out


def epsilon(send, sender, partner):
    """|ln(p_sender / p_partner)| from the exit's sender estimate: inf when one
    side is impossible, nan when both are or there is no estimate."""
    if send is None or send.sum() <= 0:
        return float("nan")
    p0, p1 = send[sender], send[partner]
    if p0 > 0 and p1 > 0:
        return abs(math.log(p0 / p1))
    return float("inf") if (p0 > 0 or p1 > 0) else float("nan")


def read_targets(path):
    out = {}
    with open(path) as f:
        head = f.readline().strip().split(",")
        for line in f:
            v = dict(zip(head, line.strip().split(",")))
            out[int(v["target"])] = v
    return out


def same(a, b, tol):
    if math.isnan(a) and math.isnan(b):
        return True
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--check", help="rcsim's FILE.targets.csv to compare with")
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--ties", choices=["arrivals-first", "report"], default="arrivals-first",
                    help="order of events at one instant: the adversary's rule (docs/spec.md "
                         "§10.3), or the rows' order, to measure what the rule does")
    ap.add_argument("--rule", choices=["pool-mean", "batch"], default="pool-mean",
                    help="an honest mix's update: one departure at a time (docs/spec.md "
                         "§10.3), or a flush's departures at one instant as one batch (§1.15)")
    a = ap.parse_args(argv)
    meta, corrupt, rows = read_trace(a.trace)
    res = recompute(meta, corrupt, rows, a.ties, a.rule)
    if not a.check:
        print("target,sender,recipient,latency_s,entropy_bits,min_entropy_bits,"
              "sender_entropy_bits,mass")
        for r in res:
            print("%d,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g" % (
                r["target"], r["sender"], r["recipient"], r["latency_s"], r["entropy_bits"],
                r["min_entropy_bits"], r["sender_entropy_bits"], r["mass"]))
        return 0
    theirs = read_targets(a.check)
    bad, worst = [], 0.0
    if sorted(theirs) != [r["target"] for r in res]:
        bad.append("the measured targets differ: %d recomputed, %d in %s"
                   % (len(res), len(theirs), a.check))
    for r in res:
        t = theirs.get(r["target"])
        if t is None:
            continue
        if "partner" in t:
            r["eps"] = epsilon(r["send"], r["sender"], int(t["partner"]))
        for key in ("entropy_bits", "min_entropy_bits", "sender_entropy_bits", "mass",
                    "latency_s", "eps"):
            if key not in r or key not in t:
                continue
            x, y = r[key], float(t[key])
            if not (math.isnan(x) and math.isnan(y)) and not (math.isinf(x) or math.isinf(y)):
                worst = max(worst, abs(x - y))
            if not same(x, y, a.tol):
                bad.append("target %d: %s recomputed %.17g, rcsim %.17g"
                           % (r["target"], key, x, y))
    mean_h = sum(r["entropy_bits"] for r in res) / len(res) if res else float("nan")
    print("%d targets recomputed from %d observations; mean H %.6f bits; largest difference "
          "%.3g" % (len(res), len(rows), mean_h, worst))
    for b in bad[:20]:
        print("MISMATCH " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
