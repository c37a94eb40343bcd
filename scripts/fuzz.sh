#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang++-19 (ASan + UBSan) and runs
# each for a bounded time on a COPY of its checked-in corpus, then prints
#
#   fuzz: <passed> passed, <failed> failed
#
# (one "passed" per target that ran its time without a finding). Any crash,
# sanitizer report, leak, timeout, out-of-memory or allocation-guard abort is a
# failure; its reproducer is left in build/fuzz/run/<target>/artifacts/.
#
# Environment:
#   FUZZ_SECONDS     seconds per target (default 20)
#   FUZZ_OPT         optimisation of the targets (default -O1: more executions
#                    per second; the test suite's short run uses -O0, which
#                    compiles four times faster with the same checks)
#   FUZZ_JOBS        targets run at the same time (default: nproc)
#   FUZZ_TARGETS     space-separated subset of targets (default: all)
#   FUZZ_BUILD_DIR   build directory (default: build/fuzz)
#   FUZZ_EXTRA_ARGS  extra libFuzzer flags, e.g. "-use_value_profile=1"
# Exit status is non-zero when a target failed or the build failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"

seconds="${FUZZ_SECONDS:-20}"
opt="${FUZZ_OPT:--O1}"
if ! [[ "$opt" =~ ^-O[0-3sgz]$ ]]; then
  echo "error: FUZZ_OPT must be -O0, -O1, -O2, -O3, -Os, -Og or -Oz, got '$opt'" >&2
  exit 2
fi
jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"
build_dir="${FUZZ_BUILD_DIR:-$ROOT/build/fuzz}"
extra_args=()
if [[ -n "${FUZZ_EXTRA_ARGS:-}" ]]; then
  read -r -a extra_args <<<"$FUZZ_EXTRA_ARGS"
fi
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: FUZZ_SECONDS must be a positive integer, got '$seconds'" >&2
  exit 2
fi
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: FUZZ_JOBS must be a positive integer, got '$jobs'" >&2
  exit 2
fi

# ---- packages: only what this script needs, installed only if missing --------
# shellcheck source=scripts/install_deps.sh
source "$ROOT/scripts/install_deps.sh"
BIN_SERIALIZER_DEB_PACKAGES=(cmake ninja-build clang-19 libclang-rt-19-dev)
install_deps

start=$SECONDS
fmt_secs() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# ---- configure + build ------------------------------------------------------------
echo "==> fuzz: configure ($build_dir)"
mkdir -p "$build_dir"
cmake -S "$ROOT" -B "$build_dir" -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$opt -gline-tables-only" \
  -DBIN_SERIALIZER_BUILD_FUZZERS=ON \
  -DBIN_SERIALIZER_FUZZ_ENGINE=libfuzzer \
  -DBIN_SERIALIZER_BUILD_TESTS=OFF \
  -DBIN_SERIALIZER_BUILD_EXAMPLES=OFF \
  -DBIN_SERIALIZER_BUILD_BENCHMARKS=OFF \
  -DBIN_SERIALIZER_INSTALL=OFF >"$build_dir/configure.log" 2>&1 || {
  cat "$build_dir/configure.log" >&2
  echo "fuzz: 0 passed, 1 failed"
  exit 1
}

all_targets="$(sed -n 's/^BIN_SERIALIZER_FUZZ_TARGET_LIST:INTERNAL=//p' "$build_dir/CMakeCache.txt" | tr ';' ' ')"
if [[ -z "$all_targets" ]]; then
  echo "error: no fuzz targets found in $build_dir/CMakeCache.txt" >&2
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
read -r -a targets <<<"${FUZZ_TARGETS:-$all_targets}"

echo "==> fuzz: build ${#targets[@]} targets (jobs: $jobs)"
if ! cmake --build "$build_dir" --parallel "$jobs" --target "${targets[@]}"; then
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
build_secs=$((SECONDS - start))

# ---- run ----------------------------------------------------------------------------
run_root="$build_dir/run"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

run_one() {
  local t="$1" dir="$run_root/$1"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  # A copy: new inputs found by this run never touch the checked-in corpus.
  if [[ -d "$ROOT/fuzz/corpus/$t" ]]; then
    cp -R "$ROOT/fuzz/corpus/$t/." "$dir/corpus/"
  fi
  local inputs=("$dir/corpus")
  # Known reproducers are replayed first (read-only: libFuzzer writes new
  # inputs to the first directory only).
  if [[ -d "$ROOT/fuzz/regressions/$t" ]]; then
    inputs+=("$ROOT/fuzz/regressions/$t")
  fi
  local rc=0
  # The outer timeout only catches a hung binary; libFuzzer's -timeout reports
  # a slow input itself.
  timeout --kill-after=30 $((seconds * 2 + 120)) \
    "$build_dir/fuzz/$t" \
    -max_total_time="$seconds" \
    -print_final_stats=1 \
    -rss_limit_mb=2048 \
    -malloc_limit_mb=256 \
    -timeout=20 \
    -artifact_prefix="$dir/artifacts/" \
    "${extra_args[@]}" \
    "${inputs[@]}" >"$dir/fuzz.log" 2>&1 || rc=$?
  echo "$rc" >"$dir/rc"
}

echo "==> fuzz: run ${#targets[@]} targets x ${seconds}s (jobs: $jobs)"
run_start=$SECONDS
running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
wait || true
run_secs=$((SECONDS - run_start))

# ---- report ---------------------------------------------------------------------------
passed=0
failed=0
rows=()
for t in "${targets[@]}"; do
  dir="$run_root/$t"
  rc="$(cat "$dir/rc" 2>/dev/null || echo 1)"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log" | tail -n 1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/fuzz.log" | tail -n 1)"
  corpus="$(find "$dir/corpus" -type f | wc -l)"
  artifacts="$(find "$dir/artifacts" -type f | wc -l)"
  if [[ "$rc" == 0 && "$artifacts" == 0 ]]; then
    status="ok"
    passed=$((passed + 1))
  else
    status="FAILED (exit $rc)"
    failed=$((failed + 1))
    echo
    echo "---- $t: last lines of $dir/fuzz.log"
    grep -E 'ERROR|SUMMARY|fuzz check failed|allocation guard|Test unit written|runtime error|leak' "$dir/fuzz.log" | head -n 20 || true
    tail -n 15 "$dir/fuzz.log"
    find "$dir/artifacts" -type f -printf '     reproducer: %p\n'
  fi
  rows+=("$(printf '%-32s %12s %9s %7s   %s' "$t" "${execs:-?}" "${rate:-?}" "$corpus" "$status")")
done

echo
echo "================================================================"
printf '%-32s %12s %9s %7s   %s\n' target executions exec/s corpus status
for row in "${rows[@]}"; do
  echo "$row"
done
echo "================================================================"
echo "fuzz: build $(fmt_secs "$build_secs"), run $(fmt_secs "$run_secs"), total $(fmt_secs $((SECONDS - start))); ${seconds}s per target"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes')"
  echo "seconds_per_target: $seconds"
  printf '%s\n' "${rows[@]}"
} >"$run_root/summary.txt"
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
