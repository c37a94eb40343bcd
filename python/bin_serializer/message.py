"""Framed messages and schema fingerprints (docs/wire-format.md sections 9-10).

    from bin_serializer.message import encode_message, decode_message, iter_messages

    data = encode_message(person)                    # 24-byte header + payload
    person = decode_message(Person, data)            # DecodeError(SCHEMA_MISMATCH) for another schema
    for header, payload in iter_messages(stream):    # frame a stream, skip what you do not know
        ...

A dataclass declares a message type id (C++ ``message_id_v<T>``) with a class
attribute ``__bin_serializer_message_id__ = 42`` (1 .. 2**32-1): its messages
then carry a 32-byte header (flags bit 1, u32 type_id, 4 zero bytes), and
decode_message / message_is accept only messages with that same id, so two
types of the same shape can share a stream. Types without the attribute keep
the 24-byte header.

``schema_hash(hint, format)`` computes the C++ ``schema_hash_v<T, Opts>`` for
the types this package models. Python cannot tell some C++ types apart that
encode alike, and the fingerprint follows the C++ type: ``bytes`` hashes as
``std::vector<std::uint8_t>``, ``i8`` as ``std::int8_t`` (not ``char``), an
IntEnum as an enum without ``enum_range`` unless it declares
``__enum_range__ = (min, max)``. A C++ ``char`` is the ``char`` marker
(``char16``, ``char32``, ``wchar`` for the wider ones). ``Duration`` and
``TimePoint`` fields hash their tick period: a ``Duration[i64]`` declared
without one has no fingerprint.
"""

from __future__ import annotations

import struct
from typing import Any, Iterator, NamedTuple

from ._schema import (FORMATS, ArrayN, BitsetN, BoolN, BytesN, EnumN, ListN, MapN, MonostateN, Node, OptionalN,
                      ScalarN, SetN, StrN, StructN, TupleN, VariantN, build_node, cxx_trivially_copyable,
                      format_error, layout)
from .api import _as_buffer, compile_codec
from .errors import DecodeError, ErrorKind as K, SchemaError

__all__ = ["schema_hash", "version_fingerprints", "message_id", "MessageHeader", "read_header", "encode_message",
           "decode_message", "iter_messages", "message_is", "HEADER_SIZE", "HEADER_SIZE_WITH_ID", "MAGIC"]

MAGIC = b"BSMF"
SPEC_VERSION = 1
HEADER_SIZE = 24  # without a message type id
HEADER_SIZE_WITH_ID = 32  # with one: u32 type_id and 4 zero bytes follow
FLAG_BIG_ENDIAN = 1
FLAG_TYPE_ID = 2
# The header's format byte (and the format token of the schema fingerprint).
FORMAT_BYTE = {"native": 0, "portable": 1, "compact": 2}
FORMAT_NAME = {b: f for f, b in FORMAT_BYTE.items()}
_HEADER = struct.Struct("<4sBBHQQ")
_ID = struct.Struct("<II")

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = (1 << 64) - 1

# Token tags (section 9).
T_FORMAT, T_BOOL, T_CHAR, T_UINT, T_SINT, T_FLOAT, T_ENUM = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07
T_ARRAY, T_STRING, T_SEQUENCE, T_SET, T_MAP, T_OPTIONAL = 0x10, 0x11, 0x12, 0x13, 0x14, 0x15
T_ENUM_RANGE = 0x08
T_VARIANT, T_MONOSTATE, T_TUPLE, T_BITSET, T_DURATION, T_TIME_POINT = 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B
T_STRUCT, T_END, T_BULK, T_EVOLVABLE, T_BACKREF, T_CUSTOM = 0x20, 0x21, 0x22, 0x23, 0x2F, 0x30


