"""Issue 28 item 6: user code run by a call (__post_init__, __index__,
__float__) cannot free what the codec uses, runs once per call, and both
codecs give the same result; any buffer is accepted by every entry point;
truncation inside a fixed-size array of numbers is reported like C++.

Every test runs against both codecs (conftest.py)."""

from __future__ import annotations

import gc
import mmap
import tempfile
from dataclasses import dataclass

import pytest

import bin_serializer
from bin_serializer import DecodeError, EncodeError, decode, decode_from, encode, iter_decode
from bin_serializer.types import Array, f32, f64, u8, u16, u32, u64

FORMATS = ("portable", "compact")


@dataclass
class Point:
    x: u32
    y: f64


@dataclass
class Switching:
    """A __post_init__ that switches the codec (dropping every cached codec) in the middle of a decode."""
    a: u32
    b: str

    def __post_init__(self):
        Switching.calls += 1
        if Switching.armed:
            bin_serializer.set_backend("python")
            gc.collect()  # the dropped codecs are in reference cycles


Switching.calls = 0
Switching.armed = False


class SwitchIndex:
    """An __index__ that switches the codec in the middle of an encode."""
    armed = False

    def __index__(self):
        if SwitchIndex.armed:
            bin_serializer.set_backend("python")
            gc.collect()
        return 5


@dataclass
class Holder:
    v: u32
    tail: list[u32]
    more: list[str]


@dataclass
class Switchings:
    items: list[Switching]
    after: list[str]


@pytest.mark.parametrize("fmt", FORMATS)
def test_set_backend_during_decode(backend, fmt):
    value = Switchings([Switching(7, "seven"), Switching(8, "eight")], ["x", "y"])
    data = encode(value, fmt)
    for _ in range(3):
        bin_serializer.set_backend(backend)
        Switching.armed = False
        assert decode(Switchings, data, fmt) == value  # caches the codec
        Switching.calls = 0
        Switching.armed = True
        try:
            assert decode(Switchings, data, fmt) == value  # the codec is dropped after the first element
        finally:
            Switching.armed = False
        assert Switching.calls == 2


@pytest.mark.parametrize("fmt", FORMATS)
def test_set_backend_during_encode(backend, fmt):
    expected = encode(Holder(5, [1, 2], ["a"]), fmt)
    for _ in range(3):
        bin_serializer.set_backend(backend)
        assert encode(Holder(SwitchIndex(), [1, 2], ["a"]), fmt) == expected  # caches the codec
        SwitchIndex.armed = True
        try:  # the codec is dropped while the first field is encoded
            assert encode(Holder(SwitchIndex(), [1, 2], ["a"]), fmt) == expected
        finally:
            SwitchIndex.armed = False


