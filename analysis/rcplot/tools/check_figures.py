#!/usr/bin/python3
"""Check that every committed figure set was drawn by today's analysis code.

  python3 -m rcplot check-figures [--results] [SET ...]

A set is a directory figures/SET.  Each file in it must be recorded in
figures/SET/provenance.json (written by the drawing tools: figures, paper-check,
means-spread, study-figures, plot) with the same bytes as when it was drawn, and the
analysis sources that drew it (those the drawing loaded, and the data files it read)
must be unchanged.  A file no tool of today can redraw (its results are not kept, or it
is a committed input of the drawings) is recorded as kept: it must keep its bytes, and is
named with the reason.  Checked by default: paper, exact, paper-quick and exact-quick,
which must have a record, and every other set that has one (deployment, study).
--results also compares the results files recorded (results/<tag>/*.h5) with those in
this checkout, where they exist (results are not committed).

Redraw a stale set from its existing results without rerunning a sweep:
  scripts/reproduce.sh [--quick] [--model exact] --redraw

Exit status: 0 every set current; 1 some set stale (each named, with what changed);
2 bad usage.
"""

import argparse
import os
import sys


from rcplot import provenance

REQUIRED = ("paper", "exact", "paper-quick", "exact-quick")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("sets", nargs="*", metavar="SET",
                    help="figure sets to check (default: %s, and every other with a record)"
                         % ", ".join(REQUIRED))
    ap.add_argument("--figures", default=os.path.join(provenance.ROOT, "figures"),
                    metavar="DIR", help="where the sets are (default: the repository's figures/)")
    ap.add_argument("--results", action="store_true",
                    help="also compare the recorded results files with those present")
    a = ap.parse_args(argv)
    sets = list(a.sets)
    if not sets:
        sets = list(REQUIRED)
        if os.path.isdir(a.figures):
            sets += sorted(d for d in os.listdir(a.figures) if d not in REQUIRED and
                           os.path.exists(os.path.join(a.figures, d, provenance.NAME)))
    stale = 0
    for s in sets:
        d = os.path.join(a.figures, s)
        if not os.path.isdir(d):
            print("check_figures: %s: no such set (%s)" % (s, d), file=sys.stderr)
            return 2
        problems = provenance.check(d, provenance.ROOT if a.results else None)
        if problems:
            stale += 1
            print("STALE figures/%s:" % s)
            for p in problems:
                print("  - %s" % p)
        else:
            n = len((provenance.load(d) or {}).get("outputs", {}))
            kept = provenance.kept(d)
            print("ok    figures/%s: %d files drawn by today's analysis code%s" % (
                s, n, ", %d kept as committed" % len(kept) if kept else ""))
            for name, k in sorted(kept.items()):
                print("      kept %s: %s" % (name, k["why"]))
    others = sorted(d for d in os.listdir(a.figures) if d not in sets and
                    os.path.isdir(os.path.join(a.figures, d))) if not a.sets else []
    for d in others:
        print("note  figures/%s: no provenance record, not checked (drawn before records "
              "were kept; its results are not in the tree)" % d)
    if stale:
        print("check_figures: %d of %d set(s) stale; redraw with scripts/reproduce.sh "
              "--redraw [--quick] [--model exact]" % (stale, len(sets)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