class _Tokens:
    def __init__(self, root_fields: "int | None" = None) -> None:
        self.out = bytearray()
        # an evolvable root hashed with this many fields instead of its first
        # version's (version_fingerprints); nested evolvable structs keep theirs
        self.root_fields = root_fields

    def tok(self, tag: int, *params: int) -> None:
        self.out.append(tag)
        for p in params:
            self.out += (p & _MASK).to_bytes(8, "little")


def _scalar(t: _Tokens, spec) -> None:
    if spec.is_char:
        t.tok(T_CHAR, spec.size)
    elif spec.is_float:
        t.tok(T_FLOAT, spec.size)
    else:
        t.tok(T_SINT if spec.signed else T_UINT, spec.size)


def _struct_fields(t: _Tokens, node: StructN, fields: list, native: bool, stack: tuple) -> None:
    t.tok(T_STRUCT, len(fields))
    for _, f in fields:
        _type(t, f, native, (node,) + stack)
    t.tok(T_END)


def _type(t: _Tokens, node: Node, native: bool, stack: tuple) -> None:
    if node.custom_id is not None:
        t.tok(T_CUSTOM, node.custom_id)
    elif isinstance(node, StructN) and node in stack:
        t.tok(T_BACKREF, stack.index(node) + 1)
    elif isinstance(node, StructN) and node.versions is not None:
        t.tok(T_EVOLVABLE)
        n = t.root_fields if t.root_fields is not None and not stack else node.versions[0]
        _struct_fields(t, node, node.fields[:n], native, stack)
    elif isinstance(node, StructN):
        if native and cxx_trivially_copyable(node):
            t.tok(T_BULK, layout(node, True).size)
        _struct_fields(t, node, node.fields, native, stack)
    elif isinstance(node, ScalarN):
        if node.duration:  # std/chrono.hpp: [TIME_POINT] DURATION num den, then the rep
            if node.period is None:
                raise SchemaError(f"schema_hash: {node.describe()} has no fingerprint: the C++ fingerprint "
                                  f"includes the tick period; declare it, e.g. Duration[i64, \"ms\"] or "
                                  f"DurationOf(i64, (1, 30))")
            if node.time_point:
                t.tok(T_TIME_POINT)
            t.tok(T_DURATION, *node.period)
        if node.enum is True:
            t.tok(T_ENUM)
        elif node.enum:
            t.tok(T_ENUM_RANGE, *node.enum)
        _scalar(t, node.spec)
    elif isinstance(node, BoolN):
        t.tok(T_BOOL)
    elif isinstance(node, EnumN):
        if node.range is not None:
            t.tok(T_ENUM_RANGE, *node.range)  # as the underlying integer, two's complement
        else:
            t.tok(T_ENUM)
        _scalar(t, node.spec)
    elif isinstance(node, BitsetN):
        t.tok(T_BITSET, node.n)
    elif isinstance(node, StrN):
        t.tok(T_STRING, 1)
    elif isinstance(node, BytesN) and node.text:
        t.tok(T_STRING, 1)
    elif isinstance(node, BytesN):
        t.tok(T_SEQUENCE)
        t.tok(T_UINT, 1)
    elif isinstance(node, ListN) and node.text:
        t.tok(T_STRING, node.elem.spec.size)
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
    if format not in FORMATS:
        raise format_error(format)
    t = _Tokens()
    t.tok(T_FORMAT, FORMAT_BYTE[format])  # compact: the portable stream with format token 2
    _type(t, build_node(hint), format == "native", ())
    return bytes(t.out)


def version_fingerprints(hint: Any, format: str = "portable") -> "list[int]":
    """For an evolvable dataclass: the fingerprint counting the fields of each
    published version, oldest first (the first is schema_hash), as a type
    description's ``version_fingerprints``. SchemaError for another type."""
    if format not in FORMATS:
        raise format_error(format)
    node = build_node(hint)
    if not (isinstance(node, StructN) and node.versions is not None):
        raise SchemaError(f"version_fingerprints: {node.describe()} is not an evolvable struct")
    out = []
    for n in node.versions:
        t = _Tokens(n)
        t.tok(T_FORMAT, FORMAT_BYTE[format])
        _type(t, node, format == "native", ())
        h = _FNV_OFFSET
        for b in t.out:
            h = ((h ^ b) * _FNV_PRIME) & _MASK
        out.append(h)
    return out