def _buffers(data: bytes) -> list:
    spread = bytes(b for x in data for b in (x, 0xEE))
    strided = memoryview(spread)[::2]
    assert not strided.c_contiguous
    wide = memoryview(bytearray(data + b"\0" * (-len(data) % 4))).cast("I")[: len(data) // 4]
    return [strided, memoryview(data), bytearray(data), wide]


@pytest.mark.parametrize("fmt", FORMATS)
def test_any_buffer_in_every_entry_point(fmt):
    one = encode(Point(1, 2.5), fmt)
    data = one * 4
    for buf in _buffers(data):
        if len(memoryview(buf).cast("B") if memoryview(buf).c_contiguous else memoryview(buf).tobytes()) != len(data):
            continue
        assert decode(Point, buf[: len(one) * 4], fmt, allow_trailing=True) == Point(1, 2.5)
        assert decode_from(Point, buf, len(one), fmt) == (Point(1, 2.5), 2 * len(one))
        assert list(iter_decode(Point, buf, fmt)) == [Point(1, 2.5)] * 4
    strided = _buffers(one)[0]
    assert decode(Point, strided, fmt) == Point(1, 2.5)
    with pytest.raises(DecodeError) as e:
        decode(Point, _buffers(one + b"\x01")[0], fmt)
    assert e.value.kind == "trailing_bytes"


@pytest.mark.parametrize("fmt", FORMATS)
def test_iter_decode_reads_an_mmap_as_a_buffer(fmt):
    data = encode(Point(3, 4.0), fmt) * 3
    with tempfile.TemporaryFile() as f:
        f.write(data)
        f.flush()
        with mmap.mmap(f.fileno(), 0) as m:
            assert list(iter_decode(Point, m, fmt)) == [Point(3, 4.0)] * 3
            assert list(iter_decode(Point, m, fmt)) == [Point(3, 4.0)] * 3  # not through the file position
            assert m.tell() == 0


@dataclass
class Row:
    n: u32


@dataclass
class Rows:
    rows: list[Row]


class Growing:
    def __init__(self, target: list, clear: bool = False) -> None:
        self.target = target
        self.clear = clear

    def __index__(self) -> int:
        if self.clear:
            self.target.clear()
        else:
            self.target.append(Row(9))
        return 1


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("clear", [False, True])
def test_list_resized_while_encoded(fmt, clear):
    rows: list = []
    rows += [Row(0), Row(Growing(rows, clear)), Row(2)]
    with pytest.raises(EncodeError) as e:
        encode(Rows(rows), fmt)
    assert str(e.value) == ("cannot encode Rows: a list or dict changed size while it was encoded (user code "
                            "run by the encoding, such as __index__, modified it)")


@pytest.mark.parametrize("fmt", FORMATS)
def test_list_of_numbers_resized_while_encoded(fmt):
    nums: list = []

    class Grow:
        def __index__(self):
            nums.append(1)
            return 3
    nums += [1, Grow(), 2]
    with pytest.raises(EncodeError) as e:
        encode(nums, fmt, schema=list[u32])
    assert "changed size while it was encoded" in str(e.value)


class Counted:
    calls = 0

    def __index__(self):
        Counted.calls += 1
        return 1


class RaisingFloat:
    calls = 0

    def __float__(self):
        RaisingFloat.calls += 1
        raise ValueError("no float here")


@dataclass
class Mixed:
    a: u8
    b: f64
    c: u8


@pytest.mark.parametrize("fmt", FORMATS)
def test_encode_callbacks_run_once_on_failure(fmt):
    Counted.calls = 0
    with pytest.raises(EncodeError) as e:
        encode(Mixed(Counted(), 1.0, 300), fmt)  # c does not fit
    assert Counted.calls == 1
    assert str(e.value) == "cannot encode Mixed.c: 300 is out of range for u8 (0..255)"


@pytest.mark.parametrize("fmt", FORMATS)
def test_raising_float_same_error(fmt):
    RaisingFloat.calls = 0
    with pytest.raises(EncodeError) as e:
        encode(Mixed(1, RaisingFloat(), 2), fmt)
    assert RaisingFloat.calls == 1
    assert str(e.value) == ("cannot encode Mixed.b: the __float__ of a RaisingFloat (for f64) raised or did not "
                            "return a float")


@dataclass
class Checked:
    v: u32

    def __post_init__(self):
        Checked.calls += 1
        if self.v == 13:
            raise ValueError("13 refused")


Checked.calls = 0


@dataclass
class Many:
    items: list[Checked]
    tail: u32


@pytest.mark.parametrize("fmt", FORMATS)
def test_decode_callbacks_run_once_on_failure(fmt):
    data = encode(Many([Checked(1), Checked(2), Checked(3)], 1000), fmt)
    Checked.calls = 0
    with pytest.raises(DecodeError) as e:
        decode(Many, data[:-1], fmt)  # the tail is cut
    assert e.value.kind == "truncated"
    assert Checked.calls == 3
    Checked.calls = 0
    with pytest.raises(ValueError, match="13 refused"):
        decode(Many, encode(([1, 13], 0), fmt, schema=tuple[list[u32], u32]), fmt)  # Many([1, 13], 0)
    assert Checked.calls == 2


@pytest.mark.parametrize("fmt", FORMATS)
def test_iter_decode_callbacks_run_once(fmt):
    one = encode(Checked(1), fmt)
    Checked.calls = 0
    assert len(list(iter_decode(Checked, one * 5, fmt))) == 5
    assert Checked.calls == 5
    Checked.calls = 0
    bad = encode(13, fmt, schema=u32)  # the bytes of Checked(13)
    got = []
    with pytest.raises(ValueError, match="13 refused"):
        for x in iter_decode(Checked, one * 3 + bad + one, fmt):
            got.append(x)
    assert len(got) == 3
    assert Checked.calls == 4


@dataclass
class WithArray:
    head: u8
    a: Array[u32, 4]
    b: Array[f32, 2]


def test_truncation_in_a_fixed_array_reports_its_start():
    fmt = "portable"  # native: WithArray is trivially copyable, one block (test_truncation_in_a_bulk_struct)
    data = encode(WithArray(1, [1, 2, 3, 4], [1.0, 2.0]), fmt)
    a_at = 1
    for cut in range(a_at + 1, a_at + 16):
        with pytest.raises(DecodeError) as e:
            decode(WithArray, data[:cut], fmt)
        assert (e.value.kind, e.value.offset, e.value.path) == ("truncated", a_at, "WithArray.a")
        assert e.value.needed == a_at + 16
    for cut in range(a_at + 17, a_at + 24):
        with pytest.raises(DecodeError) as e:
            decode(WithArray, data[:cut], fmt)
        assert (e.value.offset, e.value.path) == (a_at + 16, "WithArray.b")


def test_truncation_in_a_compact_float_array_reports_its_start():
    data = encode(WithArray(1, [1, 2, 3, 4], [1.0, 2.0]), "compact")  # a: 4 one-byte varints
    for cut in range(6, 13):
        with pytest.raises(DecodeError) as e:
            decode(WithArray, data[:cut], "compact")
        assert (e.value.offset, e.value.path) == (5, "WithArray.b")


# Gap 6: C++ reads a value of category bulk (core/classify.hpp) as one block:
# a trivially copyable struct in native, a padding-free struct of fixed-width
# numbers in portable/compact (the packed fact of core/classify.hpp). Input ending inside it is
# reported at its first byte. The expected offsets below are what the C++
# library reports (deserialize from a BufferView of each prefix, g++ -std=c++23).


@dataclass
class Flat:  # C++ struct { uint32_t a; uint16_t b; uint16_t c; }: no padding
    a: u32
    b: u16
    c: u16


@dataclass
class Padded:  # C++ struct { uint8_t a; uint32_t b; }: 3 padding bytes in memory
    a: u8
    b: u32


@dataclass
class Nested:  # C++ struct { Flat x; uint64_t y; }
    x: Flat
    y: u64


@dataclass
class FlatArray:  # C++ struct { uint8_t h; std::array<Flat, 2> arr; }: padded, its array is not
    h: u8
    arr: Array[Flat, 2]


@dataclass
class InString:  # C++ struct { std::string s; Flat p; uint32_t t; }: not bulk, its Flat is
    s: str
    p: Flat
    t: u32


@dataclass
class Floats:  # C++ struct { float a; float b; }: one block in compact too (no varint)
    a: f32
    b: f32


def _cpp_offsets(spec: str) -> dict:
    """'0-7:0 8-9:8' -> {cut: offset}."""
    out = {}
    for part in spec.split():
        cuts, off = part.split(":")
        lo, _, hi = cuts.partition("-")
        for cut in range(int(lo), int(hi or lo) + 1):
            out[cut] = int(off)
    return out


BULK_CASES = [
    # (hint, value, format, {cut: offset C++ reports})
    (Flat, Flat(1, 2, 3), "portable", "0-7:0"),
    (Flat, Flat(1, 2, 3), "native", "0-7:0"),
    (Flat, Flat(1, 2, 3), "compact", "0:0 1:1 2:2"),
    (Padded, Padded(1, 2), "portable", "0:0 1-4:1"),
    (Padded, Padded(1, 2), "native", "0-7:0"),
    (Nested, Nested(Flat(1, 2, 3), 4), "portable", "0-15:0"),
    (Nested, Nested(Flat(1, 2, 3), 4), "native", "0-15:0"),
    (FlatArray, FlatArray(1, [Flat(1, 2, 3), Flat(4, 5, 6)]), "portable", "0:0 1-16:1"),
    (FlatArray, FlatArray(1, [Flat(1, 2, 3), Flat(4, 5, 6)]), "native", "0-19:0"),
    (InString, InString("ab", Flat(1, 2, 3), 7), "portable", "0-9:0 10-17:10 18-21:18"),
    (InString, InString("ab", Flat(1, 2, 3), 7), "native", "0-9:0 10-17:10 18-21:18"),
    (Array[Padded, 2], [Padded(1, 2), Padded(3, 4)], "portable", "0:0 1-4:1 5:5 6-9:6"),
    (Array[Padded, 2], [Padded(1, 2), Padded(3, 4)], "native", "0-15:0"),
    (WithArray, WithArray(1, [1, 2, 3, 4], [1.0, 2.0]), "native", "0-27:0"),
    (Floats, Floats(1.0, 2.0), "compact", "0-7:0"),
]


@pytest.mark.parametrize("hint, value, fmt, spec", BULK_CASES)
def test_truncation_in_a_bulk_struct(hint, value, fmt, spec):
    data = encode(value, fmt, schema=hint)
    expected = _cpp_offsets(spec)
    assert sorted(expected) == list(range(len(data)))
    for cut, offset in expected.items():
        with pytest.raises(DecodeError) as e:
            decode(hint, data[:cut], fmt)
        # C++ has one code for both (truncated); Python names a length prefix that overruns
        assert e.value.kind in ("truncated", "length_exceeds_input"), cut
        assert e.value.offset == offset, cut


# Gap 3: a property getter runs once; the diagnosis of a failed encode does not call it again.


@dataclass
class WithGetter:
    a: u8
    b: u8
    c: u8


def _get_b(self):
    WithGetter.calls += 1
    if WithGetter.fail:
        raise KeyError("no b today")
    return self.__dict__["_b"]


def _set_b(self, v):
    self.__dict__["_b"] = v


WithGetter.b = property(_get_b, _set_b)  # type: ignore[assignment]
WithGetter.calls = 0
WithGetter.fail = False


@pytest.mark.parametrize("fmt", FORMATS)
def test_property_getter_runs_once_on_failure(fmt):
    assert encode(WithGetter(1, 2, 3), fmt) == encode((1, 2, 3), fmt, schema=tuple[u8, u8, u8])
    WithGetter.calls = 0
    with pytest.raises(EncodeError) as e:
        encode(WithGetter(1, 2, 300), fmt)  # c does not fit
    assert str(e.value) == "cannot encode WithGetter.c: 300 is out of range for u8 (0..255)"
    assert WithGetter.calls == 1
    WithGetter.calls = 0
    WithGetter.fail = True
    try:
        with pytest.raises(EncodeError) as e:
            encode(WithGetter(1, 2, 3), fmt)
    finally:
        WithGetter.fail = False
    assert WithGetter.calls == 1
    assert str(e.value) == ("cannot encode WithGetter.b: the getter of WithGetter.b (a property) raised or returned "
                            "a value that cannot be encoded")
    assert isinstance(e.value.__cause__, KeyError)


# Gap 4: the exception user code raised is the __cause__ in both codecs.


class RaisingIndex:
    def __index__(self):
        raise LookupError("no index")


class TypeErrorFloat:
    def __float__(self):
        raise TypeError("float refused")


@dataclass
class Floaty:
    a: f32
    b: f64
    arr: Array[f64, 2]
    fl: list[f32]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("where", ["a", "b", "arr", "fl", "mixed"])
@pytest.mark.parametrize("cls", [RaisingFloat, TypeErrorFloat])
def test_user_exception_is_the_cause(fmt, where, cls):
    bad = cls()
    value = {"a": Floaty(bad, 1.0, [1.0, 2.0], []), "b": Floaty(1.0, bad, [1.0, 2.0], []),
             "arr": Floaty(1.0, 2.0, [1.0, bad], []), "fl": Floaty(1.0, 2.0, [1.0, 2.0], [1.0, bad]),
             "mixed": Mixed(1, bad, 2)}[where]
    with pytest.raises(EncodeError) as e:
        encode(value, fmt)
    cause = e.value.__cause__
    assert type(cause) is (ValueError if cls is RaisingFloat else TypeError)
    assert cause.__traceback__.tb_frame.f_code.co_name == "__float__" or \
        cause.__traceback__.tb_next is not None
    assert e.value.__context__ is cause
    assert e.value.__suppress_context__


@pytest.mark.parametrize("fmt", FORMATS)
def test_raising_index_is_the_cause(fmt):
    with pytest.raises(EncodeError) as e:
        encode(Mixed(RaisingIndex(), 1.0, 2), fmt)
    assert isinstance(e.value.__cause__, LookupError)
    assert e.value.__context__ is e.value.__cause__


class Big:
    def __index__(self):
        return 300


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_cause_when_user_code_raised_nothing(fmt):
    with pytest.raises(EncodeError) as e:
        encode(Mixed(Big(), 1.0, 2), fmt)
    assert str(e.value) == ("cannot encode Mixed.a: the __index__ of a Big (for u8) raised or returned a value out "
                            "of range (0..255)")
    assert e.value.__cause__ is None and e.value.__suppress_context__


# Gap 5: a fixed-size array resized by user code while it is encoded: the same error in both codecs.


class Shrink:
    def __init__(self, target: list) -> None:
        self.target = target

    def __index__(self) -> int:
        self.target.pop()
        return 1


@dataclass
class ArrayThenByte:
    arr: Array[u32, 3]
    tail: u8


@pytest.mark.parametrize("fmt", ["portable", "native", "compact"])
@pytest.mark.parametrize("top", [False, True])
def test_fixed_array_resized_while_encoded(fmt, top):
    arr: list = [1, 2, 3]
    arr[1] = Shrink(arr)
    with pytest.raises(EncodeError) as e:
        if top:
            encode(arr, fmt, schema=Array[u32, 3])
        else:
            encode(ArrayThenByte(arr, 7), fmt)
    name = "Array[u32, 3]" if top else "ArrayThenByte"
    assert str(e.value) == (f"cannot encode {name}: a list or dict changed size while it was encoded (user code "
                            f"run by the encoding, such as __index__, modified it)")


# Gap 1: a streamed file decodes each message once, even when it crosses a chunk boundary.


@dataclass
class Inner:
    v: u32

    def __post_init__(self):
        Inner.calls += 1


Inner.calls = 0


@dataclass
class Outer:
    items: list[Inner]
    name: str


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("chunk_size", [1, 3, 7, 64])
def test_iter_decode_file_runs_user_code_once(fmt, chunk_size):
    import io
    messages = [Outer([Inner(i), Inner(i + 1), Inner(i + 2)], "n" * i) for i in range(6)]
    data = b"".join(encode(m, fmt) for m in messages)
    Inner.calls = 0
    got = list(iter_decode(Outer, io.BytesIO(data), fmt, chunk_size=chunk_size))
    assert got == messages
    assert Inner.calls == 18
    Inner.calls = 0
    with pytest.raises(DecodeError) as e:  # the last message is cut: decoded once at EOF, as decode() does
        list(iter_decode(Outer, io.BytesIO(data[:-1]), fmt, chunk_size=chunk_size))
    assert e.value.kind in ("truncated", "length_exceeds_input")
    assert Inner.calls == 18


# Gap 2: user code inside map keys and set elements runs once when a decode fails.


@dataclass(frozen=True)
class Key:
    a: u32

    def __post_init__(self):
        Key.calls += 1


Key.calls = 0


@dataclass
class Keyed:
    m: dict[Key, u32]
    s: set[Key]
    tail: u32


@pytest.mark.parametrize("fmt", FORMATS)
def test_map_keys_and_set_elements_built_once(fmt):
    value = Keyed({Key(1): 1, Key(2): 2}, {Key(3), Key(4), Key(5)}, 9)
    data = encode(value, fmt)
    Key.calls = 0
    assert decode(Keyed, data, fmt) == value
    assert Key.calls == 5
    Key.calls = 0
    with pytest.raises(DecodeError) as e:
        decode(Keyed, data[:-1], fmt)  # the tail is cut: every key was decoded by then
    assert e.value.kind == "truncated"
    assert Key.calls == 5


@pytest.mark.parametrize("fmt", FORMATS)
def test_duplicate_struct_key_found_without_user_code(fmt):
    dup = encode([(5, 1), (5, 1)], fmt, schema=list[tuple[u32, u32]])  # the bytes of a map with key 5 twice
    Key.calls = 0
    with pytest.raises(DecodeError) as e:
        decode(dict[Key, u32], dup, fmt)
    assert e.value.kind == "duplicate_key"
    assert str(e.value.detail) == "key Key(a=5) appears twice in the map"
    assert Key.calls == 2  # built by the codec that found it (once per key), not again by the check
