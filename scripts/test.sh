#!/usr/bin/env bash
# The full test suite: configure, build and ctest every preset, then print
#
#   total: <passed> passed, <failed> failed
#
# Usage: ./scripts/test.sh [--jobs N] [PRESET...]
#   PRESET defaults to: gcc clang tsan fuzz s390x python conan format
#   (see CMakePresets.json). gcc builds at -O2 with exceptions and RTTI
#   (the hot path forced inline, as users get it, in the tests that
#   tests/CMakeLists.txt names; not in the others, a third of the time),
#   clang unoptimized (the hot path not forced inline: config.hpp) with
#   -fno-exceptions -fno-rtti under AddressSanitizer and
#   UndefinedBehaviorSanitizer (GoogleTest built from source with the same
#   flags): both compilers, both modes, the sanitizers, one build each
#   (a separate ASan build compiled every test a third time). Tests that
#   need exceptions (#if defined(__cpp_exceptions)) run under gcc only.
#   "fuzz" is not a CMake preset: it runs scripts/fuzz.sh (libFuzzer, ASan +
#   UBSan) for FUZZ_SECONDS per target (default here: 5, built at FUZZ_OPT,
#   default here -O0: a smoke run that compiles fast; scripts/fuzz.sh alone
#   defaults to 20 s at -O1) and counts one test per fuzz target. The gcc
#   preset also builds the fuzz targets in replay mode (at -O0) and runs their
#   corpora as ctest tests (fuzz_replay.*), so they compile with both compilers.
#   "python" installs python/ into a venv and runs its pytest suite.
#   "tsan" (ThreadSanitizer) builds and runs only the thread-using tests
#   (BufferPool and I/O): its build and test presets name them.
#   "conan" packages the library with conanfile.py (`conan create`, Conan 2
#   from PyPI in a private venv, CONAN_HOME under build/, no remote) and builds
#   and runs test_package/ against it; counts as 1 test.
#   "format" runs scripts/check_format.sh (clang-format-19 --dry-run over the
#   C++ sources); counts as 1 test.
#   "s390x" cross-compiles for big-endian s390x and runs ctest under qemu-s390x
#   (the golden vectors byte for byte on a big-endian host).
# A preset that fails to configure or build counts as 1 failed test; the
# remaining presets are still run so that one report shows everything.
# Exit status is non-zero when anything failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"

