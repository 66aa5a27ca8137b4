#!/bin/bash
# Bad input to `rcsim run`: one clear error line naming the problem, exit code
# 2, and no output file.  Then the help texts and messages:
# integer bounds as integers, the 1/30 default, the `--help strategies` topic,
# each data directory listed once, and `--help` on every subcommand.
# Needs RCSIM (the binary).
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

# Integer bounds print as integers, not 1.04858e+06.
expect_error "--users: value '99999999' out of range \[2, 1048576\]" --users 99999999
expect_error "--groups: value '0' out of range \[1, 16777216\]" --groups 0
# RCSIM_DATA_DIR is also rcsim run's --data-dir: the directories tried are each named once.
D="$T/datadir"; mkdir -p "$D"
RCSIM_DATA_DIR="$D" "$RCSIM" run --duration 60 --trace no-such-trace >"$T/stdout" 2>"$T/stderr"
rc=$?
n=$(grep -o -- "$D" "$T/stderr" | wc -l)
if [ $rc -ne 2 ] || [ "$n" -ne 1 ]; then echo "FAIL: trace not found: exit $rc, '$D' named $n times, want 2 and once:"; cat "$T/stderr"; fail=1; fi
grep -q "not found" "$T/stderr" || { echo "FAIL: trace not found: no 'not found'"; cat "$T/stderr"; fail=1; }

# Help: the app rate's default is 1/30 as the paper writes it; no bound or default in
# scientific notation; the strategies topic that the strategy help promises.
"$RCSIM" run --help >"$T/help" 2>&1 || { echo "FAIL: rcsim run --help exited $?"; fail=1; }
grep -Eq -- '^  --app-rate .*\(default: 1/30\)$' "$T/help" || { echo "FAIL: --app-rate default is not shown as 1/30:"; grep -- --app-rate "$T/help"; fail=1; }
grep -q -- "see --help strategies" "$T/help" || { echo "FAIL: run --help no longer points to --help strategies"; fail=1; }
if grep -Eq '[0-9]e[+-][0-9]' "$T/help"; then echo "FAIL: run --help prints a number in e-notation:"; grep -E '[0-9]e[+-][0-9]' "$T/help"; fail=1; fi
for how in "run --help strategies" "run --help=strategies" "--help strategies" "help strategies"; do
  # shellcheck disable=SC2086
  "$RCSIM" $how >"$T/topic" 2>&1 || { echo "FAIL: rcsim $how exited $?"; fail=1; }
  for needle in "rc-kK-pP-ftM" "dropoffline" "rollercoaster-kK-pP" "timeoutNNx" "unicast"; do
    grep -q -- "$needle" "$T/topic" || { echo "FAIL: rcsim $how lacks '$needle'"; fail=1; }
  done
done
"$RCSIM" run --help no-such-topic >"$T/stdout" 2>"$T/stderr"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "topics: strategies" "$T/stderr"; then echo "FAIL: unknown help topic: exit $rc:"; cat "$T/stderr"; fail=1; fi
# The strategies named in the topic's examples are accepted by the parser.
for s in unicast rc-k2-p2 rc-k2 rc-k2-p2-ft rc-k2-p2-ft1.5 rc-k2-p2-ft-dropoffline \
         rollercoaster-k2-p2-timeout10x-dropoffline rollercoaster-k2-p2-notimeout; do
  case $s in *notimeout) ;; *) grep -q -- "$s" "$T/topic" || { echo "FAIL: the strategies topic does not show $s"; fail=1; } ;; esac
  "$RCSIM" run --users 8 --duration 10 --quiet --strategy "$s" || { echo "FAIL: --strategy $s (from the topic) refused"; fail=1; }
done

# Every subcommand listed by `rcsim --help` (and every `rcsim trace` action) has --help:
# exit 0, and on stdout a usage text that names it.
cmds=$("$RCSIM" --help | sed -n '/^commands:/,/^$/p' | awk 'NF >= 2 && $1 != "commands:" {print $1}')
[ "$(echo "$cmds" | wc -w)" -ge 6 ] || { echo "FAIL: rcsim --help lists too few commands: $cmds"; fail=1; }
for c in $cmds "trace stats" "trace synth"; do
  # shellcheck disable=SC2086
  "$RCSIM" $c --help >"$T/stdout" 2>"$T/stderr"
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "^usage: rcsim " "$T/stdout" || ! grep -q "rcsim $c" "$T/stdout"; then
    echo "FAIL: rcsim $c --help: exit $rc, stdout lacks a usage naming 'rcsim $c'"; head -n 3 "$T/stdout" "$T/stderr"; fail=1
  fi
done
"$RCSIM" --version >"$T/stdout" 2>&1 || { echo "FAIL: rcsim --version exited $?"; fail=1; }
grep -q "^rcsim [0-9]" "$T/stdout" || { echo "FAIL: rcsim --version: $(cat "$T/stdout")"; fail=1; }

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
