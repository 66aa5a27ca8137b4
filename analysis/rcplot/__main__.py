"""python3 -m rcplot TOOL [ARGS ...]: runs one analysis program (docs/analysis.md, "The tools").

analysis/ must be on the module path: the rcsim commands set PYTHONPATH for the
interpreter they start, the installed modulefile puts PREFIX/share/rcsim/analysis there,
and in a checkout `PYTHONPATH=analysis` (or running from analysis/) does it.  Nothing
here or in the tools edits sys.path.
"""

import runpy
import sys

# TOOL: (module under rcplot.tools, what it does).
TOOLS = {
    "plot": ("plot", "figures of any sweep (rcsim plot)"),
    "report": ("report", "one self-contained HTML report of a sweep (rcsim report)"),
    "summarize": ("summarize", "one line per configuration, seeds pooled (rcsim summarize)"),
    "baseline": ("baseline", "strategies against a baseline, paired by seed (rcsim compare)"),
    "diff": ("diff", "two results files: what differs beyond seed noise (rcsim diff)"),
    "figures": ("figures", "the paper's figures 5-16 (rcsim figures)"),
    "paper-check": ("paper_check", "our numbers against the paper's published ones"),
    "means-spread": ("means_spread", "where the paper's single-run means fall among ours"),
    "check-figures": ("check_figures", "each committed figure set drawn by today's code?"),
    "make-docs": ("make_docs", "docs/figures.md from the figure sets"),
    "study-figures": ("study_figures", "the adversary and reconcile studies' figures"),
    "disclosure-day": ("disclosure_day", "the day-long disclosure study's figure and table"),
    "unobs-table": ("unobs_table", "the unobservability table (docs/trilemma.md)"),
    "anon-recompute": ("anon_recompute", "the anonymity metric from the observation file"),
    "adaptive-seeds": ("adaptive_seeds", "more seeds where the interval is still wide"),
    "population-model-ks": ("population_model_ks", "population models: KS test"),
    "population-model-paired": ("population_model_paired", "population models: paired test"),
}

def usage(out):
    print("usage: python3 -m rcplot TOOL [ARGS ...]   (TOOL --help: its options)\n", file=out)
    for name, (_, what) in TOOLS.items():
        print("  %-24s %s" % (name, what), file=out)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        usage(sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    name = argv[0]
    tool = TOOLS.get(name) or TOOLS.get(name.replace("_", "-"))
    if tool is None:
        print("rcplot: no tool %r" % name, file=sys.stderr)
        usage(sys.stderr)
        return 2
    mod = tool[0]
    sys.argv = [name] + argv[1:]  # replaced by the tool's path; its arguments stay
    runpy.run_module("rcplot.tools." + mod, run_name="__main__", alter_sys=True)
    return 0  # a tool that fails exits with its own status (sys.exit)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
