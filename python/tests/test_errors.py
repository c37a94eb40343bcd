"""Malformed input: every DecodeError kind with its offset and path; EncodeError;
SchemaError."""

from __future__ import annotations

import struct
import time
import tracemalloc
from dataclasses import dataclass
from typing import Optional, Union

import pytest

from bin_serializer import DecodeError, EncodeError, ErrorKind, SchemaError, decode, encode
from bin_serializer.types import Array, Bitset, TaggedUnion, Variant, f32, i32, u8, u16, u32, u64
from schemas import Car, Color, Flags, Pad, Person, Tick, make_car, make_person, make_tick

Q = struct.Struct("<Q").pack
I = struct.Struct("<I").pack


@dataclass
class Holder:
    tag: u8
    opt: Optional[u16]
    choice: Union[u32, str]
    colors: dict[str, Color]
    ids: set[u32]
    bits: Bitset(10)
    flags: list[bool]


def holder_bytes(**patch) -> bytearray:
    h = Holder(1, 7, "x", {"a": Color.RED}, {5}, 3, [True])
    return bytearray(encode(h))


# layout of holder_bytes():
#  0 tag | 1 opt flag, 2-3 value | 4-7 variant index, 8-15 len, 16 'x'
# 17-24 map count | 25-32 key len, 33 'a', 34 color | 35-42 set count, 43-46 5
# 47-48 bits | 49-56 list count, 57 bool


def check(exc: DecodeError, kind: str, offset: int, path: str) -> None:
    assert (exc.kind, exc.offset, exc.path) == (kind, offset, path), str(exc)
    assert isinstance(exc, ValueError)
    assert kind in str(exc) and path in str(exc) and str(offset) in str(exc)


def test_holder_layout_is_as_documented():
    b = holder_bytes()
    assert len(b) == 58 and b[16:17] == b"x" and b[33:34] == b"a" and b[47:49] == b"\x03\x00"


def test_truncated_scalar_reports_the_field_that_does_not_fit():
    data = encode(make_tick(1))
    with pytest.raises(DecodeError) as e:
        decode(Tick, data[:20])  # ts 0-7, symbol 8-11, quantity 12-15, price 16-23
    check(e.value, ErrorKind.TRUNCATED, 16, "Tick.price")
    assert e.value.errc == "truncated"


def test_every_truncation_raises():
    for hint, value in [(Person, make_person()), (Car, make_car()), (Holder, None)]:
        data = encode(value) if value is not None else bytes(holder_bytes())
        for cut in range(len(data)):
            with pytest.raises(DecodeError) as e:
                decode(hint, data[:cut])
            assert e.value.kind in (ErrorKind.TRUNCATED, ErrorKind.LENGTH_EXCEEDS_INPUT)
            assert e.value.offset <= cut


def test_length_prefix_longer_than_input():
    data = bytearray(encode(make_person()))
    data[0:8] = Q(9)  # name says 9 bytes: "John Doe" + the first byte of id, then id is short
    with pytest.raises(DecodeError) as e:
        decode(Person, bytes(data[:16]))
    check(e.value, ErrorKind.LENGTH_EXCEEDS_INPUT, 0, "Person.name")
    data[0:8] = Q(10**6)
    with pytest.raises(DecodeError) as e:
        decode(Person, bytes(data))
    check(e.value, ErrorKind.LENGTH_EXCEEDS_INPUT, 0, "Person.name")


def test_list_count_checked_against_minimum_element_size():
    # 3 f32 need 12 bytes; only 11 follow
    data = encode(make_person())[:-1]
    with pytest.raises(DecodeError) as e:
        decode(Person, data)
    check(e.value, ErrorKind.LENGTH_EXCEEDS_INPUT, 48, "Person.scores")  # 8+8 + 4 + 8+20
    assert "3" in e.value.detail and "11" in e.value.detail


def test_invalid_bool_in_struct_and_list():
    with pytest.raises(DecodeError) as e:
        decode(Flags, b"\x01\x02")
    check(e.value, ErrorKind.INVALID_BOOL, 1, "Flags.ok")
    assert e.value.errc == "invalid_value"
    b = holder_bytes()
    b[57] = 2
    with pytest.raises(DecodeError) as e:
        decode(Holder, bytes(b))
    check(e.value, ErrorKind.INVALID_BOOL, 57, "Holder.flags[0]")