def _compute_schema_hash(hint: Any, format: str) -> int:
    h = _FNV_OFFSET
    for b in token_stream(hint, format):
        h = ((h ^ b) * _FNV_PRIME) & _MASK
    return h


def schema_hash(hint: Any, format: str = "portable") -> int:
    """The C++ schema_hash_v of the type `hint` describes: FNV-1a 64 of its token stream
    (computed once per (hint, format), like the codecs)."""
    return _frame(hint, format).schema_hash


def message_id(hint: Any) -> int:
    """The message type id `hint` declares (``__bin_serializer_message_id__``), 0 if none."""
    mid = getattr(hint, "__bin_serializer_message_id__", 0) if isinstance(hint, type) else 0
    if type(mid) is not int or not 0 <= mid <= 0xFFFFFFFF:
        raise SchemaError(f"__bin_serializer_message_id__ of {getattr(hint, '__name__', hint)!r} must be "
                          f"an int in 0 .. 2**32-1, not {mid!r}")
    return mid


class _Frame(NamedTuple):
    """What the header of a message of one (hint, format) holds, computed once."""
    schema_hash: int
    type_id: int
    flags: int
    prefix: bytes  # header bytes 0..15 (magic .. schema_hash)
    suffix: bytes  # b"" or the 8 bytes after payload_length (type_id, zeros)


# (hint, format) -> _Frame. Unhashable hints are computed each time.
_FRAMES: dict = {}


def _frame(hint: Any, format: str) -> _Frame:
    key = (hint, format)
    try:
        got = _FRAMES.get(key)
    except TypeError:  # unhashable hint
        return _make_frame(hint, format)
    if got is None:
        got = _FRAMES[key] = _make_frame(hint, format)
    return got


def _make_frame(hint: Any, format: str) -> _Frame:
    h = _compute_schema_hash(hint, format)  # validates format
    tid = message_id(hint)
    flags = FLAG_TYPE_ID if tid else 0
    prefix = _HEADER.pack(MAGIC, SPEC_VERSION, FORMAT_BYTE[format], flags, h, 0)[:16]
    return _Frame(h, tid, flags, prefix, _ID.pack(tid, 0) if tid else b"")


class MessageHeader(NamedTuple):
    spec_version: int
    format: str  # "native", "portable" or "compact"
    flags: int
    schema_hash: int
    payload_length: int
    type_id: int = 0  # the writer type's message type id (0: none, then flags bit 1 is clear)

    @property
    def size(self) -> int:
        """Bytes of this header on the wire: 24, or 32 with a type id."""
        return HEADER_SIZE_WITH_ID if self.flags & FLAG_TYPE_ID else HEADER_SIZE


