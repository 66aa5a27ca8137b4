"""provenance: which analysis code and which results drew each file of a figure set.

A committed figure set (figures/paper, figures/exact, figures/paper-quick, ...) is only
worth reading if it was drawn by today's analysis code.  Each drawing script calls
record() after writing its files; record() adds one entry per written file to
DIR/provenance.json:

  outputs[name] = {sha256 of the file, tool, code hash, results hash}
  code[hash]    = {analysis source path: sha256}   -- the sources that drawing loaded
  results[hash] = {results path: {sha256, bytes}}  -- the files it was drawn from

The code hash covers exactly the Python sources under analysis/ that were loaded in the
drawing process when it finished (sys.modules), plus the data files the tool names
(paper-values.csv for the comparison), so a change to code the drawing never imports
(report.py, plot.py) does not mark a set stale, and any change to one it does import
does: a new import can only come from an edit to a file already loaded.
python3 -m rcplot check-figures reads these records back.

A file of a set that no tool of today can redraw -- its results files are not kept, or it
is a committed input the drawings read (a study's table of configurations) -- is recorded
by keep() instead: kept[name] = {sha256, made_by (the command that made it), inputs (what
it was made from), why}.  check() holds it to its recorded bytes and names it, but it has
no code hash to go stale; a later record() of the same name (a rerun study) replaces the
entry.

This module itself is left out of the hash: it writes the record and draws nothing.
"""

import hashlib
import json
import os
import sys

# Through links: a build tree's share/rcsim/analysis links to the checkout's, whose
# repository the records name paths in.
ANALYSIS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
ROOT = os.path.dirname(ANALYSIS)
NAME = "provenance.json"
# Written beside the figures by other programs, not drawn by the analysis code:
# reproduce.sh's wall times and `rcsim trace stats`.
NOT_DRAWN = ("provenance.json", "timings.tsv", "traces.tsv")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def digest(mapping):
    """One hash of a {name: sha256} map, independent of its order."""
    h = hashlib.sha256()
    for k in sorted(mapping):
        h.update(("%s\0%s\n" % (k, mapping[k])).encode())
    return h.hexdigest()


def loaded_sources():
    """{path relative to analysis/: sha256} of the analysis sources loaded now."""
    me = os.path.abspath(__file__)
    out = {}
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if not f or not f.endswith(".py"):
            continue
        f = os.path.realpath(f)
        if f == os.path.realpath(me) or not f.startswith(os.path.realpath(ANALYSIS) + os.sep):
            continue
        out[os.path.relpath(f, os.path.realpath(ANALYSIS))] = sha256_file(f)
    main = sys.modules.get("__main__")
    f = getattr(main, "__file__", None)
    if f and os.path.realpath(f).startswith(os.path.realpath(ANALYSIS) + os.sep):
        out[os.path.relpath(os.path.realpath(f), os.path.realpath(ANALYSIS))] = sha256_file(f)
    return out


def _shown(path):
    """A results path as recorded: relative to the repository when inside it (a
    committed record names no one's home directory), else its base name."""
    # Not resolving links: results/ may be a link to where the sweeps ran.
    for a, root in ((os.path.abspath(path), os.path.abspath(ROOT)),
                    (os.path.realpath(path), os.path.realpath(ROOT))):
        if a.startswith(root + os.sep):
            return os.path.relpath(a, root)
    return os.path.basename(path)


def imported_sources(roots):
    """{path relative to analysis/: sha256} of the analysis modules `roots` (module
    objects) and, transitively, every analysis module they hold a name from (a module, or a
    function or class defined in one).  For a drawing that a general command line only
    dispatches to: its record then covers the code that draws, not the command's other
    tools, so editing those leaves the set current.  A new import can only come from an
    edit to a module already covered, as with loaded_sources."""
    import types
    base = os.path.realpath(ANALYSIS) + os.sep
    me = os.path.realpath(__file__)
    seen, todo, out = set(), list(roots), {}
    while todo:
        mod = todo.pop()
        if id(mod) in seen:
            continue
        seen.add(id(mod))
        f = getattr(mod, "__file__", None)
        if not f or not os.path.realpath(f).startswith(base):
            continue
        f = os.path.realpath(f)
        if f != me and f.endswith(".py"):
            out[os.path.relpath(f, os.path.realpath(ANALYSIS))] = sha256_file(f)
        if hasattr(mod, "__path__"):
            continue  # a package: its namespace holds every submodule loaded, used or not
        for v in list(vars(mod).values()):
            if isinstance(v, types.ModuleType):
                todo.append(v)
            else:
                m = sys.modules.get(getattr(v, "__module__", None) or "")
                if m is not None:
                    todo.append(m)
        pkg = sys.modules.get(getattr(mod, "__package__", None) or "")
        if pkg is not None:
            todo.append(pkg)
    return out


def code_files(extra=(), roots=None):
    files = loaded_sources() if roots is None else imported_sources(roots)
    for p in extra:
        a = os.path.realpath(p)
        if a.startswith(os.path.realpath(ANALYSIS) + os.sep):
            files[os.path.relpath(a, os.path.realpath(ANALYSIS))] = sha256_file(a)
    return files


