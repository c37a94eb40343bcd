"""iter_decode over bytes, memoryviews and files read in chunks."""

from __future__ import annotations

import dataclasses
import io
import struct
import time
import tracemalloc

import pytest

from bin_serializer import DecodeError, ErrorKind, SchemaError, decode, encode, iter_decode
from bin_serializer.types import Array, Monostate, u32
from schemas import Flags, Person, Tick, make_person, make_tick


def test_iter_decode_100k_ticks_from_file(tmp_path):
    n = 100_000
    path = tmp_path / "ticks.bin"
    with open(path, "wb") as f:
        for start in range(0, n, 10_000):
            f.write(b"".join(encode(make_tick(i)) for i in range(start, start + 10_000)))
    assert path.stat().st_size == 25 * n
    count = 0
    tracemalloc.start()
    with open(path, "rb") as f:
        for i, tick in enumerate(iter_decode(Tick, f, chunk_size=1 << 16)):
            if i % 9973 == 0:
                assert tick == make_tick(i)
            count += 1
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == n
    assert peak < 8 << 20  # a chunk and a batch, not 100k objects / 2.5 MB of input


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_iter_decode_variable_size_messages_across_chunks(chunk):
    people = [make_person(), encode_safe(Person("", -1, "e" * 300, [float(i) for i in range(50)])),
              Person("ü", 3, "", [])] * 5
    data = b"".join(encode(p) for p in people)
    got = list(iter_decode(Person, io.BytesIO(data), chunk_size=chunk))
    assert [encode(p) for p in got] == [encode(p) for p in people]


def encode_safe(p):
    return p


def test_iter_decode_sources_bytes_memoryview_bytearray():
    ticks = [make_tick(i) for i in range(1000)]
    data = b"".join(encode(t) for t in ticks)
    assert list(iter_decode(Tick, data)) == ticks
    assert list(iter_decode(Tick, bytearray(data))) == ticks
    assert list(iter_decode(Tick, memoryview(data), chunk_size=100)) == ticks
    assert list(iter_decode(Tick, b"")) == []
    native = b"".join(encode(t, "native") for t in ticks)
    assert list(iter_decode(Tick, io.BytesIO(native), "native", chunk_size=33)) == ticks


def test_iter_decode_is_lazy():
    data = b"".join(encode(make_tick(i)) for i in range(10)) + b"\xff"  # last message truncated
    it = iter_decode(Tick, io.BytesIO(data), chunk_size=25)
    assert next(it) == make_tick(0)
    rest = []
    with pytest.raises(DecodeError) as e:
        for t in it:
            rest.append(t)
    assert len(rest) == 9
    assert e.value.kind == ErrorKind.TRUNCATED and e.value.offset == 250  # offset in the stream


def test_iter_decode_error_offsets_are_stream_offsets():
    good = encode(Flags(1, True))
    data = good * 100 + b"\x01\x07" + good
    with pytest.raises(DecodeError) as e:
        list(iter_decode(Flags, io.BytesIO(data), chunk_size=16))
    assert (e.value.kind, e.value.offset, e.value.path) == (ErrorKind.INVALID_BOOL, 201, "Flags.ok")
    with pytest.raises(DecodeError) as e:
        list(iter_decode(Flags, data))
    assert (e.value.kind, e.value.offset) == (ErrorKind.INVALID_BOOL, 201)


def test_iter_decode_truncated_stream_end():
    data = encode(make_person()) * 3
    with pytest.raises(DecodeError) as e:
        list(iter_decode(Person, io.BytesIO(data[:-2]), chunk_size=10))
    assert e.value.kind == ErrorKind.LENGTH_EXCEEDS_INPUT
    assert e.value.offset == 2 * len(encode(make_person())) + 48


def test_iter_decode_hostile_length_with_max_message_size():
    data = struct.pack("<Q", 2**63) + b"\x00" * 1000
    t0 = time.perf_counter()
    with pytest.raises(DecodeError) as e:
        list(iter_decode(list[u32], io.BytesIO(data), max_message_size=1 << 20))
    assert e.value.kind == ErrorKind.LIMIT_EXCEEDED and e.value.offset == 0
    with pytest.raises(DecodeError) as e:  # without a limit: reads to the end of the stream, then fails
        list(iter_decode(list[u32], io.BytesIO(data)))
    assert e.value.kind == ErrorKind.LENGTH_EXCEEDS_INPUT
    assert time.perf_counter() - t0 < 1.0


# ---- types that encode to zero bytes (issue 14): refused, never an endless stream

@dataclasses.dataclass
class _Empty:
    pass


@dataclasses.dataclass
class _OnlyEmpty:
    a: Monostate
    b: Array[u32, 0]


ZERO_SIZE = [(h, f) for h in (Monostate, Array[u32, 0], tuple[()], tuple[Monostate, Array[_Empty, 0]])
             for f in ("portable", "native", "compact")] + [(_Empty, "portable"), (_OnlyEmpty, "portable"),
                                                          (_OnlyEmpty, "compact")]


@pytest.mark.parametrize("hint,fmt", ZERO_SIZE)
def test_iter_decode_refuses_zero_size_types(hint, fmt):
    assert encode(decode(hint, b"", fmt), fmt, schema=hint) == b""
    for source in (b"", b"\x00\x01", bytearray(b"x"), memoryview(b"xyz"), io.BytesIO(b"abc"), io.BytesIO()):
        with pytest.raises(SchemaError, match="zero bytes"):
            iter_decode(hint, source, fmt)


def test_iter_decode_zero_size_check_is_exact():
    # Types that may hold zero-size parts but never encode to nothing still stream.
    data = encode((Monostate(), 5), schema=tuple[Monostate, u32]) * 3
    assert [v[1] for v in iter_decode(tuple[Monostate, u32], data)] == [5, 5, 5]
    data = encode([], schema=list[Monostate])
    assert list(iter_decode(list[Monostate], data + data)) == [[], []]
    # In the native format an empty trivially copyable struct is its 1-byte C++ object.
    assert list(iter_decode(_Empty, b"\x00\x00", "native")) == [_Empty(), _Empty()]
