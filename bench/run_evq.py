#!/usr/bin/python3
"""Compare the pending-event-set variants (bench_evq_*): hold model and real jobs.

usage: bench/run_evq.py BUILD_DIR [--rounds R] [--quick] [--variants heap4,heap4b,...] [--cachegrind]

Build first:  cmake --build BUILD_DIR --target bench_evq
Prints (1) ns per hold (pop + push) at queue sizes 1e2..1e6, best of 3, and checks
that every variant popped the same sequence (checksums); (2) for a few real jobs
the best CPU time of R rounds, the variants interleaved in each round so load
drifts hit them alike, events per CPU second and the change against heap4 (the
engine's src/core/evq.c), and checks that events, deliveries and latencies are
identical for every variant (the queue must not change results).  With
--cachegrind, (3) runs each job once more under valgrind --tool=cachegrind
--branch-sim=yes and prints instructions and mispredicted branches, which do not
depend on the load (the queue holds 30-3000 events, so it lives in L1/L2 and
its cost is instructions plus mispredicts).  Exit 1 on any
mismatch, 2 on bad usage.  Wall and CPU times move with the machine's load; for
exact comparisons count instructions instead (docs/performance.md).
"""
import os
import re
import subprocess
import sys

JOBS_FULL = [
    ("rc-k2-p2-u128-online-24h", "--model paper --strategy rc-k2-p2 --users 128 --duration 24h"),
    ("unicast-u256-gen_os15-24h", "--model paper --strategy unicast --users 256 --trace gen_os15 --duration 24h"),
    ("multigroup-g16x128-6h", "--model paper --strategy rc-k2-p2-ft-dropoffline --users 128 --groups 16 "
                              "--group_size 128 --duration 6h"),
    ("exact-rc-k2-p2-u128-24h", "--model exact --strategy rc-k2-p2 --users 128 --duration 24h"),
]
JOBS_QUICK = [
    ("rc-k2-p2-u128-online-2h", "--model paper --strategy rc-k2-p2 --users 128 --duration 2h"),
    ("multigroup-g16x128-30m", "--model paper --strategy rc-k2-p2-ft-dropoffline --users 128 --groups 16 "
                               "--group_size 128 --duration 30m"),
]
JOB_RE = re.compile(r"^job (\S+)\s+events (\d+)\s+wall ([\d.]+) s\s+cpu ([\d.]+) s.*deliveries (\d+)\s+"
                    r"mean (\S+) s\s+p99 (\S+) s")
