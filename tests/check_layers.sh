#!/bin/bash
# Layers point one way (README "Layout", docs/architecture.md): a file in src/AREA/ may
# include "OTHER/x.h" only when OTHER is AREA itself or a layer below it:
#
#   core < trace < loopix < anon < multicast < workload < exp < io < {farm, speed, slurm} < cli
#
# io, farm, speed and slurm sit side by side above exp; farm (and speed, slurm) may use
# io's results writer, io may use none of them, and they do not include each other.
# Only `#include "..."` lines count; an include without a directory is the file's own
# area.  A file in an area missing from the order is an error too (add the area here).
#
# usage: tests/check_layers.sh [SRC_DIR]   (default: the src/ beside this script)
# Before checking SRC_DIR the script checks itself on a small tree with known violations,
# so a broken pattern cannot pass silently.  Exit 0: clean; 1: violations (listed).
set -u

ORDER="core:0 trace:1 loopix:2 anon:3 multicast:4 workload:5 exp:6 io:7 farm:8 speed:8 slurm:8 cli:9"

# check DIR: prints one line per violation, returns 1 if there is any.
check() {
    local dir=$1
    {
        find "$dir" -type f \( -name '*.c' -o -name '*.h' -o -name '*.h.in' \) -printf 'FILE:%P\n'
        (cd "$dir" && grep -rnE --include='*.c' --include='*.h' --include='*.h.in' \
            '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' .)
    } | sort | awk -v order="$ORDER" '
        BEGIN { n = split(order, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, ":"); rank[p[1]] = p[2] } }
        /^FILE:/ {
            rel = substr($0, 6); area = rel; sub(/\/.*/, "", area)
            if (rel !~ /\// || !(area in rank)) {
                print rel ": area \x27" area "\x27 is not in the layer order (tests/check_layers.sh)"; bad = 1
            }
            next
        }
        {
            line = $0; sub(/^\.\//, "", line)
            file = line; sub(/:.*/, "", file)
            rest = substr(line, length(file) + 2); num = rest; sub(/:.*/, "", num)
            inc = rest; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
            area = file; sub(/\/.*/, "", area)
            if (inc !~ /\// || !(area in rank)) next
            to = inc; sub(/\/.*/, "", to)
            if (!(to in rank)) {
                print file ":" num ": includes \"" inc "\" from unknown area \x27" to "\x27"; bad = 1
            } else if (to != area && rank[to] + 0 >= rank[area] + 0) {
                print file ":" num ": " area " includes \"" inc "\" (" to " is not below " area ")"; bad = 1
            }
        }
        END { exit bad }'
}

self_test() {
    local t
    t=$(mktemp -d)
    trap 'rm -rf "$t"' RETURN
    mkdir -p "$t"/{core,loopix,exp,farm,io,speed}
    printf '#include "core/sim.h"\n#include "local.h"\n#include <stdio.h>\n' > "$t/loopix/ok.c"
    printf '#include "exp/job.h"\n' > "$t/loopix/up.h"
    printf '  # include "loopix/net.h"\n' > "$t/core/up.c"
    printf '#include "io/h5out.h"\n#include "exp/job.h"\n' > "$t/farm/ok.c"
    printf '#include "farm/farm.h"\n' > "$t/io/side.c"
    printf '#include "farm/farm.h"\n' > "$t/speed/side.c"
    local got want
    got=$(check "$t" | cut -d: -f1,2 | LC_ALL=C sort)
    want=$'core/up.c:1\nio/side.c:1\nloopix/up.h:1\nspeed/side.c:1'
    if [[ $got != "$want" ]]; then
        echo "check_layers.sh self-test failed: expected violations"
        echo "$want"
        echo "got"
        echo "$got"
        return 1
    fi
}

src=${1:-$(dirname "$0")/../src}
if [[ ! -f $src/core/sim.h ]]; then
    echo "check_layers.sh: $src is not rcsim's src/ directory" >&2
    exit 2
fi
self_test || exit 1
if check "$src"; then
    echo "layers: every include in $src points down"
else
    echo "layer order: core < trace < loopix < multicast < workload < exp < io < {farm, speed, slurm} < cli"
    exit 1
fi
