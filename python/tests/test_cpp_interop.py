"""Both halves of examples/python_interop.{cpp,py}: runs the C++ example binary
(path in BIN_SERIALIZER_INTEROP_EXE; scripts/test.sh sets it) to write a
portable-format file, then checks it with the Python half, and compares the
error offsets of truncated inputs both languages report. Skipped when the
binary is not given."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dataclasses import dataclass

from bin_serializer import DecodeError, decode
from bin_serializer.types import Array, f32, u8, u16, u32, u64

EXAMPLE_PY = Path(__file__).resolve().parents[2] / "examples" / "python_interop.py"
EXE = os.environ.get("BIN_SERIALIZER_INTEROP_EXE", "")


def _load_example():
    spec = importlib.util.spec_from_file_location("python_interop_example", EXAMPLE_PY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cpp_file(tmp_path_factory):
    if not EXE:
        pytest.skip("BIN_SERIALIZER_INTEROP_EXE not set (path of example_python_interop)")
    out = tmp_path_factory.mktemp("interop") / "python_interop.bin"
    subprocess.run([EXE, str(out), str(out.with_suffix(".truncations.txt"))], check=True, timeout=60)
    return out


def test_python_reads_what_cpp_wrote(cpp_file):
    example = _load_example()
    assert example.check(cpp_file) == []
    assert example.main(["python_interop.py", str(cpp_file)]) == 0


def test_truncated_cpp_file_is_a_decode_error(cpp_file, tmp_path):
    example = _load_example()
    cut = tmp_path / "cut.bin"
    cut.write_bytes(cpp_file.read_bytes()[:-1])
    with pytest.raises(DecodeError):
        example.read_all(cut)


# The structs of the truncation table python_interop.cpp writes, field for field.
@dataclass
class Flat:
    a: u32
    b: u16
    c: u16


@dataclass
class Padded:
    a: u8
    b: u32


@dataclass
class Nested:
    x: Flat
    y: u64


@dataclass
class FlatArray:
    h: u8
    arr: Array[Flat, 2]


@dataclass
class InString:
    s: str
    p: Flat
    t: u32


@dataclass
class Floats:
    a: f32
    b: f32


TRUNCATION_VALUES = {
    "Flat": Flat(1, 2, 3), "Padded": Padded(1, 2), "Nested": Nested(Flat(1, 2, 3), 4),
    "FlatArray": FlatArray(1, [Flat(1, 2, 3), Flat(4, 5, 6)]), "InString": InString("ab", Flat(1, 2, 3), 7),
    "Floats": Floats(1.0, 2.0),
}


def test_truncation_offsets_match_cpp(cpp_file):
    """For every prefix of each C++ encoding, Python (this codec) reports the
    error at the offset the C++ library reports (C++ has one code, truncated,
    for what Python calls truncated or length_exceeds_input)."""
    lines = cpp_file.with_suffix(".truncations.txt").read_text().splitlines()
    assert len(lines) == 3 * len(TRUNCATION_VALUES)
    for line in lines:
        fmt, name, hexdata, *offsets = line.split()
        data = bytes.fromhex(hexdata)
        value = TRUNCATION_VALUES[name]
        assert decode(type(value), data, fmt) == value, line
        assert len(offsets) == len(data), line
        for cut, expected in enumerate(offsets):
            with pytest.raises(DecodeError) as e:
                decode(type(value), data[:cut], fmt)
            assert e.value.kind in ("truncated", "length_exceeds_input"), (line, cut)
            assert e.value.offset == int(expected), (line, cut)
