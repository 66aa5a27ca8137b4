#!/bin/bash
# Every input of a sweep is checked before its first job.  A sweep whose trace
# is missing, truncated, corrupt, not gzip, has a bad line or too few lines exits 2 with the
# reason (naming the sweep file's line and the trace file) and writes nothing: no results file,
# no journal, no lock, no manifest.  Also under mpirun -np 2 (every rank exits, nobody hangs).
# So does a --data-dir that does not exist.
source "$(dirname "$0")/rel_lib.sh"
MPIEXEC=${MPIEXEC:-mpirun}
T="$WORK/traces"
mkdir -p "$T"
synth_hour_trace "$T/good.txt.gz" 1
size=$(stat -c %s "$T/good.txt.gz")
head -c $((size / 2)) "$T/good.txt.gz" > "$T/trunc.txt.gz"
# The gzip trailer's CRC-32 of the text, flipped: the data inflates but does not check.
cp "$T/good.txt.gz" "$T/crc.txt.gz"
printf '\xff\xff\xff\xff' | dd of="$T/crc.txt.gz" bs=1 seek=$((size - 8)) conv=notrunc status=none
gzip -dc "$T/good.txt.gz" > "$T/plain.txt"
synth_hour_trace "$T/short.txt.gz" 1 5
{ head -3 "$T/plain.txt"; echo "01x1"; } | gzip > "$T/badline.txt.gz"

# case  --set trace=...  words the message must contain
cases=(
    "missing|nosuch-trace|not found"
    "truncated|$T/trunc.txt.gz|truncated gzip stream"
    "corrupt|$T/crc.txt.gz|corrupt gzip stream"
    "not-gzip|$T/plain.txt|not a gzip file"
    "bad-line|$T/badline.txt.gz|bad character"
    "too-short|$T/short.txt.gz|has 5 lines, the job needs 16"
)
cat > "$WORK/t.yaml" <<YAML
name: inputs
defaults: {duration: 10m, users: 16}
axes:
  trace: [online, $T/good.txt.gz]
  strategy: [unicast, rc-k2-p2]
YAML
"$RCSIM" sweep "$WORK/t.yaml" --out "$WORK/good.h5" > /dev/null 2>&1 || fail "the good sweep failed"
i=0
for c in "${cases[@]}"; do
    IFS='|' read -r name trace words <<< "$c"
    sed "s|$T/good.txt.gz|$trace|" "$WORK/t.yaml" > "$WORK/$name.yaml"
    out="$WORK/$name.h5"
    launch=("$RCSIM")
    # One case under MPI: rank 0 refuses, the workers leave too.
    if [ "$name" = corrupt ]; then launch=(timeout 120 "$MPIEXEC" -np 2 "$RCSIM"); fi
    rc=0; "${launch[@]}" sweep "$WORK/$name.yaml" --out "$out" > "$WORK/o_$name" 2> "$WORK/e_$name" || rc=$?
    [ "$rc" = 2 ] || fail "$name: exit $rc, want 2 ($(cat "$WORK/e_$name"))"
    grep -qF "$words" "$WORK/e_$name" || fail "$name: message lacks '$words': $(cat "$WORK/e_$name")"
    grep -qF "$WORK/$name.yaml:4:" "$WORK/e_$name" || fail "$name: message lacks the sweep line: $(cat "$WORK/e_$name")"
    [ "$name" = missing ] || grep -qF "$trace" "$WORK/e_$name" || fail "$name: message lacks the file $trace"
    grep -q "FAILED" "$WORK/e_$name" && fail "$name: jobs ran and failed instead of a refusal up front"
    for f in "$out" "$out.journal" "$out.lock" "$out.manifest.json"; do
        [ ! -e "$f" ] || fail "$name: wrote $f"
    done
    echo "ok: $name -> $(head -1 "$WORK/e_$name")"
    i=$((i + 1))
done
# A --data-dir that does not exist, for traces given by name, fails every job at dispatch
# (even when $RCSIM_DATA_DIR holds the trace): refused up front too.
mkdir -p "$WORK/data"
cp "$T/good.txt.gz" "$WORK/data/schedules_gen_syn.txt.gz"
sed "s|$T/good.txt.gz|syn|" "$WORK/t.yaml" > "$WORK/byname.yaml"
rc=0; RCSIM_DATA_DIR="$WORK/data" "$RCSIM" sweep "$WORK/byname.yaml" --out "$WORK/dd.h5" \
    --data-dir "$WORK/nodir" > /dev/null 2> "$WORK/e_dd" || rc=$?
[ "$rc" = 2 ] || fail "--data-dir missing: exit $rc, want 2 ($(head -3 "$WORK/e_dd"))"
grep -qF "data_dir: '$WORK/nodir' is not a directory" "$WORK/e_dd" || fail "--data-dir: $(cat "$WORK/e_dd")"
for f in "$WORK/dd.h5" "$WORK/dd.h5.journal"; do [ ! -e "$f" ] || fail "--data-dir missing: wrote $f"; done
echo "ok: $(cat "$WORK/e_dd")"
echo "PASS ($i bad traces and a missing --data-dir refused)"
