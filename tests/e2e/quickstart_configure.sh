#!/bin/bash
# scripts/quickstart.sh works in a build directory whatever was configured
# there before.  The issue's sequence (`cmake -S . -B b && cmake -S . -B b
# -DRCSIM_BUILD_TESTING=OFF`) used to fail ("target was not found": the bench's Criterion check
# kept a cached *_FOUND without its imported target).  Each sequence below must configure, and
# quickstart's own configure step (--configure-only: it installs and builds nothing) must then
# succeed and leave the options it asks for.  Configure only, no build: a few seconds each.
source "$(dirname "$0")/rel_lib.sh"
command -v cmake > /dev/null || skip "cmake not found"
S="$RCSIM_SOURCE_DIR"
conf() { # $1 build dir, rest: options
    local b=$1; shift
    cmake -S "$S" -B "$b" "$@" > "$WORK/conf.log" 2>&1 \
        || fail "cmake -S . -B $(basename "$b") $*: $(grep -A3 -E 'Error|error' "$WORK/conf.log" | head -12)"
}
quick() { # $1 build dir
    (cd "$S" && bash scripts/quickstart.sh --build "$1" --configure-only) > "$WORK/q.log" 2>&1 \
        || fail "quickstart.sh after the configures above: $(grep -A3 -E 'Error|error' "$WORK/q.log" | head -12)"
    grep -q "^CMAKE_BUILD_TYPE:STRING=Release$" "$1/CMakeCache.txt" || fail "quickstart left $(grep ^CMAKE_BUILD_TYPE "$1/CMakeCache.txt")"
    grep -q "^RCSIM_SANITIZE:BOOL=OFF$" "$1/CMakeCache.txt" || fail "quickstart left $(grep ^RCSIM_SANITIZE "$1/CMakeCache.txt")"
    grep -q "^RCSIM_BUILD_TESTING:BOOL=OFF$" "$1/CMakeCache.txt" || fail "quickstart left $(grep ^RCSIM_BUILD_TESTING "$1/CMakeCache.txt")"
}
# 1. The issue's sequence, then quickstart.
conf "$WORK/b1"
conf "$WORK/b1" -DRCSIM_BUILD_TESTING=OFF
echo "ok: tests on, then off"
quick "$WORK/b1"
# 2. The same directory made a sanitizer Debug build with tests (as scripts/test.sh makes), then
#    quickstart again.
conf "$WORK/b1" -DCMAKE_BUILD_TYPE=Debug -DRCSIM_SANITIZE=ON -DRCSIM_LTO=OFF -DRCSIM_BUILD_TESTING=ON
quick "$WORK/b1"
echo "ok: sanitizer Debug, quickstart"
echo PASS
