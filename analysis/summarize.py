#!/usr/bin/python3
"""Prints one line per job of an rcsim results file, grouped over seeds.

Usage: analysis/summarize.py RESULTS.h5 [--per-seed]

Needs only Debian's python3-h5py and python3-numpy (run with /usr/bin/python3).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rcplot import results  # noqa: E402

VARYING = ["users", "groups", "group_size", "strategy", "trace", "burst", "lambda_div", "model",
           "duration", "membership_rate", "gossip_interval"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--per-seed", action="store_true", help="one line per job instead of per configuration")
    a = ap.parse_args()
    try:
        tab = results.load_table([a.results])
    except (OSError, ValueError) as e:
        sys.exit(f"summarize: cannot read {a.results}: {e}")
    with tab:
        if len(tab) == 0:
            sys.exit(f"summarize: {a.results} holds no finished jobs")
        names = results.SUMMARY_NAMES
        summ = np.stack([tab["online_" + n] for n in names], axis=1)
        cols = {k: tab[k].tolist() for k in VARYING + ["seed"] if k in tab}
        undel = tab["counter_undelivered"].tolist()
        wall = tab["counter_wall_s"].tolist()
        rows = {}
        for r in range(len(tab)):
            key = tuple((k, cols[k][r]) for k in VARYING if k in cols)
            if a.per_seed:
                key = key + (("seed", int(cols["seed"][r])),)
            rows.setdefault(key, []).append((summ[r], int(undel[r]), float(wall[r])))
        # Show only the parameters that vary across the file.
        varying = {k for k in VARYING if len({dict(key).get(k) for key in rows}) > 1} or {"strategy"}
        idx = {n: i for i, n in enumerate(names)}
        print(f"{a.results}: {len(tab)} jobs")
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
