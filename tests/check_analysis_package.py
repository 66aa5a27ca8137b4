#!/usr/bin/python3
"""check_analysis_package: analysis/ is one package with one reader of results files.

  tests/check_analysis_package.py [ANALYSIS_DIR]   (default: this checkout's analysis/)

Fails (exit 1, naming file and line) when
- a Python file under analysis/ edits the module path (sys.path.insert/append/extend,
  assignment to sys.path, site.addsitedir): the package is found through PYTHONPATH
  (the rcsim commands set it for the interpreter they start, the modulefile for a session);
- a Python file other than the reader opens HDF5 itself (imports h5py or PyTables, or calls
  pandas.read_hdf): results files are read through rcplot.results only;
- a new script appears beside rcplot/ in analysis/ instead of a tool in rcplot/tools/;
- a tool in rcplot/tools/ is missing from `python3 -m rcplot`'s list, an entry of that list
  names no file, or an rcsim analysis command (src/cli/cmd_analysis.c) names a tool the
  list lacks.
The scripts still beside rcplot/ are listed below with their reason.  It checks itself first
on a small tree holding one of each mistake.
"""

import ast
import os
import re
import sys
import tempfile

# Scripts beside rcplot/ that may stay there, and still edit sys.path, for the reason given.
# Reword this list when it shrinks; a file listed here that is gone or clean is only noted.
TOP_LEVEL = {}
# The one reader of results files (HDF5): every other module loads through it.
READERS = {"rcplot/results.py"}

PATH_EDIT = re.compile(r"\bsys\.path\s*(\.\s*(insert|append|extend)\b|\[[^\]]*\]\s*=|\+?=(?!=))"
                       r"|\bsite\.addsitedir\b")
HDF5 = re.compile(r"^\s*(import|from)\s+(h5py|tables)\b|\bread_hdf\s*\(|\bh5py\.File\s*\(", re.M)


def python_files(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                yield os.path.relpath(os.path.join(d, f), root)


def tool_table(root):
    """TOOLS of rcplot/__main__.py, read without importing it."""
    path = os.path.join(root, "rcplot", "__main__.py")
    tree = ast.parse(open(path).read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "TOOLS"
                                               for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit("check_analysis_package: no TOOLS table in %s" % path)


def check(root, cli_source=None):
    """Problems found under the analysis directory `root`, as lines."""
    problems, notes = [], []
    for rel in python_files(root):
        text = open(os.path.join(root, rel), encoding="utf-8").read()
        top = os.sep not in rel
        for n, line in enumerate(text.splitlines(), 1):
            code = line.split("#", 1)[0]
            if PATH_EDIT.search(code) and not (top and rel in TOP_LEVEL):
                problems.append("analysis/%s:%d: edits the module path: %s"
                                % (rel, n, line.strip()))
        if rel not in READERS:
            for m in HDF5.finditer("\n".join(ln.split("#", 1)[0] for ln in text.splitlines())):
                ln = text.count("\n", 0, m.start()) + 1
                problems.append("analysis/%s:%d: reads HDF5 itself; read results through "
                                "rcplot.results" % (rel, ln))
        if top and rel not in TOP_LEVEL:
            problems.append("analysis/%s: a script beside rcplot/; make it a tool in "
                            "rcplot/tools/ (python3 -m rcplot TOOL)" % rel)
    for rel in TOP_LEVEL:
        p = os.path.join(root, rel)
        if not os.path.exists(p) or not PATH_EDIT.search(open(p).read()):
            notes.append("note: analysis/%s is listed in TOP_LEVEL but %s; shorten the list"
                         % (rel, "gone" if not os.path.exists(p) else "no longer edits sys.path"))
    tools = tool_table(root)
    listed = set()
    for name, (mod, _) in tools.items():
        f = os.path.join(root, mod[3:]) if mod.startswith("../") else \
            os.path.join(root, "rcplot", "tools", mod + ".py")
        if not os.path.isfile(f):
            problems.append("rcplot/__main__.py: tool %r names %s, which does not exist"
                            % (name, os.path.relpath(f, root)))
        if not mod.startswith("../"):
            listed.add(mod)
    tdir = os.path.join(root, "rcplot", "tools")
    for f in sorted(os.listdir(tdir)) if os.path.isdir(tdir) else []:
        if f.endswith(".py") and f != "__init__.py" and f[:-3] not in listed:
            problems.append("analysis/rcplot/tools/%s: not in python3 -m rcplot's TOOLS" % f)
    if cli_source and os.path.exists(cli_source):
        for name, tool in re.findall(r'\{"([a-z-]+)", "([a-z_-]+)"', open(cli_source).read()):
            if tool not in tools:
                problems.append("%s: rcsim %s runs rcplot tool %r, which TOOLS lacks"
                                % (os.path.basename(cli_source), name, tool))
    return problems, notes


def self_check():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "rcplot", "tools"))
        open(os.path.join(tmp, "rcplot", "__main__.py"), "w").write(
            'TOOLS = {"plot": ("plot", "x")}\n')
        open(os.path.join(tmp, "rcplot", "results.py"), "w").write("import h5py\n")
        plot = os.path.join(tmp, "rcplot", "tools", "plot.py")
        open(plot, "w").write("import os\nfrom rcplot import results\n")
        if check(tmp)[0]:
            return "a clean tree fails: %s" % check(tmp)[0]
        for bad in ("import sys\nsys.path.insert(0, '..')\n", "import sys\nsys.path = ['x']\n",
                    "import sys\nsys.path += ['x']\n", "import h5py\n",
                    "import pandas as pd\npd.read_hdf('x')\n"):
            open(plot, "w").write(bad)
            if not check(tmp)[0]:
                return "a tree with %r passes" % bad
        open(plot, "w").write("import os\n")
        open(os.path.join(tmp, "stray.py"), "w").write("print(1)\n")
        if not check(tmp)[0]:
            return "a new script beside rcplot/ passes"
        os.remove(os.path.join(tmp, "stray.py"))
        open(os.path.join(tmp, "rcplot", "tools", "extra.py"), "w").write("")
        if not check(tmp)[0]:
            return "a tool missing from TOOLS passes"
    return None


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    root = argv[1] if len(argv) > 1 else os.path.join(here, "..", "analysis")
    why = self_check()
    if why:
        print("check_analysis_package: self-check: %s" % why, file=sys.stderr)
        return 2
    cli = os.path.join(root, "..", "src", "cli", "cmd_analysis.c")
    problems, notes = check(root, cli)
    for n in notes:
        print(n)
    for p in problems:
        print(p)
    if problems:
        print("check_analysis_package: %d problem(s): analysis/ is one package (rcplot, run as "
              "python3 -m rcplot TOOL) read through rcplot.results (docs/analysis.md, "
              "\"The tools\")" % len(problems), file=sys.stderr)
        return 1
    print("check_analysis_package: ok (%d tools)" % len(tool_table(root)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
