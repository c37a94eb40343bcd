"""Both halves of examples/python_interop.{cpp,py}: runs the C++ example binary
(path in BIN_SERIALIZER_INTEROP_EXE; scripts/test.sh sets it) to write a
portable-format file, then checks it with the Python half. Skipped when the
binary is not given."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bin_serializer import DecodeError

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
    subprocess.run([EXE, str(out)], check=True, timeout=60)
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
