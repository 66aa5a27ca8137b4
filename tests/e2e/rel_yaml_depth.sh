#!/bin/bash
# YAML nested deeper than 16 levels is refused before it is parsed (libyaml
# takes time quadratic in the depth: 100k levels in 200 kB took 24 s).  `rcsim plan` and
# `rcsim sweep` exit 2 at once naming file:line; the sweep writes nothing.  Flow style
# ([[[...]]], 100,000 levels) and block style (30 indented levels); the sweep files in
# experiments/ still load.  The timeout below only stops a regression from hanging the suite.
source "$(dirname "$0")/rel_lib.sh"
$PY - "$WORK" <<'PY'
import sys
w = sys.argv[1]
open(w + "/flow.yaml", "w").write("name: deep\ndefaults: {users: 16}\naxes:\n  users: "
                                   + "[" * 100000 + "]" * 100000 + "\n")
open(w + "/block.yaml", "w").write("name: deep\naxes:\n"
                                    + "".join("  " * (i + 1) + "a%d:\n" % i for i in range(30)))
PY
for f in flow block; do
    want_line=$([ $f = flow ] && echo 4 || echo 18)
    for cmd in plan sweep; do
        rc=0
        if [ $cmd = plan ]; then
            timeout 60 "$RCSIM" plan "$WORK/$f.yaml" > /dev/null 2> "$WORK/e" || rc=$?
        else
            timeout 60 "$RCSIM" sweep "$WORK/$f.yaml" --out "$WORK/$f.h5" > /dev/null 2> "$WORK/e" || rc=$?
        fi
        [ "$rc" = 2 ] || fail "rcsim $cmd $f.yaml: exit $rc, want 2 ($(head -c 300 "$WORK/e"))"
        grep -q "$WORK/$f.yaml:$want_line: YAML nested more than 16 levels deep" "$WORK/e" \
            || fail "rcsim $cmd $f.yaml: message: $(head -c 300 "$WORK/e")"
    done
    [ ! -e "$WORK/$f.h5" ] && [ ! -e "$WORK/$f.h5.journal" ] || fail "the refused sweep wrote files"
    echo "ok: $f: $(cat "$WORK/e")"
done
for y in "$RCSIM_SOURCE_DIR"/experiments/*.yaml; do
    RCSIM_DATA_DIR=/nonexistent "$RCSIM" plan "$y" > /dev/null 2> "$WORK/e" || true
    ! grep -q "nested more than" "$WORK/e" || fail "$(basename "$y") is refused as too deep"
done
echo PASS
