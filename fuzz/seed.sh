#!/usr/bin/env bash
# Copy every .adm/.acf of examples/ and the shared Adams corpus into the
# libFuzzer corpus fuzz/corpus/reader, and every MotionSolve .xml of
# examples/ and crates/msxml/tests/data into fuzz/corpus/msxml (both
# ignored by git). The shared corpus is found as the tests find it
# (crates/adm/src/corpus.rs): $MBSOLVE_CORPUS if set, else the first
# shared/corpus in the checkout or a directory above it; when there is
# none, it is skipped with a message (a worktree need not have it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)
corpus=""
if [ -n "${MBSOLVE_CORPUS:-}" ]; then
    if [ ! -d "$MBSOLVE_CORPUS" ]; then
        echo "seed.sh: MBSOLVE_CORPUS = $MBSOLVE_CORPUS is not a directory" >&2
        exit 1
    fi
    corpus=$MBSOLVE_CORPUS
else
    d=$root
    while :; do
        if [ -d "$d/shared/corpus" ]; then corpus="$d/shared/corpus"; break; fi
        [ "$d" = / ] && break
        d=$(dirname "$d")
    done
fi
sources=(examples)
if [ -n "$corpus" ]; then
    sources+=("$corpus")
else
    echo "seed.sh: no shared/corpus in $root or above it (set MBSOLVE_CORPUS): seeding from examples/ only" >&2
fi
mkdir -p fuzz/corpus/reader
find "${sources[@]}" \( -name '*.adm' -o -name '*.acf' \) |
while read -r f; do
    rel=${f#"$corpus"/}
    [ "$rel" != "$f" ] && rel="corpus/$rel"
    install -m 644 "$f" "fuzz/corpus/reader/$(echo "$rel" | tr '/' '_')"
done
ls fuzz/corpus/reader | wc -l
mkdir -p fuzz/corpus/msxml
find examples crates/msxml/tests/data -name '*.xml' |
while read -r f; do
    install -m 644 "$f" "fuzz/corpus/msxml/$(echo "$f" | tr '/' '_')"
done
ls fuzz/corpus/msxml | wc -l
