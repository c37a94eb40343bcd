#!/usr/bin/env bash
# The benchmark report: installs what is missing (Debian 12, apt-get), builds
# the `bench` preset, runs every suite and writes build/bench-report/report.md
# with its charts (raw data in build/bench-report/raw/). The source tree is not
# touched: the committed reference report in bench/results/ changes only with
# --publish.
#
# Usage: ./scripts/bench.sh [--quick] [--jobs N] [--no-deps] [--publish] [--out DIR]
#   --quick    about a minute: 1 repetition, short min time, fewer latency samples
#   --jobs N   parallel build jobs (default: nproc)
#   --no-deps  do not check or install packages
#   --publish  also copy the report and charts to bench/results/ (to commit)
#   --out DIR  where the report goes (default: build/bench-report)
# Environment: ZPP_BITS_DIR=/path/to/zpp_bits and YLT_DIR=/path/to/yalantinglibs
#   add zpp_bits and struct_pack (local checkouts, not Debian packages) to the
#   peers; without them those rows are absent.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"

quick=0
jobs="$(nproc 2>/dev/null || echo 2)"
deps=1
publish=0
RESULTS="$ROOT/build/bench-report"
while (($#)); do
  case "$1" in
    --quick) quick=1; shift ;;
    --publish) publish=1; shift ;;
    --out) RESULTS="$(realpath -m "$2")"; shift 2 ;;
    --out=*) RESULTS="$(realpath -m "${1#--out=}")"; shift ;;
    -j|--jobs) jobs="$2"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    --no-deps) deps=0; shift ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

start_all=$SECONDS
step() { printf '\n==> %s\n' "$*"; }

# ---------------------------------------------------------------------------
# Packages. The build needs the first list; every peer in the second is
# optional (a peer that cannot be installed only loses its rows).
# ---------------------------------------------------------------------------
REQUIRED_PACKAGES=(cmake ninja-build g++ pkg-config libbenchmark-dev zlib1g-dev python3)
OPTIONAL_PACKAGES=(
  python3-matplotlib
  libmsgpack-cxx-dev
  libflatbuffers-dev flatbuffers-compiler
  libfastcdr-dev
  libcereal-dev
  libprotobuf-dev protobuf-compiler
  libcapnp-dev capnproto
  libgrpc++-dev protobuf-compiler-grpc # benchmark_grpc (with the protobuf peer)
)

