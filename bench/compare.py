#!/usr/bin/python3
"""Compare two `rcsim bench --json` files: the relative change per configuration.

usage: bench/compare.py OLD.json NEW.json

For every configuration in both files it prints wall time, CPU time, events/s
(per CPU second) and peak RSS, old -> new with the relative change, and flags a
change in the event count (same job, different events: the model changed, so the
times are not comparable).  Then the sweep throughput per worker count.  Wall
times move with the machine's load (both files record it); CPU time is steadier.
Exit code 0, or 2 for bad usage / unreadable files.
"""
import json
import sys


def rel(old, new):
    if old is None or new is None or old == 0:
        return "     n/a"
    return "%+7.1f%%" % (100.0 * (new - old) / old)


def fmt(v, spec):
    return (spec % v) if v is not None else "-"


def load(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("compare.py: cannot read %s: %s" % (path, e))
    if d.get("format") != "rcsim-bench/1":
        sys.exit("compare.py: %s is not an rcsim bench JSON file (format %r)" % (path, d.get("format")))
    return d


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 0 if len(argv) == 2 and argv[1] in ("-h", "--help") else 2
    old, new = load(argv[1]), load(argv[2])
    for tag, d in (("old", old), ("new", new)):
        print("%s: rcsim %s (%s) on %s, %s, %s, load %s -> %s%s" % (
            tag, d["rcsim_version"], d["git_revision"], d["host"], d["date"], d["cpu_model"],
            d.get("loadavg_start"), d.get("loadavg_end"), ", quick" if d.get("quick") else ""))
    if old.get("sim_duration_s") != new.get("sim_duration_s"):
        print("warning: simulated spans differ (%s s vs %s s): compare events/s only"
              % (old.get("sim_duration_s"), new.get("sim_duration_s")))
    oj = {j["name"]: j for j in old["jobs"]}
    print()
    print("%-48s %18s %18s %20s %16s" % ("configuration", "wall s", "cpu s", "Mevents/cpu-s", "RSS MiB"))
    for j in new["jobs"]:
        o = oj.get(j["name"])
        if o is None or o.get("status") != "ok" or j.get("status") != "ok":
            print("%-48s %s" % (j["name"], "only in new" if o is None else
                                 "old %s, new %s" % (o.get("status"), j.get("status"))))
            continue
        def g(x, k, scale=1.0):
            v = x.get(k)
            return None if v is None else v * scale
        line = "%-48s %9s %8s %9s %8s %11s %8s %7s %8s" % (
            j["name"],
            fmt(g(j, "wall_s"), "%.3f"), rel(g(o, "wall_s"), g(j, "wall_s")),
            fmt(g(j, "cpu_s"), "%.3f"), rel(g(o, "cpu_s"), g(j, "cpu_s")),
            fmt(g(j, "events_per_cpu_s", 1e-6), "%.3f"),
            rel(g(o, "events_per_cpu_s"), g(j, "events_per_cpu_s")),
            fmt(g(j, "peak_rss_kb", 1 / 1024), "%.1f"), rel(g(o, "peak_rss_kb"), g(j, "peak_rss_kb")))
        if o.get("events") != j.get("events"):
            line += "  events %s -> %s (model changed)" % (o.get("events"), j.get("events"))
        print(line)
    for name in oj:
        if name not in {j["name"] for j in new["jobs"]}:
            print("%-48s only in old" % name)
    os_, ns = old.get("sweep", {}), new.get("sweep", {})
    orun = {r["workers"]: r for r in os_.get("runs", [])}
    if ns.get("runs"):
        print()
        print("sweep throughput (jobs/s end to end; old %s jobs, new %s jobs):" % (os_.get("jobs"), ns.get("jobs")))
        for r in ns["runs"]:
            o = orun.get(r["workers"])
            print("  %d worker(s): %8s %8s   ratio to 1 worker %s" % (
                r["workers"], fmt(r.get("jobs_per_s"), "%.2f"),
                rel(o.get("jobs_per_s") if o else None, r.get("jobs_per_s")),
                fmt(r.get("ratio"), "%.2f")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
