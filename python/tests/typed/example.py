"""A typed schema and its use: checked by mypy --strict in test_typing.py.

Every marker here is in its Annotated form, which type checkers accept."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Annotated, Iterator, Optional

from bin_serializer import decode, decode_from, encode, iter_decode
from bin_serializer.types import (RETIRED, Bits, DurationOf, Fixed, Retire, Tagged, TimePointOf, UnknownFields,
                                  Variant, char, f32, from_datetime, i32, i64, to_datetime, u8, u16, u64,
                                  unknown_fields)


@dataclass
class Sample:
    id: u64
    name: str
    position: Annotated[list[f32], Fixed(3)]
    flags: Annotated[int, Bits(12)]
    elapsed_ns: Annotated[int, DurationOf(i64, "ns")]
    initial: char  # a C++ char (hashed as a character, not as int8_t)
    taken_at: Annotated[int, TimePointOf(i64, "ns")]
    reading: Annotated[Variant, Tagged(i32, str)]
    level: Optional[u8] = None
    tags: list[str] = field(default_factory=list)

    @property
    def taken_at_datetime(self) -> datetime.datetime:
        return to_datetime(self.taken_at, "ns")


@dataclass
class Settings:  # evolvable, with a retired field and unknown fields kept
    id: u64
    timeout: Annotated[u16, Retire(500)] = field(default=RETIRED, init=False, repr=False, compare=False)
    name: str = ""
    __bin_serializer_versions__ = (2, 3)
    __bin_serializer_keep_unknown__ = True


def kept(data: bytes) -> UnknownFields:
    s: Settings = decode(Settings, data)
    return unknown_fields(s)


def roundtrip(s: Sample) -> Sample:
    data: bytes = encode(s)
    back: Sample = decode(Sample, data)
    value, end = decode_from(Sample, data + data, len(data))
    assert end == 2 * len(data) and value == back
    return back


def stream(data: bytes) -> Iterator[Sample]:
    return iter_decode(Sample, data)


def taken_at(data: bytes) -> datetime.datetime:
    s = decode(Sample, data, datetimes=True)  # TimePoint fields become datetimes
    assert isinstance(s.taken_at, datetime.datetime)
    return s.taken_at


def make() -> Sample:
    when = datetime.datetime(2026, 11, 23, 12, 0, tzinfo=datetime.timezone.utc)
    return Sample(1, "probe", [0.5, 1.0, 2.0], 0xABC, 1500, ord("p"), from_datetime(when, "ns"), Variant(1, "ok"))


if __name__ == "__main__":
    s = roundtrip(make())
    assert kept(encode(Settings(1, name="x"))).count == 0
    print(s.taken_at_datetime.isoformat(), s.reading.value.upper(), s.position[0] + 1.0)
