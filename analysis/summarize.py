#!/usr/bin/python3
"""Prints one line per job of an rcsim results file, grouped over seeds.

Usage: analysis/summarize.py RESULTS.h5 [--per-seed]

Needs only Debian's python3-h5py and python3-numpy (run with /usr/bin/python3).
"""
import argparse
import sys

import h5py
import numpy as np

VARYING = ["users", "groups", "group_size", "strategy", "trace", "burst", "lambda_div", "model",
           "duration", "membership_rate", "gossip_interval"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--per-seed", action="store_true", help="one line per job instead of per configuration")
    a = ap.parse_args()
    try:
        f = h5py.File(a.results, "r")
    except OSError as e:
        sys.exit(f"summarize: cannot open {a.results}: {e}")
    with f:
        jobs = f.get("jobs")
        if jobs is None or len(jobs) == 0:
            sys.exit(f"summarize: {a.results} holds no finished jobs")
        rows = {}
        for jid, g in jobs.items():
            at = g.attrs
            key = tuple((k, at[k].decode() if isinstance(at[k], bytes) else at[k]) for k in VARYING if k in at)
            if a.per_seed:
                key = key + (("seed", int(at["seed"])),)
            s = g["summary_online"][...]
            rows.setdefault(key, []).append((s, int(g.attrs.get("counter_undelivered", 0)), float(at.get("wall_s", 0))))
        # Show only the parameters that vary across the file.
        varying = {k for k in VARYING if len({dict(key).get(k) for key in rows}) > 1} or {"strategy"}
        names = list(f["jobs"][next(iter(f["jobs"]))]["summary_online"].attrs["names"])
        names = [n.decode() if isinstance(n, bytes) else n for n in names]
        idx = {n: i for i, n in enumerate(names)}
        print(f"{a.results}: {len(jobs)} jobs, sweep {f.attrs.get('sweep_name', b'?')!s}")
        hdr = f"{'configuration':58s} {'seeds':>5s} {'samples':>9s} {'mean':>8s} {'p1':>6s} {'median':>7s} {'p90':>7s} {'p99':>8s} {'undeliv':>8s} {'wall s':>7s}"
        print(hdr)
        for key in sorted(rows, key=lambda k: [str(v) for _, v in k]):
            v = rows[key]
            arr = np.array([r[0] for r in v])
            med = np.median(arr, axis=0)
            desc = " ".join(f"{k}={val}" for k, val in key if k in varying or k == "seed")
            print(f"{desc[:58]:58s} {len(v):5d} {int(arr[:, idx['count']].sum()):9d} "
                  f"{med[idx['mean']]:8.2f} {med[idx['p1']]:6.2f} {med[idx['p50']]:7.2f} "
                  f"{med[idx['p90']]:7.2f} {med[idx['p99']]:8.2f} {sum(r[1] for r in v):8d} {sum(r[2] for r in v):7.2f}")
        print("(latencies in seconds, online-only deliveries; median over seeds)")


if __name__ == "__main__":
    main()
