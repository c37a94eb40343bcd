"""Every ```python block of python/README.md runs as written: each in a fresh
namespace, in a temporary directory (files it writes go there). A block that
cannot run alone is preceded by ``<!-- doctest: skip (why) -->``."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)\n```", re.S)


def _blocks() -> list:
    text = README.read_text(encoding="utf-8")
    out = []
    for m in _BLOCK.finditer(text):
        line = text.count("\n", 0, m.start("code")) + 1
        skip = m.group("before").strip().startswith("<!-- doctest: skip")
        out.append(pytest.param(m.group("code"), id=f"line{line}",
                                marks=[pytest.mark.skip(reason=m.group("before").strip())] if skip else []))
    return out


BLOCKS = _blocks()


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("code", BLOCKS)
def test_readme_block_runs(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # a module of its own: dataclasses look their module up in sys.modules
    module = types.ModuleType("readme_block")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(code, str(README), "exec"), module.__dict__)
