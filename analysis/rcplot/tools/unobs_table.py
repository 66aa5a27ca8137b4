#!/usr/bin/python3
"""Table for the unobservability measurement (experiments/unobservability.yaml).

Usage: python3 -m rcplot unobs-table RESULTS.h5 [RESULTS.h5 ...] OUT.md

One row per (model, trace, strategy): the departure rate (bundles per second) of group
members and of users in no group, the two-sample KS statistic of their inter-departure
gaps against its 5 % critical value, and what a provider hands a member per pull (mean,
most in one pull, share of pulls with a real message); plus the bandwidth a client spends
(docs/spec.md §1.12).  Means over seeds.  Only Debian's python3-h5py and numpy.
"""
import math
import os
import sys

import numpy as np

from rcplot import provenance, results

COLS = [("members /s", "counter_unobs_active_rate_pps", "%.3f"),
        ("idle users /s", "counter_unobs_idle_rate_pps", "%.3f"),
        ("KS", "counter_unobs_ks", "%.4f"),
        ("KS 5 % crit.", "counter_unobs_ks_crit05", "%.4f"),
        ("real/pull mean", "counter_unobs_real_per_pull_mean", "%.3f"),
        ("real/pull max", "counter_unobs_real_per_pull_max", "%.0f"),
        ("pulls with real", "counter_unobs_pulls_nonempty", "%.3f"),
        ("real /s/client", "counter_bw_payload_pps", "%.3f"),
        ("cover /s/client", "counter_bw_cover_pps", "%.3f"),
        ("kB/s/client", "counter_bw_bytes_per_client_s", "%.1f")]
ORDER = ["unicast", "rc-k1-p1", "rc-k2-p2", "rc-k4-p4", "rc-k2-p2-ft-dropoffline"]


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    tab = results.load_table(argv[1:-1])
    try:
        n = len(tab)
        keys = [tab["model"], tab["trace"], tab["strategy"]]
        groups = {}
        for i in range(n):
            groups.setdefault((str(keys[0][i]), str(keys[1][i]), str(keys[2][i])), []).append(i)
        cols = {c: np.asarray(tab[c], dtype=np.float64) if c in tab else np.full(n, np.nan)
                for _, c, _ in COLS}
    finally:
        tab.close()
    lines = ["| model | trace | strategy | seeds | " + " | ".join(h for h, _, _ in COLS) + " |",
             "|---|---|---|---|" + "---|" * len(COLS)]
    rank = {s: i for i, s in enumerate(ORDER)}
    for key in sorted(groups, key=lambda k: (k[0], k[1] != "online", k[1], rank.get(k[2], 99))):
        idx = groups[key]
        cells = []
        for _, c, fmt in COLS:
            v = cols[c][idx]
            v = v[~np.isnan(v)]
            if c.endswith("bytes_per_client_s"):
                v = v / 1e3
            cells.append(fmt % v.mean() if v.size else "–")
        lines.append("| %s | %s | %s | %d | %s |" % (key + (len(idx), " | ".join(cells))))
    with open(argv[-1], "w") as f:
        f.write("\n".join(lines) + "\n")
    provenance.record(os.path.dirname(os.path.abspath(argv[-1])), [argv[-1]], argv[1:-1],
                      "unobs_table.py")
    print("unobs_table: %d rows -> %s" % (len(groups), argv[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
