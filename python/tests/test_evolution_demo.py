"""examples/evolution.{cpp,py}: five versions of a record read from the C++
descriptions saved in examples/evolution/, with both codecs: every version
reads every version's C++ bytes, Python writes the same bytes, v1 edits v5's
data without losing v5's fields. With BIN_SERIALIZER_EVOLUTION_EXE (the C++
example, scripts/test.sh sets it) the files are written by C++ now."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAVED = ROOT / "examples" / "evolution"


def _demo():
    spec = importlib.util.spec_from_file_location("evolution_demo", ROOT / "python" / "examples" / "evolution.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_saved_files(capsys):  # both codecs: conftest.py
    assert _demo().main(["evolution.py", str(SAVED)]) == 0, capsys.readouterr().out


def test_files_cpp_writes_now(tmp_path, capsys):
    exe = os.environ.get("BIN_SERIALIZER_EVOLUTION_EXE", "")
    if not exe:
        pytest.skip("BIN_SERIALIZER_EVOLUTION_EXE not set (path of example_evolution)")
    subprocess.run([exe, str(tmp_path)], check=True, stdout=subprocess.DEVNULL, timeout=120)
    assert _demo().main(["evolution.py", str(tmp_path)]) == 0, capsys.readouterr().out
