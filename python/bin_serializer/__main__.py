"""``python -m bin_serializer <command>``.

    python -m bin_serializer generate DESCRIPTION.json [-o module.py] [--custom 'ns::T=module:attr'] [--raw-strings]

``generate`` writes the typed Python module of a C++ type description
(``bin_serializer::schema_json<T, Opts>()``, docs/schema.md): its dataclasses,
``FORMAT``, ``FINGERPRINT``, ``MESSAGE_ID`` and ``ROOT``. Exit status: 0, or 2
with a message on standard error when the description cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from .errors import SchemaError


def _generate(args: argparse.Namespace) -> int:
    from .schema import generate
    customs = {}
    for c in args.custom:
        name, sep, target = c.rpartition("=")
        if not sep or not name:
            print(f"bin_serializer generate: --custom takes 'C++ name=module:attribute', not {c!r}",
                  file=sys.stderr)
            return 2
        customs[name] = target
    try:
        with open(args.description, "rb") as f:
            text = f.read()
    except OSError as e:
        print(f"bin_serializer generate: {e}", file=sys.stderr)
        return 2
    try:
        source = generate(text, customs, raw_strings=args.raw_strings)
    except SchemaError as e:
        print(f"bin_serializer generate: {args.description}: {e}", file=sys.stderr)
        return 2
    if args.output in (None, "-"):
        sys.stdout.write(source)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(source)
    return 0


def main(argv: "Sequence[str] | None" = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bin_serializer",
                                     description="Tools for bin_serializer type descriptions.")
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="write the typed Python module of a type description",
                         description="Write the typed Python module (dataclasses, clean under mypy --strict) "
                                     "of a type description written by bin_serializer::schema_json.")
    gen.add_argument("description", help="the description (JSON)")
    gen.add_argument("-o", "--output", help="the module to write (default: standard output)")
    gen.add_argument("--custom", action="append", default=[], metavar="NAME=MODULE:ATTR",
                     help="the Python hint of a type with its own C++ codec (a 'custom' node), "
                          "e.g. 'ns::Money=bin_serializer.types:i64'; repeatable")
    gen.add_argument("--raw-strings", action="store_true",
                     help="std::string fields as bytes (Annotated[bytes, Text(1)]) instead of str")
    gen.set_defaults(run=_generate)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
