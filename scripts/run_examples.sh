#!/usr/bin/env bash
# Builds the examples (gcc preset) and runs every example_* program, printing
# its output. Exits non-zero if any example fails (or none was found).
#
# Usage: ./scripts/run_examples.sh [--jobs N] [PRESET]   (PRESET defaults to gcc)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"

jobs="$(nproc 2>/dev/null || echo 2)"
preset="gcc"
while (($#)); do
  case "$1" in
    -j|--jobs) jobs="$2"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    -h|--help) sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "error: unknown option $1" >&2; exit 2 ;;
    *) preset="$1"; shift ;;
  esac
done

# shellcheck source=scripts/install_deps.sh
source "$ROOT/scripts/install_deps.sh"
install_deps

echo "==> configure ($preset)"
cmake --preset "$preset"

# examples/<name>.cpp -> target example_<name> (see examples/CMakeLists.txt)
targets=()
for src in examples/*.cpp; do
  [[ -e "$src" ]] || continue
  name="$(basename "$src" .cpp)"
  targets+=("example_$name")
done
if ((${#targets[@]} == 0)); then
  echo "error: no examples/*.cpp found" >&2
  exit 1
fi
declare -A exe_dir
for t in "${targets[@]}"; do exe_dir[$t]=examples; done
# examples/transports/<name>.cpp: only when the preset builds them
# (BIN_SERIALIZER_TRANSPORTS and the library found; see cmake/Transports.cmake).
available="$(cmake --build "$ROOT/build/$preset" --target help 2>/dev/null || true)"
for src in examples/transports/*.cpp; do
  [[ -e "$src" ]] || continue
  name="example_$(basename "$src" .cpp)"
  if grep -q "^$name:" <<<"$available"; then
    targets+=("$name")
    exe_dir[$name]=examples/transports
  fi
done

echo "==> build examples ($preset): ${targets[*]}"
# Only the library and the examples, not the tests.
cmake --build --preset "$preset" --parallel "$jobs" --target "${targets[@]}"

failed=0
ran=0
for t in "${targets[@]}"; do
  exe="$ROOT/build/$preset/${exe_dir[$t]}/$t"
  echo
  echo "================ $t ================"
  ran=$((ran + 1))
  if "$exe"; then
    echo "---------------- $t: OK"
  else
    rc=$?
    echo "---------------- $t: FAILED (exit status $rc)"
    failed=$((failed + 1))
  fi
done

echo
echo "examples: $((ran - failed)) passed, $failed failed"
((failed == 0))
