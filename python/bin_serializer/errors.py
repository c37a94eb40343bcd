"""Exceptions raised by bin_serializer."""

from __future__ import annotations

from typing import Any

__all__ = ["BinSerializerError", "DecodeError", "EncodeError", "SchemaError", "DescriptionError", "ErrorKind",
           "LogCorruptError", "LogHeaderError", "LogRecordError"]


class ErrorKind:
    """Values of ``DecodeError.kind``."""

    TRUNCATED = "truncated"  # input ends before a fixed-size item
    LENGTH_EXCEEDS_INPUT = "length_exceeds_input"  # a length/count prefix larger than the input
    INVALID_BOOL = "invalid_bool"  # a bool byte other than 0 / 1
    INVALID_OPTIONAL_FLAG = "invalid_optional_flag"  # an optional presence byte other than 0 / 1
    VARIANT_INDEX_OUT_OF_RANGE = "variant_index_out_of_range"
    DUPLICATE_KEY = "duplicate_key"  # a map / set key seen twice
    INVALID_ENUM = "invalid_enum"  # an integer that is no member of the IntEnum
    INVALID_BITSET = "invalid_bitset"  # a set bit at position >= N
    INVALID_UTF8 = "invalid_utf8"  # a str field whose bytes are not UTF-8
    TRAILING_BYTES = "trailing_bytes"  # decode() did not consume the whole input
    LIMIT_EXCEEDED = "limit_exceeded"  # nesting too deep for the interpreter / size limit
    SCHEMA_MISMATCH = "schema_mismatch"  # framed message / evolvable struct from another schema
    BAD_HEADER = "bad_header"  # a framed message header with a wrong magic, version or reserved bits
    INVALID_VALUE = "invalid_value"  # e.g. an evolvable struct's fields disagree with its body length
    END_OF_STREAM = "end_of_stream"  # a framed-message read found no byte left (a clean end, not a torn message)
    # compact format: a varint longer than its type allows, with bits beyond the
    # type's width, or not in its shortest form (offset: the varint's first byte)
    INVALID_VARINT = "invalid_varint"
    # record logs (bin_serializer.log): a block at a block boundary that fails
    # its checks (LogCorruptError), a record of a file type no given class
    # matches (LogRecordError)
    CORRUPT_BLOCK = "corrupt_block"
    UNKNOWN_TYPE = "unknown_type"

    # The C++ library's errc for each kind (trailing bytes are not an error there).
    ERRC = {
        TRUNCATED: "truncated",
        LENGTH_EXCEEDS_INPUT: "truncated",
        INVALID_BOOL: "invalid_value",
        INVALID_OPTIONAL_FLAG: "invalid_value",
        VARIANT_INDEX_OUT_OF_RANGE: "invalid_value",
        DUPLICATE_KEY: "invalid_value",
        INVALID_ENUM: "invalid_value",
        INVALID_BITSET: "invalid_value",
        INVALID_UTF8: "invalid_value",
        TRAILING_BYTES: None,
        LIMIT_EXCEEDED: "limit_exceeded",
        SCHEMA_MISMATCH: "schema_mismatch",
        BAD_HEADER: "bad_header",
        INVALID_VALUE: "invalid_value",
        END_OF_STREAM: "end_of_stream",
        INVALID_VARINT: "invalid_value",
        CORRUPT_BLOCK: "invalid_value",
        UNKNOWN_TYPE: "schema_mismatch",
    }


class BinSerializerError(Exception):
    """Base class of the package's errors."""


class SchemaError(BinSerializerError, TypeError):
    """A type hint that has no wire layout (raised when a codec is compiled)."""


class DescriptionError(SchemaError, ValueError):
    """A type description (``bin_serializer.schema``) that is not one: malformed
    JSON, a missing or mistyped key, an unknown kind, nesting or sizes beyond
    the loader's limits, or a shape whose fingerprint disagrees with the
    description's own."""


