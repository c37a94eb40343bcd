"""The Python half of examples/evolution.cpp: five versions of a settings
record, read from the C++ descriptions (no hand-written mirror).

    example_evolution DIR               # C++: settings.vN.FORMAT.bin and .json
    python python/examples/evolution.py DIR

For each format (portable, compact) it loads the five descriptions, checks
that each is a safe change of the one before (``schema.breaking_changes``),
reads every C++ file with every version and checks each field, writes each
version's value from Python and compares the bytes with the C++ file, and lets
version 1 edit version 5's data (the fields v1 does not know survive). Exit
status 0 when everything holds.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from bin_serializer import decode, encode, schema

FORMATS = ("portable", "compact")
VERSIONS = range(1, 6)


def fields_of(version: int, value: Any) -> dict:
    """A version's value as the fields of any version (the C++ `Fields`)."""
    out = {"id": value.id, "user": "", "locale": "", "volume": -1, "theme": ""}
    if version <= 2:
        out["user"] = value.user
    out["locale"] = value.locale if version <= 4 else value.language
    if version >= 2:
        out["volume"] = value.volume
    if version >= 4:
        out["theme"] = value.theme
    return out


def expected(reader: int, writer: int) -> dict:
    """What `reader` finds in `writer`'s data (examples/evolution.cpp)."""
    out = {"id": 100 + writer, "user": "", "locale": "fr_FR", "volume": -1, "theme": ""}
    if reader <= 2:
        out["user"] = f"user of v{writer}" if writer <= 2 else ""
    if reader >= 2:
        out["volume"] = 7 if writer >= 2 else 5
    if reader >= 4:
        out["theme"] = "dark" if writer >= 4 else "light"
    return out


def written_by(cls: Any, version: int) -> Any:
    """The value version `version` writes (the C++ `written_by<V>()`)."""
    kwargs: dict = {"id": 100 + version}
    if version <= 2:
        kwargs["user"] = f"user of v{version}"
    kwargs["locale" if version <= 4 else "language"] = "fr_FR"
    if version >= 2:
        kwargs["volume"] = 7
    if version >= 4:
        kwargs["theme"] = "dark"
    return cls(**kwargs)


def run(directory: Path, fmt: str) -> int:
    failures = 0
    texts = {v: (directory / f"settings.v{v}.{fmt}.json").read_bytes() for v in VERSIONS}
    types = {v: schema.load(texts[v]) for v in VERSIONS}
    data = {v: (directory / f"settings.v{v}.{fmt}.bin").read_bytes() for v in VERSIONS}
    print(f"{fmt}:")
    for v in VERSIONS:
        if v > 1:
            breaks = schema.breaking_changes(texts[v - 1], texts[v])
            if breaks:
                print(f"  v{v - 1} -> v{v}: {breaks}")
                failures += 1
        mine = encode(written_by(types[v], v), fmt)
        same = mine == data[v]
        failures += 0 if same else 1
        line = [f"  v{v} reads"]
        for w in VERSIONS:
            got = decode(types[v], data[w], fmt)
            ok = fields_of(v, got) == expected(v, w)
            failures += 0 if ok else 1
            line.append(f"v{w}:{'ok' if ok else 'FAILED'}")
        line.append(f"(Python's bytes {'equal' if same else 'DIFFER FROM'} C++'s)")
        print("  ".join(line))
    # Version 1 edits version 5's data; version 5 finds its fields.
    old = decode(types[1], data[5], fmt)
    old.id = 999  # in place: dataclasses.replace() would not carry the kept fields
    back = decode(types[5], encode(old, fmt), fmt)
    want = fields_of(5, written_by(types[5], 5))
    want["id"] = 999
    ok = fields_of(5, back) == want
    failures += 0 if ok else 1
    print(f"  v1 edits v5's data, v5 reads it back: {'ok' if ok else 'FAILED'}")
    return failures


def main(argv: list) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    directory = Path(argv[1])
    failures = sum(run(directory, fmt) for fmt in FORMATS)
    print("every version reads every version" if failures == 0 else f"FAILED ({failures})")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
