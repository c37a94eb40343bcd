"""Record logs (docs/wire-format.md section 13): files of records of a fixed
set of types, in blocks checked by CRC32C.

    from bin_serializer.log import LogWriter, LogReader

    with LogWriter("ticks.bslog", [Trade, Quote]) as w:     # compact, 4 KiB blocks
        w.write(Trade(...))
        w.write(Quote(...))

    reader = LogReader("ticks.bslog", [Trade, Quote])
    for record in reader:                                  # Trade / Quote instances, in order
        ...
    reader.end, reader.end_offset                          # "clean" | "torn" | "corrupt", where

* ``LogWriter(target, types, format="compact", block_bytes=4096,
  flush="block", descriptions=True, append=False, recover=False)`` writes a
  header (the types' fingerprints, message ids and, unless
  ``descriptions=False``, their type descriptions) and then blocks of
  records; a record's type index is its class's position in `types`.
* ``LogReader(source, types=None, only=None, max_block_bytes=64 MiB)``
  iterates the records. With `types`, each type of the file is matched to the
  class with its fingerprint and message id; without, classes are built from
  the descriptions the file embeds (``schema.load``). Records of a file type
  that no class matches raise ``LogRecordError`` (kind ``unknown_type``) when
  one is met; ``only=`` names the types to return and skips the others.

How a log ends (``reader.end``): ``"clean"`` (no byte left, or only zeros),
``"torn"`` (a writer died inside the last block: iteration just stops; a
writer reopening the log with ``append=True`` cuts it there) or
``"corrupt"``: a block boundary where the bytes are no valid block, or a
record that is not well formed inside a block whose CRCs passed (corruption
at that record; the records before it are returned).
Iterating a reader raises ``LogCorruptError`` there (``offset``,
``resume_offset``: the next valid block or None); ``reader.records(
on_corruption="skip")`` instead goes on at the next valid block (the errors
are kept in ``reader.corruptions``), and after a raise, iterating the reader
again resumes at ``resume_offset``. Records come only from blocks whose
checksums passed: a reader returns what the writer sealed, never a changed
record.

With the compiled extension (``bin_serializer._cext``, backend "c") the CRCs
and the whole block walk, records decoded into objects included, run in C;
the pure-Python path (backend "python") returns the same records and errors.
"""

from __future__ import annotations

import functools
import gc
import io
import itertools
import json
import mmap
import os
import struct
import sys
import weakref
from typing import Any, Iterator, NamedTuple, Sequence

try:
    import fcntl
except ImportError:  # not POSIX: no lock (the C++ writers are POSIX only)
    fcntl = None  # type: ignore[assignment]

from . import _accel, api
from ._schema import varint_bytes
from .errors import (DecodeError, DescriptionError, ErrorKind, LogCorruptError, LogHeaderError, LogRecordError,
                     SchemaError)

__all__ = ["LogWriter", "LogReader", "LogHeader", "LogType", "crc32c", "LOG_MAGIC", "BLOCK_MAGIC",
           "LogCorruptError", "LogHeaderError", "LogRecordError"]

LOG_MAGIC = b"BSLG"
BLOCK_MAGIC = b"BSLB"
VERSION = 1
FORMAT_CODES = {"native": 0, "portable": 1, "compact": 2}
FORMAT_NAMES = {v: k for k, v in FORMAT_CODES.items()}
MAX_TABLE = 1 << 26
MAX_TYPES = 16384
MAX_BODY = 1 << 28
HEADER_SIZE = 16
BLOCK_HEAD = 16
FLUSH_MODES = ("block", "record", "manual")
# records decoded per walk of the blocks (one call into C). The collector is
# paused during a walk: records it tracks are walked by it once the batch is
# out, so they go in big batches (small ones make it run its older
# generations over them far more often); read_all() takes them in one walk.
# Records it does not track (frozen slotted dataclasses of numbers and
# strings, untracked=True) cost it nothing: they go in small batches, handed
# out while they are still in the CPU's caches, and the batch list itself is
# then left untracked by the walk (no one else sees it). The first walk is
# small; each walk's count of tracked records sets the next one's size.
_BATCH = 16384
_BATCH_UNTRACKED = 2048

_U32 = struct.Struct("<I")
_BLOCK = struct.Struct("<4sIII")  # magic, body_length, body_crc, head_crc
_ENTRY = struct.Struct("<QI")  # fingerprint, message_id

# ---------------------------------------------------------------------------
# CRC32C (Castagnoli, reflected 0x82F63B78, init / xorout 0xFFFFFFFF)


def _crc_table() -> "list[int]":
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32c_py(data: Any, crc: int = 0) -> int:
    """CRC32C of `data` in pure Python; `crc` continues an earlier value."""
    t = _TABLE
    c = crc ^ 0xFFFFFFFF
    for b in bytes(data):
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def _use_c() -> bool:
    return api.backend() == "c"


def crc32c(data: Any, crc: int = 0) -> int:
    """CRC32C of a bytes-like `data` (the compiled one with backend "c":
    SSE 4.2 where the CPU has it); ``crc32c(b"123456789") == 0xE3069283``."""
    if _use_c():
        return _accel._cext.crc32c(data, crc)
    return crc32c_py(data, crc)


# ---------------------------------------------------------------------------
# varints


_varint = varint_bytes  # the package's one LEB128 writer (_schema.py)


def _read_varint(buf: Any, pos: int, end: int, max_bytes: int) -> "tuple[int, int] | None":
    """(value, position after it) of a shortest-form varint of at most
    max_bytes bytes ending before `end`; None if there is none."""
    x = 0
    shift = 0
    for i in range(max_bytes):
        if pos + i >= end:
            return None
        b = buf[pos + i]
        x |= (b & 0x7F) << shift
        if not b & 0x80:
            if i and b == 0:
                return None  # not the shortest form
            return x, pos + i + 1
        shift += 7
    return None


# ---------------------------------------------------------------------------
# the header


class LogType(NamedTuple):
    """One entry of a log's type table."""
    index: int
    fingerprint: int
    message_id: int
    description: "str | None"  # the JSON text, None when the writer left it out
    name: "str | None"  # the description's type name (None without one)


class LogHeader(NamedTuple):
    """A log's file header: the payload format, flags and type table;
    ``data_offset`` is where the first block starts."""
    format: str
    flags: int
    types: "tuple[LogType, ...]"
    data_offset: int


def _description_name(text: "str | None") -> "str | None":
    if not text:
        return None
    try:
        doc = json.loads(text)
        name = doc["type"].get("name")
        return name if isinstance(name, str) else None
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def _bad(offset: int, detail: str, kind: str = ErrorKind.BAD_HEADER) -> LogHeaderError:
    return LogHeaderError(kind, offset, "log header", detail)


