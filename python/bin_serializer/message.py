"""Framed messages and schema fingerprints (docs/wire-format.md sections 9-10).

    from bin_serializer.message import encode_message, decode_message, iter_messages

    data = encode_message(person)                    # 24-byte header + payload
    person = decode_message(Person, data)            # DecodeError(SCHEMA_MISMATCH) for another schema
    for header, payload in iter_messages(stream):    # frame a stream, skip what you do not know
        ...

``schema_hash(hint, format)`` computes the C++ ``schema_hash_v<T, Opts>`` for
the types this package models. Python cannot tell some C++ types apart that
encode alike, and the fingerprint follows the C++ type: ``bytes`` hashes as
``std::vector<std::uint8_t>``, ``i8`` as ``std::int8_t`` (not ``char``), an
IntEnum as an enum without ``enum_range``. ``Duration`` fields have no
fingerprint here (the tick period is not part of the Python schema).
"""

from __future__ import annotations

import struct
from typing import Any, Iterator, NamedTuple

from ._schema import (ArrayN, BitsetN, BoolN, BytesN, EnumN, ListN, MapN, MonostateN, Node, OptionalN,
                      ScalarN, SetN, StrN, StructN, TupleN, VariantN, build_node, cxx_trivially_copyable,
                      layout)
from .api import _as_buffer, compile_codec
from .errors import DecodeError, ErrorKind as K, SchemaError

__all__ = ["schema_hash", "MessageHeader", "read_header", "encode_message", "decode_message",
           "iter_messages", "HEADER_SIZE", "MAGIC"]

MAGIC = b"BSMF"
SPEC_VERSION = 1
HEADER_SIZE = 24
FLAG_BIG_ENDIAN = 1
_HEADER = struct.Struct("<4sBBHQQ")

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = (1 << 64) - 1

# Token tags (section 9).
T_FORMAT, T_BOOL, T_CHAR, T_UINT, T_SINT, T_FLOAT, T_ENUM = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07
T_ARRAY, T_STRING, T_SEQUENCE, T_SET, T_MAP, T_OPTIONAL = 0x10, 0x11, 0x12, 0x13, 0x14, 0x15
T_VARIANT, T_MONOSTATE, T_TUPLE, T_BITSET = 0x16, 0x17, 0x18, 0x19
T_STRUCT, T_END, T_BULK, T_EVOLVABLE, T_BACKREF = 0x20, 0x21, 0x22, 0x23, 0x2F


class _Tokens:
    def __init__(self) -> None:
        self.out = bytearray()

    def tok(self, tag: int, *params: int) -> None:
        self.out.append(tag)
        for p in params:
            self.out += (p & _MASK).to_bytes(8, "little")


def _scalar(t: _Tokens, spec) -> None:
    if spec.is_float:
        t.tok(T_FLOAT, spec.size)
    else:
        t.tok(T_SINT if spec.signed else T_UINT, spec.size)


def _struct_fields(t: _Tokens, node: StructN, fields: list, native: bool, stack: tuple) -> None:
    t.tok(T_STRUCT, len(fields))
    for _, f in fields:
        _type(t, f, native, (node,) + stack)
    t.tok(T_END)


def _type(t: _Tokens, node: Node, native: bool, stack: tuple) -> None:
    if isinstance(node, StructN) and node in stack:
        t.tok(T_BACKREF, stack.index(node) + 1)
    elif isinstance(node, StructN) and node.versions is not None:
        t.tok(T_EVOLVABLE)
        _struct_fields(t, node, node.fields[:node.versions[0]], native, stack)
    elif isinstance(node, StructN):
        if native and cxx_trivially_copyable(node):
            t.tok(T_BULK, layout(node, True).size)
        _struct_fields(t, node, node.fields, native, stack)
    elif isinstance(node, ScalarN):
        if node.duration:
            raise SchemaError("schema_hash: Duration fields have no fingerprint in Python (the C++ "
                              "fingerprint includes the tick period)")
        _scalar(t, node.spec)
    elif isinstance(node, BoolN):
        t.tok(T_BOOL)
    elif isinstance(node, EnumN):
        t.tok(T_ENUM)
        _scalar(t, node.spec)
    elif isinstance(node, BitsetN):
        t.tok(T_BITSET, node.n)
    elif isinstance(node, StrN):
        t.tok(T_STRING, 1)
    elif isinstance(node, BytesN):
        t.tok(T_SEQUENCE)
        t.tok(T_UINT, 1)
    elif isinstance(node, ListN):
        t.tok(T_SEQUENCE)
        _type(t, node.elem, native, stack)
    elif isinstance(node, ArrayN):
        t.tok(T_ARRAY, node.n)
        _type(t, node.elem, native, stack)
    elif isinstance(node, OptionalN):
        t.tok(T_OPTIONAL)
        _type(t, node.inner, native, stack)
    elif isinstance(node, VariantN):
        t.tok(T_VARIANT, len(node.alts))
        for a in node.alts:
            _type(t, a, native, stack)
    elif isinstance(node, MonostateN):
        t.tok(T_MONOSTATE)
    elif isinstance(node, TupleN):
        t.tok(T_TUPLE, len(node.elems))
        for e in node.elems:
            _type(t, e, native, stack)
    elif isinstance(node, MapN):
        t.tok(T_MAP)
        _type(t, node.key, native, stack)
        _type(t, node.value, native, stack)
    elif isinstance(node, SetN):
        t.tok(T_SET)
        _type(t, node.elem, native, stack)
    else:
        raise SchemaError(f"schema_hash: no fingerprint for {node.describe()}")


