# shellcheck shell=bash
# Sourced by the scripts (not run): where the paper's availability traces are.  rcsim looks
# up a trace name in --data-dir, then $RCSIM_DATA_DIR, then ./data/availability (where
# scripts/get-traces.sh puts them; the scripts run from the checkout's root).  A development
# machine may keep a copy beside the checkout, in ../shared/data/availability: it is used
# only when that directory exists and RCSIM_DATA_DIR is unset.  The binary itself never
# looks there.  Needs ROOT (the checkout's root, absolute).

if [ -z "${RCSIM_DATA_DIR:-}" ] && [ -d "$ROOT/../shared/data/availability" ]; then
    RCSIM_DATA_DIR=$(cd "$ROOT/../shared/data/availability" && pwd)
    export RCSIM_DATA_DIR
fi

# rcsim_traces_missing FILE...: prints, on one line, the paper's trace names (gen_osNN) that
# the sweep files use (outside comments) and rcsim would not find; nothing when all are there.
rcsim_traces_missing() {
    local name out=""
    # shellcheck disable=SC2013  # the names are single words
    for name in $(sed 's/#.*//' "$@" 2>/dev/null | grep -oE 'gen_os[0-9]{2}' | sort -u); do
        [ -n "${RCSIM_DATA_DIR:-}" ] && [ -f "$RCSIM_DATA_DIR/schedules_$name.txt.gz" ] && continue
        [ -f "$ROOT/data/availability/schedules_$name.txt.gz" ] && continue
        out="$out${out:+ }$name"
    done
    [ -z "$out" ] || echo "$out"
}

# rcsim_traces_hint WHAT NAMES: says on stderr that WHAT needs the traces NAMES and how to
# get them.
rcsim_traces_hint() {
    cat >&2 <<EOF
$1 needs the paper's availability traces ($2), found neither in
RCSIM_DATA_DIR (${RCSIM_DATA_DIR:-unset}) nor in $ROOT/data/availability.  Fetch them with
    scripts/get-traces.sh          (into data/availability/, checked by sha256; data/README.md)
or point RCSIM_DATA_DIR at a copy.
EOF
}
