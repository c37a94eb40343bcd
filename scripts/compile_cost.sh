#!/usr/bin/env bash
# Compile cost of the core: builds bench/compile/thirty_types.cpp (30 message
# types, encoder and decoder in two formats) with g++ -O2 and prints the best
# wall time of N runs and the object's code size.
#
#   scripts/compile_cost.sh [INCLUDE_DIR] [RUNS]
#
# INCLUDE_DIR defaults to this checkout's include/; pass another checkout's to
# compare (the probe only uses the public headers). Pin it to one core and run
# it on an idle machine: it measures time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
inc="${1:-$root/include}"
runs="${2:-3}"
cxx="${CXX:-g++}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
best=""
for _ in $(seq "$runs"); do
  start=$(date +%s.%N)
  taskset -c 0 "$cxx" -std=c++23 -O2 -I"$inc" -c "$root/bench/compile/thirty_types.cpp" -o "$out/t.o"
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc)
  if [[ -z "$best" ]] || (( $(echo "$t < $best" | bc) )); then best=$t; fi
done
text=$(size -A "$out/t.o" | awk '$1 ~ /^\.text/ {s += $2} END {print s}')
printf 'compiler: %s\nbest of %s: %.2f s\n.text bytes: %s\n' "$("$cxx" --version | head -1)" "$runs" "$best" "$text"