def token_stream(hint: Any, format: str = "portable") -> bytes:
    """The bytes schema_hash() hashes (for debugging a mismatch against C++)."""
    if format not in ("portable", "native"):
        raise ValueError(f"format must be 'portable' or 'native', not {format!r}")
    t = _Tokens()
    t.tok(T_FORMAT, 1 if format == "portable" else 0)
    _type(t, build_node(hint), format == "native", ())
    return bytes(t.out)


def schema_hash(hint: Any, format: str = "portable") -> int:
    """The C++ schema_hash_v of the type `hint` describes: FNV-1a 64 of its token stream."""
    h = _FNV_OFFSET
    for b in token_stream(hint, format):
        h = ((h ^ b) * _FNV_PRIME) & _MASK
    return h


class MessageHeader(NamedTuple):
    spec_version: int
    format: str  # "native" or "portable"
    flags: int
    schema_hash: int
    payload_length: int


def read_header(data: Any, pos: int = 0) -> MessageHeader:
    """Parses and validates the 24-byte header at pos (not the schema)."""
    buf = _as_buffer(data)
    if len(buf) - pos < HEADER_SIZE:
        raise DecodeError(K.TRUNCATED, pos, "message header", f"{len(buf) - pos} bytes, a header has 24")
    magic, version, fmt, flags, h, length = _HEADER.unpack_from(buf, pos)
    if magic != MAGIC:
        raise DecodeError(K.BAD_HEADER, pos, "message header", f"magic {magic!r} is not {MAGIC!r}")
    if version != SPEC_VERSION:
        raise DecodeError(K.BAD_HEADER, pos + 4, "message header", f"spec_version {version}")
    if fmt > 1:
        raise DecodeError(K.BAD_HEADER, pos + 5, "message header", f"format byte {fmt}")
    if flags & ~FLAG_BIG_ENDIAN or (fmt == 1 and flags):
        raise DecodeError(K.BAD_HEADER, pos + 6, "message header", f"reserved flag bits {flags:#06x}")
    return MessageHeader(version, "portable" if fmt == 1 else "native", flags, h, length)


def encode_message(value: Any, format: str = "portable", *, schema: Any = None) -> bytes:
    """Header + payload, the bytes of C++ serialize_message<format>(value)."""
    hint = schema if schema is not None else type(value)
    payload = compile_codec(hint, format).encode(value)
    return _HEADER.pack(MAGIC, SPEC_VERSION, 1 if format == "portable" else 0, 0,
                        schema_hash(hint, format), len(payload)) + payload


def _check(hint: Any, format: str, header: MessageHeader, pos: int) -> None:
    if header.format != format:
        raise DecodeError(K.SCHEMA_MISMATCH, pos + 5, "message header",
                          f"message is {header.format}, the reader {format}")
    if header.flags:  # this package's native format is little-endian only
        raise DecodeError(K.SCHEMA_MISMATCH, pos + 6, "message header", "written by a big-endian host")
    mine = schema_hash(hint, format)
    if header.schema_hash != mine:
        raise DecodeError(K.SCHEMA_MISMATCH, pos + 8, "message header",
                          f"schema hash {header.schema_hash:016x}, this schema's is {mine:016x}")


def decode_message_from(hint: Any, data: Any, pos: int = 0, format: str = "portable") -> "tuple[Any, int]":
    """Decodes the message at pos: (value, position after it)."""
    buf = _as_buffer(data)
    header = read_header(buf, pos)
    _check(hint, format, header, pos)
    start = pos + HEADER_SIZE
    if header.payload_length > len(buf) - start:
        raise DecodeError(K.LENGTH_EXCEEDS_INPUT, pos + 16, "message header",
                          f"payload_length {header.payload_length} exceeds the {len(buf) - start} bytes left")
    end = start + header.payload_length
    value, at = compile_codec(hint, format).decode_from(buf, start)
    if at != end:
        raise DecodeError(K.INVALID_VALUE, end, "message payload",
                          f"payload decoded to {at - start} bytes, the header says {header.payload_length}")
    return value, end


def decode_message(hint: Any, data: Any, format: str = "portable") -> Any:
    """Decodes exactly one framed message (DecodeError TRAILING_BYTES if more follows)."""
    buf = _as_buffer(data)
    value, end = decode_message_from(hint, buf, 0, format)
    if end != len(buf):
        raise DecodeError(K.TRAILING_BYTES, end, "message", f"{len(buf) - end} bytes after the message")
    return value


def iter_messages(data: Any) -> Iterator["tuple[MessageHeader, memoryview]"]:
    """Frames a buffer of messages: yields (header, payload) and skips by
    payload_length, so unknown messages cost nothing. Raises DecodeError on a
    bad or truncated frame."""
    buf = memoryview(_as_buffer(data))
    pos = 0
    while pos < len(buf):
        header = read_header(buf, pos)
        start = pos + HEADER_SIZE
        if header.payload_length > len(buf) - start:
            raise DecodeError(K.LENGTH_EXCEEDS_INPUT, pos + 16, "message header",
                              f"payload_length {header.payload_length} exceeds the input")
        yield header, buf[start:start + header.payload_length]
        pos = start + header.payload_length


def message_is(hint: Any, header: MessageHeader, format: str = "portable") -> bool:
    """Whether decode_message(hint, ...) accepts a message with this header."""
    return header.format == format and header.flags == 0 and header.schema_hash == schema_hash(hint, format)
