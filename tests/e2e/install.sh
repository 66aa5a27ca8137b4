#!/bin/bash
# e2e: rcsim installs like HPC software.
#  1. `cmake --install BUILD --prefix P` lays out bin/rcsim, share/rcsim/{analysis,slurm,experiments,scripts},
#     share/doc/rcsim and the modulefiles share/modulefiles/rcsim/VERSION{.lua,};
#  2. the installed binary finds its files under P (not in the build or source tree), also when
#     the whole prefix is moved; a binary without share/rcsim beside it says where it looked;
#  3. Lmod: `module load rcsim` (the .lua file) puts P/bin on PATH and sets RCSIM_PREFIX, and
#     RCSIM_DATA_DIR only when P/share/rcsim/data/availability exists; `rcsim --version` names
#     the build; unload takes it all back;
#  4. with the module loaded, in a directory outside the source tree: `mpirun rcsim sweep` of
#     the installed ci-small sweep, then `rcsim summarize`, `rcsim plot` and `rcsim figures` on
#     its output;
#  5. the Tcl modulefile: through Lmod's Tcl support, through Environment Modules' modulecmd.tcl
#     when that is installed (Debian's environment-modules package conflicts with lmod, so
#     usually it is not), and always in plain tclsh with the module commands stubbed, which
#     checks its syntax and the commands it issues.
# Needs RCSIM (the built binary), RCSIM_BUILD_DIR, and Lmod (Debian package lmod); exits 77
# (skipped) without Lmod.
set -uo pipefail
: "${RCSIM:?RCSIM must point at the rcsim binary}"
: "${RCSIM_BUILD_DIR:?RCSIM_BUILD_DIR must point at the build directory}"
: "${RCSIM_SOURCE_DIR:?RCSIM_SOURCE_DIR must point at the source tree}"
MPIEXEC=${MPIEXEC:-mpirun}
WORK=$(mktemp -d /tmp/rcsim-install.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

LMOD_INIT=""
for f in "${LMOD_PKG:-/usr/share/lmod/lmod}/init/bash" /usr/share/lmod/lmod/init/bash; do
    [ -r "$f" ] && { LMOD_INIT=$f; break; }
done
if [ -z "$LMOD_INIT" ]; then
    echo "SKIP: Lmod is not installed (apt-get install lmod; scripts/deps.sh does)"
    exit 77
fi

VERSION=$("$RCSIM" --version | sed -n '1s/^rcsim \([^ ]*\) .*/\1/p')
[ -n "$VERSION" ] || fail "cannot read the version from rcsim --version"

# ---- 1. the layout --------------------------------------------------------------------------
P="$WORK/prefix"
cmake --install "$RCSIM_BUILD_DIR" --prefix "$P" >"$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log"; fail "cmake --install failed"; }
for f in bin/rcsim share/rcsim/analysis/rcplot/tools/figures.py share/rcsim/analysis/rcplot/__main__.py \
         share/rcsim/analysis/rcplot/tools/summarize.py \
         share/rcsim/analysis/rcplot/figures.py share/rcsim/analysis/paper-values.csv \
         share/rcsim/slurm/rcsim-sweep.sbatch.in share/rcsim/slurm/rcsim-merge.sbatch.in \
         share/rcsim/experiments/ci-small.yaml share/rcsim/experiments/fig5.yaml \
         share/doc/rcsim/README.md share/doc/rcsim/docs/slurm.md share/doc/rcsim/data/README.md \
         "share/modulefiles/rcsim/$VERSION.lua" "share/modulefiles/rcsim/$VERSION"; do
    [ -s "$P/$f" ] || fail "the install lacks $f"
done
[ -x "$P/bin/rcsim" ] || fail "bin/rcsim is not executable"
if [ -f "$RCSIM_SOURCE_DIR/scripts/get-traces.sh" ]; then
    [ -x "$P/share/rcsim/scripts/get-traces.sh" ] || fail "the install lacks share/rcsim/scripts/get-traces.sh"
    "$P/share/rcsim/scripts/get-traces.sh" --help >"$WORK/gt" 2>&1 || fail "installed get-traces.sh --help: $(cat "$WORK/gt")"
    # Its default target is the modulefiles' site trace directory (an empty mirror: nothing
    # is fetched, the first line names the target).
    mkdir -p "$WORK/empty-mirror"
    "$P/share/rcsim/scripts/get-traces.sh" --mirror "$WORK/empty-mirror" >"$WORK/gt" 2>&1
    grep -q "into $P/share/rcsim/data/availability\$" "$WORK/gt" ||
        fail "installed get-traces.sh does not default to $P/share/rcsim/data/availability: $(head -n 3 "$WORK/gt")"
    rm -rf "$P/share/rcsim/data"
