"""Evolvable structs (docs/wire-format.md section 11).

A dataclass opts in with a class attribute listing the field count of each
published version, oldest first::

    @dataclass
    class Config:
        id: u32
        name: str
        ratio: f64 = 1.5          # added in version 2
        __bin_serializer_versions__ = (2, 3)

and is then written as ``[u32 body_length][u32 field_count][fields]``. A
reader takes the fields it knows, skips the rest by ``body_length``, and gives
fields that older data lacks their dataclass default (or the zero value of the
type, like C++ value-initialisation, when the field has no default).
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any

from ._schema import (ArrayN, BitsetN, BoolN, BytesN, EnumN, ListN, MapN, MonostateN, Node, OptionalN,
                      ScalarN, SetN, StrN, StructN, TupleN, VariantN)
from .errors import ErrorKind as K
from .types import _UNKNOWN_ATTR, RETIRED, Monostate, UnknownFields, Variant, unknown_fields

PREFIX = struct.Struct("<II")  # portable; the native format is only supported on little-endian hosts
MAX_BODY = 0xFFFFFFFF


def zero_value(node: Node) -> Any:
    """What a value-initialised C++ member of this type holds."""
    if isinstance(node, ScalarN):
        return 0.0 if node.spec.is_float else 0
    if isinstance(node, BoolN):
        return False
    if isinstance(node, EnumN):
        return node.members.get(0, node.cls(0) if node.is_flag else 0)
    if isinstance(node, BitsetN):
        return 0
    if isinstance(node, StrN):
        return ""
    if isinstance(node, BytesN):
        return b""
    if isinstance(node, ListN):
        return () if node.container == "tuple" else []
    if isinstance(node, ArrayN):
        items = [zero_value(node.elem) for _ in range(node.n)]
        return tuple(items) if node.container == "tuple" else items
    if isinstance(node, OptionalN):
        return None
    if isinstance(node, VariantN):
        v = zero_value(node.alts[0])
        return Variant(0, v) if node.tagged else v
    if isinstance(node, MonostateN):
        return Monostate()
    if isinstance(node, TupleN):
        return tuple(zero_value(e) for e in node.elems)
    if isinstance(node, MapN):
        return {}
    if isinstance(node, SetN):
        return frozenset() if node.frozen else set()
    if isinstance(node, StructN):
        return construct(node, [default_of(node, i) for i in range(len(node.fields))])
    raise AssertionError(node)


def default_of(node: StructN, i: int) -> Any:
    """Field i's value in a freshly constructed instance: its dataclass default."""
    name, fnode = node.fields[i]
    for f in dataclasses.fields(node.cls):
        if f.name == name:
            if f.default is not dataclasses.MISSING:
                return f.default
            if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                return f.default_factory()  # type: ignore[misc]
            break
    return zero_value(fnode)


def construct(node: StructN, vals: list, unknown: "UnknownFields | None" = None) -> Any:
    args, kwargs = [], {}
    for i, ((name, _), v) in enumerate(zip(node.fields, vals)):
        if i in node.retired:
            if name in node.no_init:
                continue  # the attribute keeps its default (RETIRED)
            v = RETIRED
        if name in node.kw_only:
            kwargs[name] = v
        else:
            args.append(v)
    obj = node.cls(*args, **kwargs)
    if unknown is not None:
        object.__setattr__(obj, _UNKNOWN_ATTR, unknown)
    return obj


def decode(node: StructN, buf, pos: int, field_decoder, fail, build: Any = True) -> "tuple[Any, int]":
    """Decodes one evolvable struct at pos. field_decoder(i, pos) -> (value,
    pos) decodes field i; fail(kind, offset, detail) raises. build=False
    only checks: no default is made and no instance built (the value is None)."""
    start = pos
    if pos + PREFIX.size > len(buf):
        fail(K.TRUNCATED, start, "evolvable struct prefix (u32 body_length, u32 field_count)")
    body, count = PREFIX.unpack_from(buf, pos)
    pos += PREFIX.size
    if body > len(buf) - pos:
        fail(K.LENGTH_EXCEEDS_INPUT, start, f"body_length {body} exceeds the {len(buf) - pos} bytes left")
    mine = len(node.fields)
    if count < mine and count not in node.versions:
        fail(K.SCHEMA_MISMATCH, start + 4,
             f"field_count {count} is none of {node.name}'s versions {list(node.versions)}")
    end = pos + body
    known = min(count, mine)
    vals = []
    for i in range(known):
        v, pos = field_decoder(i, pos)
        vals.append(v)
    for i in range(known, mine):
        vals.append((RETIRED if i in node.retired else default_of(node, i)) if build else None)
    unknown = None
    if pos != end:
        if pos < end and count > mine:
            if node.keep_unknown:  # newer writer: keep the fields this definition does not know
                unknown = UnknownFields(count - mine, bytes(buf[pos:end]))
            pos = end  # else skip them
        else:
            fail(K.INVALID_VALUE, end, f"{node.name}'s fields end at {pos}, its body at {end}")
    elif count > mine and node.keep_unknown:
        unknown = UnknownFields(count - mine, b"")  # newer fields that encode to no bytes
    if build is True:
        return construct(node, vals, unknown), pos
    return (build(node, vals) if build else None), pos  # build: a stand-in maker (_slow._shadow)


def kept_of(node: StructN, value: Any) -> "tuple[int, bytes] | None":
    """(count, bytes) of the unknown fields `value` kept, to write after its
    own; None when it keeps none."""
    if not node.keep_unknown:
        return None
    kept = unknown_fields(value)
    if not kept.count:
        return None
    if not (type(kept.count) is int and 0 < kept.count <= 0xFFFFFFFF - len(node.fields)
            and type(kept.data) is bytes):
        raise ValueError(f"{node.name}: kept unknown fields {kept!r:.80} are not a count and bytes")
    return kept.count, kept.data


def builder(node: StructN) -> Any:
    """build(values, unknown) for the compiled codec: the instance of decoded
    values; unknown None or (count, bytes) of the fields kept."""
    def build(vals: tuple, unknown: Any) -> Any:
        return construct(node, list(vals), None if unknown is None else UnknownFields(*unknown))
    return build


def encode(node: StructN, value: Any, field_encoder, out: bytearray) -> None:
    """Appends the prefix and the fields; field_encoder(i, v, out) encodes field i."""
    body = bytearray()
    for i, (name, _) in enumerate(node.fields):
        field_encoder(i, node.fixed_value(i) if i in node.retired else getattr(value, name), body)
    count = len(node.fields)
    got = kept_of(node, value)
    if got is not None:
        count += got[0]
        body += got[1]
    if len(body) > MAX_BODY:
        raise ValueError(f"{node.name}: body of {len(body)} bytes exceeds the u32 body_length")
    out += PREFIX.pack(len(body), count)
    out += body