def parse_header(buf: Any) -> LogHeader:
    """The header of the log in `buf` (bytes-like); LogHeaderError if it is not one."""
    n = len(buf)
    if n < HEADER_SIZE:
        raise _bad(0, f"{n} bytes: a log header has 16", ErrorKind.TRUNCATED)
    head = bytes(buf[0:HEADER_SIZE])
    if head[0:4] == b"\0\0\0\0":  # as the C++ reader: a header whose magic is not published yet
        raise _bad(0, "magic still zero: a writer has not finished the header (not a log yet)", ErrorKind.TRUNCATED)
    if head[0:4] != LOG_MAGIC:
        raise _bad(0, f"magic {head[0:4].hex()}, not 42534c47 ('BSLG'): not a record log")
    if head[4] != VERSION:
        raise _bad(4, f"version {head[4]}; this reader knows version {VERSION}")
    if head[5] not in FORMAT_NAMES:
        raise _bad(5, f"format {head[5]} is none of 0 (native), 1 (portable), 2 (compact)")
    fmt = FORMAT_NAMES[head[5]]
    flags = head[6] | head[7] << 8
    if flags & ~1:
        raise _bad(6, f"flags {flags:#06x}: bits 1-15 must be 0")
    if flags & 1 and fmt != "native":
        raise _bad(6, "flag 0 (big-endian native payloads) in a log that is not native")
    if flags & 1:
        raise _bad(6, "native payloads written by a big-endian host: this package reads little-endian native only")
    table_length = _U32.unpack_from(head, 8)[0]
    if table_length > MAX_TABLE:
        raise _bad(8, f"table_length {table_length} is over {MAX_TABLE}")
    if table_length == 0:
        raise _bad(8, "table_length 0: a log holds at least one type")
    if table_length > n - HEADER_SIZE:
        raise _bad(8, f"table_length {table_length}: only {n - HEADER_SIZE} bytes follow the header",
                   ErrorKind.TRUNCATED)
    table = bytes(buf[HEADER_SIZE:HEADER_SIZE + table_length])
    want = _U32.unpack_from(head, 12)[0]
    got = crc32c(table, crc32c(head[0:12]))
    if got != want:
        raise _bad(12, f"header_crc {want:#010x}, the header and table give {got:#010x}")
    end = len(table)
    r = _read_varint(table, 0, end, 3)
    if r is None:
        raise _bad(HEADER_SIZE, "type_count is no shortest-form varint inside the table")
    count, pos = r
    if not 1 <= count <= MAX_TYPES:
        raise _bad(HEADER_SIZE, f"type_count {count} is outside 1 .. {MAX_TYPES}")
    if count * 13 > end - pos:
        raise _bad(HEADER_SIZE, f"type_count {count}: a table of {table_length} bytes cannot hold them")
    types = []
    seen: dict = {}
    for i in range(count):
        at = HEADER_SIZE + pos
        if end - pos < 13:
            raise _bad(at, f"type {i}: the table ends inside its entry")
        fp, mid = _ENTRY.unpack_from(table, pos)
        pos += 12
        r = _read_varint(table, pos, end, 4)
        if r is None:
            raise _bad(HEADER_SIZE + pos, f"type {i}: description length is no shortest-form varint inside the table")
        dlen, pos = r
        if dlen > end - pos:
            raise _bad(HEADER_SIZE + pos, f"type {i}: description of {dlen} bytes runs past the table")
        desc = None
        if dlen:
            try:
                desc = table[pos:pos + dlen].decode("utf-8")
            except UnicodeDecodeError:
                raise _bad(HEADER_SIZE + pos, f"type {i}: the description is not UTF-8") from None
        pos += dlen
        if (fp, mid) in seen:
            raise _bad(at, f"type {i} has the fingerprint {fp:#018x} and message id {mid} of type "
                           f"{seen[(fp, mid)]}: their records could not be told apart")
        seen[(fp, mid)] = i
        types.append(LogType(i, fp, mid, desc, _description_name(desc)))
    if pos != end:
        raise _bad(HEADER_SIZE + pos, f"the type table ends {end - pos} bytes before table_length")
    return LogHeader(fmt, flags, tuple(types), HEADER_SIZE + table_length)


def build_header(fmt: str, entries: "Sequence[tuple[int, int, bytes]]") -> bytes:
    """The header bytes for (fingerprint, message_id, description bytes) entries."""
    table = bytearray(_varint(len(entries)))
    for fp, mid, desc in entries:
        table += _ENTRY.pack(fp, mid)
        table += _varint(len(desc))
        table += desc
    if len(table) > MAX_TABLE:
        raise SchemaError(f"the type table takes {len(table)} bytes, over {MAX_TABLE}")
    head = LOG_MAGIC + bytes([VERSION, FORMAT_CODES[fmt], 0, 0]) + _U32.pack(len(table))
    return head + _U32.pack(crc32c(bytes(table), crc32c(head))) + bytes(table)


# ---------------------------------------------------------------------------
# blocks

_VALID, _UNFINISHED, _BAD, _DECODE_FAILED, _UNMATCHED, _BAD_RECORD = range(6)


def _check_head(buf: Any, x: int, end: int, max_body: int) -> "tuple[int, Any]":
    """The checks of the block at x before its records: (_VALID, end of its
    body); (_UNFINISHED, reason) for a block the input cuts short (rule 5:
    < 16 bytes, a zero magic, a body past the end); (_BAD, reason)."""
    if end - x < BLOCK_HEAD:
        return _UNFINISHED, "fewer than 16 bytes"
    magic, blen, body_crc, head_crc = _BLOCK.unpack_from(buf, x)
    if magic != BLOCK_MAGIC:
        if magic == b"\0\0\0\0":
            return _UNFINISHED, "the block's magic is still zero"
        return _BAD, f"magic {magic.hex()}, not 42534c42 ('BSLB')"
    if crc32c(buf[x:x + 12]) != head_crc:
        return _BAD, "head_crc mismatch"
    if not 1 <= blen <= MAX_BODY:
        return _BAD, f"body_length {blen} outside 1 .. 2^28"
    start = x + BLOCK_HEAD
    if blen > end - start:
        return _UNFINISHED, "the body runs past the end of the input"
    if blen > max_body:
        return _BAD, f"body_length {blen} over max_block_bytes={max_body}"
    stop = start + blen
    if crc32c(buf[start:stop]) != body_crc:
        return _BAD, "body_crc mismatch"
    return _VALID, stop


def _next_record(buf: Any, pos: int, stop: int, ntypes: int) -> "tuple[int, int, int] | str":
    """(type index, payload start, payload end) of the record at pos of a
    body ending at stop, or why it is not well formed."""
    r = _read_varint(buf, pos, stop, 2)
    if r is None or r[0] >= ntypes:
        return f"record at {pos}: type_index is no shortest-form varint of at most 2 bytes below type_count"
    t, p = r
    r = _read_varint(buf, p, stop, 4)
    if r is None or r[0] > stop - r[1]:
        return (f"record at {pos}: payload_length is no shortest-form varint of at most 4 bytes, or runs "
                f"past the block's end")
    return t, r[1], r[1] + r[0]


def _check_block(buf: Any, x: int, end: int, ntypes: int, max_body: int) -> "tuple[int, Any]":
    """Whether a valid block whose records tile its body starts at x (what
    rule 4 looks for): (_VALID, next boundary), else (status, reason)."""
    status, info = _check_head(buf, x, end, max_body)
    if status != _VALID:
        return status, info
    pos = x + BLOCK_HEAD
    while pos < info:
        rec = _next_record(buf, pos, info, ntypes)
        if isinstance(rec, str):
            return _BAD, rec
        pos = rec[2]
    return _VALID, info


def _all_zero(buf: Any, x: int, end: int) -> bool:
    step = 1 << 16
    zeros = bytes(step)
    while x < end:
        n = min(step, end - x)
        if bytes(buf[x:x + n]) != zeros[:n]:
            return False
        x += n
    return True


_GAVE_UP = -1


def _next_valid(buf: Any, x: int, end: int, ntypes: int, max_body: int) -> "int | None":
    """The first offset after x where a valid block starts (rule 4); None if
    there is none; _GAVE_UP when the search has checksummed more bodies than a
    budget linear in the bytes searched (a forged input can hold a candidate
    header every few bytes, each claiming a long body: checking them all would
    take quadratic time). The caller reports that as corruption with nowhere
    to resume, never as a torn tail (the C++ reader does the same)."""
    find = buf.find if hasattr(buf, "find") else None
    if find is None:  # a memoryview: search it a window at a time (no copy of the whole log)
        def find(sub: bytes, start: int, stop: int) -> int:
            step = 1 << 20
            while start < stop:
                window = bytes(buf[start:min(stop, start + step + len(sub) - 1)])
                i = window.find(sub)
                if i >= 0:
                    return start + i
                start += step
            return -1
    at = first = x + 1
    checked = 0
    while True:
        at = find(BLOCK_MAGIC, at, end)
        if at < 0:
            return None
        if _check_block(buf, at, end, ntypes, max_body)[0] == _VALID:
            return at
        # a body was checksummed when the head passed and the body is present
        if end - at >= BLOCK_HEAD:
            _, blen, _, head_crc = _BLOCK.unpack_from(buf, at)
            if 1 <= blen <= min(MAX_BODY, max_body) and blen <= end - at - BLOCK_HEAD and \
                    crc32c(buf[at:at + 12]) == head_crc:
                checked += blen
                if checked > 4 * (at - first) + 2 * max_body:
                    return _GAVE_UP
        at += 1