HOLD_RE = re.compile(r"^hold (\S+)\s+size\s+(\d+)\s+([\d.]+) ns/hold\s+checksum (\S+)")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("run_evq: %s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return p.stdout


def main(argv):
    args = argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    build, rounds, quick, cg = args[0], 3, False, False
    variants = ["heap4", "heap4b", "heap2", "heap2b", "pairing"]
    i = 1
    while i < len(args):
        if args[i] == "--rounds" and i + 1 < len(args):
            rounds = int(args[i + 1]); i += 2
        elif args[i] == "--cachegrind":
            cg = True; i += 1
        elif args[i] == "--quick":
            quick = True; i += 1
        elif args[i] == "--variants" and i + 1 < len(args):
            variants = args[i + 1].split(","); i += 2
        else:
            print("run_evq: bad argument %r (try --help)" % args[i], file=sys.stderr)
            return 2
    # The gen_os15 job needs the paper's traces (scripts/get-traces.sh): $RCSIM_DATA_DIR, else
    # ./data/availability; a development machine's copy beside the checkout when it exists.
    shared = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data",
                          "availability")
    if not os.environ.get("RCSIM_DATA_DIR") and os.path.isdir(shared):
        os.environ["RCSIM_DATA_DIR"] = os.path.realpath(shared)
    exe = {v: os.path.join(build, "bench_evq_" + v) for v in variants}
    for v, e in exe.items():
        if not os.access(e, os.X_OK):
            print("run_evq: %s missing: cmake --build %s --target bench_evq" % (e, build), file=sys.stderr)
            return 2
    bad = 0
    for v in variants:  # the core's evq unit tests against each variant
        t = os.path.join(build, "test_evq_" + v)
        if os.access(t, os.X_OK):
            p = subprocess.run([t, "-j1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            print("tests/test_evq.c against %-8s %s" % (v, "passed" if p.returncode == 0 else "FAILED"))
            if p.returncode != 0:
                print(p.stdout[-2000:])
                bad = 1
    sizes = "100,1000,10000" if quick else "100,1000,10000,100000,1000000"
    ops = "200000" if quick else "1000000"
    hold = {}
    for v in variants:
        for line in run([exe[v], "hold", "--sizes", sizes, "--ops", ops, "--repeat", "3"]).splitlines():
            m = HOLD_RE.match(line)
            if m:
                hold[(v, int(m.group(2)))] = (float(m.group(3)), m.group(4))
    szs = sorted({s for (_, s) in hold})
    print("hold model: ns per hold (pop-min + push, Exp(1 s) increments), best of 3")
    print("%-10s" % "size" + "".join("%10s" % v for v in variants))
    for s in szs:
        print("%-10d" % s + "".join("%10.1f" % hold[(v, s)][0] for v in variants))
        if len({hold[(v, s)][1] for v in variants}) != 1:
            print("  MISMATCH: variants popped different sequences at size %d" % s)
            bad = 1
    print()
    jobs = JOBS_QUICK if quick else JOBS_FULL
    print("real jobs: best CPU s of %d interleaved rounds" % rounds)
    print("%-28s %-8s %10s %9s %9s %8s" % ("job", "queue", "events", "cpu s", "Mev/cpu-s", "vs heap4"))
    for name, params in jobs:
        best, res = {}, {}
        for _ in range(rounds):
            for v in variants:
                out = run([exe[v], "job", "--repeat", "1"] + params.split())
                m = JOB_RE.match(out.strip())
                if not m:
                    sys.exit("run_evq: cannot parse %r" % out)
                cpu = float(m.group(4))
                best[v] = min(best.get(v, cpu), cpu)
                res[v] = (m.group(2), m.group(5), m.group(6), m.group(7))
        for v in variants:
            ev = int(res[v][0])
            ref = best.get("heap4")
            print("%-28s %-8s %10d %9.3f %9.3f %8s" % (
                name, v, ev, best[v], ev / best[v] / 1e6 if best[v] > 0 else 0,
                "%+.1f%%" % (100 * (best[v] - ref) / ref) if ref else "-"))
        if len(set(res.values())) != 1:
            print("  MISMATCH: results differ between queues: %r" % res)
            bad = 1
    if cg:
        print()
        print("instruction counts (cachegrind --branch-sim=yes, whole job, one run)")
        print("%-28s %-8s %14s %8s %12s %8s %14s" % ("job", "queue", "instructions", "vs heap4",
                                                    "mispredicts", "vs heap4", "Ir+15*mispred"))
        for name, params in jobs:
            ref = None
            for v in variants:
                p = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
                                    "--cachegrind-out-file=/dev/null", exe[v], "job", "--repeat", "1"]
                                   + params.split(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                ir = re.search(r"I\s+refs:\s+([\d,]+)", p.stderr)
                mp = re.search(r"Mispredicts:\s+([\d,]+)", p.stderr)
                if p.returncode != 0 or not ir or not mp:
                    sys.exit("run_evq: cachegrind run of %s failed: %s" % (v, p.stderr[-500:]))
                ir, mp = int(ir.group(1).replace(",", "")), int(mp.group(1).replace(",", ""))
                est = ir + 15 * mp
                if ref is None:
                    ref = (ir, mp, est)
                print("%-28s %-8s %14d %+7.1f%% %12d %+7.1f%% %14d %+6.1f%%" % (
                    name, v, ir, 100.0 * (ir - ref[0]) / ref[0], mp, 100.0 * (mp - ref[1]) / ref[1],
                    est, 100.0 * (est - ref[2]) / ref[2]))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
