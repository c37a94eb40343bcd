"""encode / decode / decode_from / iter_decode and the codec cache."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any, Iterator, TypeVar, overload

from . import _accel, _slow
from ._codegen import Compiler, LITTLE_ENDIAN_HOST, _Fail
from ._schema import FORMATS, Node, build_node, check_compact, format_error, layout, mode_of
from .errors import DecodeError, EncodeError, ErrorKind, SchemaError
from .types import RecordsSpec

__all__ = ["encode", "decode", "decode_from", "iter_decode", "compile_codec", "Codec", "backend",
           "set_backend", "records_dtype"]

# FORMATS (from _schema): "portable", "native", "compact"

_COMPILERS: dict = {}

T = TypeVar("T")

# "c": the compiled codec (bin_serializer._cext), when it was built and not
# disabled with BIN_SERIALIZER_PURE_PYTHON=1; "python": the generated-Python
# codec (_codegen.py). Both raise the same errors: on any failure the input
# is decoded again by the reference interpreter (_slow.py).
_BACKEND = "c" if _accel.available() else "python"


def backend() -> str:
    """The codec new Codecs use: "c" (compiled extension) or "python"."""
    return _BACKEND


def set_backend(name: str) -> str:
    """Selects the codec ("c" or "python") and drops the cached Codecs;
    returns the previous choice. "c" raises ImportError when the extension
    is not available."""
    global _BACKEND
    if name not in ("c", "python"):
        raise ValueError(f"backend must be 'c' or 'python', not {name!r}")
    if name == "c" and not _accel.available():
        raise ImportError(f"the compiled codec is not available: {_accel.IMPORT_ERROR}")
    previous, _BACKEND = _BACKEND, name
    for table in _TABLES.values():
        table.clear()
    for fast in _FAST.values():
        fast.clear()
    return previous


class Codec:
    """The compiled encoder/decoder of one type hint in one format.

    Obtained from ``compile_codec(hint, format)``; ``encode``/``decode`` build
    and cache one per (hint, format, arrays) on first use."""

    __slots__ = ("hint", "format", "node", "native", "mode", "fast_decode", "fast_encode", "decode_many",
                 "fixed_size", "min_size", "name", "backend", "program", "whole")

    def __init__(self, hint: Any, fmt: str, arrays: bool) -> None:
        if fmt not in FORMATS:
            raise format_error(fmt)
        # mode: what the layout functions take as `native` (False, True or
        # _schema.COMPACT, which is falsy: compact is portable with varints)
        native = mode_of(fmt)
        if native is True and not LITTLE_ENDIAN_HOST:
            raise SchemaError("the native format is only supported on little-endian hosts")
        self.hint = hint
        self.format = fmt
        self.native = fmt == "native"
        self.mode = native
        self.node: Node = build_node(hint)
        if fmt == "compact":
            check_compact(self.node, arrays)  # numpy bulk copies compact cannot do: SchemaError
        lay = layout(self.node, native)  # raises SchemaError for unsupported native layouts
        self.fixed_size = lay.size if lay is not None else None
        from ._schema import min_size
        self.min_size = min_size(self.node, native)
        self.name = _slow.root_name(self.node)
        self.backend = _BACKEND
        if _BACKEND == "c":
            # the compiled codec (_cext.c) runs the plan _accel.py derives from the node
            prog = self.program = _accel.program(self.node, native, arrays)
            self.fast_decode = prog.decode_from
            self.fast_encode = prog.encode_into
            # decoding a batch of messages at once is redone one by one after a
            # failure: not when that would run user code (__post_init__) again
            self.decode_many = prog.decode_many if self.fixed_size and not _slow.runs_user_code(self.node) else None
            self.whole = self._whole_c
            return
        self.program = None
        comp = _COMPILERS.get((native, arrays))
        if comp is None:
            comp = _COMPILERS[(native, arrays)] = Compiler(native, arrays)
        self.fast_decode = comp.decoder(self.node)
        self.fast_encode = comp.encoder(self.node)
        self.decode_many = comp.many_decoder(self.node) if not _slow.runs_user_code(self.node) else None
        self.whole = self._whole_py

    def fail(self, buf, pos: int, exc: BaseException):
        """Called when the fast decoder raised: check the input again with the
        reference interpreter, which raises the precise DecodeError. It builds
        no dataclass instance (build=False), so user code the fast decoder ran
        (``__post_init__``, a class's ``__init__``) does not run a second time;
        when the input is well-formed, the exception that code raised is
        raised as it is."""
        try:
            _slow.slow_decode(self.node, self.mode, buf, pos, build=False)
        except DecodeError as e:
            raise e from None
        if isinstance(exc, RecursionError):
            raise DecodeError(ErrorKind.LIMIT_EXCEEDED, pos, self.name,
                              "nesting too deep for the Python interpreter") from None
        if not isinstance(exc, _Fail):
            raise exc
        raise RuntimeError(f"bin_serializer internal error: the compiled decoder of {self.name} failed "
                           f"({exc!r}) but the reference decoder accepted the input") from exc

    def encode(self, value: Any) -> bytes:
        try:
            if self.program is not None:
                return self.program.encode(value)
            out = bytearray()
            self.fast_encode(value, out)
        except Exception as exc:  # noqa: BLE001 - any failure is diagnosed below
            failure = exc
        else:
            return bytes(out)
        # outside the handler, as the C entry point calls it: the same __context__
        self.encode_failed(value, failure)
        raise AssertionError("unreachable")

    def encode_failed(self, value: Any, exc: BaseException):
        """Raises the EncodeError for a fast encoder that raised `exc`. The
        value is examined again without running user code (``__index__``,
        ``__float__`` are not called again): a fault found that way is
        reported where it is; else the fault is in what user code did (it
        raised, returned a value that does not fit, or resized a list being
        encoded), reported at the first value whose conversion is user code,
        with the exception chained (``__cause__``) when user code raised it."""
        if isinstance(exc, RuntimeError) and "changed size during" in str(exc):
            raise EncodeError(self.name, "a list or dict changed size while it was encoded (user code run by "
                              "the encoding, such as __index__, modified it)") from None
        err, by_user = _slow.diagnose_fault(self.node, self.mode, value)
        if err is None:
            err = EncodeError(self.name, f"{type(exc).__name__}: {exc}")
        cause = _slow.user_exception(exc) if by_user else None
        err.__context__ = cause
        raise err from cause

    def decode_from(self, buf, pos: int = 0):
        try:
            return self.fast_decode(buf, pos)
        except Exception as exc:  # noqa: BLE001
            self.fail(buf, pos, exc)

    def _trailing(self, buf, pos: int) -> DecodeError:
        return DecodeError(ErrorKind.TRAILING_BYTES, pos, self.name,
                           f"{len(buf) - pos} byte{'s' if len(buf) - pos != 1 else ''} left after the "
                           f"message (pass allow_trailing=True, or use decode_from / iter_decode)")

    def _whole_py(self, buf):
        """The value of a buffer holding exactly one message."""
        try:
            value, pos = self.fast_decode(buf, 0)
        except Exception as exc:  # noqa: BLE001
            self.fail(buf, 0, exc)
        if pos != len(buf):
            raise self._trailing(buf, pos)
        return value

    def _whole_c(self, buf):
        try:
            return self.program.decode(buf)
        except _accel.Trailing as t:
            raise self._trailing(buf, t.args[0]) from None
        except Exception as exc:  # noqa: BLE001
            self.fail(buf, 0, exc)

    def __repr__(self) -> str:
        return f"<Codec {self.node.describe()} ({self.format})>"


# hint -> Codec, one table per (format, arrays): the hot-path lookup is one
# dict.get keyed by the class itself.
_TABLES: dict = {(f, a): {} for f in FORMATS for a in (False, True)}
_PLAIN = {f: _TABLES[(f, False)] for f in FORMATS}
# hint -> compiled Program, per format (plain codecs of the "c" backend only):
# what the C entry points of encode()/decode() look up.
_FAST: dict = {f: {} for f in FORMATS}


def compile_codec(hint: Any, format: str = "portable", *, arrays: bool = False) -> Codec:
    """The cached Codec for a type hint (a dataclass, ``list[u32]``, ``str``, ...)."""
    try:
        table = _TABLES.get((format, bool(arrays)))
    except TypeError:  # an unhashable format
        table = None
    if table is None:
        raise format_error(format)
    try:
        codec = table.get(hint)
    except TypeError:  # unhashable hint
        return Codec(hint, format, arrays)
    if codec is None:
        codec = table[hint] = Codec(hint, format, arrays)
        if codec.program is not None and not arrays:
            _FAST[format][hint] = codec.program  # for the compiled encode/decode entry points
    return codec


def _lookup(hint: Any, format: str, arrays: bool) -> Codec:
    if not arrays:
        table = _PLAIN.get(format)
        if table is not None:
            codec = table.get(hint)
            if codec is not None:
                return codec
    return compile_codec(hint, format, arrays=arrays)


def _as_buffer(data: Any):
    if type(data) is bytes or type(data) is bytearray:
        return data
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    try:
        mv = memoryview(data)
    except TypeError:
        raise TypeError(f"expected a bytes-like object, got {type(data).__name__}") from None
    if not mv.c_contiguous:  # strided: a contiguous copy of its bytes (what iter_decode reads too)
        return mv.tobytes()
    if mv.format != "B" or mv.ndim != 1:
        mv = mv.cast("B")
    return mv


def encode(obj: Any, format: str = "portable", *, schema: Any = None, arrays: bool = False) -> bytes:
    """Encodes one message. `obj` is a dataclass instance, or any value with
    `schema=` its type hint (``encode([1, 2], schema=list[u32])``)."""
    hint = schema if schema is not None else type(obj)
    return _lookup(hint, format, arrays).encode(obj)


@overload
def decode(cls: "type[T]", data: Any, format: str = "portable", *, allow_trailing: bool = False,
           arrays: bool = False, datetimes: bool = False) -> T: ...
@overload
def decode(cls: Any, data: Any, format: str = "portable", *, allow_trailing: bool = False,
           arrays: bool = False, datetimes: bool = False) -> Any: ...
def decode(cls: Any, data: Any, format: str = "portable", *, allow_trailing: bool = False,
           arrays: bool = False, datetimes: bool = False) -> Any:
    """Decodes one message of type `cls` from `data` (bytes-like). The whole
    input must be consumed unless allow_trailing=True. arrays=True decodes
    lists of numbers as numpy arrays."""
    codec = _PLAIN[format].get(cls) if not arrays and format in _PLAIN else None
    if codec is None:
        codec = _lookup(cls, format, arrays)
    buf = data if type(data) is bytes else _as_buffer(data)
    if not allow_trailing:
        value = codec.whole(buf)
    else:
        try:
            value, pos = codec.fast_decode(buf, 0)
        except Exception as exc:  # noqa: BLE001
            codec.fail(buf, 0, exc)
    if datetimes:
        value = _datetimes(codec.node, value)
    return value


def _has_time_point(node: Node, seen: "set | None" = None) -> bool:
    from ._accel import _children
    from ._schema import ScalarN
    if isinstance(node, ScalarN):
        return node.unit is not None
    seen = seen if seen is not None else set()
    if id(node) in seen:
        return False
    seen.add(id(node))
    return any(_has_time_point(c, seen) for c in _children(node))


def _datetimes(node: Node, value: Any) -> Any:
    """`value` (decoded as `node`) with its time_point tick counts (TimePoint
    fields) replaced by datetimes; containers are rebuilt, dataclass
    instances updated in place."""
    from ._schema import (ArrayN, ListN, MapN, OptionalN, ScalarN, SetN, StructN, TupleN, VariantN)
    from .types import Variant, to_datetime
    if not _has_time_point(node):
        return value
    if isinstance(node, ScalarN):
        return to_datetime(value, node.unit)
    if isinstance(node, StructN):
        for i, (name, f) in enumerate(node.fields):
            if i not in node.retired and _has_time_point(f):
                object.__setattr__(value, name, _datetimes(f, getattr(value, name)))
        return value
    if isinstance(node, (ListN, ArrayN)) and node.container in ("list", "tuple"):
        items = [_datetimes(node.elem, x) for x in value]
        return tuple(items) if node.container == "tuple" else items
    if isinstance(node, OptionalN):
        return None if value is None else _datetimes(node.inner, value)
    if isinstance(node, TupleN):
        return tuple(_datetimes(e, x) for e, x in zip(node.elems, value))
    if isinstance(node, MapN):
        return {_datetimes(node.key, k): _datetimes(node.value, v) for k, v in value.items()}
    if isinstance(node, SetN):
        s = {_datetimes(node.elem, x) for x in value}
        return frozenset(s) if node.frozen else s
    if isinstance(node, VariantN):
        if node.tagged:
            return Variant(value.index, _datetimes(node.alts[value.index], value.value))
        i = node.index_of(value)
        return value if i is None else _datetimes(node.alts[i], value)
    return value


@overload
def decode_from(cls: "type[T]", data: Any, offset: int = 0, format: str = "portable", *,
                arrays: bool = False) -> "tuple[T, int]": ...
@overload
def decode_from(cls: Any, data: Any, offset: int = 0, format: str = "portable", *,
                arrays: bool = False) -> "tuple[Any, int]": ...
def decode_from(cls: Any, data: Any, offset: int = 0, format: str = "portable", *,
                arrays: bool = False) -> "tuple[Any, int]":
    """Decodes one message starting at `offset`; returns (value, offset after it)."""
    codec = _lookup(cls, format, arrays)
    buf = data if type(data) is bytes else _as_buffer(data)
    if not 0 <= offset <= len(buf):
        raise ValueError(f"offset {offset} outside the input (0..{len(buf)})")
    try:
        return codec.fast_decode(buf, offset)
    except Exception as exc:  # noqa: BLE001
        codec.fail(buf, offset, exc)


def records_dtype(cls: Any, format: str = "portable") -> Any:
    """The numpy structured dtype that ``Records[cls]`` decodes to (and
    encodes from): the record's wire layout in that format."""
    from ._schema import records_dtype as _dtype
    node = build_node(Annotated[Any, RecordsSpec(cls)])
    return _dtype(node.elem, mode_of(format))


_TRUNCATION = (ErrorKind.TRUNCATED, ErrorKind.LENGTH_EXCEEDS_INPUT)


@overload
def iter_decode(cls: "type[T]", source: Any, format: str = "portable", *, arrays: bool = False,
                chunk_size: int = 1 << 20, max_message_size: "int | None" = None,
                batch: int = 4096) -> Iterator[T]: ...
@overload
def iter_decode(cls: Any, source: Any, format: str = "portable", *, arrays: bool = False,
                chunk_size: int = 1 << 20, max_message_size: "int | None" = None,
                batch: int = 4096) -> Iterator[Any]: ...
def iter_decode(cls: Any, source: Any, format: str = "portable", *, arrays: bool = False,
                chunk_size: int = 1 << 20, max_message_size: "int | None" = None,
                batch: int = 4096) -> Iterator[Any]:
    """Yields the messages of a stream of back-to-back messages of type `cls`.

    `source` is bytes-like (bytes, bytearray, memoryview, mmap, ...) or a binary
    file object (anything with ``read(n)``), which is read `chunk_size` bytes
    at a time: memory holds one chunk (or one message, if larger) plus at most
    `batch` decoded values, never the whole stream. A stream that ends inside a
    message raises DecodeError (truncated). Error offsets count from the start
    of the stream. `max_message_size` bounds the bytes buffered for one message
    (a hostile length prefix then fails instead of buffering the whole stream).

    A type that always encodes to zero bytes (``Monostate``, ``Array[T, 0]``,
    an empty tuple or dataclass) cannot be split out of a stream, since any
    input holds any number of them: iter_decode refuses it with SchemaError
    (use decode / decode_from).
    """
    codec = _lookup(cls, format, arrays)
    if codec.min_size == 0:
        raise SchemaError(f"iter_decode: {codec.name} encodes to zero bytes, so a stream cannot be split "
                          f"into its messages (any input holds any number of them); use decode/decode_from")
    # a buffer first: an mmap also has read(), which would move its file position
    if type(source) is bytes:
        buf = source
    else:
        try:
            buf = _as_buffer(source)
        except TypeError:
            if not hasattr(source, "read"):
                raise
            return _iter_file(codec, source, chunk_size, max_message_size, batch)
    if isinstance(buf, memoryview):
        # Windows of bytes: slices of bytes objects are cheaper than of views.
        return _iter_file(codec, _ViewReader(buf), chunk_size, max_message_size, batch)
    return _iter_buffer(codec, buf, batch)


def _iter_buffer(codec: Codec, buf, batch: int) -> Iterator[Any]:
    pos = 0
    end = len(buf)
    size = codec.fixed_size
    many = codec.decode_many
    dec = codec.fast_decode
    run = codec.program.decode_run if codec.program is not None and many is None else None
    while pos < end:
        if run is not None:  # compiled codec: a batch of variable-size messages per call
            values, pos, exc = run(buf, pos, batch)
            yield from values
            if exc is not None:  # the message at pos failed: reported without decoding it again
                codec.fail(buf, pos, exc)
            if values:
                continue
        if many is not None:
            n = min((end - pos) // size, batch)
            if n:
                try:
                    values = many(buf, pos, n)
                except Exception:  # noqa: BLE001 - locate the bad message one by one
                    values = None
                if values is not None:
                    pos += n * size
                    yield from values
                    continue
        try:
            value, pos = dec(buf, pos)
        except Exception as exc:  # noqa: BLE001
            codec.fail(buf, pos, exc)
        yield value


class _ViewReader:
    def __init__(self, mv: memoryview) -> None:
        self.mv = mv
        self.pos = 0

    def read(self, n: int) -> bytes:
        chunk = self.mv[self.pos:self.pos + n].tobytes()
        self.pos += len(chunk)
        return chunk


def _iter_file(codec: Codec, f, chunk_size: int, max_message_size: "int | None",
               batch: int) -> Iterator[Any]:
    if chunk_size <= 0:
        raise ValueError("chunk_size must be positive")
    size = codec.fixed_size
    many = codec.decode_many
    dec = codec.fast_decode
    # decoding runs user code (__post_init__, ...): a message is decoded only
    # once it is known to be complete (its size, or a check that builds nothing)
    check = _slow.runs_user_code(codec.node)
    buf = b""
    pos = 0
    base = 0  # stream offset of buf[0]
    eof = False

    def refill(want: int) -> None:
        """Keeps buf[pos:], then reads until at least `want` bytes are buffered past pos (or EOF)."""
        nonlocal buf, pos, base, eof
        parts = [buf[pos:]]
        have = len(parts[0])
        base += pos
        pos = 0
        while have < want and not eof:
            # bigger reads for a big message, but never more than 16 MiB at once:
            # memory follows the bytes actually received, not a length prefix
            chunk = f.read(max(chunk_size, min(want - have, 1 << 24)))
            if not chunk:
                eof = True
                break
            if not isinstance(chunk, bytes):
                chunk = bytes(chunk)
            parts.append(chunk)
            have += len(chunk)
        buf = b"".join(parts)

    refill(1)
    while True:
        end = len(buf)
        if pos >= end:
            if eof:
                return
            refill(1)
            continue
        if many is not None:
            n = min((end - pos) // size, batch)
            if n:
                try:
                    values = many(buf, pos, n)
                except Exception:  # noqa: BLE001
                    values = None
                if values is not None:
                    pos += n * size
                    yield from values
                    continue
        err = None
        if check and not eof and (size is None or end - pos < size):
            # the message may continue past the bytes read so far: find out
            # before building it, so that its user code runs once
            try:
                _slow.slow_decode(codec.node, codec.mode, buf, pos, build=False)
            except DecodeError as e:
                err = e
        if err is None:
            try:
                value, new_pos = dec(buf, pos)
            except Exception as exc:  # noqa: BLE001
                try:
                    codec.fail(buf, pos, exc)
                except DecodeError as e:
                    err = e
        if err is not None:
            if err.kind in _TRUNCATION and not eof:
                needed = (err.needed if err.needed is not None else end + 1) - pos
                if max_message_size is not None and needed > max_message_size:
                    _rebase(err, base)
                    raise DecodeError(ErrorKind.LIMIT_EXCEEDED, err.offset, err.path,
                                      f"message needs at least {needed} bytes, over max_message_size="
                                      f"{max_message_size} ({err.detail})") from None
                refill(max(needed, end - pos + 1))
                continue
            _rebase(err, base)
            raise err from None
        pos = new_pos
        yield value


def _rebase(err: DecodeError, base: int) -> None:
    err.offset += base
    if err.needed is not None:
        err.needed += base
    err.args = (err.kind, err.offset, err.path, err.detail)


def _encode_failed(hint: Any, format: str, obj: Any, exc: BaseException):
    """The C encode() entry point's compiled codec raised `exc`: the final error."""
    _lookup(hint, format, False).encode_failed(obj, exc)


def _decode_failed(cls: Any, format: str, data: Any, exc: BaseException):
    """The C decode() entry point's compiled codec raised `exc`: the final error."""
    codec = _lookup(cls, format, False)
    buf = data if type(data) is bytes else _as_buffer(data)
    if isinstance(exc, _accel.Trailing):
        raise codec._trailing(buf, exc.args[0]) from None
    codec.fail(buf, 0, exc)


if _accel.available() and not TYPE_CHECKING:
    # encode()/decode() as C functions: a cached compiled codec is called
    # without going through Python; every other call (other arguments, a
    # first use, any failure) runs the Python functions above.
    _encode_py, _decode_py = encode, decode
    _accel._cext.set_entries(_FAST["portable"], _FAST["native"], _FAST["compact"], _encode_py, _decode_py,
                             _encode_failed, _decode_failed)
    encode = _accel._cext.encode  # noqa: F811
    decode = _accel._cext.decode  # noqa: F811