def test_invalid_optional_flag():
    b = holder_bytes()
    b[1] = 2
    with pytest.raises(DecodeError) as e:
        decode(Holder, bytes(b))
    check(e.value, ErrorKind.INVALID_OPTIONAL_FLAG, 1, "Holder.opt")


def test_variant_index_out_of_range():
    b = holder_bytes()
    b[4:8] = I(2)
    with pytest.raises(DecodeError) as e:
        decode(Holder, bytes(b))
    check(e.value, ErrorKind.VARIANT_INDEX_OUT_OF_RANGE, 4, "Holder.choice")
    with pytest.raises(DecodeError) as e:
        decode(TaggedUnion[u8, u16], I(0xFFFFFFFF) + b"\0\0")
    assert (e.value.kind, e.value.offset) == (ErrorKind.VARIANT_INDEX_OUT_OF_RANGE, 0)


def test_duplicate_map_key_and_set_element():
    data = encode({"a": 1, "b": 2}, schema=dict[str, u8])
    dup = data.replace(b"b", b"a")
    with pytest.raises(DecodeError) as e:
        decode(dict[str, u8], dup)
    # second entry starts after count (8) + first entry (8 + 1 + 1)
    check(e.value, ErrorKind.DUPLICATE_KEY, 18, "dict[str, u8][#1].key")
    data = Q(3) + I(1) + I(2) + I(1)
    with pytest.raises(DecodeError) as e:
        decode(set[u32], data)
    check(e.value, ErrorKind.DUPLICATE_KEY, 16, "set[u32][#2]")


def test_enum_value_not_a_member():
    b = holder_bytes()
    b[34] = 9
    with pytest.raises(DecodeError) as e:
        decode(Holder, bytes(b))
    check(e.value, ErrorKind.INVALID_ENUM, 34, "Holder.colors[#0].value")
    assert "Color" in e.value.detail


def test_bitset_stray_high_bits():
    b = holder_bytes()
    b[48] = 0x04  # bit 10 of a Bitset(10)
    with pytest.raises(DecodeError) as e:
        decode(Holder, bytes(b))
    check(e.value, ErrorKind.INVALID_BITSET, 48, "Holder.bits")
    with pytest.raises(DecodeError) as e:  # native: sizeof(bitset<10>) == 8, stray bit in word
        decode(Bitset(10), bytes([0, 0, 0, 0, 0, 0, 0, 1]), "native")
    assert (e.value.kind, e.value.offset) == (ErrorKind.INVALID_BITSET, 0)


def test_invalid_utf8_path_through_lists():
    data = bytearray(encode(make_car()))
    at = data.find(b"Highway")
    data[at + 2] = 0xFF
    with pytest.raises(DecodeError) as e:
        decode(Car, bytes(data))
    check(e.value, ErrorKind.INVALID_UTF8, at + 2, "Car.fuel_figures[2].usage_description")
    # the same bytes are fine as `bytes`
    assert decode(bytes, Q(2) + b"\xff\xfe") == b"\xff\xfe"


def test_trailing_bytes():
    data = encode(make_tick(1)) + b"\x00\x01"
    with pytest.raises(DecodeError) as e:
        decode(Tick, data)
    check(e.value, ErrorKind.TRAILING_BYTES, 25, "Tick")
    assert e.value.errc is None
    assert decode(Tick, data, allow_trailing=True) == make_tick(1)


def test_nested_paths_in_lists_and_tuples():
    data = Q(2) + Q(1) + b"\x01" + Q(1) + b"\x05"
    with pytest.raises(DecodeError) as e:
        decode(list[list[bool]], data)
    check(e.value, ErrorKind.INVALID_BOOL, 25, "list[list[bool]][1][0]")
    with pytest.raises(DecodeError) as e:
        decode(tuple[u8, Optional[bool]], b"\x00\x01\x07")
    check(e.value, ErrorKind.INVALID_BOOL, 2, "tuple[u8, Optional[bool]][1]")
    with pytest.raises(DecodeError) as e:
        decode(TaggedUnion[u8, Flags], I(1) + b"\x00\x09")
    check(e.value, ErrorKind.INVALID_BOOL, 5, "TaggedUnion[u8, Flags]<1:Flags>.ok")


def test_native_padding_truncation():
    with pytest.raises(DecodeError) as e:  # all members present, tail padding missing
        decode(Pad, bytes(10), "native")
    assert e.value.kind == ErrorKind.TRUNCATED and e.value.offset == 0


