"""Python type hint -> type description (docs/schema.md), the inverse of schema.load.

``describe(hint, format)`` returns the JSON text of what the C++
``schema_json<T, Opts>()`` says about the C++ type the hint mirrors: the same
keys and node kinds, so ``schema.load`` builds types with the same
fingerprint from it. Type names are the Python class names (C++ would write
its qualified names) and the text is compact JSON rather than C++'s
indented layout, so the text is not byte-identical with C++'s; every value
that matters for reading (kinds, sizes, encodings, counts, offsets,
versions, defaults, fingerprints) is.
"""

from __future__ import annotations

import json
from typing import Any

from ._schema import (COMPACT, ArrayN, BitsetN, BoolN, BytesN, EnumN, ListN, MapN, MonostateN, Node, OptionalN,
                      ScalarN, SetN, StrN, StructN, TupleN, VariantN, build_node, cxx_trivially_copyable,
                      format_error, FORMATS, is_varint, layout, mode_of)
from .errors import SchemaError

__all__ = ["describe"]

_UNITS = {(1, 10**9): "ns", (1, 10**6): "us", (1, 1000): "ms", (1, 1): "s", (60, 1): "min", (3600, 1): "h",
          (86400, 1): "d"}


class _Describer:
    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.mode = mode_of(fmt)
        self.native = fmt == "native"

    def scalar(self, node: Node, spec: Any) -> dict:
        if spec.is_char:
            kind = "char"
        elif spec.is_float:
            kind = "float"
        else:
            kind = "sint" if spec.signed else "uint"
        enc = "fixed"
        if self.mode is COMPACT and is_varint(node, COMPACT):
            enc = "zigzag" if spec.signed else "varint"
        return {"kind": kind, "size": spec.size, "encoding": enc}

    def node(self, node: Node, stack: tuple) -> dict:
        if node.custom_id is not None:
            return {"kind": "custom", "name": node.describe(), "id": f"{node.custom_id:#018x}"}
        if isinstance(node, StructN):
            if node in stack:
                return {"kind": "ref", "name": node.name, "depth": stack.index(node) + 1}
            return self.struct(node, stack)
        if isinstance(node, ScalarN):
            base = self.scalar(node, node.spec)
            if node.enum:
                out: dict = {"kind": "enum"}
                if node.enum is not True:
                    out["min"], out["max"] = node.enum
                out["underlying"] = base
                base = out
            if node.duration:
                if node.period is None:
                    raise SchemaError(f"{node.describe()} has no description: declare the tick period")
                num, den = node.period
                base = {"kind": "duration", "unit": _UNITS.get((num, den)), "num": num, "den": den, "rep": base}
                if node.time_point:
                    base = {"kind": "time_point", "duration": base}
            return base
        if isinstance(node, BoolN):
            return {"kind": "bool", "encoding": "fixed"}
        if isinstance(node, EnumN):
            out = {"kind": "enum", "name": node.cls.__name__}
            if node.range is not None:
                out["min"], out["max"] = node.range
            out["underlying"] = self.scalar(node, node.spec)
            return out
        if isinstance(node, BitsetN):
            return {"kind": "bitset", "bits": node.n}
        if isinstance(node, StrN) or (isinstance(node, BytesN) and node.text):
            return {"kind": "string", "char_size": 1}
        if isinstance(node, BytesN):
            return {"kind": "sequence", "element": {"kind": "uint", "size": 1, "encoding": "fixed"}}
        if isinstance(node, ListN) and node.text:
            return {"kind": "string", "char_size": node.elem.spec.size}
        if isinstance(node, ListN):
            return {"kind": "sequence", "element": self.node(node.elem, stack)}
        if isinstance(node, ArrayN):
            return {"kind": "array", "count": node.n, "element": self.node(node.elem, stack)}
        if isinstance(node, OptionalN):
            return {"kind": "optional", "value": self.node(node.inner, stack)}
        if isinstance(node, VariantN):
            return {"kind": "variant", "alternatives": [self.node(a, stack) for a in node.alts]}
        if isinstance(node, MonostateN):
            return {"kind": "monostate"}
        if isinstance(node, TupleN):
            return {"kind": "tuple", "elements": [self.node(e, stack) for e in node.elems]}
        if isinstance(node, MapN):
            return {"kind": "map", "key": self.node(node.key, stack), "value": self.node(node.value, stack)}
        if isinstance(node, SetN):
            return {"kind": "set", "key": self.node(node.elem, stack)}
        raise SchemaError(f"no type description for {node.describe()}")

    def struct(self, node: StructN, stack: tuple) -> dict:
        inner = (node,) + stack
        if node.versions is not None:
            fields = []
            versions = list(node.versions)
            for i, (name, f) in enumerate(node.fields):
                since = next(k for k, n in enumerate(versions, 1) if i < n)
                entry: dict = {"name": name, "since": since}
                if i in node.retired:
                    entry["retired"] = True
                    if node.retired[i].value is not None:
                        entry["retired_value"] = int(node.retired[i].value)
                elif since > 1:
                    entry["default"] = self.default_hex(node, i)
                entry["type"] = self.node(f, inner)
                fields.append(entry)
            out = {"kind": "evolvable", "name": node.name, "versions": versions}
            if node.keep_unknown:
                out["keeps_unknown"] = True
            out["fields"] = fields
            return out
        out = {"kind": "struct", "name": node.name}
        offsets = None
        if self.native and cxx_trivially_copyable(node):
            out["bulk"] = layout(node, True).size
            offsets, at = [], 0
            for _, f in node.fields:
                sub = layout(f, True, True)
                at = -(-at // sub.align) * sub.align
                offsets.append(at)
                at += sub.size
        fields = []
        for i, (name, f) in enumerate(node.fields):
            entry = {"name": name}
            if offsets is not None:
                entry["offset"] = offsets[i]
            entry["type"] = self.node(f, inner)
            fields.append(entry)
        out["fields"] = fields
        return out

    def default_hex(self, node: StructN, i: int) -> str:
        from . import _evolution
        from ._codegen import Compiler
        value = _evolution.default_of(node, i)
        out = bytearray()
        Compiler(self.mode, False).encoder(node.fields[i][1])(value, out)
        return bytes(out).hex()


def describe(hint: Any, format: str = "portable") -> str:
    """The type description (JSON text) of `hint` in `format`; SchemaError
    for a hint that has none (e.g. a duration without its period)."""
    if format not in FORMATS:
        raise format_error(format)
    from .message import message_id, schema_hash, version_fingerprints
    node = build_node(hint)
    d = _Describer(format)
    doc: dict = {"bin_serializer_schema": 1, "format": format, "fingerprint": f"{schema_hash(hint, format):#018x}"}
    if isinstance(node, StructN) and node.versions is not None:
        doc["version_fingerprints"] = [f"{h:#018x}" for h in version_fingerprints(hint, format)]
    doc["message_id"] = message_id(hint)
    doc["type"] = d.node(node, ())
    return json.dumps(doc, separators=(", ", ": "), ensure_ascii=False)