_MAX_DESCRIPTION_DEPTH = 256  # as log/described.hpp
_MAX_DESCRIPTION_STORED = 1 << 24


def _evolvable_nodes(text: "str | None") -> "list[tuple[str, list[int]]] | None":
    """The evolvable structs a type description lists: (JSON path, versions)
    for each object whose "kind" is "evolvable" and whose "versions" are
    counts, in the order log/described.hpp finds them (each after those
    inside it); None when the text is not JSON, nests deeper than the C++
    reader goes or holds more of them than it keeps (the path is built as
    a list and joined only for a node, so a hostile text costs no more than
    its length)."""
    try:
        doc = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return None
    out: "list[tuple[str, list[int]]]" = []
    parts: "list[str]" = [""]
    stored = 0

    def walk(node: Any, depth: int) -> bool:
        nonlocal stored
        if depth > _MAX_DESCRIPTION_DEPTH:
            return False
        if isinstance(node, dict):
            for key, value in node.items():
                parts.append(key)
                if not walk(value, depth + 1):
                    return False
                parts.pop()
            versions = node.get("versions")
            if node.get("kind") == "evolvable" and isinstance(versions, list) and all(
                    type(v) is int and 0 <= v < 10 ** 19 for v in versions):
                path = "/".join(parts)
                stored += len(path.encode("utf-8")) + 8 * len(versions)
                if stored > _MAX_DESCRIPTION_STORED:
                    return False
                out.append((path, list(versions)))
        elif isinstance(node, list):
            for k, value in enumerate(node):
                parts.append(str(k))
                if not walk(value, depth + 1):
                    return False
                parts.pop()
        return True

    return out if walk(doc, 0) else None


class _Count:
    """LogReader.tally's stand-in for a codec: takes a payload whole."""

    @staticmethod
    def fast_decode(payload: Any, pos: int) -> "tuple[None, int]":
        return None, len(payload) - pos


class _Decoders:
    """What a block walk does with each file type's records: decode them
    (a Codec), skip them (None) or refuse them (False)."""

    def __init__(self, codecs: list, compiled: bool = True) -> None:
        self.codecs = codecs
        self.c: "tuple | None" = (tuple(c.program if c else c for c in codecs) if compiled and _use_c()
                                  else None)


def _py_blocks(buf: Any, pos: int, end: int, ntypes: int, max_body: int, dec: _Decoders, out: list,
               max_values: int, pairs: bool) -> tuple:
    """The pure-Python block walk, with the result of the compiled one
    (``_cext.log_blocks``): (status, pos, a, b, exc). _VALID: pos is the
    first boundary not walked (out has the records up to it); _UNFINISHED /
    _BAD: no valid block at pos; _BAD_RECORD: the block at pos passed its
    checks but its record at a is not well formed (exc: why); _DECODE_FAILED: the record at a (type b)
    did not decode, exc what the decoder raised (None: it did not end at
    the payload's end); _UNMATCHED: the record at a has type b, which no
    class matches. Records before the failing one are in out."""
    codecs = dec.codecs
    while pos < end and len(out) < max_values:
        status, stop = _check_head(buf, pos, end, max_body)
        if status != _VALID:
            return status, pos, 0, 0, stop
        off = pos + BLOCK_HEAD
        while off < stop:
            rec = _next_record(buf, off, stop, ntypes)
            if isinstance(rec, str):
                return _BAD_RECORD, pos, off, 0, rec
            t, ps, pe = rec
            codec = codecs[t]
            if codec is None:
                off = pe
                continue
            if codec is False:
                return _UNMATCHED, pos, off, t, None
            payload = buf[ps:pe]
            try:
                value, p = codec.fast_decode(payload, 0)
            except Exception as exc:  # noqa: BLE001 - diagnosed by the caller
                return _DECODE_FAILED, pos, off, t, exc
            if p != pe - ps:
                return _DECODE_FAILED, pos, off, t, None
            out.append((t, value) if pairs else value)
            off = pe
        pos = stop
    return _VALID, pos, 0, 0, None


def _map_file_object(f: Any) -> "mmap.mmap | None":
    """A file object at the start of a regular file, mapped (a large log is
    not read into memory); None when it cannot be (a pipe, a socket, a
    position past the start, an object without a descriptor)."""
    try:
        if f.tell() != 0:
            return None
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return None


def _pread(fd: int, n: int, at: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, n, at)
    os.lseek(fd, at, os.SEEK_SET)  # Windows: the descriptor is this reader's alone
    return os.read(fd, n)


def _pread_into(fd: int, view: memoryview, at: int) -> int:
    if hasattr(os, "preadv"):
        return os.preadv(fd, [view], at)
    got = _pread(fd, min(len(view), 1 << 24), at)
    view[:len(got)] = got
    return len(got)


def _pread_all(fd: int, n: int, at: int) -> bytes:
    """Up to n bytes of fd from offset at (fewer at its end)."""
    parts = []
    while n > 0:
        got = _pread(fd, min(n, 1 << 24), at)
        if not got:
            break
        parts.append(got)
        n -= len(got)
        at += len(got)
    return b"".join(parts)


def _open_fd(path: Any) -> int:
    return os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def _map_fd(fd: int) -> "tuple[Any, Any]":
    """The whole file open at fd, mapped; read when it cannot be (empty)."""
    try:
        m = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (ValueError, OSError):  # empty, or not mappable: read it
        return _pread_all(fd, os.fstat(fd).st_size, 0), None
    return m, m


def _read_span(fd: int, view: memoryview, pos: int, size: int) -> int:
    """Bytes pos to size of fd into view at their offsets; where the reading
    ended (the file may be cut meanwhile: what was read is the input)."""
    end = pos
    while end < size:
        n = _pread_into(fd, view[end:size], end)
        if not n:
            break
        end += n
    return end


_LIVE_CHUNK = 1 << 20
_LIVE_FIRST = 64 << 10


def _read_sealed(fd: int, view: memoryview, pos: int, size: int) -> int:
    """As _read_span, for a file whose writer holds it (or that keeps the
    size at which a reading found only zeros from pos to its end: a writer
    that died): from the block boundary pos, a chunk at a time, up to the
    first block whose magic is still zero (the writer's open block), where
    the input then ends, as C++'s log_read_options::open_block_ends ends a
    reading there. A MappedFile's writer keeps zeros ahead of it, up to half
    of the file, which are then not read, nor searched for a valid block, at
    every poll;
    a zeroed block before valid ones (damage) is found once the writer is
    gone. Bytes that are not a block header where one should be: the rest
    is read, as _read_span does."""
    end = walk = pos
    while end < size:
        # the first chunk small: a poll that finds the open block at pos reads little
        n = _pread_into(fd, view[end:min(size, end + (_LIVE_CHUNK if end > pos else _LIVE_FIRST))], end)
        if not n:
            break
        end += n
        while walk >= 0 and walk + BLOCK_HEAD <= end:
            magic = view[walk:walk + 4]
            if magic == b"\0\0\0\0":
                return walk
            if magic != BLOCK_MAGIC:
                walk = -1
                break
            walk += BLOCK_HEAD + int.from_bytes(view[walk + 4:walk + 8], "little")
        if walk < 0:
            return _read_span(fd, view, end, size)
    return end