fi
! find "$P" -name __pycache__ | grep -q . || fail "the install holds __pycache__ directories"
grep -q "^local prefix = \"$P\"$" "$P/share/modulefiles/rcsim/$VERSION.lua" || fail "the .lua modulefile does not name the prefix $P"
grep -q "^set prefix {$P}$" "$P/share/modulefiles/rcsim/$VERSION" || fail "the Tcl modulefile does not name the prefix $P"
head -n 1 "$P/share/modulefiles/rcsim/$VERSION" | grep -q '^#%Module' || fail "the Tcl modulefile lacks the #%Module cookie"

# ---- 2. the installed binary finds its own files ----------------------------------------------
"$P/bin/rcsim" --version >"$WORK/v" || fail "installed rcsim --version failed"
grep -qx "files:     $P/share/rcsim" "$WORK/v" || fail "installed rcsim does not use $P/share/rcsim: $(cat "$WORK/v")"
cp -a "$P" "$WORK/moved"
"$WORK/moved/bin/rcsim" --version | grep -qx "files:     $WORK/moved/share/rcsim" ||
    fail "a moved install does not find its own share/rcsim"
# Without the module (no PYTHONPATH): the binary hands its own analysis/ to python3 -m rcplot.
env -u PYTHONPATH -u RCSIM_ANALYSIS_DIR "$WORK/moved/bin/rcsim" plot --help >"$WORK/ph" 2>&1 ||
    fail "moved install: rcsim plot --help failed: $(cat "$WORK/ph")"
grep -q -- "--kind" "$WORK/ph" || fail "moved install: rcsim plot --help lacks the tool's options"
# ... also from a directory holding a package of the same name (not put first on the path).
mkdir -p "$WORK/shadow/rcplot" && echo 'raise SystemExit("the working directory shadowed rcplot")' > "$WORK/shadow/rcplot/__init__.py"
(cd "$WORK/shadow" && env -u PYTHONPATH "$WORK/moved/bin/rcsim" plot --help) >"$WORK/ph" 2>&1 ||
    fail "rcsim plot --help run where a ./rcplot exists: $(cat "$WORK/ph")"
mkdir -p "$WORK/lonely/bin" && cp "$P/bin/rcsim" "$WORK/lonely/bin/"
"$WORK/lonely/bin/rcsim" figures x.h5 >"$WORK/out" 2>&1 && fail "rcsim figures ran without share/rcsim"
grep -q "cannot find rcsim's analysis files: no analysis/ in $WORK/lonely/bin/../share/rcsim" "$WORK/out" ||
    fail "rcsim without share/rcsim: unclear message: $(cat "$WORK/out")"

# ---- 3.-4. Lmod and the installed commands --------------------------------------------------
# A clean shell: nothing of the build on PATH, no RCSIM_* from ctest.
cat >"$WORK/lmod.sh" <<EOF
set -u
fail() { echo "FAIL: \$*" >&2; exit 1; }
source "$LMOD_INIT"
module use "$P/share/modulefiles"
! command -v rcsim >/dev/null || fail "rcsim is on PATH before module load: \$(command -v rcsim)"
module load rcsim || fail "module load rcsim failed"
module list 2>&1 | grep -q "rcsim/$VERSION" || fail "module list does not show rcsim/$VERSION"
module show rcsim 2>&1 | grep -q "$P/share/modulefiles/rcsim/$VERSION.lua:\$" || fail "Lmod did not pick the .lua modulefile"
[ "\$(command -v rcsim)" = "$P/bin/rcsim" ] || fail "rcsim on PATH is '\$(command -v rcsim)', want $P/bin/rcsim"
[ "\${RCSIM_PREFIX:-}" = "$P" ] || fail "RCSIM_PREFIX='\${RCSIM_PREFIX:-}', want $P"
[ -z "\${RCSIM_DATA_DIR:-}" ] || fail "RCSIM_DATA_DIR set although $P/share/rcsim/data/availability does not exist"
rcsim --version >version.txt || fail "rcsim --version failed"
cat version.txt
grep -q "^rcsim $VERSION (" version.txt || fail "--version: no version line"
grep -Eq "^build: +[A-Za-z]+, [A-Za-z]+ [0-9.]+, C17" version.txt || fail "--version: no build type and compiler"
grep -q "^libraries: GSL .*HDF5 .*MPI" version.txt || fail "--version: no libraries"

