#!/usr/bin/env bash
# Copy every .adm/.acf of examples/ and ../shared/corpus into the libFuzzer
# corpus fuzz/corpus/reader, and every MotionSolve .xml of examples/ and
# crates/msxml/tests/data into fuzz/corpus/msxml (both ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p fuzz/corpus/reader
find examples ../shared/corpus \( -name '*.adm' -o -name '*.acf' \) 2>/dev/null |
while read -r f; do
    install -m 644 "$f" "fuzz/corpus/reader/$(echo "${f#../}" | tr '/' '_')"
done
ls fuzz/corpus/reader | wc -l
mkdir -p fuzz/corpus/msxml
find examples crates/msxml/tests/data -name '*.xml' 2>/dev/null |
while read -r f; do
    install -m 644 "$f" "fuzz/corpus/msxml/$(echo "$f" | tr '/' '_')"
done
ls fuzz/corpus/msxml | wc -l