class DecodeError(BinSerializerError, ValueError):
    """Malformed input.

    Attributes:
        kind:   what went wrong, one of the ``ErrorKind`` constants
        offset: byte offset (from the start of the input given to decode /
                decode_from, or of the stream for iter_decode) of the offending
                item: the length prefix, the bool byte, the scalar that did not fit...
        path:   where in the schema, e.g. ``Car.fuel_figures[2].usage_description``
        detail: a human-readable explanation
        errc:   the C++ library's ``errc`` name for the same failure (or None)
        needed: for truncation kinds, the least number of input bytes (from the
                start of the message) that could make the message complete
    """

    def __init__(self, kind: str, offset: int, path: str = "", detail: str = "",
                 needed: "int | None" = None) -> None:
        super().__init__(kind, offset, path, detail)
        self.kind = kind
        self.offset = offset
        self.path = path
        self.detail = detail
        self.needed = needed

    @property
    def errc(self) -> "str | None":
        return ErrorKind.ERRC.get(self.kind)

    def __str__(self) -> str:
        where = f" in {self.path}" if self.path else ""
        detail = f": {self.detail}" if self.detail else ""
        return f"{self.kind} at byte offset {self.offset}{where}{detail}"

    def __reduce__(self):  # keep pickling working despite the custom __init__
        return (DecodeError, (self.kind, self.offset, self.path, self.detail, self.needed))


class EncodeError(BinSerializerError, ValueError):
    """A value that cannot be encoded with its schema (out of range for its
    width, wrong type, wrong fixed-array length, ...).

    Attributes: ``path`` (e.g. ``Person.scores[1]``) and ``detail``.
    """

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(path, detail)
        self.path = path
        self.detail = detail

    def __str__(self) -> str:
        return f"cannot encode {self.path}: {self.detail}" if self.path else f"cannot encode: {self.detail}"

    def __reduce__(self):
        return (EncodeError, (self.path, self.detail))


class LogHeaderError(DecodeError):
    """A record log whose file header is not one (kind ``bad_header``, or
    ``truncated`` when the input ends inside it): wrong magic, version,
    format or flags, a CRC mismatch, a malformed or duplicate type table entry.
    ``offset``: the offending field."""

    def __reduce__(self):
        return (LogHeaderError, (self.kind, self.offset, self.path, self.detail, self.needed))


class LogCorruptError(DecodeError):
    """A record log block boundary where no valid block starts although the
    log goes on (docs/wire-format.md section 13, rules 4 and 6); kind
    ``corrupt_block``. ``offset``: the boundary; ``resume_offset``: the next
    valid block (where a reader may go on), or None when nothing valid
    follows; ``records``: raised by ``LogReader.read_all``, the records read
    before it (else None); ``counts``: raised by ``LogReader.tally``, the
    records of each type counted before it (else None)."""

    records: "list[Any] | None" = None
    counts: "list[int] | None" = None

    def __init__(self, kind: str, offset: int, path: str = "", detail: str = "",
                 needed: "int | None" = None, resume_offset: "int | None" = None) -> None:
        super().__init__(kind, offset, path, detail, needed)
        self.resume_offset = resume_offset

    def __reduce__(self):
        return (LogCorruptError, (self.kind, self.offset, self.path, self.detail, self.needed, self.resume_offset))


class LogRecordError(DecodeError):
    """A record of a valid block that cannot be read: its payload does not
    decode to exactly its length (kind: the payload's DecodeError kind), or
    no class given to the reader matches its type (kind ``unknown_type``).
    ``offset``: the record's first byte in the log; ``type_index``;
    ``payload_error``: the payload's DecodeError (offsets from the payload's
    start), or None; ``records``: raised by ``LogReader.read_all``, the
    records read before it (else None)."""

    records: "list[Any] | None" = None

    def __init__(self, kind: str, offset: int, path: str = "", detail: str = "",
                 needed: "int | None" = None, type_index: int = -1,
                 payload_error: "DecodeError | None" = None) -> None:
        super().__init__(kind, offset, path, detail, needed)
        self.type_index = type_index
        self.payload_error = payload_error

    def __reduce__(self):
        return (LogRecordError, (self.kind, self.offset, self.path, self.detail, self.needed, self.type_index,
                                 self.payload_error))
