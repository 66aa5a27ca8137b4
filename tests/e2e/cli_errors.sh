#!/bin/bash
# Bad input to `rcsim run`: one clear error line naming the problem, exit code
# 2, and no output file.  Needs RCSIM (the binary).
set -uo pipefail
: "${RCSIM:?RCSIM must point at the rcsim binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

expect_error() {  # expect_error "needle" args...
  local needle="$1"; shift
  rm -f "$T/out.h5"
  "$RCSIM" run --duration 60 --out "$T/out.h5" "$@" >"$T/stdout" 2>"$T/stderr"
  local rc=$?
  local lines; lines=$(wc -l <"$T/stderr")
  if [ $rc -ne 2 ]; then echo "FAIL: rcsim run $* exited $rc, want 2"; fail=1; fi
  if [ "$lines" -ne 1 ]; then echo "FAIL: rcsim run $*: $lines stderr lines, want 1:"; cat "$T/stderr"; fail=1; fi
  if ! grep -q -- "$needle" "$T/stderr"; then echo "FAIL: rcsim run $*: stderr lacks '$needle':"; cat "$T/stderr"; fail=1; fi
  if [ -e "$T/out.h5" ] || [ -e "$T/out.h5.tmp" ]; then echo "FAIL: rcsim run $*: output file left behind"; fail=1; fi
  [ $fail -eq 0 ] && echo "ok: $* -> $(cat "$T/stderr")"
}

expect_error "--no-such-option" --no-such-option 3
expect_error "rate-payload" --rate-payload -1
expect_error "rate-delay" --rate-delay abc
expect_error "group_size" --users 10 --group-size 11
expect_error "strategy" --strategy rc-k0-p1
expect_error "users" --users
expect_error "nonexistent-trace" --trace nonexistent-trace
expect_error "scripts/get-traces.sh" --trace nonexistent-trace
# a trace name with a data directory that does not exist (a trace-less run ignores it: below)
expect_error "data_dir: '/nonexistent-rcsim-dir' is not a directory" --trace gen_os15 \
    --data-dir /nonexistent-rcsim-dir
# a malformed trace: second line too short
printf '1111\n11\n1111\n' | gzip >"$T/short.txt.gz"
expect_error "short.txt.gz:2" --trace "$T/short.txt.gz" --users 3 --model exact
# a bad character
printf '1111\n1x11\n1111\n' | gzip >"$T/badchar.txt.gz"
expect_error "badchar.txt.gz:2" --trace "$T/badchar.txt.gz" --users 3
# too few lines for the users (exact model: one line per user)
printf '1111\n1111\n' | gzip >"$T/few.txt.gz"
expect_error "few.txt.gz" --trace "$T/few.txt.gz" --users 3
# a truncated gzip
head -c 2000 /dev/urandom | tr -dc '01' | fold -w 100 | head -n 20 | gzip >"$T/full.txt.gz"
head -c $(( $(stat -c %s "$T/full.txt.gz") / 2 )) "$T/full.txt.gz" >"$T/trunc.txt.gz"
expect_error "trunc.txt.gz" --trace "$T/trunc.txt.gz" --users 3

# and a good run does write the file
"$RCSIM" run --users 16 --duration 600 --out "$T/good.h5" --quiet || { echo "FAIL: good run"; fail=1; }
[ -s "$T/good.h5" ] || { echo "FAIL: good run wrote no file"; fail=1; }
[ -e "$T/good.h5.tmp" ] && { echo "FAIL: temp file left"; fail=1; }
# A run that needs no trace (or names its trace by path) never looks at the data directory.
printf '1111\n1111\n1111\n' | gzip >"$T/ok.txt.gz"
for args in "--data-dir /nonexistent-rcsim-dir" "--trace $T/ok.txt.gz --users 3 --data-dir /nonexistent-rcsim-dir"; do
  # shellcheck disable=SC2086  # a word list
  RCSIM_DATA_DIR=/nonexistent-rcsim-dir "$RCSIM" run --users 16 --duration 600 --quiet $args \
    >/dev/null 2>"$T/stderr" || { echo "FAIL: rcsim run $args with a missing data directory:"; cat "$T/stderr"; fail=1; }
done
if [ $fail -eq 0 ]; then echo "cli_errors: all passed"; fi
exit $fail
