#!/bin/bash
# get-traces.sh: fetches the six availability traces of the paper's artefact
# (github.com/lambdapioneer/rollercoaster, MIT licence) at a pinned commit, with the
# artefact's licence, and checks the sha256 of every file (data/README.md).
# Usage: scripts/get-traces.sh [--mirror DIR_OR_URL] [--manifest FILE] [--list] [DIR]
#        scripts/get-traces.sh --check [--manifest FILE] DIR        (see --help)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The artefact's newest commit when this list was made; the traces are unchanged since its
# first commit (f034da17c62db6701a40ad5d4281f0a7d59b2cd0).
COMMIT=8115413c95c163b6af449ee93d56424cde5d4338
DEFAULT_BASE=https://raw.githubusercontent.com/lambdapioneer/rollercoaster/$COMMIT
# sha256, path in the artefact, name here.  The licence keeps a name that says whose it is.
BUILTIN_MANIFEST="\
86f4f0df673e3553a1f421c2241b822f3a7a00bfc3b58b0464e71c1f62804ad2 input/schedules_gen_os05.txt.gz schedules_gen_os05.txt.gz
a13b6cc727bc6a1a580993b58788624853d03036bdafc99ce91253f7747fa52c input/schedules_gen_os10.txt.gz schedules_gen_os10.txt.gz
5afae4ae28ba9481833790f09bfdf60d1268115f0bca55d26181fa7063471c4c input/schedules_gen_os15.txt.gz schedules_gen_os15.txt.gz
9594442e7f4520402343eefeeff7e8838c10471925b6c91cc386e27d7b846cdf input/schedules_gen_os20.txt.gz schedules_gen_os20.txt.gz
b000cbe35764e6f5a5512f01a73298415c6f745f7c041325f28f424235802916 input/schedules_gen_os25.txt.gz schedules_gen_os25.txt.gz
618bb1342d25f30f5fdbe1bd4c295031cad599ede6c81ac167ddd545e4d8bc35 input/schedules_gen_os30.txt.gz schedules_gen_os30.txt.gz
05ad83ab16adef6c1385bdf20ece73e6e7cb373243ea3015819d5441ff65a595 LICENSE LICENSE-rollercoaster-artefact.txt"

usage() {
    cat <<EOF
usage: scripts/get-traces.sh [--mirror DIR_OR_URL] [--manifest FILE] [--list] [DIR]
       scripts/get-traces.sh --check [--manifest FILE] DIR

Downloads schedules_gen_os{05,10,15,20,25,30}.txt.gz (and the artefact's LICENSE, saved as
LICENSE-rollercoaster-artefact.txt) from the Rollercoaster artefact,
https://github.com/lambdapioneer/rollercoaster (MIT licence), at commit
$COMMIT, into DIR (default: data/availability/ of this checkout, where rcsim looks when run
from the checkout's root), and checks each file's sha256 against the list in this script.
A file already in DIR with the right checksum is kept; a download with the wrong one is not.
Then point rcsim at them:  export RCSIM_DATA_DIR=DIR

  --mirror BASE    fetch from BASE instead of
                   $DEFAULT_BASE
                   (or set RCSIM_TRACES_MIRROR): an http(s):// or file:// URL, or a directory,
                   laid out as the artefact (BASE/input/schedules_gen_os15.txt.gz, BASE/LICENSE);
                   a directory may also hold the files under their names here (a copy made
                   by this script: BASE/schedules_gen_os15.txt.gz, ...)
  --manifest FILE  the files and checksums to expect instead of the built-in list, one
                   "SHA256 PATH-IN-ARTEFACT NAME-HERE" per line (for tests, or another version)
  --check          download nothing: verify the files in DIR.  Every file under input/ must
                   be there with the right checksum; the licence is checked when present
  --list           print each source and its destination; download nothing
  -h, --help       this help

Exit status: 0 every file present and verified; 1 a file is missing, could not be fetched
or has the wrong checksum (named on stderr); 2 bad usage.  Downloads use curl, else wget,
else Python's urllib.
EOF
}

BASE=${RCSIM_TRACES_MIRROR:-$DEFAULT_BASE}
MANIFEST_FILE=""
MODE="get"
DIR=""
while [ $# -gt 0 ]; do
    case "$1" in
        --mirror) BASE=${2:?--mirror needs a directory or URL}; shift ;;
        --mirror=*) BASE=${1#*=} ;;
        --manifest) MANIFEST_FILE=${2:?--manifest needs a file}; shift ;;
        --manifest=*) MANIFEST_FILE=${1#*=} ;;
        --check) MODE=check ;;
        --list) MODE=list ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "get-traces.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) [ -z "$DIR" ] || { echo "get-traces.sh: more than one DIR (see --help)" >&2; exit 2; }
           DIR=$1 ;;
    esac
    shift
done
if [ -z "$DIR" ]; then
    [ "$MODE" != check ] || { echo "get-traces.sh: --check needs DIR" >&2; exit 2; }
    DIR=$ROOT/data/availability