@pytest.mark.parametrize("hint", [list[u8], str, bytes, dict[u32, u32], set[u64], list[str], list[Tick]])
def test_hostile_length_prefix_fails_fast_without_allocating(hint):
    data = Q(2**63) + b"\x00" * 16
    tracemalloc.start()
    t0 = time.perf_counter()
    with pytest.raises(DecodeError) as e:
        decode(hint, data)
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert e.value.kind == ErrorKind.LENGTH_EXCEEDS_INPUT and e.value.offset == 0
    assert elapsed < 0.5
    assert peak < 1 << 20  # nothing proportional to the prefix was allocated


def test_decode_error_is_picklable():
    import pickle
    try:
        decode(Flags, b"\x00\x05")
    except DecodeError as err:
        again = pickle.loads(pickle.dumps(err))
        assert (again.kind, again.offset, again.path) == (err.kind, err.offset, err.path)


# ---- encoding errors


@pytest.mark.parametrize("hint, value, path, words", [
    (u8, 256, "u8", "out of range"),
    (u8, -1, "u8", "out of range"),
    (i32, 2**31, "i32", "out of range"),
    (u32, 1.5, "u32", "expected an int"),
    (f32, 1e39, "f32", "does not fit in f32"),
    (f32, "x", "f32", "expected a float"),
    (bool, 2, "bool", "expected a bool"),
    (str, b"x", "str", "expected a str"),
    (str, "\ud800", "str", "UTF-8"),
    (bytes, "x", "bytes", "expected bytes"),
    (list[u16], [1, 70000], "list[u16][1]", "out of range"),
    (list[f32], [1.0, 1e39], "list[f32][1]", "f32"),
    (list[bool], [True, 2], "list[bool][1]", "expected a bool"),
    (Array[u8, 3], [1, 2], "Array[u8, 3]", "exactly 3"),
    (Optional[u8], 300, "Optional[u8]", "out of range"),
    (Union[u32, str], 1.5, "Union[u32, str]", "none of the alternatives"),
    (TaggedUnion[u8, u16], Variant(2, 1), "TaggedUnion[u8, u16]", "out of range"),
    (TaggedUnion[u8, u16], Variant(0, 256), "TaggedUnion[u8, u16]<0:u8>", "out of range"),
    (dict[str, u8], {"k": 999}, "dict[str, u8]['k']", "out of range"),
    (Color, 7, "Color", "not a member"),
    (Bitset(4), 16, "Bitset(4)", "does not fit"),
    (tuple[u8, u8], (1,), "tuple[u8, u8]", "2 elements"),
    (Person, make_tick(1), "Person", "expected a Person"),
])
def test_encode_errors(hint, value, path, words):
    with pytest.raises(EncodeError) as e:
        encode(value, schema=hint)
    assert e.value.path == path, str(e.value)
    assert words in e.value.detail, str(e.value)


def test_encode_error_path_inside_dataclasses():
    car = make_car()
    car.performance_figures[1].acceleration[2].mph = -1
    with pytest.raises(EncodeError) as e:
        encode(car)
    assert e.value.path == "Car.performance_figures[1].acceleration[2].mph"
    p = make_person()
    p.scores = [1.0, "x"]
    with pytest.raises(EncodeError) as e:
        encode(p)
    assert e.value.path == "Person.scores[1]"


# ---- schema errors


def test_schema_errors():
    with pytest.raises(SchemaError, match="plain `int`"):
        encode(1, schema=int)
    with pytest.raises(SchemaError, match="both hold Python int"):
        encode(1, schema=Union[u8, u16])
    with pytest.raises(SchemaError, match="unhashable"):
        encode({}, schema=dict[list[u8], u8])

    @dataclass
    class NativeOptional:  # trivially copyable in C++ (optional<int> is): raw memory we do not model
        a: u32
        b: Optional[u32]

    with pytest.raises(SchemaError, match="trivially copyable"):
        encode(NativeOptional(1, None), "native")
    assert encode(NativeOptional(1, None)) == I(1) + b"\x00"  # portable is fine

    @dataclass
    class NotTrivial:
        __trivially_copyable__ = False
        a: u8
        b: u32

    assert encode(NotTrivial(1, 2), "native") == b"\x01" + I(2)
    with pytest.raises(ValueError, match="format"):
        encode(make_tick(1), "json")