def _writer_holds(fd: int) -> bool:
    """Whether a writer holds the lock of the file open at fd (a writer
    locks it until it closes it; C++'s log_file_has_writer): a shared lock taken and
    given back at once, never waiting. A file system without flock: no
    writer can be seen, so none is."""
    if fcntl is None:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def _open_source(source: Any) -> "tuple[Any, Any]":
    """(a bytes-like view of the whole log, what to close); source is not a path."""
    if isinstance(source, (bytes, bytearray)):
        return source, None
    if isinstance(source, mmap.mmap):
        return source, None
    try:
        mv = memoryview(source)
    except TypeError:
        if not hasattr(source, "read"):
            raise TypeError(f"a log source is a path, a bytes-like object or a binary file, not "
                            f"{type(source).__name__}") from None
        m = _map_file_object(source)
        if m is not None:
            return m, m
        data = source.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("the file object's read() must return bytes (open it in binary mode)") from None
        return data, None
    if not mv.c_contiguous:
        return mv.tobytes(), None
    if mv.format != "B" or mv.ndim != 1:
        mv = mv.cast("B")
    return mv, mv


# MAP_NORESERVE (not in Python's mmap before 3.13): the anonymous memory
# follow() reads a log's new bytes into is as large as the file, but only its
# header's and its new bytes' pages are ever touched, so none is reserved.
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000 if sys.platform.startswith("linux") and os.uname().machine
                         in ("x86_64", "i686", "aarch64", "armv7l", "s390x", "riscv64") else 0)


class _Owned:
    """What a reader closes for memory it read a log into: the view it
    walks, then the mapping under it."""

    def __init__(self, m: mmap.mmap, view: memoryview) -> None:
        self._m, self._view = m, view

    def close(self) -> None:
        self._view.release()
        self._m.close()