fi
BASE=${BASE%/}

if [ -n "$MANIFEST_FILE" ]; then
    [ -r "$MANIFEST_FILE" ] || { echo "get-traces.sh: cannot read manifest $MANIFEST_FILE" >&2; exit 2; }
    MANIFEST=$(grep -v '^[[:space:]]*\(#\|$\)' "$MANIFEST_FILE" || true)
else
    MANIFEST=$BUILTIN_MANIFEST
fi
n_files=0
while read -r sum path name extra; do
    if [[ ! "$sum" =~ ^[0-9a-f]{64}$ ]] || [ -z "$path" ] || [ -z "$name" ] || [ -n "$extra" ] ||
       [[ "$name" == */* ]]; then
        echo "get-traces.sh: bad manifest line: $sum $path $name $extra" >&2
        exit 2
    fi
    n_files=$((n_files + 1))
done <<< "$MANIFEST"
[ "$n_files" -gt 0 ] || { echo "get-traces.sh: empty manifest" >&2; exit 2; }

sha256() { sha256sum "$1" | cut -d' ' -f1; }
is_url() { case "$1" in http://*|https://*|file://*) return 0 ;; *) return 1 ;; esac; }

# source PATH NAME: where this file comes from (a URL, or a path in a mirror directory).
source_of() {
    if is_url "$BASE"; then
        echo "$BASE/$1"
    elif [ -f "$BASE/$1" ] || [ ! -f "$BASE/$2" ]; then
        echo "$BASE/$1"
    else
        echo "$BASE/$2"
    fi
}

# fetch SOURCE DEST: copies or downloads one file; non-zero when it cannot.
fetch() {
    if ! is_url "$1"; then
        cp -- "$1" "$2"
    elif command -v curl > /dev/null; then
        curl -fsSL --retry 3 -o "$2" -- "$1"
    elif command -v wget > /dev/null; then
        wget -q -O "$2" -- "$1"
    else
        /usr/bin/python3 -c 'import shutil, sys, urllib.request
with urllib.request.urlopen(sys.argv[1]) as r, open(sys.argv[2], "wb") as f:
    shutil.copyfileobj(r, f)' "$1" "$2"
    fi
}

if [ "$MODE" = list ]; then
    while read -r sum path name; do
        echo "$(source_of "$path" "$name") -> $DIR/$name (sha256 $sum)"
    done <<< "$MANIFEST"
    exit 0
fi

if [ "$MODE" = check ]; then
    bad=0
    while read -r sum path name; do
        f=$DIR/$name
        if [ ! -f "$f" ]; then
            case "$path" in
                input/*) echo "get-traces.sh: $name: missing in $DIR" >&2; bad=$((bad + 1)) ;;
                *) echo "note: $name not in $DIR (not checked)" ;;
            esac
        elif [ "$(sha256 "$f")" != "$sum" ]; then
            echo "get-traces.sh: $name: sha256 $(sha256 "$f"), expected $sum" >&2
            bad=$((bad + 1))
        else
            echo "ok: $name"
        fi
    done <<< "$MANIFEST"
    [ "$bad" = 0 ] || { echo "get-traces.sh: $bad file(s) in $DIR missing or wrong" >&2; exit 1; }
    exit 0
fi

# stale DEST: a note when DIR already holds a copy with the wrong checksum (left as it is).
stale() { [ ! -f "$1" ] || echo "; the copy already in $DIR has the wrong checksum"; }

mkdir -p -- "$DIR"
TMP=""
trap '[ -z "$TMP" ] || rm -f -- "$TMP"' EXIT
echo "get-traces.sh: from $BASE into $DIR"
bad=0
while read -r sum path name; do
    dest=$DIR/$name
    if [ -f "$dest" ] && [ "$(sha256 "$dest")" = "$sum" ]; then
        echo "ok: $name (already there)"
        continue
    fi
    src=$(source_of "$path" "$name")
    TMP=$DIR/.$name.part.$$
    if ! fetch "$src" "$TMP" < /dev/null; then
        echo "get-traces.sh: $name: cannot fetch $src$(stale "$dest")" >&2
        rm -f -- "$TMP"; bad=$((bad + 1)); continue
    fi
    got=$(sha256 "$TMP")
    if [ "$got" != "$sum" ]; then
        echo "get-traces.sh: $name: sha256 $got, expected $sum (from $src); not kept$(stale "$dest")" >&2
        rm -f -- "$TMP"; bad=$((bad + 1)); continue
    fi
    chmod 644 -- "$TMP"
    mv -f -- "$TMP" "$dest"
    TMP=""
    echo "ok: $name (sha256 verified)"
done <<< "$MANIFEST"
if [ "$bad" != 0 ]; then
    echo "get-traces.sh: $bad of $n_files file(s) failed" >&2
    exit 1
fi
echo "get-traces.sh: all $n_files files in $DIR verified.  Use them with:"
echo "  export RCSIM_DATA_DIR=$(cd "$DIR" && pwd)"
