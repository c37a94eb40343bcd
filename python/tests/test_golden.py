"""Executable spec: bytes written by hand from the C++ layouts (docs/wire-format.md,
include/bin_serializer/std/*.hpp), compared with what the package produces."""

from __future__ import annotations

from typing import Optional, Union

import pytest

from bin_serializer import decode, encode
from bin_serializer.types import (Array, Bitset, Duration, Monostate, TaggedUnion, Variant, f32, f64, i8, i16,
                                  i32, i64, u8, u16, u32, u64)
from schemas import Color, Flags, Outer, Pad, Person, Tick, make_person

PERSON_HEX = (
    "0800000000000000" "4a6f686e20446f65"  # name: u64 length 8, "John Doe"
    "19000000"  # id: i32 25
    "1400000000000000" "6a6f686e2e646f65406578616d706c652e636f6d"  # email: 20 bytes
    "0300000000000000" "66660640" "cdcc4c40" "00009040"  # scores: 3 x f32 (2.1f, 3.2f, 4.5f)
)

TICK = Tick(timestamp_ns=1_700_000_000_000_000_000, symbol_id=7, quantity=100, price=100.25, side=1)
TICK_HEX = (
    "00002a36fe9c9717"  # u64 1700000000000000000 = 0x17979CFE362A0000
    "07000000"  # symbol_id
    "64000000"  # quantity 100
    "0000000000105940"  # f64 100.25 = 0x4059100000000000
    "01"  # side
)


def test_person_portable_bytes():
    assert encode(make_person()).hex() == PERSON_HEX
    p = decode(Person, bytes.fromhex(PERSON_HEX))
    assert p.name == "John Doe" and p.id == 25 and p.email == "john.doe@example.com"
    assert p.scores == [pytest.approx(2.1, rel=1e-7), pytest.approx(3.2, rel=1e-7), 4.5]
    assert encode(p).hex() == PERSON_HEX


def test_person_native_bytes_equal_portable():
    # Person is not trivially copyable (strings): field by field, no padding, LE host.
    assert encode(make_person(), "native").hex() == PERSON_HEX


def test_tick_portable_is_25_bytes():
    assert encode(TICK).hex() == TICK_HEX
    assert decode(Tick, bytes.fromhex(TICK_HEX)) == TICK


def test_tick_native_keeps_struct_padding():
    # struct Tick is trivially copyable: sizeof 32 on x86-64 (7 tail padding bytes).
    native = TICK_HEX + "00" * 7
    assert encode(TICK, "native").hex() == native
    assert decode(Tick, bytes.fromhex(native), "native") == TICK
    # padding bytes are copied verbatim by C++: whatever they hold is accepted
    assert decode(Tick, bytes.fromhex(TICK_HEX + "ab" * 7), "native") == TICK


def test_native_padding_inside_and_between():
    # Pad { u8 a; u32 b; u16 c; }: a@0, 3 pad, b@4, c@8, 2 tail pad -> 12 bytes
    assert encode(Pad(1, 2, 3), "native").hex() == "01000000" "02000000" "0300" "0000"
    assert encode(Pad(1, 2, 3)).hex() == "01" "02000000" "0300"
    # Outer is not trivially copyable: its fields follow each other, Pad keeps its own padding
    assert encode(Outer(9, Pad(1, 2, 3), "x"), "native").hex() == (
        "09" "010000000200000003000000" "0100000000000000" "78")


@pytest.mark.parametrize("hint, value, hexstr", [
    (bool, True, "01"),
    (bool, False, "00"),
    (u8, 0xAB, "ab"),
    (i8, -1, "ff"),
    (u16, 0x0102, "0201"),
    (i16, -2, "feff"),
    (u32, 1, "01000000"),
    (i32, -2, "feffffff"),
    (u64, 0x0102030405060708, "0807060504030201"),
    (i64, -1, "ffffffffffffffff"),
    (f32, 1.0, "0000803f"),
    (f64, 1.0, "000000000000f03f"),
    (f64, float("inf"), "000000000000f07f"),
    (str, "abc", "0300000000000000616263"),
    (str, "", "0000000000000000"),
    (str, "é", "0200000000000000c3a9"),
    (bytes, b"\x00\xff", "020000000000000000ff"),
    (list[u16], [1, 2], "020000000000000001000200"),
    (list[bool], [True, False, True], "0300000000000000010001"),
    (Array[f32, 3], [1.0, 2.0, 3.0], "0000803f0000004000004040"),  # no count
    (Array[str, 2], ["a", ""], "0100000000000000610000000000000000"),
    (Optional[u32], None, "00"),
    (Optional[u32], 5, "0105000000"),
    (Union[i32, str], "hi", "01000000" "0200000000000000" "6869"),  # u32 index 1, then the string
    (Union[i32, str], -1, "00000000" "ffffffff"),
    (TaggedUnion[i32, i64, Monostate], Variant(2, Monostate()), "02000000"),  # monostate: 0 bytes
    (tuple[u8, str], (7, "a"), "07" "0100000000000000" "61"),
    (tuple[()], (), ""),
    (dict[str, u8], {"a": 1, "b": 2}, "0200000000000000" "0100000000000000" "61" "01" "0100000000000000" "62" "02"),
    (set[i16], {5, -1}, "0200000000000000" "ffff" "0500"),  # ascending like std::set
    (Color, Color.BLUE, "02"),  # enum class Color : uint8_t
    (Bitset(10), 0b1000000011, "0302"),  # bit i = bit (i % 8) of byte i / 8
    (Bitset(8), 0b10100101, "a5"),
    (Bitset(0), 0, ""),
    (Duration[i64], -5, "fbffffffffffffff"),  # std::chrono::duration<int64_t, ...> = the tick count
    (Flags, Flags(1, True), "0101"),
])
def test_layouts(hint, value, hexstr):
    data = encode(value, schema=hint)
    assert data.hex() == hexstr
    back = decode(hint, data)
    assert back == value


@pytest.mark.parametrize("hint, value, hexstr", [
    (Bitset(10), 0b1000000011, "0302000000000000"),  # sizeof(std::bitset<10>) == 8
    (Bitset(65), 1 << 64, "0000000000000000" "0100000000000000"),
    (Bitset(0), 0, "00"),  # sizeof(std::bitset<0>) == 1
    (list[Pad], [Pad(1, 2, 3)], "0100000000000000" "010000000200000003000000"),
    (Array[Pad, 1], [Pad(4, 5, 6)], "040000000500000006000000"),
    (Optional[Pad], Pad(1, 2, 3), "01" "010000000200000003000000"),
    (str, "abc", "0300000000000000616263"),
])
def test_native_layouts(hint, value, hexstr):
    data = encode(value, "native", schema=hint)
    assert data.hex() == hexstr
    assert decode(hint, data, "native") == value