def read_header(data: Any, pos: int = 0) -> MessageHeader:
    """Parses and validates the header at pos (24 bytes, 32 with a type id; not the
    schema). DecodeError END_OF_STREAM if no byte is left at pos, TRUNCATED if the
    header is cut short."""
    buf = _as_buffer(data)
    left = len(buf) - pos
    if left < HEADER_SIZE:
        if left == 0:
            raise DecodeError(K.END_OF_STREAM, pos, "message header", "no byte left: the input ended "
                              "between messages")
        raise DecodeError(K.TRUNCATED, pos, "message header", f"{left} bytes, a header has 24",
                          needed=pos + HEADER_SIZE)
    magic, version, fmt, flags, h, length = _HEADER.unpack_from(buf, pos)
    if magic != MAGIC:
        raise DecodeError(K.BAD_HEADER, pos, "message header", f"magic {magic!r} is not {MAGIC!r}")
    if version != SPEC_VERSION:
        raise DecodeError(K.BAD_HEADER, pos + 4, "message header", f"spec_version {version}")
    if fmt not in FORMAT_NAME:
        raise DecodeError(K.BAD_HEADER, pos + 5, "message header", f"format byte {fmt}")
    # only the native format depends on the writer's byte order
    if flags & ~(FLAG_BIG_ENDIAN | FLAG_TYPE_ID) or (fmt != 0 and flags & FLAG_BIG_ENDIAN):
        raise DecodeError(K.BAD_HEADER, pos + 6, "message header", f"reserved flag bits {flags:#06x}")
    tid = 0
    if flags & FLAG_TYPE_ID:
        if left < HEADER_SIZE_WITH_ID:
            raise DecodeError(K.TRUNCATED, pos + HEADER_SIZE, "message header",
                              f"{left} bytes, a header with a type id has 32", needed=pos + HEADER_SIZE_WITH_ID)
        tid, reserved = _ID.unpack_from(buf, pos + HEADER_SIZE)
        if tid == 0:
            raise DecodeError(K.BAD_HEADER, pos + 24, "message header", "type id flag set, type_id 0")
        if reserved:
            raise DecodeError(K.BAD_HEADER, pos + 28, "message header", f"reserved bytes {reserved:#010x}")
    return MessageHeader(version, FORMAT_NAME[fmt], flags, h, length, tid)


def encode_message(value: Any, format: str = "portable", *, schema: Any = None) -> bytes:
    """Header + payload, the bytes of C++ serialize_message<format>(value)."""
    hint = schema if schema is not None else type(value)
    payload = compile_codec(hint, format).encode(value)
    fr = _frame(hint, format)
    return fr.prefix + len(payload).to_bytes(8, "little") + fr.suffix + payload


def _check(hint: Any, format: str, header: MessageHeader, pos: int) -> None:
    if header.format != format:
        raise DecodeError(K.SCHEMA_MISMATCH, pos + 5, "message header",
                          f"message is {header.format}, the reader {format}")
    if header.flags & FLAG_BIG_ENDIAN:  # this package's native format is little-endian only
        raise DecodeError(K.SCHEMA_MISMATCH, pos + 6, "message header", "written by a big-endian host")
    fr = _frame(hint, format)
    if header.flags != fr.flags:
        raise DecodeError(K.SCHEMA_MISMATCH, pos + 6, "message header",
                          f"message type id {header.type_id}, the reader's {fr.type_id} (0: none)")
    if header.type_id != fr.type_id:
        raise DecodeError(K.SCHEMA_MISMATCH, pos + 24, "message header",
                          f"message type id {header.type_id}, the reader's {fr.type_id}")
    if header.schema_hash != fr.schema_hash:
        raise DecodeError(K.SCHEMA_MISMATCH, pos + 8, "message header",
                          f"schema hash {header.schema_hash:016x}, this schema's is {fr.schema_hash:016x}")


def decode_message_from(hint: Any, data: Any, pos: int = 0, format: str = "portable") -> "tuple[Any, int]":
    """Decodes the message at pos: (value, position after it)."""
    buf = _as_buffer(data)
    header = read_header(buf, pos)
    _check(hint, format, header, pos)
    start = pos + header.size
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


