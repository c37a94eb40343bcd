#!/usr/bin/env bash
# Installs the Debian 12 packages needed to build and test bin_serializer,
# but only if something is missing (nothing is downloaded when everything is
# already there). Can be run directly or sourced (defines install_deps).
#
# Set BIN_SERIALIZER_SKIP_DEPS=1 to skip the check entirely.

BIN_SERIALIZER_DEB_PACKAGES=(
  cmake ninja-build g++ clang-19 libclang-rt-19-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev python3 python3-venv
  python3-dev                   # headers for the Python package's C extension
  g++-s390x-linux-gnu qemu-user # the s390x preset: cross compiler, qemu-s390x
  clang-format-19               # the format stage (scripts/check_format.sh)
  pkgconf                       # consumer.pkgconfig test (installed .pc file)
  python3-jsonschema            # check_schema_descriptions (spec/schema-description.schema.json)
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler # gRPC example + test (gcc preset)
  libzmq3-dev cppzmq-dev        # ZeroMQ example + test (gcc preset)
)

install_deps() {
  if [[ "${BIN_SERIALIZER_SKIP_DEPS:-0}" == 1 ]]; then
    return 0
  fi
  if ! command -v dpkg >/dev/null 2>&1; then
    echo "install_deps: dpkg not found (not a Debian system?); assuming the tools are installed" >&2
    return 0
  fi

  local missing=() pkg
  for pkg in "${BIN_SERIALIZER_DEB_PACKAGES[@]}"; do
    if ! dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed'; then
      missing+=("$pkg")
    fi
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi

  echo "==> installing missing packages: ${missing[*]}"
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "install_deps: missing packages (${missing[*]}) and not root, no sudo available" >&2
      return 1
    fi
  fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  install_deps
fi
