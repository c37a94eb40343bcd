"""Static typing: py.typed ships, decode() is generic, the Annotated markers
type-check (mypy --strict over tests/typed/example.py), and they work."""

from __future__ import annotations

import datetime
import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import pytest

import bin_serializer
from bin_serializer import decode, encode
from bin_serializer.types import TimePoint, TimePointOf, Variant, from_datetime, i64, to_datetime, u32

TYPED = Path(__file__).parent / "typed"


def test_py_typed_is_installed():
    assert (Path(bin_serializer.__file__).parent / "py.typed").is_file()


def test_typed_example_runs(backend):
    sys.path.insert(0, str(TYPED))
    try:
        import example
    finally:
        sys.path.remove(str(TYPED))
    s = example.roundtrip(example.make())
    assert s.flags == 0xABC and s.reading == Variant(1, "ok") and s.position == [0.5, 1.0, 2.0]
    assert s.taken_at_datetime == datetime.datetime(2026, 11, 23, 12, 0, tzinfo=datetime.timezone.utc)
    data = encode(s)
    # flags: Bits(12) is a 2-byte bitset; elapsed: DurationOf(i64) is 8 bytes
    assert decode(example.Sample, data) == s
    assert list(example.stream(data * 3)) == [s, s, s]


def test_datetime_helpers():
    when = datetime.datetime(2001, 2, 3, 4, 5, 6, 789000, tzinfo=datetime.timezone.utc)
    assert to_datetime(from_datetime(when, "ns"), "ns") == when
    assert from_datetime(when, "s") == 981173106
    assert to_datetime(0, "ms") == datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    assert to_datetime(-1_500_000, "us") == datetime.datetime(1969, 12, 31, 23, 59, 58, 500000,
                                                              tzinfo=datetime.timezone.utc)


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_mypy_accepts_the_typed_example(backend, tmp_path):
    if backend != "python":
        pytest.skip("static check: runs once")
    bad = tmp_path / "bad.py"
    bad.write_text("from bin_serializer import decode\nfrom example import Sample\n"
                   "s: Sample = decode(Sample, b'')\nn: int = decode(Sample, b'')\n")
    env = dict(os.environ, MYPYPATH=str(TYPED))
    cmd = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache")]
    ok = subprocess.run(cmd + [str(TYPED / "example.py")], capture_output=True, text=True, env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # ... and it does check: decode(Sample, ...) is a Sample, not an int
    wrong = subprocess.run(cmd + [str(bad)], capture_output=True, text=True, env=env, cwd=TYPED)
    assert wrong.returncode == 1 and 'Incompatible types in assignment (expression has type "Sample"' in wrong.stdout


@dataclass
class Event:
    id: u32
    at: TimePoint[i64, "ns"]
    seen: Annotated[int, TimePointOf(i64, "ms")]
    history: list[Optional[TimePoint[i64, "s"]]]


def test_time_points_as_datetime(backend):
    when = datetime.datetime(2026, 11, 23, 12, 30, 15, 250000, tzinfo=datetime.timezone.utc)
    e = Event(7, from_datetime(when, "ns"), from_datetime(when, "ms"), [0, None, from_datetime(when, "s")])
    data = encode(e)
    assert data == encode(e.id, schema=u32) + encode([e.at, e.seen], schema=list[i64])[8:] + data[20:]
    assert decode(Event, data) == e  # tick counts unless asked
    d = decode(Event, data, datetimes=True)
    assert (d.id, d.at, d.seen) == (7, when, when)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    assert d.history == [epoch, None, when.replace(microsecond=0)]
