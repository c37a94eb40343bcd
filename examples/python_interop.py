#!/usr/bin/env python3
"""C++ -> Python: reads the file written by examples/python_interop.cpp.

    ./build/gcc/examples/example_python_interop out.bin
    python3 examples/python_interop.py out.bin

Uses the package in python/ (``pip install ./python``; when it is not
installed, the copy in this repository is used). The file holds three
portable-format messages back to back, decoded here in the order C++ wrote
them. Exit status 0 when every value is the one the C++ side wrote.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

try:
    import bin_serializer  # noqa: F401
except ImportError:  # not installed: use the repository's copy
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

from bin_serializer import decode_from
from bin_serializer.types import f32, i32, i64, u16


@dataclass
class Person:  # struct Person in python_interop.cpp, field for field
    name: str
    id: i32
    email: str
    scores: list[f32]
    active: bool


EXPECTED_PERSON = Person("Ada Lovelace", 1815, "ada@example.com", [2.5, -1.0, 100.25], True)
EXPECTED_READINGS = [1, 2, 3, 65535]
EXPECTED_INVENTORY = {"apples": 12, "pears": -3}


def read_all(path: str | Path) -> tuple[Person, list[int], dict[str, int]]:
    """Decodes the three messages; raises bin_serializer.DecodeError on bad bytes."""
    data = Path(path).read_bytes()
    person, offset = decode_from(Person, data, 0)
    readings, offset = decode_from(list[u16], data, offset)
    inventory, offset = decode_from(dict[str, i64], data, offset)
    if offset != len(data):
        raise ValueError(f"{len(data) - offset} unexpected bytes after the last message")
    return person, readings, inventory


def check(path: str | Path) -> list[str]:
    """Returns the differences from what the C++ example writes (empty: all good)."""
    person, readings, inventory = read_all(path)
    problems = []
    # f32 values come back as the nearest double; these ones are exact.
    if person != EXPECTED_PERSON:
        problems.append(f"person: got {person}, expected {EXPECTED_PERSON}")
    if readings != EXPECTED_READINGS:
        problems.append(f"readings: got {readings}, expected {EXPECTED_READINGS}")
    if inventory != EXPECTED_INVENTORY:
        problems.append(f"inventory: got {inventory}, expected {EXPECTED_INVENTORY}")
    return problems


def main(argv: list[str]) -> int:
    path = argv[1] if len(argv) > 1 else "python_interop.bin"
    problems = check(path)
    for p in problems:
        print("MISMATCH", p, file=sys.stderr)
    if problems:
        return 1
    person, readings, inventory = read_all(path)
    print(f"{path}: {person}, {readings}, {inventory}: all as written by C++")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
