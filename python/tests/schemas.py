"""Schemas shared by the tests (module level, so get_type_hints resolves them)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Annotated, Optional, Union

from bin_serializer.types import (Array, Bitset, Duration, Fixed, Monostate, TaggedUnion, f32, f64, i8,
                                  i16, i32, i64, u8, u16, u32, u64)


@dataclass
class Person:
    name: str
    id: i32
    email: str
    scores: list[f32]


@dataclass
class Tick:
    timestamp_ns: u64
    symbol_id: u32
    quantity: u32
    price: f64
    side: u8


def make_person() -> Person:
    return Person("John Doe", 25, "john.doe@example.com", [2.1, 3.2, 4.5])


def make_tick(i: int) -> Tick:
    return Tick(1_700_000_000_000_000_000 + i * 1000, i % 512, 100 + i % 900, 100.0 + (i % 1000) * 0.01, i & 1)


class Color(enum.IntEnum):
    __underlying__ = u8
    RED = 0
    GREEN = 1
    BLUE = 2


class Perm(enum.IntFlag):
    R = 4
    W = 2
    X = 1


class Model(enum.IntEnum):
    A = ord("A")
    B = ord("B")
    C = ord("C")


class BoostType(enum.IntEnum):
    TURBO = ord("T")
    SUPERCHARGER = ord("S")
    NITROUS = ord("N")
    KERS = ord("K")


@dataclass
class Booster:
    boost_type: Annotated[BoostType, i8]
    horse_power: u8


@dataclass
class Engine:
    capacity: u16
    num_cylinders: u8
    max_rpm: u16
    manufacturer_code: Array[i8, 3]
    booster: Booster


@dataclass
class FuelFigure:
    speed: u16
    mpg: f32
    usage_description: str


@dataclass
class Acceleration:
    mph: u16
    seconds: f32


@dataclass
class PerformanceFigure:
    octane_rating: u8
    acceleration: list[Acceleration]


@dataclass
class Car:
    timestamp: i64
    serial_number: u64
    model_year: u16
    available: bool
    code: Annotated[Model, i8]
    some_numbers: Array[u32, 4]
    vehicle_code: Array[i8, 6]
    extras: Bitset(8)
    engine: Engine
    fuel_figures: list[FuelFigure]
    performance_figures: list[PerformanceFigure]
    manufacturer: str
    model: str
    activation_code: str


def make_car() -> Car:
    return Car(
        1_700_000_000, 1234, 2013, True, Model.A, [0, 1, 2, 3], [ord(c) for c in "abcdef"], 0b101,
        Engine(2000, 4, 9000, [ord(c) for c in "123"], Booster(BoostType.NITROUS, 200)),
        [FuelFigure(30, 35.9, "Urban Cycle"), FuelFigure(55, 49.0, "Combined Cycle"),
         FuelFigure(75, 40.0, "Highway Cycle")],
        [PerformanceFigure(95, [Acceleration(30, 4.0), Acceleration(60, 7.5), Acceleration(100, 12.2)]),
         PerformanceFigure(99, [Acceleration(30, 3.8), Acceleration(60, 7.1), Acceleration(100, 11.8)])],
        "Honda", "Civic VTi", "abcdef")


@dataclass
class Pad:  # C++: struct Pad { uint8_t a; uint32_t b; uint16_t c; };  sizeof 12
    a: u8
    b: u32
    c: u16


@dataclass
class Outer:  # not trivially copyable (holds a string): Pad keeps its padding, Outer adds none
    tag: u8
    pad: Pad
    name: str


@dataclass
class Flags:
    a: u8
    ok: bool


@dataclass(frozen=True, order=True)
class Point:
    x: i32
    y: i32


@dataclass
class Node:  # recursive
    value: i32
    children: list[Node]


@dataclass
class Everything:
    opt_some: Optional[str]
    opt_none: Optional[u16]
    union_: Union[u32, str, FuelFigure]
    tagged: TaggedUnion[i32, i64, Monostate]
    mapping: dict[str, list[u16]]
    int_set: set[i64]
    str_set: frozenset[str]
    tup: tuple[u8, str, f64]
    flat_tup: tuple[u8, f32]
    dur: Duration[i64]
    wide_bits: Bitset(70)
    bools: list[bool]
    bool_arr: Array[bool, 3]
    raw: bytes
    colors: list[Color]
    perm: Annotated[Perm, u8]
    shorts: tuple[i16, ...]
    pairs: list[tuple[u8, bool]]
    names: Array[str, 2]
    engine: Optional[Engine]
    point_map: dict[Point, Optional[bool]]
    no_bits: Bitset(0)
    empty: tuple[()]
    monos: list[Monostate]
    bits12: Bitset(12)
    f: float
    ticks: list[Tick]
    points: set[Point]
    nested: list[list[Optional[Color]]]
    fixed_tuple: Annotated[tuple[u16, ...], Fixed(2)]


def make_everything() -> Everything:
    return Everything(
        "x", None, "str-alt", Monostate_variant(), {"a": [1, 2], "b": []}, {3, -1, 2}, frozenset({"z", "a"}),
        (1, "s", 2.5), (3, 1.5), 10**12, (1 << 69) | 1, [True, False], [False, True, True], b"\x00\xff",
        [Color.BLUE, Color.RED], Perm.R | Perm.X, (1, -2, 3), [(1, True), (2, False)], ["p", "q"],
        Engine(1, 2, 3, [1, 2, 3], Booster(BoostType.KERS, 7)), {Point(1, 2): None, Point(3, 4): False},
        0, (), [Monostate(), Monostate()], 0xFFF, -0.0, [make_tick(1), make_tick(2)],
        {Point(5, 6), Point(-1, 0)}, [[Color.GREEN, None], []], (7, 8))


def Monostate_variant():  # noqa: N802
    from bin_serializer.types import Variant
    return Variant(2, Monostate())


@dataclass(slots=True)
class PersonSlots:  # __slots__ dataclasses: the compiled codec reads and fills the slots directly
    name: str
    id: i32
    email: str
    scores: list[f32]


@dataclass(slots=True, frozen=True)
class TickSlots:
    timestamp_ns: u64
    symbol_id: u32
    quantity: u32
    price: f64
    side: u8


@dataclass(slots=True)
class BookSlots:
    owner: PersonSlots
    ticks: list[TickSlots]
    best: Optional[TickSlots] = None


# An evolvable struct of numbers and its first version (C++: workloads::Limits
# and tests/core/test_evolution.cpp's LimitsV1): their holders share one
# fingerprint.
@dataclass
class LimitsV1:
    max_users: u16 = 10
    __bin_serializer_versions__ = (1,)


@dataclass
class LimitsV2:
    max_users: u16 = 10
    max_rooms: u16 = 3
    __bin_serializer_versions__ = (1, 2)
