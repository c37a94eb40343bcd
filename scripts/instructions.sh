#!/usr/bin/env bash
# Instructions per operation (valgrind --tool=callgrind) for Person, Car,
# Monster, Tick, strings, 64 small uint32s in a vector and an array (v64,
# a64), 64 two-byte ones in a vector (p64), 1000 int32 identifiers (ids1k),
# 1024 small uint32s after one large one (o1k), the 12-byte Vec, the 80-byte
# LargeStruct and a 256-Tick batch (vec, large, tick256), encode and decode,
# native, portable and compact, with g++ and clang++-19 at -O2 (then, per
# compiler, a record log of the market mix against its bare payloads,
# bench/instructions/log_ops.cpp); zpp_bits and
# struct_pack too when pointed at local checkouts (they are not Debian
# packages and are never downloaded):
#
#   ZPP_BITS_DIR=/path/to/zpp_bits YLT_DIR=/path/to/yalantinglibs ./scripts/instructions.sh
#
# Prints one Markdown table per compiler. Builds under build/instructions/;
# writes nothing else. Counts are per call of the measured loop body (the loop
# itself adds about 4 instructions to every cell).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"
OUT="$ROOT/build/instructions"
mkdir -p "$OUT"
N="${N:-2000}"
inc=(-I"$ROOT/include" -I"$ROOT")
[[ -n "${ZPP_BITS_DIR:-}" ]] && inc+=(-I"$ZPP_BITS_DIR")
[[ -n "${YLT_DIR:-}" ]] && inc+=(-I"$YLT_DIR/include" -I"$YLT_DIR/include/ylt/thirdparty")
libs=(bs bsp bsc)
[[ -n "${ZPP_BITS_DIR:-}" ]] && libs+=(zpp)
[[ -n "${YLT_DIR:-}" ]] && libs+=(sp)
# valgrind 3.19 cannot read clang 19's default DWARF 5: -gdwarf-4.
flags=(-std=c++23 -O2 -DNDEBUG -g -gdwarf-4)
for cxx in g++ clang++-19; do
  command -v "$cxx" >/dev/null || { echo "$cxx not found, skipped" >&2; continue; }
  exe="$OUT/ops_${cxx//+/x}"
  "$cxx" "${flags[@]}" "${inc[@]}" "$ROOT/bench/instructions/ops.cpp" "$ROOT/src/buffer.cpp" -o "$exe"
  echo
  echo "### $cxx ($("$cxx" --version | head -1)), instructions per operation"
  echo
  printf '| workload | op |'; for l in "${libs[@]}"; do printf ' %s |' "$l"; done; echo
  printf '|---|---|'; for _ in "${libs[@]}"; do printf -- '--:|'; done; echo
  for w in person car monster tick s0 s8 s128 v64 a64 p64 ids1k o1k vec large tick256; do
    for op in ser dec; do
      printf '| %s | %s |' "$w" "$op"
      for l in "${libs[@]}"; do
        ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
               --toggle-collect='*run_encode*' --toggle-collect='*run_decode*' \
               "$exe" "$w" "$l" "$op" "$N" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
        printf ' %s |' "$(( ${ir:-0} / N ))"
      done
      echo
    done
  done
  # Record logs (docs/logs.md): instructions per record, 20,000 records.
  lexe="$OUT/log_ops_${cxx//+/x}"
  "$cxx" "${flags[@]}" -I"$ROOT/include" -I"$ROOT" "$ROOT/bench/instructions/log_ops.cpp" "$ROOT/src/buffer.cpp" -o "$lexe"
  echo
  echo "Record log of the market mix (compact), instructions per record:"
  echo
  echo '| op | bare payloads | record log | ratio |'
  echo '|---|--:|--:|--:|'
  for op in ser dec; do
    declare -A per=()
    for what in bare log; do
      ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
             --toggle-collect='*run_encode*' --toggle-collect='*run_decode*' \
             "$lexe" "$what" "$op" 20000 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
      per[$what]=$(( ${ir:-0} / 20000 ))
    done
    printf '| %s | %s | %s | %s |\n' "$op" "${per[bare]}" "${per[log]}" \
      "$(awk -v a="${per[log]}" -v b="${per[bare]}" 'BEGIN { if (b > 0) printf "%.2f", a / b }')"
  done
done
