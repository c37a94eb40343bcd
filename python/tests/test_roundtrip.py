"""Round trips of every supported type, alone and nested, in both formats; the
compiled fast path cross-checked against the reference interpreter."""

from __future__ import annotations

import dataclasses
import math
import random
import struct
from typing import Annotated, Optional, Union

import pytest

from bin_serializer import DecodeError, compile_codec, decode, decode_from, encode
from bin_serializer._schema import mode_of
from bin_serializer._slow import slow_decode
from bin_serializer.types import (Array, Bitset, Duration, Fixed, Monostate, TaggedUnion, Variant, f32, f64, i8,
                                  i16, i32, i64, u8, u16, u32, u64)
from schemas import (Car, Color, Everything, Node, Perm, Person, Point, Tick, make_car, make_everything,
                     make_person, make_tick)

FORMATS = ["portable", "native", "compact"]

SIMPLE = [
    (u8, [0, 255]), (u16, [0, 65535]), (u32, [0, 2**32 - 1]), (u64, [0, 2**64 - 1]),
    (i8, [-128, 127]), (i16, [-32768, 32767]), (i32, [-2**31, 2**31 - 1]), (i64, [-2**63, 2**63 - 1]),
    (f32, [0.0, -1.5, 3.4028234663852886e38, float("inf"), float("-inf")]),
    (f64, [0.0, -0.0, 1e308, 5e-324, float("inf")]),
    (float, [2.5]),
    (bool, [True, False]),
    (str, ["", "hello", "ünïcødé ✓", "a" * 1000]),
    (bytes, [b"", b"\x00\x01\xff"]),
    (list[u8], [[], [1, 2, 3]]),
    (list[f64], [[1.5, -2.25]]),
    (list[i64], [[-1, 2**62]]),
    (list[str], [["a", "", "c"]]),
    (list[list[u16]], [[[1], [], [2, 3]]]),
    (list[bool], [[True, False]]),
    (tuple[u32, ...], [(1, 2, 3), ()]),
    (Array[u8, 4], [[1, 2, 3, 4]]),
    (Array[str, 2], [["x", "y"]]),
    (Array[Optional[u8], 2], [[None, 1]]),
    (Annotated[tuple[u16, ...], Fixed(2)], [(1, 2)]),
    (Array[u8, 0], [[]]),
    (Optional[str], [None, "x"]),
    (Optional[Tick], [None, make_tick(3)]),
    (Union[u32, str], [5, "five"]),
    (Union[Tick, Person, Monostate], [make_tick(1), make_person(), Monostate()]),
    (TaggedUnion[i32, i64], [Variant(0, -1), Variant(1, 2**40)]),
    (TaggedUnion[str], [Variant(0, "only")]),
    (tuple[u8, str, Optional[bool]], [(1, "a", None), (2, "b", True)]),
    (tuple[()], [()]),
    (dict[str, u32], [{}, {"b": 2, "a": 1}]),
    (dict[u8, dict[str, bool]], [{1: {"x": True}, 2: {}}]),
    (dict[Point, str], [{Point(1, 2): "p"}]),
    (set[u32], [set(), {5, 1, 3}]),
    (frozenset[str], [frozenset({"b", "a"})]),
    (set[tuple[u8, str]], [{(1, "a"), (0, "b")}]),
    (Color, [Color.RED, Color.BLUE]),
    (Annotated[Color, u16], [Color.GREEN]),
    (Annotated[Perm, u8], [Perm.R | Perm.W, Perm(0)]),
    (list[Color], [[Color.BLUE, Color.RED]]),
    (Bitset(1), [0, 1]), (Bitset(8), [0xFF]), (Bitset(63), [2**63 - 1]), (Bitset(64), [2**64 - 1]),
    (Bitset(100), [2**99 + 5]), (Bitset(0), [0]),
    (Duration[i64], [0, -(2**63)]), (Duration[u32], [7]), (Duration[f64], [1.5]),
    (Monostate, [Monostate()]),
    (list[Monostate], [[]]),
    (tuple[list[Monostate], u32], [([Monostate()] * 3, 70000)]),  # compact: 3 bytes follow the count
    (Tick, [make_tick(0), make_tick(99)]),
    (Person, [make_person(), Person("", 0, "", [])]),
    (list[Tick], [[make_tick(i) for i in range(5)]]),
    (Car, [make_car()]),
    (Everything, [make_everything()]),
    (Node, [Node(1, [Node(2, []), Node(3, [Node(4, [])])])]),
]


