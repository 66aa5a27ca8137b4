#!/bin/bash
# shellcheck disable=SC2015  # "check && check || bad ...": bad() only reports
# scripts/get-traces.sh, offline, against local mirrors (no network here or in CI):
#  - the default source is the artefact's raw files at the pinned commit (--list);
#  - the real traces, when $RCSIM_DATA_DIR holds them, copied and checked against the
#    built-in sha256 list (flat mirror: a directory this script filled);
#  - a mirror laid out as the artefact (input/..., LICENSE) of synthetic files with a
#    --manifest: success (directory and file:// URL), a rerun keeps verified files, a file
#    with a wrong checksum (exit 1, named, not kept; a stale copy is not taken for good),
#    a missing file (exit 1, named), --check, and bad usage (exit 2).
# Needs RCSIM (the binary, for `rcsim trace synth`) and RCSIM_SOURCE_DIR.
set -uo pipefail
: "${RCSIM:?RCSIM must point at the rcsim binary}"
: "${RCSIM_SOURCE_DIR:?RCSIM_SOURCE_DIR must point at the source tree}"
GT="$RCSIM_SOURCE_DIR/scripts/get-traces.sh"
T=$(mktemp -d /tmp/rcsim-get-traces-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# run NAME CMD...: runs CMD with stdout/stderr in $T/NAME.{out,err}; sets rc.
run() { local n=$1; shift; rc=0; "$@" > "$T/$n.out" 2> "$T/$n.err" || rc=$?; }
unset RCSIM_TRACES_MIRROR

# --help and the default source: raw files of lambdapioneer/rollercoaster at the pinned commit.
run help "$GT" --help
[ "$rc" = 0 ] && grep -q "lambdapioneer/rollercoaster" "$T/help.out" || bad "--help"
run list "$GT" --list "$T/nowhere"
commit=$(sed -n 's/^COMMIT=\([0-9a-f]\{40\}\)$/\1/p' "$GT")
[ -n "$commit" ] || bad "no pinned 40-hex COMMIT in get-traces.sh"
want="https://raw.githubusercontent.com/lambdapioneer/rollercoaster/$commit/input/schedules_gen_os15.txt.gz -> $T/nowhere/schedules_gen_os15.txt.gz"
grep -qF "$want" "$T/list.out" || { bad "--list lacks: $want"; cat "$T/list.out"; }
[ "$(grep -c '^https://raw.githubusercontent.com/' "$T/list.out")" = 7 ] || bad "--list: want 7 URLs"
[ ! -e "$T/nowhere" ] || bad "--list created the directory"

# The real traces, when available: the built-in checksums against the files themselves.
if [ -n "${RCSIM_DATA_DIR:-}" ] && "$GT" --check "$RCSIM_DATA_DIR" > /dev/null 2>&1 &&
   [ -f "$RCSIM_DATA_DIR/LICENSE-rollercoaster-artefact.txt" ]; then
    run real "$GT" --mirror "$RCSIM_DATA_DIR" "$T/real"
    [ "$rc" = 0 ] || { bad "real traces: exit $rc"; cat "$T/real.err"; }
    for f in "$RCSIM_DATA_DIR"/schedules_gen_os*.txt.gz "$RCSIM_DATA_DIR/LICENSE-rollercoaster-artefact.txt"; do
        cmp -s "$f" "$T/real/$(basename "$f")" || bad "real: $(basename "$f") not copied identically"
    done
    echo "ok: the real traces in $RCSIM_DATA_DIR match the built-in sha256 list"
else
    echo "note: the real traces are not in RCSIM_DATA_DIR (${RCSIM_DATA_DIR:-unset}):" \
         "the built-in sha256 list is not checked against them, only the mechanics below"
fi

# A synthetic mirror laid out as the artefact, and its manifest.
M=$T/mirror
mkdir -p "$M/input"
: > "$T/manifest"
for x in 05 10 15 20 25 30; do
    f=schedules_gen_os$x.txt.gz
    "$RCSIM" trace synth --online "0.$((50 + 10#$x))" --gaps 4 --gap-median 600 --lines 16 \
        --seed "$((10#$x))" -o "$M/input/$f" > /dev/null || bad "rcsim trace synth $f"
    echo "$(sha256sum < "$M/input/$f" | cut -d' ' -f1) input/$f $f" >> "$T/manifest"
done
echo "synthetic licence text of the mirror" > "$M/LICENSE"
echo "$(sha256sum < "$M/LICENSE" | cut -d' ' -f1) LICENSE LICENSE-rollercoaster-artefact.txt" >> "$T/manifest"

# Success from a directory; every file identical to the mirror's; a rerun keeps them.
run ok "$GT" --mirror "$M" --manifest "$T/manifest" "$T/out"
[ "$rc" = 0 ] || { bad "mirror directory: exit $rc"; cat "$T/ok.err"; }
for x in 05 10 15 20 25 30; do
    cmp -s "$M/input/schedules_gen_os$x.txt.gz" "$T/out/schedules_gen_os$x.txt.gz" || bad "os$x not copied"
done
cmp -s "$M/LICENSE" "$T/out/LICENSE-rollercoaster-artefact.txt" || bad "licence not copied"
[ -z "$(find "$T/out" -name '.*part*')" ] || bad "temporary files left in $T/out"
run again "$GT" --mirror "$M" --manifest "$T/manifest" "$T/out"
[ "$rc" = 0 ] && [ "$(grep -c 'already there' "$T/again.out")" = 7 ] || bad "rerun did not keep the 7 files"
run check "$GT" --check --manifest "$T/manifest" "$T/out"
[ "$rc" = 0 ] || { bad "--check of a good directory: exit $rc"; cat "$T/check.err"; }
# the same through a URL (curl/wget/urllib on file://), and through the environment variable
run url env RCSIM_TRACES_MIRROR="file://$M" "$GT" --manifest "$T/manifest" "$T/out-url"
[ "$rc" = 0 ] || { bad "file:// mirror: exit $rc"; cat "$T/url.err"; }
cmp -s "$M/input/schedules_gen_os20.txt.gz" "$T/out-url/schedules_gen_os20.txt.gz" || bad "file:// copy differs"

# A checksum mismatch: exit 1, the file named, the bad download not kept, the others fetched.
cp -r "$M" "$T/corrupt"
printf 'X' | dd of="$T/corrupt/input/schedules_gen_os15.txt.gz" bs=1 seek=100 conv=notrunc 2> /dev/null
run mismatch "$GT" --mirror "$T/corrupt" --manifest "$T/manifest" "$T/out2"
[ "$rc" = 1 ] || bad "checksum mismatch: exit $rc, want 1"
grep -q "schedules_gen_os15.txt.gz: sha256 .*expected" "$T/mismatch.err" || { bad "mismatch not named"; cat "$T/mismatch.err"; }
[ ! -e "$T/out2/schedules_gen_os15.txt.gz" ] || bad "the file with the wrong checksum was kept"
[ -f "$T/out2/schedules_gen_os20.txt.gz" ] || bad "the good files were not fetched"
[ -z "$(find "$T/out2" -name '.*part*')" ] || bad "temporary files left in $T/out2"
# a wrong copy already in DIR is not taken for a good one: reported by --check and by a fetch
cp "$T/corrupt/input/schedules_gen_os15.txt.gz" "$T/out2/"
run check2 "$GT" --check --manifest "$T/manifest" "$T/out2"
[ "$rc" = 1 ] && grep -q "schedules_gen_os15.txt.gz: sha256" "$T/check2.err" || bad "--check missed a wrong file"
run replace "$GT" --mirror "$M" --manifest "$T/manifest" "$T/out2"
[ "$rc" = 0 ] && cmp -s "$M/input/schedules_gen_os15.txt.gz" "$T/out2/schedules_gen_os15.txt.gz" ||
    bad "a wrong copy in DIR was not replaced by a verified download"

# A missing file: exit 1, named.
cp -r "$M" "$T/partial"
rm "$T/partial/input/schedules_gen_os25.txt.gz"
run missing "$GT" --mirror "$T/partial" --manifest "$T/manifest" "$T/out3"
[ "$rc" = 1 ] || bad "missing file: exit $rc, want 1"
grep -q "schedules_gen_os25.txt.gz: cannot fetch" "$T/missing.err" || { bad "missing file not named"; cat "$T/missing.err"; }
run missing-url "$GT" --mirror "file://$T/partial" --manifest "$T/manifest" "$T/out4"
[ "$rc" = 1 ] && grep -q "schedules_gen_os25.txt.gz: cannot fetch" "$T/missing-url.err" ||
    bad "missing file over file://: exit $rc"
run check3 "$GT" --check --manifest "$T/manifest" "$T/out3"
[ "$rc" = 1 ] && grep -q "schedules_gen_os25.txt.gz: missing" "$T/check3.err" || bad "--check missed a missing file"

# Bad usage: exit 2.
for args in "--bogus" "a b" "--check" "--manifest /nonexistent-manifest"; do
    # shellcheck disable=SC2086  # a word list
    run usage "$GT" $args
    [ "$rc" = 2 ] || bad "get-traces.sh $args: exit $rc, want 2"
done
echo "0000 input/x x" > "$T/badmanifest"
run usage2 "$GT" --manifest "$T/badmanifest" "$T/out5"
[ "$rc" = 2 ] || bad "a bad manifest line: exit $rc, want 2"

[ $fail -eq 0 ] && echo "get_traces: all passed"
exit $fail