# An installed sweep under MPI, then the installed analysis on its output.
"$MPIEXEC" -np 2 rcsim sweep "\$RCSIM_PREFIX/share/rcsim/experiments/ci-small.yaml" --out r.h5 \
    >sweep.log 2>&1 || { cat sweep.log; fail "installed rcsim sweep under $MPIEXEC failed"; }
grep -q "8 jobs: 8 run" sweep.log || { cat sweep.log; fail "installed sweep did not run 8 jobs"; }
rcsim summarize r.h5 >table.txt 2>&1 || { cat table.txt; fail "installed rcsim summarize failed"; }
[ "\$(grep -Ec '^(16|32) +(rc-k2-p2|unicast) +2 ' table.txt)" = 4 ] || { cat table.txt; fail "rcsim summarize: want 4 configurations of 2 seeds"; }
rcsim plot r.h5 --out plot.png >plot.log 2>&1 || { cat plot.log; fail "installed rcsim plot failed"; }
[ -s plot.png ] || fail "rcsim plot wrote no plot.png"
rcsim figures r.h5 --out figs --fig 5 >figures.log 2>&1 || { cat figures.log; fail "installed rcsim figures failed"; }
[ -s figs/fig5.png ] && [ -s figs/fig5.pdf ] || fail "rcsim figures wrote no figs/fig5.{png,pdf}"
/usr/bin/python3 -c 'import sys; d = open("figs/fig5.png", "rb").read(24); sys.exit(d[:8] != b"\x89PNG\r\n\x1a\n")' ||
    fail "figs/fig5.png is not a PNG"
rcsim figures --help >figures-help.txt 2>&1 || fail "rcsim figures --help failed"
grep -q "rcplot figures, from $P/share/rcsim/analysis" figures-help.txt || fail "rcsim figures --help does not name the installed package"
# The Python API: the module puts the installed analysis/ on PYTHONPATH.
case ":\${PYTHONPATH:-}:" in *":$P/share/rcsim/analysis:"*) ;; *) fail "PYTHONPATH='\${PYTHONPATH:-}' lacks $P/share/rcsim/analysis" ;; esac
if /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
    /usr/bin/python3 -c 'import rcsim, sys; j = rcsim.load_jobs("r.h5"); print(rcsim.__file__, len(j)); sys.exit(len(j) != 8 or list(j["strategy"].cat.categories) != ["unicast", "rc-k2-p2"])' >api.txt 2>&1 ||
        { cat api.txt; fail "installed: from rcsim import load_jobs on the sweep failed"; }
    grep -q "^$P/share/rcsim/analysis/rcsim/__init__.py 8\$" api.txt || { cat api.txt; fail "python3 did not import the installed rcsim package"; }
else
    echo "note: python3-pandas is not installed: rcsim.load_jobs not tried"
fi

# With a site trace directory, the module points RCSIM_DATA_DIR at it.
module unload rcsim
mkdir -p "$P/share/rcsim/data/availability"
module load rcsim
[ "\${RCSIM_DATA_DIR:-}" = "$P/share/rcsim/data/availability" ] || fail "RCSIM_DATA_DIR='\${RCSIM_DATA_DIR:-}' with a site trace directory"
module unload rcsim
! command -v rcsim >/dev/null || fail "rcsim still on PATH after module unload"
[ -z "\${RCSIM_PREFIX:-}" ] && [ -z "\${RCSIM_DATA_DIR:-}" ] || fail "RCSIM_* still set after unload"
[ -z "\${PYTHONPATH:-}" ] || fail "PYTHONPATH='\$PYTHONPATH' still set after unload"

