"""The Python package and the C++ library it reads and writes share one version.

version.hpp is the C++ library's only definition (CMake and pkg-config read
it); the package's ``__version__`` (which pyproject.toml reads) must match.
"""
import pathlib
import re

import pytest

import bin_serializer

VERSION_HPP = (pathlib.Path(__file__).resolve().parents[2]
               / "include" / "bin_serializer" / "version.hpp")


def cpp_version():
    text = VERSION_HPP.read_text()
    parts = []
    for name in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"#define BIN_SERIALIZER_VERSION_{name} (\d+)", text)
        assert m, f"BIN_SERIALIZER_VERSION_{name} not found in {VERSION_HPP}"
        parts.append(m.group(1))
    return ".".join(parts)


@pytest.mark.skipif(not VERSION_HPP.exists(), reason="not inside the bin_serializer repository")
def test_package_version_matches_the_cpp_library():
    assert bin_serializer.__version__ == cpp_version()


def test_version_is_semver():
    assert re.fullmatch(r"\d+\.\d+\.\d+", bin_serializer.__version__)