def _eq(a, b):
    """Equality, with floats compared after rounding to f32 (values that went
    through an f32 field come back as the nearest f32) and NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if a == b:
            return math.copysign(1, a) == math.copysign(1, b)
        return _f32(a) == _f32(b)
    if dataclasses.is_dataclass(a) and type(a) is type(b):
        return all(_eq(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_eq(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _f32(x: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return x


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("hint, values", SIMPLE, ids=[repr(h)[:40] for h, _ in SIMPLE])
def test_round_trip(hint, values, fmt):
    codec = compile_codec(hint, fmt)
    for value in values:
        data = encode(value, fmt, schema=hint)
        back = decode(hint, data, fmt)
        if hint is f32:
            assert _eq(back, struct.unpack("<f", struct.pack("<f", value))[0])
        else:
            assert _eq(back, value), (back, value)
        assert encode(back, fmt, schema=hint) == data
        # the reference interpreter reads the same value
        ref, end = slow_decode(codec.node, mode_of(fmt), data, 0)
        assert end == len(data)
        assert _eq(ref, back)
        if codec.fixed_size is not None:
            assert len(data) == codec.fixed_size


@pytest.mark.parametrize("fmt", FORMATS)
def test_nested_in_list_optional_variant(fmt):
    hint = list[Optional[Union[Person, Tick]]]
    value = [None, make_person(), make_tick(5), None]
    assert _eq(decode(hint, encode(value, fmt, schema=hint), fmt), value)


def test_nan_round_trips_bit_exact():
    for bits in (0x7FC00000, 0xFFC00000, 0x7FC00001):
        data = struct.pack("<I", bits)
        v = decode(f32, data)
        assert math.isnan(v)
        assert encode(v, schema=f32) == data
    for bits in (0x7FF8000000000000, 0xFFF8000000000001):
        data = struct.pack("<Q", bits)
        assert encode(decode(f64, data), schema=f64) == data


def test_decode_from_and_allow_trailing():
    a, b = encode(make_person()), encode(make_tick(1), schema=Tick)
    data = a + b + a
    p, off = decode_from(Person, data)
    assert p == decode(Person, a) and off == len(a)
    t, off = decode_from(Tick, data, off)
    assert t == make_tick(1) and off == len(a) + len(b)
    p2, off = decode_from(Person, data, off)
    assert off == len(data)
    assert decode(Person, data, allow_trailing=True) == p
    # bytearray and memoryview inputs
    assert decode(Person, bytearray(a)) == p
    assert decode(Person, memoryview(a)) == p
    assert decode_from(Tick, memoryview(data), len(a))[0] == t


def test_codec_is_compiled_once():
    assert compile_codec(Person) is compile_codec(Person)
    assert compile_codec(Person, "native") is not compile_codec(Person)


def test_set_encodes_in_ascending_order():
    assert encode({3, 1, 2}, schema=set[u8]).hex() == "0300000000000000010203"
    assert encode({"b", "a", "é"}, schema=set[str]).hex().startswith("0300000000000000" "010000000000000061")


# ---- fuzz: mutated inputs either decode identically on both paths or raise DecodeError


def _mutations(data: bytes, rng: random.Random, count: int):
    for _ in range(count):
        b = bytearray(data)
        kind = rng.randrange(4)
        if kind == 0 and b:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif kind == 1 and b:
            del b[rng.randrange(len(b)):]
        elif kind == 2:
            b.insert(rng.randrange(len(b) + 1), rng.randrange(256))
        else:
            for _ in range(3):
                if b:
                    b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        yield bytes(b)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("hint, value", [(Car, make_car()), (Everything, make_everything()),
                                         (Person, make_person()), (list[Tick], [make_tick(i) for i in range(3)])],
                         ids=["Car", "Everything", "Person", "list[Tick]"])
def test_fuzz_fast_path_matches_reference(hint, value, fmt):
    rng = random.Random(1234)
    codec = compile_codec(hint, fmt)
    data = encode(value, fmt, schema=hint)
    for m in _mutations(data, rng, 400):
        try:
            fast = decode_from(hint, m, 0, fmt)
        except DecodeError as e:
            with pytest.raises(DecodeError) as ref:
                slow_decode(codec.node, mode_of(fmt), m, 0)
            assert (ref.value.kind, ref.value.offset, ref.value.path) == (e.kind, e.offset, e.path)
            continue
        ref = slow_decode(codec.node, mode_of(fmt), m, 0)
        assert ref[1] == fast[1]
        assert encode(fast[0], fmt, schema=hint) == encode(ref[0], fmt, schema=hint)


def test_zero_size_elements_need_one_byte_each_like_cpp():
    # The C++ count check is count <= remaining / max(1, min_element_size): a count
    # of zero-size elements can never exceed the bytes that follow the prefix.
    # Three monostates at the very end of a message are therefore rejected (as
    # by the C++ decoder), while the same list followed by 4 bytes decodes.
    data = encode([Monostate()] * 3, schema=list[Monostate])
    assert data.hex() == "0300000000000000"
    with pytest.raises(DecodeError) as e:
        decode(list[Monostate], data)
    assert e.value.kind == "length_exceeds_input"
    assert decode(tuple[list[Monostate], u32], data + bytes(4)) == ([Monostate()] * 3, 0)


# A field-less trivially copyable struct is one padding byte in the native
# format; the compiled decoder once produced invalid Python for it.
@dataclasses.dataclass
class _NoFields:
    __trivially_copyable__ = True


@dataclasses.dataclass
class _NoFieldsHolder:
    items: list[_NoFields]


def test_native_fieldless_trivial_struct_list():
    data = encode(_NoFieldsHolder([_NoFields(), _NoFields()]), format="native")
    assert data.hex() == "0200000000000000" "0000"
    assert decode(_NoFieldsHolder, data, format="native") == _NoFieldsHolder([_NoFields()] * 2)


def test_slots_dataclasses(backend):
    from bin_serializer import EncodeError, encode
    from schemas import BookSlots, PersonSlots, TickSlots, make_person, make_tick
    p = make_person()
    ps = PersonSlots(p.name, p.id, p.email, p.scores)
    assert encode(ps) == encode(p)
    back = decode(PersonSlots, encode(ps))
    assert type(back) is PersonSlots and not hasattr(back, "__dict__")
    assert (back.name, back.id, back.email) == (p.name, p.id, p.email)
    t = make_tick(3)
    ts = TickSlots(t.timestamp_ns, t.symbol_id, t.quantity, t.price, t.side)
    book = BookSlots(back, [ts, ts], ts)
    data = encode(book)
    assert decode(BookSlots, data) == book
    assert data == encode(back) + encode([t, t], schema=list[type(t)]) + b"\x01" + encode(t)
    broken = PersonSlots.__new__(PersonSlots)  # a slot never assigned
    broken.name, broken.id, broken.scores = "x", 1, []
    with pytest.raises(EncodeError) as e:
        encode(broken)
    assert e.value.path == "PersonSlots.email"


def test_list_changed_while_encoding_is_refused_not_a_crash(backend):
    """Python code run by encode (here __index__) empties the list being encoded."""
    from bin_serializer import EncodeError, encode
    from bin_serializer.types import u32
    victim: list = []

    class Sneaky:
        def __index__(self):
            victim.clear()
            return 1

    victim.extend([Sneaky(), 2, 3, Sneaky()])
    try:
        data = encode(victim, schema=list[u32])
    except (EncodeError, RuntimeError, IndexError):
        return  # refused
    assert len(data) >= 8  # or encoded from what it saw; never a crash