# The Tcl modulefile through Lmod's Tcl support (alone in its own tree: beside the .lua file
# Lmod would pick that one).
mkdir -p tclmods/rcsim && cp "$P/share/modulefiles/rcsim/$VERSION" tclmods/rcsim/
module unuse "$P/share/modulefiles"
module use "\$PWD/tclmods"
module load rcsim || fail "Lmod: module load of the Tcl modulefile failed"
module show rcsim 2>&1 | grep -q "tclmods/rcsim/$VERSION:\$" || fail "Lmod did not load the Tcl modulefile"
[ "\$(command -v rcsim)" = "$P/bin/rcsim" ] || fail "Tcl modulefile: rcsim on PATH is '\$(command -v rcsim)'"
[ "\${RCSIM_PREFIX:-}" = "$P" ] || fail "Tcl modulefile: RCSIM_PREFIX='\${RCSIM_PREFIX:-}'"
[ "\${RCSIM_DATA_DIR:-}" = "$P/share/rcsim/data/availability" ] || fail "Tcl modulefile: RCSIM_DATA_DIR='\${RCSIM_DATA_DIR:-}'"
[ "\${PYTHONPATH:-}" = "$P/share/rcsim/analysis" ] || fail "Tcl modulefile: PYTHONPATH='\${PYTHONPATH:-}'"
rcsim --version >/dev/null || fail "Tcl modulefile: rcsim --version failed"
module unload rcsim
! command -v rcsim >/dev/null || fail "Tcl modulefile: rcsim still on PATH after unload"
rmdir "$P/share/rcsim/data/availability"
echo "lmod \${LMOD_VERSION:-?}: ok"
EOF
mkdir -p "$WORK/run"
(cd "$WORK/run" && env -i HOME="$WORK" PATH=/usr/local/bin:/usr/bin:/bin TERM=dumb ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} ${UBSAN_OPTIONS:+UBSAN_OPTIONS="$UBSAN_OPTIONS"} \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    bash --noprofile --norc "$WORK/lmod.sh") || fail "the Lmod checks failed (above)"

# ---- 5. the Tcl modulefile outside Lmod -------------------------------------------------------
TCLMOD="$P/share/modulefiles/rcsim/$VERSION"
EMCMD=""
for f in /usr/share/modules/libexec/modulecmd.tcl /usr/lib/x86_64-linux-gnu/modulecmd.tcl \
         /usr/share/Modules/libexec/modulecmd.tcl; do
    [ -r "$f" ] && { EMCMD=$f; break; }
done
if [ -n "$EMCMD" ] && command -v tclsh >/dev/null; then
    out=$(MODULEPATH="$P/share/modulefiles" tclsh "$EMCMD" sh load rcsim 2>"$WORK/em.err") ||
        fail "Environment Modules: load failed: $(cat "$WORK/em.err")"
    (eval "$out"; [ "$(command -v rcsim)" = "$P/bin/rcsim" ] && [ "$RCSIM_PREFIX" = "$P" ]) ||
        fail "Environment Modules: PATH/RCSIM_PREFIX not set by the Tcl modulefile"
    echo "environment-modules ($EMCMD): ok"
else
    echo "note: Environment Modules is not installed (Debian's environment-modules package removes"
    echo "      lmod); the Tcl modulefile was checked with Lmod's Tcl support above and with tclsh below"
fi
command -v tclsh >/dev/null || fail "tclsh is not installed (Debian package tcl)"
# The modulefile in plain Tcl, with the module commands stubbed to print what they are asked.
cat >"$WORK/stub.tcl" <<'EOF'
set ModulesCurrentModulefile [lindex $argv 0]
proc module-whatis {args} { puts "whatis [join $args]" }
proc conflict {args} { puts "conflict [join $args]" }
proc prepend-path {var val} { puts "prepend-path $var $val" }
proc setenv {var val} { puts "setenv $var $val" }
proc module {args} { puts "module [join $args]" }
source [lindex $argv 0]
if {[llength [info procs ModulesHelp]] != 1} { puts "no ModulesHelp"; exit 1 }
EOF
tclsh "$WORK/stub.tcl" "$TCLMOD" >"$WORK/tcl.out" 2>&1 || fail "tclsh: the Tcl modulefile does not run: $(cat "$WORK/tcl.out")"
for line in "prepend-path PATH $P/bin" "prepend-path PYTHONPATH $P/share/rcsim/analysis" "setenv RCSIM_PREFIX $P" "conflict rcsim" "whatis Version: $VERSION"; do
    grep -qxF "$line" "$WORK/tcl.out" || fail "tclsh: the Tcl modulefile does not issue '$line': $(cat "$WORK/tcl.out")"
done
echo "PASS: install (prefix $P)"