usage() {
  sed -n '2,/^set -euo/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

jobs="$(nproc 2>/dev/null || echo 2)"
presets=()
while (($#)); do
  case "$1" in
    -j|--jobs)
      [[ $# -ge 2 ]] || { echo "error: $1 needs a value" >&2; exit 2; }
      jobs="$2"; shift 2 ;;
    -j*) jobs="${1#-j}"; shift ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "error: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) presets+=("$1"); shift ;;
  esac
done
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: --jobs needs a positive integer, got '$jobs'" >&2
  exit 2
fi
if ((${#presets[@]} == 0)); then
  presets=(gcc clang tsan fuzz s390x python conan format)
fi

# shellcheck source=scripts/install_deps.sh
source "$ROOT/scripts/install_deps.sh"
install_deps

LOG_DIR="$ROOT/build/logs"
mkdir -p "$LOG_DIR"

total_passed=0
total_failed=0
summary=()   # one formatted line per preset

fmt_secs() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# The fuzz stage: scripts/fuzz.sh prints "fuzz: <passed> passed, <failed> failed".
run_fuzz_stage() {
  local log="$LOG_DIR/fuzz.log" rc line
  start=$SECONDS
  passed=0
  failed=0
  skipped=0
  status="ok"
  set +e
  FUZZ_SECONDS="${FUZZ_SECONDS:-5}" FUZZ_OPT="${FUZZ_OPT:--O0}" FUZZ_JOBS="${FUZZ_JOBS:-$jobs}" \
    "$ROOT/scripts/fuzz.sh" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  line="$(grep -E '^fuzz: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)"
  if [[ "$line" =~ ^fuzz:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    passed="${BASH_REMATCH[1]}"
    failed="${BASH_REMATCH[2]}"
  fi
  if ((rc != 0 && failed == 0)); then
    failed=1
    status="fuzz FAILED (exit $rc)"
  elif ((failed > 0)); then
    status="fuzz findings"
  fi
}

# The Python stage: the portable-format package in python/, installed into a
# private venv (nothing touches the system Python) and tested with pytest,
# including the golden vectors in spec/vectors/.
check_python_tree_clean() {
  local left
  left="$(cd "$ROOT/python" && find . -maxdepth 2 \( -name build -o -name '*.egg-info' -o -name dist \) -print)"
  if [[ -n "$left" ]]; then
    echo "python: building the package left files in python/: $left"
    return 1
  fi
}
run_python_stage() {
  local log="$LOG_DIR/python.log" venv="$ROOT/build/python-venv" rc
  start=$SECONDS
  passed=0
  failed=0
  skipped=0
  status="ok"
  # C++ -> Python interop (examples/python_interop.*): python/tests runs the
  # C++ half when it is given the example binary, built here in the gcc tree
  # (configured first when the gcc preset has not run).
  local interop_exe="$ROOT/build/gcc/examples/example_python_interop"
  if { [[ -f "$ROOT/build/gcc/CMakeCache.txt" ]] || cmake --preset gcc >/dev/null; } &&
    cmake --build "$ROOT/build/gcc" --target example_python_interop example_evolution \
      --parallel "$jobs" >/dev/null; then
    export BIN_SERIALIZER_INTEROP_EXE="$interop_exe"
    export BIN_SERIALIZER_EVOLUTION_EXE="$ROOT/build/gcc/examples/example_evolution"
  else
    echo "python: could not build example_python_interop and example_evolution in build/gcc;" \
      "the C++ -> Python interop tests are skipped"
  fi
  # Record logs: the C++ market log example writes a log the Python package reads.
  if [[ -f "$ROOT/build/gcc/CMakeCache.txt" ]] &&
    cmake --build "$ROOT/build/gcc" --target example_market_log --parallel "$jobs" >/dev/null 2>&1; then
    export BIN_SERIALIZER_MARKET_LOG_EXE="$ROOT/build/gcc/examples/example_market_log"
  else
    echo "python: could not build example_market_log in build/gcc; the C++ record log interop test is skipped"
  fi
  # Damaged logs and vectors: the C++ library's verdicts (tests/log/log_verdicts.cpp,
  # tests/format/vector_verdicts.cpp) against the package's.
  if [[ -f "$ROOT/build/gcc/CMakeCache.txt" ]] &&
    cmake --build "$ROOT/build/gcc" --target log_verdicts vector_verdicts --parallel "$jobs" >/dev/null 2>&1; then
    export BIN_SERIALIZER_LOG_VERDICTS_EXE="$ROOT/build/gcc/tests/log_verdicts"
    export BIN_SERIALIZER_VECTOR_VERDICTS_EXE="$ROOT/build/gcc/tests/vector_verdicts"
  else
    echo "python: could not build log_verdicts and vector_verdicts in build/gcc; the C++/Python damage tests are skipped"
  fi
  # The package is built as a wheel (compiling its C extension, which the
  # tests then require) and installed from it; the suite runs every test
  # against both codecs (compiled and pure Python). The build must leave
  # nothing in the source tree (no build/, no *.egg-info).
  local wheel_dir="$ROOT/build/python-wheel"
  rm -rf "$wheel_dir"
  set +e
  {
    python3 -m venv "$venv" &&
      "$venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$wheel_dir" "$ROOT/python" &&
      check_python_tree_clean &&
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
        "$wheel_dir"/bin_serializer-*.whl &&
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check pytest numpy mypy &&
      BIN_SERIALIZER_REQUIRE_EXTENSION=1 "$venv/bin/python" -m pytest "$ROOT/python/tests" -q -p no:cacheprovider
  } 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  local summary_line
  summary_line="$(grep -E '[0-9]+ (passed|failed)' "$log" | tail -n 1 || true)"
  [[ "$summary_line" =~ ([0-9]+)\ passed ]] && passed="${BASH_REMATCH[1]}"
  [[ "$summary_line" =~ ([0-9]+)\ failed ]] && failed="${BASH_REMATCH[1]}"
  [[ "$summary_line" =~ ([0-9]+)\ skipped ]] && skipped="${BASH_REMATCH[1]}"
  if [[ "$summary_line" =~ ([0-9]+)\ errors? ]]; then failed=$((failed + BASH_REMATCH[1])); fi
  if ((rc != 0 && failed == 0)); then
    failed=1
    status="python FAILED (exit $rc)"
  elif ((failed > 0)); then
    status="tests FAILED"
  fi
}

# The Conan stage: conanfile.py creates the package in a private CONAN_HOME
# (build/conan/home, every remote removed, so nothing is downloaded but Conan
# itself), then test_package/ is built and run against it. test_package is
# copied under build/ first: Conan writes its build folder next to the recipe.
# One test.
run_conan_stage() {
  local log="$LOG_DIR/conan.log" venv="$ROOT/build/conan-venv" work="$ROOT/build/conan" rc
  start=$SECONDS
  passed=0
  failed=0
  skipped=0
  status="ok"
  set +e
  (
    set -euo pipefail
    export CONAN_HOME="$work/home"
    local conan="$venv/bin/conan" version
    if ! "$conan" --version >/dev/null 2>&1; then
      python3 -m venv "$venv"
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "conan>=2,<3"
    fi
    "$conan" --version
    mkdir -p "$CONAN_HOME"
    "$conan" profile detect --force >/dev/null
    "$conan" remote remove "*" >/dev/null 2>&1 || true
    version="$(sed -n 's/^#define BIN_SERIALIZER_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
      "$ROOT/include/bin_serializer/version.hpp" | paste -sd.)"
    rm -rf "$work/test_package"
    cp -r "$ROOT/test_package" "$work/test_package"
    settings=(-s compiler.cppstd=23 -s build_type=Release)
    "$conan" create "$ROOT" "${settings[@]}" --build=missing --test-folder=""
    "$conan" test "$work/test_package" "bin_serializer/$version" "${settings[@]}"
  ) 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  if ((rc == 0)) && grep -q '^test_package: bin_serializer ' "$log"; then
    passed=1
  else
    failed=1
    status="conan FAILED (exit $rc)"
  fi
}

# The format stage: every C++ file matches .clang-format. One test.
run_format_stage() {
  local log="$LOG_DIR/format.log" rc
  start=$SECONDS
  passed=0
  failed=0
  skipped=0
  status="ok"
  set +e
  "$ROOT/scripts/check_format.sh" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  if ((rc == 0)); then
    passed=1
  else
    failed=1
    status="$(grep -E '^format: ' "$log" | tail -n 1 || echo "format FAILED (exit $rc)")"
  fi
}

for preset in "${presets[@]}"; do
  if [[ "$preset" == format ]]; then
    echo
    echo "================================================================"
    echo "==> format: scripts/check_format.sh"
    echo "================================================================"
    run_format_stage
    elapsed=$((SECONDS - start))
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    summary+=("$(printf '%-10s %7d %7d %8d   %-8s %s' format "$passed" "$failed" "$skipped" "$(fmt_secs "$elapsed")" "$status")")
    echo "--> format: $passed passed, $failed failed, $(fmt_secs "$elapsed") ($status)"
    continue
  fi
  if [[ "$preset" == conan ]]; then
    echo
    echo "================================================================"
    echo "==> conan: conan create + test_package"
    echo "================================================================"
    run_conan_stage
    elapsed=$((SECONDS - start))
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    summary+=("$(printf '%-10s %7d %7d %8d   %-8s %s' conan "$passed" "$failed" "$skipped" "$(fmt_secs "$elapsed")" "$status")")
    echo "--> conan: $passed passed, $failed failed, $(fmt_secs "$elapsed") ($status)"
    continue
  fi
  if [[ "$preset" == python ]]; then
    echo
    echo "================================================================"
    echo "==> python: pytest python/tests"
    echo "================================================================"
    run_python_stage
    elapsed=$((SECONDS - start))
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    summary+=("$(printf '%-10s %7d %7d %8d   %-8s %s' python "$passed" "$failed" "$skipped" "$(fmt_secs "$elapsed")" "$status")")
    echo "--> python: $passed passed, $failed failed, $skipped skipped, $(fmt_secs "$elapsed") ($status)"
    continue
  fi
  if [[ "$preset" == fuzz ]]; then
    echo
    echo "================================================================"
    echo "==> fuzz: scripts/fuzz.sh   (jobs: $jobs)"
    echo "================================================================"
    run_fuzz_stage
    elapsed=$((SECONDS - start))
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    summary+=("$(printf '%-10s %7d %7d %8d   %-8s %s' fuzz "$passed" "$failed" "$skipped" "$(fmt_secs "$elapsed")" "$status")")
    echo "--> fuzz: $passed passed, $failed failed, $(fmt_secs "$elapsed") ($status)"
    continue
  fi

  # gcc also builds the fuzz targets as replay programs and runs their
  # checked-in corpora under ctest (cheap at -O0, see fuzz/CMakeLists.txt;
  # keeps them compiling with GCC).
  # Clang's build of them is the fuzz stage's (libFuzzer, which replays the
  # same corpora first).
  extra_configure=()
  case "$preset" in
    gcc) extra_configure=(-DBIN_SERIALIZER_BUILD_FUZZERS=ON) ;;
  esac

  echo
  echo "================================================================"
  echo "==> preset: $preset   (jobs: $jobs)"
  echo "================================================================"
  start=$SECONDS
  passed=0
  failed=0
  skipped=0
  status="ok"
  log="$LOG_DIR/$preset.ctest.log"

  echo "--> configure ($preset)"
  if ! cmake --preset "$preset" --fresh "${extra_configure[@]}"; then
    status="configure FAILED"
    failed=1
  else
    echo "--> build ($preset)"
    # -k 0: keep building after an error so the log lists every broken target.
    if ! cmake --build --preset "$preset" --parallel "$jobs" -- -k 0; then
      status="build FAILED"
      failed=1
    else
      echo "--> ctest ($preset)"
      set +e
      ctest --preset "$preset" --output-on-failure --parallel "$jobs" 2>&1 | tee "$log"
      rc=${PIPESTATUS[0]}
      set -e
      # e.g. "92% tests passed, 1 tests failed out of 13"
      line="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)"
      if [[ "$line" =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
        failed="${BASH_REMATCH[1]}"
        passed=$((BASH_REMATCH[2] - BASH_REMATCH[1]))
      fi
      # Disabled/skipped tests are listed under "The following tests did not
      # run:" and are not part of ctest's "out of T" total.
      skipped="$(sed -n '/^The following tests did not run:/,/^$/p' "$log" | grep -cE '^[[:space:]]+[0-9]+ - ' || true)"
      if ((rc != 0 && failed == 0)); then
        # ctest failed without reporting a failed test (no tests found,
        # discovery error, ...): count it as one failure.
        failed=1
        status="ctest FAILED (exit $rc)"
      elif ((failed > 0)); then
        status="tests FAILED"
      fi
    fi
  fi

  elapsed=$((SECONDS - start))
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  summary+=("$(printf '%-10s %7d %7d %8d   %-8s %s' "$preset" "$passed" "$failed" "$skipped" "$(fmt_secs "$elapsed")" "$status")")
  echo "--> $preset: $passed passed, $failed failed, $skipped skipped, $(fmt_secs "$elapsed") ($status)"
done

echo
echo "================================================================"
printf '%-10s %7s %7s %8s   %-8s %s\n' preset passed failed skipped time status
for row in "${summary[@]}"; do
  echo "$row"
done
echo "================================================================"
echo "total: $total_passed passed, $total_failed failed"

((total_failed == 0))