class LogReader:
    """Reads a record log; iterating yields the records' objects in order.

    source: a path (mapped), a bytes-like object (read in place) or a binary
    file object (mapped when it is a regular file at its start, read whole
    otherwise: a pipe, a socket, BytesIO). types: the classes to decode records into,
    matched to the file's types by fingerprint and message id; None builds
    them from the descriptions in the file (``schema.load``; a type without
    one cannot be read). only: the classes, type names (the description's,
    with or without its C++ namespace, or the class name) or type indices of
    the records to return; the others are skipped unread. max_block_bytes:
    a block with a larger body is treated as corrupt (memory bound). customs,
    raw_strings, keep_unknown: passed to ``schema.load`` for types built from
    descriptions (keep_unknown: an evolvable struct keeps the fields a newer
    writer appended, ``types.unknown_fields``, as ``cat`` shows them).
    untracked: records whose fields hold no container (numbers, strings,
    bytes, None, other such records) are left out of the cycle collector,
    as msgspec's ``Struct(gc=False)`` does: faster to make and to keep, but a
    reference cycle built through such a record later is never collected.
    Only with the compiled extension (the pure-Python codec ignores it).

    start: where reading begins, a block boundary a reader of the same log
    reported as ``valid_end`` (0: the first block): to go on reading a log
    that is still being written, or from a checkpoint. Inside the header:
    ValueError; past the end of the input: DecodeError (``truncated``, at
    the input's end); between two block boundaries: corruption there, as any
    bad bytes.

    After iteration: ``end`` ("clean", "torn", "corrupt"; "error" after a
    LogRecordError, which ends the reading), ``end_offset`` (where the log
    ended, the torn tail or the corruption starts, or the record's offset),
    ``valid_end`` (where the blocks read whole end: the next reader's
    ``start``), ``corruptions`` (every LogCorruptError met), ``header`` (a
    LogHeader).
    """

    def __init__(self, source: Any, types: "Sequence[type] | None" = None, *, only: "Sequence[Any] | None" = None,
                 max_block_bytes: int = 64 << 20, customs: "dict | None" = None, raw_strings: bool = False,
                 untracked: bool = False, keep_unknown: bool = False, start: int = 0) -> None:
        if max_block_bytes < 1:
            raise ValueError("max_block_bytes must be positive")
        if start < 0:
            raise ValueError("start must not be negative")
        self._path = source if isinstance(source, (str, os.PathLike)) else None
        self._file_id = None
        self._fd = -1  # the file opened from the path, kept for follow()
        self._fd_closer: "Any | None" = None
        self._closer: Any = None
        if self._path is not None:
            # follow() reads this file again (through this descriptor, even
            # once it is renamed), not another one put at its path
            self._keep_fd(_open_fd(self._path))
            try:
                st = os.fstat(self._fd)
                self._file_id = (st.st_dev, st.st_ino)
                self._buf, self._closer = _map_fd(self._fd)
            except BaseException:
                self.close()
                raise
        else:
            self._buf, self._closer = _open_source(source)
        try:
            self.header = parse_header(self._buf)
            first = self.header.data_offset
            if 0 < start < first:
                raise ValueError(f"start {start} is inside the log's header (its blocks begin at {first})")
            if start > len(self._buf):
                raise DecodeError(ErrorKind.TRUNCATED, len(self._buf), "log",
                                  f"start {start} is past the end of the log ({len(self._buf)} bytes)")
        except BaseException:
            self.close()
            raise
        self._head = bytes(self._buf[:self.header.data_offset])
        self.format = self.header.format
        self.max_block_bytes = min(max_block_bytes, MAX_BODY)
        self._customs = dict(customs or {})
        self._raw_strings = raw_strings
        self._keep_unknown = bool(keep_unknown)
        self._untracked = bool(untracked)
        self.end: "str | None" = None
        self.end_offset: "int | None" = None
        self.corruptions: "list[LogCorruptError]" = []
        self._pos = max(start, self.header.data_offset)
        self._boundary = self._pos  # the block boundary where reading last stopped (append cuts there)
        self._done = False
        self._classes: "list[Any]" = [None] * len(self.header.types)
        self._given = types is not None
        if types is not None:
            by_key: dict = {}
            from .message import message_id, schema_hash
            for cls in types:
                by_key[(schema_hash(cls, self.format), message_id(cls))] = cls
            for t in self.header.types:
                self._classes[t.index] = by_key.get((t.fingerprint, t.message_id))
        self._wanted = self._select(only)
        self._decoders: "_Decoders | None" = None
        # records read but not handed out (an iteration stopped early), handed out first by the next
        # reading; (type index, record) pairs if _pending_pairs
        self._pending: "list[Any]" = []
        self._pending_pairs = False
        self._iterating: "weakref.ref[Any] | None" = None  # the last records() iterator
        self._live = False  # follow() is reading
        self._suspect = -1  # an unpublished block followed by valid ones, seen once by follow()
        self._reread = False  # follow(): that block is read again at once, before any wait
        # (offset, file size): a reading found only zeros from offset to the end of a file of that size
        self._zeros: "tuple[int, int] | None" = None

    # -- types

    @property
    def valid_end(self) -> int:
        """Once reading ended clean, torn or corrupt: the end of the last
        block read whole, where a reader of the log as it grows starts next
        (``start``); C++'s ``log_reader::valid_end()``."""
        return self._boundary

    def _select(self, only: "Sequence[Any] | None") -> "set[int]":
        types = self.header.types
        if only is None:
            return {t.index for t in types}
        wanted = set()
        for o in only:
            hits = []
            for t in types:
                if isinstance(o, int) and not isinstance(o, bool):
                    hit = t.index == o
                elif isinstance(o, str):
                    hit = o in (t.name, (t.name or "").rsplit("::", 1)[-1]) or (
                        self._classes[t.index] is not None and self._classes[t.index].__name__ == o)
                else:
                    hit = self._classes[t.index] is o or self._matches(o, t)
                if hit:
                    hits.append(t.index)
            if not hits:
                raise ValueError(f"only={o!r}: no type of the log is that (types: "
                                 f"{[(t.index, t.name) for t in types]})")
            wanted.update(hits)
        return wanted

    def _matches(self, cls: Any, t: LogType) -> bool:
        from .message import message_id, schema_hash
        try:
            return schema_hash(cls, self.format) == t.fingerprint and message_id(cls) == t.message_id
        except SchemaError:
            return False

    def type_class(self, index: int) -> Any:
        """The class records of file type `index` decode into (built from its
        description when the reader was given no types); None if none."""
        cls = self._classes[index]
        if cls is None and not self._given:
            t = self.header.types[index]
            if t.description is None:
                return None
            from . import schema
            from .message import message_id, schema_hash
            try:
                cls = schema.load(t.description, self._customs, raw_strings=self._raw_strings,
                                  keep_unknown=self._keep_unknown)
                desc_fmt = schema.parse(t.description)["format"]
            except DescriptionError as e:
                raise DescriptionError(f"log type {index} ({t.name}): {e}") from None
            if desc_fmt != self.format or schema_hash(cls, self.format) != t.fingerprint \
                    or message_id(cls) != t.message_id:
                raise DescriptionError(f"log type {index} ({t.name}): its description is of another type "
                                       f"than its fingerprint {t.fingerprint:#018x} / message id {t.message_id}")
            self._classes[index] = cls
        return cls

    def _build_decoders(self) -> _Decoders:
        codecs: list = []
        for t in self.header.types:
            if t.index not in self._wanted:
                codecs.append(None)
                continue
            cls = self.type_class(t.index)
            codecs.append(api.compile_codec(cls, self.format) if cls is not None else False)
        return _Decoders(codecs)

    # -- iteration

    def __iter__(self) -> Iterator[Any]:
        return self.records()

    def records(self, on_corruption: str = "raise", *, with_index: bool = False) -> Iterator[Any]:
        """The records from where the reader stands. on_corruption="raise":
        a corruption raises LogCorruptError (iterating again resumes at its
        resume_offset, or ends when there is none); "skip": it is appended
        to ``corruptions`` and reading goes on at the next valid block.
        with_index: (type index, record) pairs instead of the records."""
        if on_corruption not in ("raise", "skip"):
            raise ValueError(f"on_corruption must be 'raise' or 'skip', not {on_corruption!r}")
        if self._decoders is None or (self._decoders.c is not None) != _use_c():
            self._decoders = self._build_decoders()
        # the records come in lists (one per walk of the blocks): Batches (or
        # chain, without the extension) hands them out without a Python
        # frame per record
        pending = self._take_pending(with_index)
        batches = self._batches(on_corruption == "skip", with_index)
        if pending:
            batches = itertools.chain([pending], batches)
        # if the caller stops early, the records of the batch not yet handed out come back (_give_back),
        # for the next records(), read_all() or follow(): iterating, leaving and iterating again loses none
        give_back = functools.partial(self._give_back, pairs=with_index)
        if _accel._cext is not None:
            it = _accel._cext.Batches(batches, give_back)
        else:
            it = self._chain(batches, give_back)
        self._iterating = weakref.ref(it)
        return it

    @staticmethod
    def _chain(batches: "Iterator[list]", give_back: Any) -> Iterator[Any]:
        """Batches without the extension: the records one by one, the rest of
        a batch given back if the caller stops."""
        for batch in batches:
            it = iter(batch)
            try:
                yield from it
            finally:
                rest = list(it)
                if rest:
                    give_back(rest)

    def _give_back(self, rest: "list[Any]", pairs: bool) -> None:
        if self._pending:  # not expected (a reading takes them first); kept in order all the same
            rest = rest + self._convert(self._pending, self._pending_pairs, pairs)
        self._pending, self._pending_pairs = rest, pairs

    def _take_pending(self, pairs: bool) -> "list[Any]":
        """The records read but not handed out, first ending a records()
        iterator still open (what it holds comes back), as `pairs` or not."""
        ref, self._iterating = self._iterating, None
        it = ref() if ref is not None else None
        if it is not None:
            it.close()
        got, self._pending = self._pending, []
        return self._convert(got, self._pending_pairs, pairs) if got else got

    def _convert(self, got: "list[Any]", have_pairs: bool, pairs: bool) -> "list[Any]":
        if have_pairs == pairs:
            return got
        if not pairs:
            return [r for _, r in got]
        index = {cls: i for i, cls in enumerate(self._classes) if cls is not None}
        return [(index[type(r)], r) for r in got]

    def read_all(self, on_corruption: str = "raise", *, with_index: bool = False) -> "list[Any]":
        """The records from where the reader stands to the end, in one list:
        the same records and errors as ``list(self.records(...))``, read in
        C with no step per record in Python (the fastest way to load a whole
        log; records the cycle collector tracks are read in one walk). When
        a LogCorruptError or LogRecordError is
        raised, the records before it are in the exception's ``records``
        (iterating would have handed them out); after a corruption,
        ``read_all()`` again (or iterating) goes on at its resume_offset."""
        if on_corruption not in ("raise", "skip"):
            raise ValueError(f"on_corruption must be 'raise' or 'skip', not {on_corruption!r}")
        if self._decoders is None or (self._decoders.c is not None) != _use_c():
            self._decoders = self._build_decoders()
        got = self._take_pending(with_index)
        try:
            for batch in self._batches(on_corruption == "skip", with_index, whole=True):
                if got or not gc.is_tracked(batch):  # an untracked batch never leaves: its records are copied
                    got.extend(batch)
                else:
                    got = batch
        except (LogCorruptError, LogRecordError) as e:
            e.records = got
            raise
        return got

    def follow(self, interval: float = 0.2, *, on_corruption: str = "raise", with_index: bool = False,
               idle_timeout: "float | None" = None, on_wait: "Any | None" = None,
               on_rotation: str = "raise") -> Iterator[Any]:
        """The records of a log that is still being written, as its writer
        seals them (``tail -f``): the records to the end, as ``records()``
        gives them; then, at a clean end or a torn tail (an open block), the
        file the reader opened is read again every `interval` seconds from
        ``valid_end`` on. Only for a reader opened from a path. Ends after
        `idle_timeout` seconds without a new record (None: never; stop it
        with break or Ctrl-C), or with an exception: a LogRecordError, a
        LogCorruptError when on_corruption="raise" (a corruption is reported
        once, not at every poll), a LogHeaderError when the file holds
        another log, a DecodeError (``truncated``) when it was cut shorter
        than ``valid_end``. on_wait: called with no argument before each
        wait for new records (to flush an output, say, as ``cat --follow``
        does).

        on_rotation: what to do when the path names another file (the log
        was rotated: renamed, and a new one created at the path).
        "raise": LogHeaderError (FileNotFoundError while the path names
        none). "follow" (``tail -F``): the renamed file is read to its end
        once its writer is gone (a writer holds the file's lock until it
        closes it), then reading goes on from the first block of the file
        at the path, as soon as its header is written; that header must be
        the same as this log's (the same format and types), else
        LogHeaderError. Each record is handed out once, in order, and
        ``valid_end`` is then an offset in the new file. A writer that
        does not lock the file (one on a file system without flock) is
        taken as gone at once: it must close the file before renaming it.

        Each poll reads the file (its header and the bytes from
        ``valid_end`` on) and never maps it, so a writer that cuts its torn
        tail when it restarts (``append=True``) cannot raise SIGBUS here;
        the first reading, of the mapping a reader opened from a path holds,
        can (docs/logs.md)."""
        if self._path is None:
            raise ValueError("follow() reads the log again from its path: open the LogReader with a path")
        if on_corruption not in ("raise", "skip"):
            raise ValueError(f"on_corruption must be 'raise' or 'skip', not {on_corruption!r}")
        if on_rotation not in ("raise", "follow"):
            raise ValueError(f"on_rotation must be 'raise' or 'follow', not {on_rotation!r}")
        if self._fd < 0:
            raise ValueError("follow() on a closed LogReader")
        if self._decoders is None or (self._decoders.c is not None) != _use_c():
            self._decoders = self._build_decoders()  # a bad description fails here, at the call
        return self._follow(interval, on_corruption, with_index, idle_timeout, on_wait, on_rotation)

    def _follow(self, interval: float, on_corruption: str, with_index: bool,
                idle_timeout: "float | None", on_wait: Any, on_rotation: str) -> Iterator[Any]:
        self._live = True
        try:
            yield from self._polls(interval, on_corruption, with_index, idle_timeout, on_wait, on_rotation)
        finally:
            self._live = False
            self._reread = False

    def _polls(self, interval: float, on_corruption: str, with_index: bool,
               idle_timeout: "float | None", on_wait: Any, on_rotation: str) -> Iterator[Any]:
        import time
        said = {e.offset for e in self.corruptions}
        idle_since = time.monotonic()
        last_file = False  # the file read is rotated away and its writer gone: read to its end, then the next
        while True:
            got = 0
            before = len(self.corruptions)
            while True:
                try:
                    pending = self._take_pending(with_index)  # what an iteration stopped early left
                    if pending:
                        got += len(pending)
                        yield from self._hand_out(pending, with_index)
                    for batch in self._batches(on_corruption == "skip", with_index):
                        got += len(batch)
                        yield from self._hand_out(batch, with_index)
                    if not self._reread:
                        break
                    # a block found unsealed while a later one was sealed: its
                    # writer sealed it meanwhile, or it is corrupt; read again now
                    self._reread = False
                    self._read_tail()
                except LogCorruptError as e:
                    if e.offset not in said:
                        raise
                    # met again at a later poll (the reading there started before it): said once
                    del self.corruptions[-1]
                    if e.resume_offset is None:
                        break
            # the same in skip mode: a corruption an earlier poll reported is not reported again
            fresh = [e for e in self.corruptions[before:] if e.offset not in said]
            del self.corruptions[before:]
            self.corruptions.extend(fresh)
            said.update(e.offset for e in fresh)
            switched = self._open_next() if last_file else None
            if switched is not None:
                last_file = False
                if switched:  # the new file's records, at once
                    said = set()  # offsets in the new file
                    idle_since = time.monotonic()
                    continue
            now = time.monotonic()
            if got:
                idle_since = now
            elif idle_timeout is not None and now - idle_since >= idle_timeout:
                return
            if on_wait is not None:
                on_wait()
            time.sleep(interval)
            if not last_file:
                last_file = self._read_again(on_rotation)

    def _hand_out(self, batch: list, pairs: bool) -> Iterator[Any]:
        """The records of batch one by one; if the caller stops taking
        them (breaks out of follow()), the rest are kept for the next
        follow() or records(), so stopping loses none."""
        it = iter(batch)
        try:
            yield from it  # one resumption a record, no Python step
        finally:
            rest = list(it)  # what the caller did not take, if it stopped
            if rest:
                self._give_back(rest, pairs)

    def _read_again(self, on_rotation: str) -> bool:
        """The file the reader opened as it is now, from valid_end on: read
        (not mapped, so that a writer cutting the file cannot raise SIGBUS
        here) into memory that holds the header at its offset and the bytes
        from valid_end at theirs (an anonymous mapping of the file's size,
        whose other pages are never touched). True when that file was
        rotated away and its writer is gone: what was read is all it will
        ever hold."""
        if self._fd < 0:
            raise ValueError("the LogReader was closed while it was followed")
        try:
            st = os.stat(self._path)
            moved = (st.st_dev, st.st_ino) != self._file_id
        except FileNotFoundError:
            if on_rotation == "raise":
                raise
            moved = True
        if moved and on_rotation == "raise":
            raise LogHeaderError(ErrorKind.BAD_HEADER, 0, "log",
                                 f"{self._path} is another file now (renamed or replaced: a rotated log? "
                                 f"follow(on_rotation='follow') reads on in the new file)")
        gone = moved and not _writer_holds(self._fd)  # asked before reading: all it wrote is there
        self._read_tail()
        return gone

    def _read_tail(self) -> None:
        fd, head, pos = self._fd, len(self._head), self._boundary
        size = os.fstat(fd).st_size
        if size < pos:
            raise DecodeError(ErrorKind.TRUNCATED, size, "log",
                              f"{self._path} was cut to {size} bytes, before offset {pos} where reading stood")
        if _pread_all(fd, head, 0) != self._head:
            raise LogHeaderError(ErrorKind.BAD_HEADER, 0, "log",
                                 f"{self._path} now holds another log (its header changed)")
        m = mmap.mmap(-1, max(size, 1), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE)
        view = memoryview(m)
        try:
            view[:head] = self._head
            # While a writer holds the file, or while it keeps the size at which a reading found only
            # zeros from pos to its end (a C++ MappedFile's writer that died), blocks are sealed in
            # order: nothing is new until the block at pos is, and the zeros after it are not read again.
            sealed_only = self._zeros == (pos, size) or _writer_holds(fd)
            end = _read_sealed(fd, view, pos, size) if sealed_only else _read_span(fd, view, pos, size)
            buf = view[:end]
        except BaseException:
            view.release()
            m.close()
            raise
        view.release()
        self._release_buf()
        self._buf, self._closer = buf, _Owned(m, buf)
        self._pos = pos
        self._done = False
        self.end = self.end_offset = None

    def _open_next(self) -> "bool | None":
        """The file now at the reader's path, once its header is written:
        reading goes on from its first block (True). None while the path
        names none or its header is not yet published; False if it names
        the file read here again (renamed back: followed as before);
        LogHeaderError if it holds another log."""
        try:
            fd = _open_fd(self._path)
        except FileNotFoundError:
            return None
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) == self._file_id:
                os.close(fd)
                return False
            data = _pread_all(fd, len(self._head), 0)
            if data != self._head:
                if _unpublished(data, self._head):
                    os.close(fd)
                    return None
                raise LogHeaderError(ErrorKind.BAD_HEADER, 0, "log",
                                     f"{self._path} holds another log now: its header is not the rotated "
                                     f"log's (other types or format)")
        except BaseException:
            os.close(fd)
            raise
        self._close_fd()
        self._keep_fd(fd)
        self._file_id = (st.st_dev, st.st_ino)
        self._boundary = self._pos = len(self._head)
        self._suspect = -1
        self._zeros = None
        self._read_tail()
        return True

    def resume(self) -> Iterator[Any]:
        """After a LogCorruptError: the records from the next valid block on."""
        return self.records()

    def tally(self, on_corruption: str = "raise") -> "list[int]":
        """How many records of each file type (a list by type index) from
        where the reader stands to the end, decoding none: the blocks' CRCs
        and framing are checked as when reading, so the counts are of the
        records reading would return, and the reader ends as iterating
        would (``end``, ``end_offset``, ``corruptions``; "raise" and
        "skip" as for ``records()``, a LogCorruptError carrying the counts so
        far in ``counts``). No class or description is needed (a log written
        without descriptions is counted too), but ``only`` is ignored. The
        walk is in Python (about 1 M records/s): for ``info``, not for data."""
        if on_corruption not in ("raise", "skip"):
            raise ValueError(f"on_corruption must be 'raise' or 'skip', not {on_corruption!r}")
        counts = [0] * len(self.header.types)
        for index, _ in self._take_pending(True):  # read before, not yet handed out: counted, and gone
            counts[index] += 1
        saved = self._decoders
        self._decoders = _Decoders([_Count] * len(counts), compiled=False)  # the Python walk takes any codec
        try:
            for batch in self._batches(on_corruption == "skip", True):
                for index, _ in batch:
                    counts[index] += 1
        except LogCorruptError as e:
            e.counts = counts
            raise
        finally:
            self._decoders = saved
        return counts

    def _batches(self, skip: bool, pairs: bool, whole: bool = False) -> "Iterator[list]":
        buf = self._buf
        end = len(buf)
        ntypes = len(self.header.types)
        max_body = self.max_block_bytes
        dec = self._decoders
        assert dec is not None
        cwalk = _accel._cext.log_blocks if dec.c is not None else None
        batch = _BATCH_UNTRACKED
        while not self._done:
            pos = self._pos
            out: list = []
            if cwalk is not None:
                # out is the walk's own: records() hands its records out, read_all() copies them; no one
                # else sees it
                status, pos, a, b, exc, tracked = cwalk(buf, pos, end, ntypes, max_body, dec.c, out, batch, pairs,
                                                        self._untracked)
                batch = (sys.maxsize if whole else _BATCH) if tracked else _BATCH_UNTRACKED
            else:
                status, pos, a, b, exc = _py_blocks(buf, pos, end, ntypes, max_body, dec, out, _BATCH, pairs)
            self._pos = pos
            if out:
                yield out
            if status == _VALID:
                if pos >= end:
                    self._finish("clean", end)
                continue
            if status == _DECODE_FAILED or status == _UNMATCHED:
                # the rest of that block is not returned: the reader stops there
                self._finish("error", a)
                raise self._record_error(status, a, b, exc)
            self._boundary = pos
            if status == _BAD_RECORD:
                # the block passed its checks but a record in it is not well
                # formed (a faulty writer): corruption at that record
                if exc is None:  # the C walk does not say why
                    rec = _next_record(buf, a, _check_head(buf, pos, end, max_body)[1], ntypes)
                    exc = rec if isinstance(rec, str) else "malformed record"
                at = a
                nxt = _next_valid(buf, a, end, ntypes, max_body)
                if nxt == _GAVE_UP:
                    nxt = None
                what = f"block at {pos}: {exc}"
            else:
                # no valid block at pos
                exc = _check_block(buf, pos, end, ntypes, max_body)[1]  # why (the C walk does not say)
                if _all_zero(buf, pos, end):
                    self._zeros = (pos, end)
                    self._finish("clean", pos)
                    continue
                nxt = _next_valid(buf, pos, end, ntypes, max_body)
                gave_up = nxt == _GAVE_UP
                if gave_up:
                    nxt = None
                if nxt is None and status == _UNFINISHED and not gave_up:
                    self._finish("torn", pos)
                    continue
                if self._live and status == _UNFINISHED and nxt is not None and self._suspect != pos:
                    # follow(): a log written in place (a C++ MappedFile)
                    # whose writer sealed this block, and more, while these
                    # bytes were read. Blocks are sealed in order, so a
                    # second reading, at once (_polls), finds it sealed; if
                    # it does not, it is corruption then.
                    self._suspect = pos
                    self._reread = True
                    self._finish("torn", pos)
                    continue
                at = pos
                what = f"no valid block at offset {pos} ({exc})"
            err = LogCorruptError(ErrorKind.CORRUPT_BLOCK, at, "log", what
                                  + (f"; the next valid block is at {nxt}" if nxt is not None else
                                     "; nothing valid follows"), resume_offset=nxt)
            self.corruptions.append(err)
            self.end, self.end_offset = "corrupt", at
            if nxt is None:
                self._done = True
            else:
                self._pos = nxt
            if not skip:
                raise err
            if nxt is None:
                return

    def _finish(self, how: str, at: int) -> None:
        self.end, self.end_offset = how, at
        self._boundary = at if how != "error" else self._boundary
        self._done = True

    def _record_error(self, status: int, off: int, t: int, exc: Any) -> LogRecordError:
        lt = self.header.types[t]
        name = lt.name or f"type {t}"
        buf = self._buf
        r = _read_varint(buf, off, len(buf), 2)
        assert r is not None
        r2 = _read_varint(buf, r[1], len(buf), 4)
        assert r2 is not None
        ps, pe = r2[1], r2[1] + r2[0]
        if status == _UNMATCHED:
            why = ("no class given to the reader has its fingerprint "
                   f"{lt.fingerprint:#018x} and message id {lt.message_id}" if self._given else
                   "the log holds no description of it")
            return LogRecordError(ErrorKind.UNKNOWN_TYPE, off, name,
                                  f"record of type index {t} ({name}) at offset {off}: {why} (pass only= to "
                                  f"skip the types you do not read)", type_index=t)
        assert self._decoders is not None
        codec = self._decoders.codecs[t]
        payload = buf[ps:pe]
        if not isinstance(payload, bytes):
            payload = bytes(payload)
        inner: "DecodeError | None" = None
        if exc is not None:
            try:
                codec.fail(payload, 0, exc)
            except DecodeError as e:
                inner = e
        else:  # the decoder stopped before the payload's end: where, by the reference decoder
            from . import _slow
            try:
                _, p = _slow.slow_decode(codec.node, codec.mode, payload, 0, build=False)
                inner = DecodeError(ErrorKind.TRAILING_BYTES, p, codec.name,
                                    f"the payload of {pe - ps} bytes decodes in {p}")
            except DecodeError as e:
                inner = e
        assert inner is not None
        return LogRecordError(inner.kind, off, inner.path,
                              f"record of type index {t} ({name}) at offset {off}: payload byte "
                              f"{inner.offset} (offset {ps + inner.offset}): {inner.detail}",
                              type_index=t, payload_error=inner)

    # -- the rest

    def _keep_fd(self, fd: int) -> None:
        self._fd = fd
        self._fd_closer = weakref.finalize(self, os.close, fd)  # closed with the reader, even if not closed

    def _close_fd(self) -> None:
        closer, self._fd_closer, self._fd = self._fd_closer, None, -1
        if closer is not None:
            closer()

    def close(self) -> None:
        self._release_buf()
        self._close_fd()

    def _release_buf(self) -> None:
        closer, self._closer = self._closer, None
        if closer is not None:
            try:
                closer.close() if not isinstance(closer, memoryview) else closer.release()
            except BufferError:  # a record still views the mapping (a numpy array): left to the GC
                pass

    def __enter__(self) -> "LogReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _unpublished(data: bytes, header: bytes) -> bool:
    """Whether data is what a writer of `header` leaves when it dies before
    publishing it (the C++ writer's rule, log/writer.hpp): a prefix of the
    header's bytes, the magic written or still zero (it is stored last), then
    zeros. No reader ever found a log there, so an appending writer starts
    it anew, losing nothing."""
    n = min(len(data), len(header))
    zero_magic = data[:min(n, 4)] == bytes(min(n, 4))
    i = 0
    while i < n and (data[i] == header[i] or (i < 4 and zero_magic and data[i] == 0)):
        i += 1
    return data.count(0, i) == len(data) - i


