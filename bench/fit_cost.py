#!/usr/bin/env python3
"""Refit the constants of the sweep cost model (src/exp/cost.c, rc_job_cost_estimate)
to measured jobs, or check the current constants against them.

Usage: bench/fit_cost.py RESULTS.h5 [...]            fit, and compare with the current constants
       bench/fit_cost.py --check RESULTS.h5 [...]    only the current constants against the jobs

The measured cost of a job is its wall time in the results file (counter_wall_s: the job
alone in its worker process), so the results should come from a machine with a core per
worker (e.g. scripts/reproduce.sh --np 3 on 2 otherwise idle cores).  The model is the
C function's, written out again below (keep the two in step); the fit minimises the
squared log ratio estimate / measured over the jobs.  Needs /usr/bin/python3 with h5py,
numpy and scipy (Debian: python3-h5py python3-numpy python3-scipy).
"""
import argparse
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from rcplot import results  # noqa: E402

# The current constants of rc_job_cost_estimate, in the order of model()'s x.
CURRENT = [0.273e-6, 0.1015e-6, 1.2, 2.0, 3.4, 1.0, 0.005]
SEC_PER_TRACE = 0.02  # fixed, not fitted: a trace job's share of the process's trace load
NAMES = ["SEC_PER_COPY", "SEC_PER_TIMEOUT", "load weight", "load exponent",
         "wide exponent", "trace factor", "SEC_PER_JOB"]


def jobs(paths):
    out = []
    for path in paths:
        t = results.load_table(path)
        col = {c: np.asarray(t[c]) for c in (
            "users", "group_size", "groups", "app_rate", "burst", "duration", "lambda_div",
            "trace_lines", "rate_payload", "counter_wall_s")}
        for i, st in enumerate(t["strategy"]):
            st = st.decode() if isinstance(st, bytes) else str(st)
            m = re.match(r"rc-k(\d+)-p(\d+)(-ft)?", st)
            out.append(dict(
                m=float(col["users"][i]), gs=float(col["group_size"][i] or col["users"][i]),
                g=float(col["groups"][i]), rate=float(col["app_rate"][i]),
                b=float(col["burst"][i]), dur=float(col["duration"][i]),
                div=float(col["lambda_div"][i] or 1), traced=col["trace_lines"][i] > 0,
                lp=float(col["rate_payload"][i]), wall=float(col["counter_wall_s"][i]),
                rc=m is not None, p=float(m.group(2)) if m else 1.0, ft=bool(m and m.group(3))))
    return out


def model(x, j):
    """rc_job_cost_estimate without --cover full (which no figure uses)."""
    per_copy, per_timeout, lw, lexp, wexp, tf, per_job = x
    multicasts = j["g"] * j["rate"] * j["b"] * j["dur"]
    copies = multicasts * (j["gs"] - 1) * (2.0 if j["rc"] else 1.0)
    work = copies * per_copy + (multicasts * j["gs"] * per_timeout if j["ft"] else 0.0)
    if j["traced"]:
        work *= tf
    slots = j["m"] * j["lp"] * j["p"] / j["div"]
    rho = min(copies / j["dur"] / slots, 2.0) if slots > 0 and j["dur"] > 0 else 0.0
    return (per_job + (SEC_PER_TRACE if j["traced"] else 0.0) +
            work * (1 + (j["p"] / 12.0) ** wexp) * (1 + lw * rho ** lexp))


def report(label, x, js):
    est = np.array([model(x, j) for j in js])
    wall = np.array([j["wall"] for j in js])
    r = est / wall
    print("%s: estimate/measured median %.2f, 10-90 %% %.2f-%.2f, min %.2f, max %.2f; "
          "total estimated %.0f s, measured %.0f s"
          % (label, np.median(r), np.percentile(r, 10), np.percentile(r, 90), r.min(), r.max(),
             est.sum(), wall.sum()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", help="results files (layout 2)")
    ap.add_argument("--check", action="store_true", help="do not fit; check CURRENT only")
    a = ap.parse_args()
    js = [j for j in jobs(a.results) if j["wall"] > 0]
    if not js:
        sys.exit("fit_cost.py: no jobs with a wall time in %s" % ", ".join(a.results))
    print("%d jobs" % len(js))
    report("current constants", CURRENT, js)
    if a.check:
        return
    from scipy.optimize import least_squares
    wall = np.array([j["wall"] for j in js])

    def resid(x):
        est = np.array([model(x, j) for j in js])
        return np.log(np.maximum(est, 1e-9)) - np.log(wall)

    fit = least_squares(resid, np.array(CURRENT),
                        bounds=([0, 0, 0, 0.5, 0.5, 0.3, 0], [1e-4, 1e-4, 20, 4, 6, 1.5, 0.1]))
    for n, v in zip(NAMES, fit.x):
        print("  %-16s %.4g" % (n, v))
    report("fitted constants", fit.x, js)


if __name__ == "__main__":
    main()