def iter_messages(data: Any, *, chunk_size: int = 1 << 20) -> Iterator["tuple[MessageHeader, memoryview]"]:
    """Frames a stream of messages: yields (header, payload) and skips by
    payload_length, so unknown messages cost nothing to step over. Ends at the
    clean end of the input; raises DecodeError on a bad frame or on input that
    ends inside a message (offsets from the start of the stream).

    `data` is bytes-like (bytes, bytearray, memoryview, mmap, ...) or a binary
    file object (anything with ``read(n)`` and no buffer interface), read
    `chunk_size` bytes at a time. A payload is a memoryview of the input: for a
    ``bytes`` input or a file it stays valid; over any other buffer (an mmap, a
    bytearray, a memoryview) it is released when the iteration moves on or
    ends, so the source can be closed or resized afterwards: keep a payload
    with ``bytes(payload)`` or decode it before the next step."""
    try:
        mv = memoryview(data)
    except TypeError:
        if not hasattr(data, "read"):
            raise TypeError(f"expected a bytes-like object or a binary file, got {type(data).__name__}") from None
        return _iter_messages_file(data, chunk_size)
    if type(data) is bytes:
        mv.release()
        return _iter_messages_buffer(memoryview(data), False)
    return _iter_messages_buffer(mv, True)


def _iter_messages_buffer(mv: memoryview, release: bool) -> Iterator["tuple[MessageHeader, memoryview]"]:
    buf = mv if mv.format == "B" and mv.ndim == 1 else mv.cast("B")
    try:
        pos = 0
        end = len(buf)
        while pos < end:
            header = read_header(buf, pos)
            start = pos + header.size
            if header.payload_length > end - start:
                raise DecodeError(K.LENGTH_EXCEEDS_INPUT, pos + 16, "message header",
                                  f"payload_length {header.payload_length} exceeds the input")
            pos = start + header.payload_length
            payload = buf[start:pos]
            try:
                yield header, payload
            finally:
                if release:
                    payload.release()
    finally:
        if release:
            if buf is not mv:
                buf.release()
            mv.release()


def _iter_messages_file(f: Any, chunk_size: int) -> Iterator["tuple[MessageHeader, memoryview]"]:
    if chunk_size <= 0:
        raise ValueError("chunk_size must be positive")
    buf = b""
    pos = 0  # next unread byte in buf
    base = 0  # stream offset of buf[0]
    eof = False

    def fill(want: int) -> bool:
        """At least `want` bytes buffered past pos (False: the stream ended first)."""
        nonlocal buf, pos, base, eof
        have = len(buf) - pos
        if have >= want:
            return True
        parts = [buf[pos:]]
        base += pos
        pos = 0
        while have < want and not eof:
            # Memory follows the bytes received, never a (possibly hostile) length.
            chunk = f.read(max(chunk_size, min(want - have, 1 << 24)))
            if not chunk:
                eof = True
                break
            parts.append(bytes(chunk))
            have += len(chunk)
        buf = b"".join(parts)
        return have >= want

    while True:
        if not fill(1):
            return  # the clean end: no byte left at a message boundary
        at = base + pos
        if not fill(HEADER_SIZE):
            raise DecodeError(K.TRUNCATED, at, "message header",
                              f"{len(buf) - pos} bytes, a header has 24", needed=at + HEADER_SIZE)
        flags = buf[pos + 6] | (buf[pos + 7] << 8)
        size = HEADER_SIZE_WITH_ID if flags & FLAG_TYPE_ID else HEADER_SIZE
        fill(size)  # a short extension is reported by read_header
        try:
            header = read_header(buf, pos)
        except DecodeError as err:
            err.offset += base
            if err.needed is not None:
                err.needed += base
            err.args = (err.kind, err.offset, err.path, err.detail)
            raise
        pos += header.size
        if not fill(header.payload_length):
            raise DecodeError(K.LENGTH_EXCEEDS_INPUT, at + 16, "message header",
                              f"payload_length {header.payload_length} exceeds the input")
        payload = memoryview(buf)[pos:pos + header.payload_length]
        pos += header.payload_length
        yield header, payload


def message_is(hint: Any, header: MessageHeader, format: str = "portable") -> bool:
    """Whether decode_message(hint, ...) accepts a message with this header."""
    fr = _frame(hint, format)
    return (header.format == format and header.flags == fr.flags and header.type_id == fr.type_id
            and header.schema_hash == fr.schema_hash)