is_installed() { dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'; }

install_packages() {
  local missing=() pkg
  for pkg in "${REQUIRED_PACKAGES[@]}" "${OPTIONAL_PACKAGES[@]}"; do
    is_installed "$pkg" || missing+=("$pkg")
  done
  if ((${#missing[@]} == 0)); then
    echo "all packages present"
    return 0
  fi
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
      echo "error: missing packages (${missing[*]}), not root and no sudo" >&2
      return 1
    fi
  fi
  echo "installing: ${missing[*]}"
  "${sudo[@]}" apt-get update
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"; then
    # One by one, so an unavailable optional package does not block the rest.
    for pkg in "${missing[@]}"; do
      is_installed "$pkg" && continue
      "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "$pkg" ||
        echo "warning: could not install $pkg" >&2
    done
  fi
  for pkg in "${REQUIRED_PACKAGES[@]}"; do
    if ! is_installed "$pkg"; then
      echo "error: required package $pkg is not installed" >&2
      return 1
    fi
  done
  for pkg in "${OPTIONAL_PACKAGES[@]}"; do
    is_installed "$pkg" || echo "warning: $pkg missing: its benchmark rows or charts will be absent" >&2
  done
}

if ((deps)) && command -v dpkg >/dev/null 2>&1; then
  step "packages"
  install_packages
fi

# ---------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------
step "configure (preset bench)"
# zpp_bits and struct_pack are not Debian packages: they are compiled into
# benchmark_peers only from local checkouts named here (never downloaded).
cmake --preset bench -DBENCH_ZPP_BITS_DIR="${ZPP_BITS_DIR:-}" -DBENCH_YLT_DIR="${YLT_DIR:-}"
step "build"
cmake --build --preset bench --parallel "$jobs" \
  --target benchmark_compare benchmark_stress benchmark_latency benchmark_peers benchmark_log
BIN="$ROOT/build/bench/bench"
# Optional: only configured when gRPC++ and grpc_cpp_plugin are installed.
have_grpc=0
if cmake --build --preset bench --parallel "$jobs" --target benchmark_grpc 2>/dev/null; then
  have_grpc=1
else
  echo "warning: benchmark_grpc not built (libgrpc++-dev, protobuf-compiler-grpc); no gRPC section" >&2
fi

# ---------------------------------------------------------------------------
# Run
# ---------------------------------------------------------------------------
RAW="$RESULTS/raw"
mkdir -p "$RAW"
rm -f "$RAW"/*.json "$RAW"/*.log

if ((quick)); then
  reps=1; min_time=0.01; peers_min_time=0.01; samples=200000; mode=quick
else
  reps=5; min_time=0.1; peers_min_time=0.04; samples=1000000; mode=full
fi
gb_flags=(--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true
          --benchmark_out_format=json --benchmark_counters_tabular=false)
if ((reps > 1)); then gb_flags+=(--benchmark_enable_random_interleaving=true); fi

# Console: only the medians (or the single runs in quick mode), as progress.
show_progress() {
  if ((reps > 1)); then grep --line-buffered -E '^(Benchmark|-{5,}|.*_median )' || true
  else cat; fi
}

load_start="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
declare -A took

run_suite() { # name, binary, min_time, extra args...
  local name="$1" exe="$2" mt="$3"
  shift 3
  step "$name (${reps} repetition(s), min time ${mt} s)"
  local t0=$SECONDS
  "$exe" "${gb_flags[@]}" --benchmark_min_time="$mt" --benchmark_out="$RAW/$name.json" "$@" \
    2> >(tee "$RAW/$name.stderr.log" >&2) | tee "$RAW/$name.log" | show_progress
  took[$name]=$((SECONDS - t0))
}

run_suite compare "$BIN/benchmark_compare" "$min_time"
run_suite stress "$BIN/benchmark_stress" "$min_time"
run_suite log "$BIN/benchmark_log" "$min_time"

step "latency ($samples samples per path)"
t0=$SECONDS
"$BIN/benchmark_latency" --samples="$samples" --out="$RAW/latency.json" | tee "$RAW/latency.log"
took[latency]=$((SECONDS - t0))

run_suite peers "$BIN/benchmark_peers" "$peers_min_time" --meta_out="$RAW/peers_meta.json"

took[grpc]=0
if ((have_grpc)); then
  if ((quick)); then grpc_args=(--calls=500 --rounds=2); else grpc_args=(--calls=2000 --rounds=5); fi
  step "grpc (echo over loopback: protobuf vs bin_serializer, ${grpc_args[*]})"
  t0=$SECONDS
  "$BIN/benchmark_grpc" "${grpc_args[@]}" --out="$RAW/grpc.json" | tee "$RAW/grpc.log" ||
    echo "benchmark_grpc failed; its section is left out of the report" >&2
  took[grpc]=$((SECONDS - t0))
fi

load_end="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"

# ---------------------------------------------------------------------------
# Machine description + report
# ---------------------------------------------------------------------------
version_of() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "not installed"; }
json_str() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
versions="{"
sep=""
for pkg in libbenchmark-dev libmsgpack-cxx-dev libflatbuffers-dev libfastcdr-dev libcereal-dev libprotobuf-dev \
           libcapnp-dev libgrpc++-dev zlib1g-dev; do
  versions+="$sep\"$pkg\": $(json_str "$(version_of "$pkg")")"
  sep=", "
done
versions+="}"
total=$((SECONDS - start_all))
cat > "$RAW/machine.json" <<EOF
{
  "command": $(json_str "./scripts/bench.sh$( ((quick)) && echo ' --quick')"),
  "mode": "$mode",
  "date": $(json_str "$(date -u '+%Y-%m-%d %H:%M UTC')"),
  "cpu_model": $(json_str "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || echo '?')"),
  "cores": $(json_str "$(nproc 2>/dev/null || echo '?')"),
  "memory": $(json_str "$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo 2>/dev/null || echo '?')"),
  "kernel": $(json_str "$(uname -sr)"),
  "compiler_version": $(json_str "$(g++ --version | head -1)"),
  "load_start": $(json_str "$load_start"),
  "load_end": $(json_str "$load_end"),
  "repetitions": $reps,
  "min_time": $(json_str "$min_time (peers: $peers_min_time)"),
  "interleaving": $( ((reps > 1)) && echo true || echo false),
  "latency_samples": $samples,
  "suite_seconds": {"compare": ${took[compare]}, "stress": ${took[stress]}, "latency": ${took[latency]}, "peers": ${took[peers]}, "grpc": ${took[grpc]}},
  "total_seconds": $total,
  "versions": $versions
}
EOF

step "python package vs msgpack and msgspec"
# A private venv: the package and msgpack from PyPI, nothing system-wide. The
# package is built from a copy under build/ (setuptools writes build/ and
# *.egg-info next to the sources it builds).
PYVENV="$ROOT/build/bench-python-venv"
PYSRC="$ROOT/build/bench-python-src"
rm -rf "$PYSRC"
if python3 -m venv "$PYVENV" >/dev/null 2>&1 &&
  cp -r "$ROOT/python" "$PYSRC" &&
  "$PYVENV/bin/python" -m pip install --quiet --disable-pip-version-check "$PYSRC[bench]"; then
  if [[ "$quick" == 1 ]]; then py_args=(--repeat 3 --min-time 0.05 --stream 2000); else py_args=(); fi
  "$PYVENV/bin/python" "$ROOT/python/bench/bench_decode.py" --out "$RESULTS" "${py_args[@]}" ||
    echo "python benchmark failed; its section is left out of the report" >&2
  # encode + decode against msgpack and msgspec (compiled codec)
  if [[ "$quick" == 1 ]]; then py_args=(--repeat 3 --min-time 0.02); else py_args=(); fi
  "$PYVENV/bin/python" "$ROOT/python/bench/bench_python.py" --out "$RESULTS" "${py_args[@]}" ||
    echo "python speed benchmark failed; its section is left out of the report" >&2
else
  echo "could not set up the Python venv; the Python section is left out of the report" >&2
fi

step "report"
# Debian's python3-matplotlib belongs to /usr/bin/python3; another python3
# earlier on PATH (pyenv, a venv) may not see it.
PY=python3
if ! "$PY" -c 'import matplotlib' >/dev/null 2>&1 && [[ -x /usr/bin/python3 ]] &&
  /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1; then
  PY=/usr/bin/python3
fi
"$PY" "$ROOT/bench/report.py" --raw "$RAW" --out "$RESULTS"

if ((publish)); then
  step "publish to bench/results/"
  # The committed reference: the report, its charts and the Python tables;
  # raw data stays under build/.
  PUBLISHED="$ROOT/bench/results"
  mkdir -p "$PUBLISHED"
  if [[ "$(realpath "$RESULTS")" != "$(realpath "$PUBLISHED")" ]]; then
    rm -f "$PUBLISHED"/*.png
    cp "$RESULTS"/report.md "$PUBLISHED"/
    for f in "$RESULTS"/*.png "$RESULTS"/python_decode.json "$RESULTS"/python_decode.md \
    "$RESULTS"/python_speed.json "$RESULTS"/python_speed.md; do
      if [[ -e "$f" ]]; then cp "$f" "$PUBLISHED"/; fi
    done
  fi
  echo "published: bench/results/report.md and charts (commit them)"
fi

rel() { realpath --relative-to="$ROOT" "$1" 2>/dev/null || echo "$1"; }
echo
echo "bench: done in $((SECONDS - start_all)) s (compare ${took[compare]} s, stress ${took[stress]} s," \
     "latency ${took[latency]} s, peers ${took[peers]} s, grpc ${took[grpc]} s)"
echo "bench: report in $(rel "$RESULTS")/report.md, charts $(rel "$RESULTS")/*.png, raw data $(rel "$RAW")/"
((publish)) || echo "bench: the committed reference report (bench/results/) is unchanged; --publish updates it"
