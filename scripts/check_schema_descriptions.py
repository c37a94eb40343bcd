#!/usr/bin/env python3
"""Validate the golden type descriptions (tests/frame/golden/*.json and the
saved descriptions of examples/evolution/, written by
bin_serializer::schema_json<T, Opts>()) against the JSON Schema
spec/schema-description.schema.json, and check that the schema refuses a few
malformed descriptions (so a schema that accepts anything fails this check).

Usage: scripts/check_schema_descriptions.py [--root DIR] [FILE.json ...]

Needs the `jsonschema` package (Debian: python3-jsonschema); without it the
script prints why and exits 77, which ctest reports as skipped.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

SKIP = 77


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args()
    try:
        import jsonschema
    except ImportError:
        print("check_schema_descriptions: the jsonschema package is not installed; skipped")
        return SKIP

    schema = json.loads((args.root / "spec" / "schema-description.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files = args.files or (sorted((args.root / "tests" / "frame" / "golden").glob("*.json")) +
                           sorted((args.root / "examples" / "evolution").glob("*.json")))
    if not files:
        print("check_schema_descriptions: no descriptions found", file=sys.stderr)
        return 1

    problems = 0
    first = None
    for path in files:
        doc = json.loads(path.read_text())
        first = first or doc
        for error in validator.iter_errors(doc):
            problems += 1
            where = "/".join(str(p) for p in error.absolute_path)
            print(f"{path}: {where}: {error.message}", file=sys.stderr)

    # The schema must refuse these.
    bad_cases = {
        "no fingerprint": lambda d: d.pop("fingerprint"),
        "fingerprint not 16 hex digits": lambda d: d.__setitem__("fingerprint", "0x12"),
        "unknown format": lambda d: d.__setitem__("format", "xml"),
        "unknown kind": lambda d: d["type"].__setitem__("kind", "pointer"),
        "extra top-level key": lambda d: d.__setitem__("extra", 1),
        "field without a type": lambda d: d["type"]["fields"][0].pop("type"),
    }
    for what, mutate in bad_cases.items():
        doc = copy.deepcopy(first)
        mutate(doc)
        if validator.is_valid(doc):
            problems += 1
            print(f"schema accepts a description with {what}", file=sys.stderr)

    print(f"check_schema_descriptions: {len(files)} description(s), {problems} problem(s)",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