def load(outdir):
    path = os.path.join(outdir, NAME)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def record(outdir, outputs, results_paths, tool, extra_code=(), roots=None):
    """Records that `tool` drew `outputs` (paths of written files in outdir) from
    `results_paths` with the analysis sources loaded now (with `roots`, a list of
    modules: those modules and what they import, imported_sources) and the data files
    `extra_code`.  Call after the files are written and closed."""
    prov = load(outdir) or {}
    prov["about"] = ("Which analysis code and results drew each file here; written by the "
                     "drawing tools (analysis/rcplot/provenance.py), checked by "
                     "python3 -m rcplot check-figures.")
    code = code_files(extra_code, roots)
    code_h = digest(code)
    res = {_shown(p): {"sha256": sha256_file(p), "bytes": os.path.getsize(p)}
           for p in results_paths}
    res_h = digest({k: v["sha256"] for k, v in res.items()})
    prov.setdefault("code", {})[code_h] = code
    prov.setdefault("results", {})[res_h] = res
    outs = prov.setdefault("outputs", {})
    for p in outputs:
        name = os.path.relpath(os.path.realpath(p), os.path.realpath(outdir))
        outs[name] = {"sha256": sha256_file(p), "tool": tool, "code": code_h,
                      "results": res_h}
        prov.get("kept", {}).pop(name, None)
    # Keep only the code and results records some output still refers to.
    used_c = {o["code"] for o in outs.values()}
    used_r = {o["results"] for o in outs.values()}
    prov["code"] = {k: v for k, v in prov["code"].items() if k in used_c}
    prov["results"] = {k: v for k, v in prov["results"].items() if k in used_r}
    tmp = os.path.join(outdir, NAME + ".tmp")
    with open(tmp, "w") as f:
        json.dump(prov, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, os.path.join(outdir, NAME))


def keep(outdir, name, made_by, inputs, why):
    """Records the file `name` of the set in outdir as kept (see the module's text):
    `made_by` the command that made it, `inputs` the files it was made from (paths as
    text; they need not exist here), `why` the reason it is not redrawn."""
    prov = load(outdir) or {}
    prov.setdefault("about", "Which analysis code and results drew each file here; written "
                    "by the drawing tools (analysis/rcplot/provenance.py), checked by "
                    "python3 -m rcplot check-figures.")
    if name in prov.get("outputs", {}):
        raise ValueError("%s: drawn by a recorded tool; it is not kept" % name)
    prov.setdefault("kept", {})[name] = {
        "sha256": sha256_file(os.path.join(outdir, name)), "made_by": made_by,
        "inputs": list(inputs), "why": why}
    tmp = os.path.join(outdir, NAME + ".tmp")
    with open(tmp, "w") as f:
        json.dump(prov, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, os.path.join(outdir, NAME))


def kept(outdir):
    """{name: entry} of the files kept as committed (keep())."""
    return (load(outdir) or {}).get("kept", {})


def check(outdir, results_root=None):
    """Problems with the set in outdir, as sentences ([] when current).  With
    results_root, the recorded results files found under it are compared too."""
    prov = load(outdir)
    if prov is None:
        return ["no %s (drawn by code that recorded no provenance)" % NAME]
    outs = prov.get("outputs", {})
    keep_ = prov.get("kept", {})
    problems = []
    for name in sorted(os.listdir(outdir)):
        full = os.path.join(outdir, name)
        if os.path.isfile(full) and name not in NOT_DRAWN and name not in outs and \
                name not in keep_:
            problems.append("%s: not recorded (drawn by older code, or not redrawn)" % name)
    for name, k in sorted(keep_.items()):
        full = os.path.join(outdir, name)
        if not os.path.exists(full):
            problems.append("%s: kept but missing" % name)
        elif sha256_file(full) != k["sha256"]:
            problems.append("%s: changed since it was kept (redraw it with %s, which records "
                            "it)" % (name, k["made_by"]))
    stale_code = {}
    for name, o in sorted(outs.items()):
        full = os.path.join(outdir, name)
        if not os.path.exists(full):
            problems.append("%s: recorded but missing" % name)
            continue
        if sha256_file(full) != o["sha256"]:
            problems.append("%s: changed since it was drawn" % name)
        stale_code.setdefault(o["code"], []).append(name)
    for h, names in sorted(stale_code.items()):
        files = prov.get("code", {}).get(h)
        if files is None:
            problems.append("%s: no code record %s" % (", ".join(names), h[:12]))
            continue
        changed = []
        for rel, sha in sorted(files.items()):
            p = os.path.join(ANALYSIS, rel)
            if not os.path.exists(p):
                changed.append("analysis/%s (deleted)" % rel)
            elif sha256_file(p) != sha:
                changed.append("analysis/%s" % rel)
        if changed:
            problems.append("code hash %s changed since %s were drawn: %s" % (
                h[:12], _names(names), ", ".join(changed)))
    if results_root is not None:
        for h, files in sorted(prov.get("results", {}).items()):
            for rel, r in sorted(files.items()):
                p = os.path.join(results_root, rel)
                if os.path.exists(p) and sha256_file(p) != r["sha256"]:
                    problems.append("results %s differ from those the figures were drawn "
                                    "from" % rel)
    return problems


def _names(names):
    return ", ".join(names) if len(names) <= 4 else "%s and %d more" % (
        ", ".join(names[:3]), len(names) - 3)