def _open_locked(path: Any) -> Any:
    """The file at path, opened for reading and writing (created if missing,
    nothing cut yet) and locked for one writer, as the C++ writers lock it
    (flock, exclusive, never waiting). BlockingIOError if another writer, in
    this process or another, holds it: nothing was read or changed. A file
    system without flock is written unlocked, as in C++."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0), 0o666)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as e:
                raise BlockingIOError(e.errno, f"{os.fspath(path)} is being written by another log writer "
                                               f"(it holds the file's lock)") from None
            except OSError:
                pass
        return os.fdopen(fd, "r+b", buffering=0)
    except BaseException:
        os.close(fd)
        raise


class LogWriter:
    """Writes a record log.

    target: a path (created, or truncated; with append=True opened and
    continued) or a binary file object. types: the classes of the records,
    their position is the type index. format: "compact" (default),
    "portable" or "native". block_bytes: a block is sealed as soon as its
    body reaches that many bytes after a record (as the C++ log_writer does:
    a large record goes into the open block, which it then seals). flush: "block" (write each sealed block), "record" (seal and
    flush after every record) or "manual" (only flush() / close() write).
    descriptions: embed each type's description (bin_serializer.schema
    format). append: continue an existing log at `target` (a path): its
    header must have the same format and the same (fingerprint, message id)
    table in the same order, and describe every version of an evolvable
    class; a torn tail is cut, a corrupt tail is an error unless
    recover=True (then it is cut too), corruption followed by valid blocks
    always is. A path is locked for this writer until close() (flock): a
    second writer of the same file, here or in a C++ program, gets
    BlockingIOError and changes nothing.
    """

    def __init__(self, target: Any, types: "Sequence[type]", *, format: str = "compact", block_bytes: int = 4096,
                 flush: str = "block", descriptions: bool = True, append: bool = False,
                 recover: bool = False) -> None:
        if format not in FORMAT_CODES:
            raise ValueError(f"format must be one of {sorted(FORMAT_CODES)}, not {format!r}")
        if flush not in FLUSH_MODES:
            raise ValueError(f"flush must be one of {FLUSH_MODES}, not {flush!r}")
        if not 1 <= block_bytes <= MAX_BODY:
            raise ValueError(f"block_bytes must be in 1 .. 2^28, not {block_bytes}")
        types = list(types)
        if not 1 <= len(types) <= MAX_TYPES:
            raise ValueError(f"a log holds 1 .. {MAX_TYPES} types, not {len(types)}")
        from .message import message_id, schema_hash
        self.format = format
        self.block_bytes = block_bytes
        self.flush_mode = flush
        self.types = types
        self._index: dict = {}
        self._codecs = []
        entries = []
        seen: dict = {}
        for i, cls in enumerate(types):
            fp, mid = schema_hash(cls, format), message_id(cls)
            if (fp, mid) in seen:
                raise SchemaError(f"types[{i}] ({getattr(cls, '__name__', cls)}) has the fingerprint and message id "
                                  f"of types[{seen[(fp, mid)]}]: a reader could not tell their records apart")
            seen[(fp, mid)] = i
            if cls in self._index:
                raise SchemaError(f"types[{i}]: {cls!r} is listed twice")
            self._index[cls] = i
            self._codecs.append(api.compile_codec(cls, format))
            desc = b""
            if descriptions:
                from ._describe import describe
                desc = describe(cls, format).encode("utf-8")
            entries.append((fp, mid, desc))
        self._heads = [_varint(i) for i in range(len(types))]
        header = build_header(format, entries)
        self._body = bytearray()
        self._pending: "list[bytes]" = []
        self._closed = False
        self._own = False
        if isinstance(target, (str, os.PathLike)):
            f = _open_locked(target)
            try:
                if append:
                    self._open_append(f, target, entries, recover)
                else:
                    f.truncate(0)
                    f.write(header)
            except BaseException:
                f.close()
                raise
            self._f = f
            self._own = True
        else:
            if append:
                raise ValueError("append=True takes a path")
            self._f = target
            self._f.write(header)

    def _open_append(self, f: Any, path: Any, entries: list, recover: bool) -> None:
        """Leaves f (locked, at offset 0) at the end of the log it holds,
        a torn tail cut; or a new log's header in it if it held none."""
        data = f.readall()
        fresh = build_header(self.format, entries)
        try:
            header = parse_header(data) if data else None
        except LogHeaderError as e:
            # a header its writer died before publishing: nothing was readable
            if e.kind != ErrorKind.TRUNCATED or not _unpublished(data, fresh):
                raise
            header = None
        if header is None:  # an empty file, or nothing readable yet: a new log
            f.truncate(0)
            f.seek(0)
            f.write(fresh)
            return
        mine = [(fp, mid) for fp, mid, _ in entries]
        theirs = [(t.fingerprint, t.message_id) for t in header.types]
        if header.format != self.format or mine != theirs:
            raise SchemaError(f"append: {os.fspath(path)} is a {header.format} log of types "
                              f"{[(t.name, f'{t.fingerprint:#018x}', t.message_id) for t in header.types]}; "
                              f"this writer's are {self.format} "
                              f"{[(getattr(c, '__name__', c), f'{fp:#018x}', mid) for c, (fp, mid) in zip(self.types, mine)]}")
        self._check_versions_described(path, header.types)
        reader = LogReader(data, only=[])  # framing and checksums only: no record is decoded
        for _ in reader.records(on_corruption="skip"):
            pass
        # recover cuts a corrupt tail: one corruption with no valid block after
        # it. Corruption followed by valid blocks is refused either way, as the
        # C++ writer does (its first error is the reason).
        if reader.corruptions and not (recover and len(reader.corruptions) == 1 and reader.end == "corrupt"):
            raise reader.corruptions[0]
        cut = reader._boundary if reader.end is not None else len(data)
        f.truncate(cut)
        f.seek(cut)

    def _check_versions_described(self, path: Any, file_types: list) -> None:
        """An evolvable type has its first version's fingerprint, so a newer
        version passes the type table's check; but the header would then
        describe fewer fields than its records hold, and a reader with no code
        (``cat``) could not show the others. So a description in the file must
        list every version this writer's type has (its version_fingerprints),
        and of every evolvable struct it holds, as the C++ writer requires. A
        log without descriptions has nothing to contradict."""
        from ._describe import describe
        from .message import version_fingerprints
        for cls, t in zip(self.types, file_types):
            if t.description is None:
                continue
            try:
                mine = version_fingerprints(cls, self.format)
            except SchemaError:
                mine = []  # not an evolvable struct: its fingerprint says all of it
            try:
                listed = json.loads(t.description).get("version_fingerprints", [])
                described = {int(v, 16) for v in listed if isinstance(v, str)}
            except (ValueError, AttributeError):
                described = set()
            for k, fp in enumerate(mine, 1):
                if fp not in described:
                    raise SchemaError(
                        f"append: {os.fspath(path)} describes {t.name} without version {k} of "
                        f"{getattr(cls, '__name__', cls)} (fingerprint {fp:#018x}), which this writer "
                        f"writes: its records would hold fields the header does not describe; "
                        f"start a new log")
            # An evolvable struct nested in the type (a field, an element) that
            # gained a version changes no fingerprint: this writer's own
            # description and the file's are compared node by node, as the C++
            # writer does (log/described.hpp), type by type in the same order.
            ours = _evolvable_nodes(describe(cls, self.format))
            theirs = _evolvable_nodes(t.description) if ours else None
            if theirs is None:
                continue  # nothing to compare, or not JSON within the limits: the fingerprints stand alone
            found = dict(theirs)
            for where, versions in ours or ():
                has_versions = found.get(where)
                if has_versions is None:
                    continue
                for k, count in enumerate(versions):
                    if k < len(has_versions) and has_versions[k] == count:
                        continue
                    has = has_versions[k] if k < len(has_versions) else (has_versions[-1] if has_versions else 0)
                    raise SchemaError(
                        f"append: {os.fspath(path)} describes the evolvable struct at {where} of {t.name} "
                        f"with {has} fields in its version {k + 1}, and this writer's "
                        f"{getattr(cls, '__name__', cls)} writes {count}: its records would hold fields "
                        f"the header does not describe; start a new log")

    def write(self, obj: Any) -> None:
        """Appends one record (its class must be one of the writer's types)."""
        i = self._index.get(type(obj))
        if i is None:
            raise TypeError(f"{type(obj).__name__} is none of this log's types "
                            f"{[getattr(c, '__name__', c) for c in self.types]}")
        if self._closed:
            raise ValueError("write to a closed LogWriter")
        payload = self._codecs[i].encode(obj)
        rec = self._heads[i] + _varint(len(payload))
        n = len(rec) + len(payload)
        if n > MAX_BODY:
            raise SchemaError(f"a record of {n} bytes does not fit a block (at most 2^28)")
        if self._body and len(self._body) + n > MAX_BODY:
            self._seal()
        body = self._body
        body += rec
        body += payload
        if self.flush_mode == "record":
            self.flush()
        elif len(body) >= self.block_bytes:
            self._seal()
            if self.flush_mode == "block":
                self._write_pending()

    def write_all(self, objs: Any) -> None:
        for o in objs:
            self.write(o)

    def _seal(self) -> None:
        body = self._body
        if not body:
            return
        head = BLOCK_MAGIC + struct.pack("<II", len(body), crc32c(body))
        self._pending.append(head + _U32.pack(crc32c(head)) + bytes(body))
        self._body = bytearray()

    def _write_pending(self) -> None:
        """Writes the sealed blocks, each in one write() call."""
        pending, self._pending = self._pending, []
        for block in pending:
            self._f.write(block)

    def flush(self) -> None:
        """Seals the open block, writes every sealed one and flushes the file."""
        if self._closed:
            return
        self._seal()
        self._write_pending()
        f = getattr(self._f, "flush", None)
        if f is not None:
            f()

    def close(self) -> None:
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            if self._own:
                self._f.close()

    def __enter__(self) -> "LogWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
