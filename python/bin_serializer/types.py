"""Schema markers: how a dataclass field's type hint names a wire type.

A schema is a ``@dataclass`` whose fields carry these hints::

    from dataclasses import dataclass
    from bin_serializer.types import u8, i32, f32, Array, Bitset

    @dataclass
    class Person:
        name: str
        id: i32
        email: str
        scores: list[f32]

Every marker is an ``typing.Annotated`` alias, so a field annotated ``x: u32``
holds a plain ``int`` at run time and static type checkers see ``int``.

=========================  ==========================  ============================
hint                       C++ type                    Python value
=========================  ==========================  ============================
``u8 u16 u32 u64``         ``uint8_t`` ... ``uint64_t``  ``int``
``i8 i16 i32 i64``         ``int8_t`` ... ``int64_t``    ``int``
``char char8 char16``     ``char``, ``char8_t``,        ``int`` (the character code)
``char32 wchar``           ``char16_t`` ... ``wchar_t``
``f32 f64`` (``float``)    ``float`` / ``double``        ``float``
``bool``                   ``bool``                      ``bool``
``str``                    ``std::string`` (UTF-8)       ``str``
``bytes``                  ``std::string`` (raw), ``std::vector<uint8_t>``  ``bytes``
=========================  ==========================  ============================

See README.md for the full table (containers, optional, variant, ...).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import Annotated, Any, NamedTuple

__all__ = [
    "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64",
    "Scalar", "Fixed", "Array", "Bitset", "BitsetSpec", "Duration", "DurationSpec",
    "Monostate", "Variant", "TaggedUnion", "TaggedSpec", "NDArray", "NDArraySpec", "Records", "RecordsSpec",
    "Bits", "DurationOf", "Tagged", "to_datetime", "from_datetime", "TimePoint", "TimePointOf",
    "char", "char8", "char16", "char32", "wchar", "Text", "TextSpec", "EnumRange", "EnumOf", "EnumSpec", "Custom", "CustomSpec",
    "PERIODS", "Retired", "Retire", "RETIRED", "retired", "UnknownFields", "unknown_fields", "clear_unknown_fields",
]


@dataclasses.dataclass(frozen=True)
class Scalar:
    """A fixed-width number: its name, ``struct`` code and size in bytes."""

    name: str
    code: str
    size: int
    is_float: bool = False
    # a C++ character type (char, char8_t, char16_t, char32_t, wchar_t): the
    # same bytes as the integer of its size, but fingerprinted as a character
    # (token t_char) and never a varint in the compact format
    is_char: bool = False

    @property
    def signed(self) -> bool:
        return self.code.islower() or self.is_float

    @property
    def min(self) -> int:
        return -(1 << (8 * self.size - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (8 * self.size - 1)) - 1 if self.signed else (1 << (8 * self.size)) - 1

    def __repr__(self) -> str:
        return self.name


U8 = Scalar("u8", "B", 1)
U16 = Scalar("u16", "H", 2)
U32 = Scalar("u32", "I", 4)
U64 = Scalar("u64", "Q", 8)
I8 = Scalar("i8", "b", 1)
I16 = Scalar("i16", "h", 2)
I32 = Scalar("i32", "i", 4)
I64 = Scalar("i64", "q", 8)
F32 = Scalar("f32", "f", 4, is_float=True)
F64 = Scalar("f64", "d", 8, is_float=True)

CHAR = Scalar("char", "b", 1, is_char=True)  # signed, as `char` on x86-64 and the ABIs this package models
CHAR8 = Scalar("char8", "B", 1, is_char=True)
CHAR16 = Scalar("char16", "H", 2, is_char=True)
CHAR32 = Scalar("char32", "I", 4, is_char=True)
WCHAR = Scalar("wchar", "i", 4, is_char=True)  # wchar_t of Linux / macOS (4 bytes, signed)

SCALARS = {s.name: s for s in (U8, U16, U32, U64, I8, I16, I32, I64, F32, F64, CHAR, CHAR8, CHAR16, CHAR32,
                               WCHAR)}

u8 = Annotated[int, U8]
u16 = Annotated[int, U16]
u32 = Annotated[int, U32]
u64 = Annotated[int, U64]
i8 = Annotated[int, I8]
i16 = Annotated[int, I16]
i32 = Annotated[int, I32]
i64 = Annotated[int, I64]
f32 = Annotated[float, F32]
f64 = Annotated[float, F64]
char = Annotated[int, CHAR]  # C++ `char` (its code as an int: ord("a"))
char8 = Annotated[int, CHAR8]  # char8_t
char16 = Annotated[int, CHAR16]  # char16_t
char32 = Annotated[int, CHAR32]  # char32_t
wchar = Annotated[int, WCHAR]  # wchar_t (4 bytes)

# std::ratio of each chrono unit name (a duration's period, in seconds).
PERIODS = {"ns": (1, 10**9), "us": (1, 10**6), "ms": (1, 10**3), "s": (1, 1), "min": (60, 1),
           "h": (3600, 1), "d": (86400, 1)}


def _period(p: Any) -> "tuple[int, int]":
    """A duration's period from a unit name ("ms") or a (num, den) pair."""
    if isinstance(p, str):
        if p not in PERIODS:
            raise ValueError(f"duration unit must be one of {list(PERIODS)} or a (num, den) pair, not {p!r}")
        return PERIODS[p]
    if (isinstance(p, tuple) and len(p) == 2 and all(type(x) is int for x in p)
            and 0 < p[0] < 2**63 and 0 < p[1] < 2**63):
        return (p[0], p[1])
    raise ValueError(f"duration period must be a unit name or a (num, den) pair of positive ints, not {p!r}")


@dataclasses.dataclass(frozen=True)
class Fixed:
    """``Annotated[list[T], Fixed(N)]``: a fixed-length array (``std::array<T, N>``,
    ``T[N]``): exactly N elements on the wire, no count. Also valid on
    ``tuple[T, ...]`` (decodes to a tuple)."""

    n: int

    def __post_init__(self) -> None:
        if not isinstance(self.n, int) or self.n < 0:
            raise ValueError(f"Fixed(n) needs a non-negative int, got {self.n!r}")


class Array:
    """``Array[f32, 3]`` is ``Annotated[list[f32], Fixed(3)]``."""

    def __class_getitem__(cls, params: Any) -> Any:
        if not isinstance(params, tuple) or len(params) != 2:
            raise TypeError("use Array[ElementType, N]")
        elem, n = params
        return Annotated[list[elem], Fixed(n)]  # type: ignore[valid-type]


@dataclasses.dataclass(frozen=True)
class BitsetSpec:
    n: int


def Bitset(n: int) -> Any:  # noqa: N802 - reads like a type
    """``Bitset(N)``: ``std::bitset<N>`` as a Python ``int`` (bit i = bit i of
    the int, so ``format(v, f"0{N}b")`` equals ``std::bitset::to_string()``)."""
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"Bitset(n) needs a non-negative int, got {n!r}")
    return Annotated[int, BitsetSpec(n)]


@dataclasses.dataclass(frozen=True)
class DurationSpec:
    rep: Scalar
    # set for a time_point of an epoch clock (TimePoint / TimePointOf) in "s",
    # "ms", "us" or "ns": its tick unit, for decode(..., datetimes=True)
    unit: "str | None" = None
    # the std::ratio (num, den) of the tick period in seconds: part of the C++
    # fingerprint (not of the bytes); None: unknown, the type has no fingerprint
    period: "tuple[int, int] | None" = None
    time_point: bool = False  # a std::chrono::time_point (fingerprint: TIME_POINT, then the duration)


class Duration:
    """``Duration[i64, "ms"]``: a ``std::chrono::duration<Rep, Period>`` as its
    tick count (``int`` or, for an f32/f64 rep, ``float``). The period (a unit
    "ns" "us" "ms" "s" "min" "h" "d", or a ``(num, den)`` ratio of seconds) is
    not on the wire but is part of the fingerprint; ``Duration[i64]`` without
    it encodes the same bytes and has no fingerprint."""

    def __class_getitem__(cls, params: Any) -> Any:
        rep, period = params if isinstance(params, tuple) and len(params) == 2 else (params, None)
        spec = _scalar_of(rep)
        if spec is None:
            raise TypeError(f"Duration[Rep] needs a number marker such as i64, got {rep!r}")
        ratio = _period(period) if period is not None else None
        return Annotated[float if spec.is_float else int, spec, DurationSpec(spec, None, ratio)]


class TimePoint:
    """``TimePoint[i64, "ns"]``: a ``std::chrono::time_point`` of a clock
    counting from the Unix epoch (``system_clock``) in that unit ("s", "ms",
    "us", "ns"). On the wire and by default in Python it is the tick count
    (like ``Duration``); ``decode(..., datetimes=True)`` gives an aware UTC
    ``datetime`` instead. Other periods ("min", "h", "d", a ``(num, den)``
    ratio) are accepted too and stay tick counts."""

    def __class_getitem__(cls, params: Any) -> Any:
        if not isinstance(params, tuple) or len(params) != 2:
            raise TypeError('use TimePoint[Rep, unit], e.g. TimePoint[i64, "ns"]')
        spec = TimePointOf(*params)
        return Annotated[float if spec.rep.is_float else int, spec]


class Monostate:
    """``std::monostate``: an empty alternative of a variant (0 bytes)."""

    __slots__ = ()
    _instance: "Monostate | None" = None

    def __new__(cls) -> "Monostate":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Monostate()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Monostate)

    def __hash__(self) -> int:
        return 0x6D6F6E6F

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Monostate):
            return False
        return NotImplemented


class Variant(NamedTuple):
    """The value of a ``TaggedUnion[...]`` field: the alternative's index (its
    position in the hint, = the C++ ``variant::index()``) and its value."""

    index: int
    value: Any


@dataclasses.dataclass(frozen=True)
class TaggedSpec:
    alternatives: tuple


class TaggedUnion:
    """``TaggedUnion[A, B, ...]``: a ``std::variant<A, B, ...>`` whose Python
    value is ``Variant(index, value)``. Use it when alternatives share a Python
    type (``TaggedUnion[i32, i64]``); a plain ``A | B`` union decodes to the
    bare value and needs alternatives of distinct Python types."""

    def __class_getitem__(cls, params: Any) -> Any:
        if not isinstance(params, tuple):
            params = (params,)
        if not params:
            raise TypeError("TaggedUnion needs at least one alternative")
        return Annotated[Variant, TaggedSpec(tuple(params))]


@dataclasses.dataclass(frozen=True)
class NDArraySpec:
    scalar: Scalar


class NDArray:
    """``NDArray[f32]``: a ``std::vector<float>`` decoded as a ``numpy.ndarray``
    (requires numpy). ``numpy.typing.NDArray[numpy.float32]`` works too."""

    def __class_getitem__(cls, elem: Any) -> Any:
        spec = _scalar_of(elem)
        if spec is None:
            raise TypeError(f"NDArray[T] needs a number marker such as f32, got {elem!r}")
        return Annotated[Any, NDArraySpec(spec)]


@dataclasses.dataclass(frozen=True)
class RecordsSpec:
    record: type


class Records:
    """``Records[Tick]``: a ``std::vector<Tick>`` of a flat dataclass whose
    fields are all numbers, decoded as one numpy structured array (no Python
    object per record; requires numpy). ``Annotated[numpy.ndarray,
    RecordsSpec(Tick)]`` is the same, in a form type checkers accept. Encoding
    takes such an array (``bin_serializer.records_dtype(Tick)`` is its dtype)."""

    def __class_getitem__(cls, record: Any) -> Any:
        return Annotated[Any, RecordsSpec(record)]


# ---- Annotated metadata forms ---------------------------------------------------------------
# mypy and pyright accept ``Annotated[<python type>, <any expression>]``, so
# these are the statically typed spellings of the markers above:
#
#   coords:  Annotated[list[f32], Fixed(3)]        # Array[f32, 3]
#   flags:   Annotated[int, Bits(12)]              # Bitset(12)
#   elapsed: Annotated[int, DurationOf(i64, "ns")]  # Duration[i64, "ns"]
#   taken:   Annotated[int, TimePointOf(i64, "ns")]  # TimePoint[i64, "ns"]
#   value:   Annotated[Variant, Tagged(i32, str)]  # TaggedUnion[i32, str]
#   ticks:   Annotated[numpy.ndarray, RecordsSpec(Tick)]  # Records[Tick]


def Bits(n: int) -> BitsetSpec:  # noqa: N802 - reads like a type
    """``Annotated[int, Bits(N)]``: ``std::bitset<N>``."""
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"Bits(n) needs a non-negative int, got {n!r}")
    return BitsetSpec(n)


def DurationOf(rep: Any, period: Any = None) -> DurationSpec:  # noqa: N802
    """``Annotated[int, DurationOf(i64, "ms")]``: a chrono duration with that Rep
    and period (a unit name or a ``(num, den)`` pair; see Duration)."""
    spec = _scalar_of(rep)
    if spec is None:
        raise TypeError(f"DurationOf(rep) needs a number marker such as i64, got {rep!r}")
    return DurationSpec(spec, None, _period(period) if period is not None else None)


def TimePointOf(rep: Any, unit: Any) -> DurationSpec:  # noqa: N802
    """``Annotated[int, TimePointOf(i64, "ns")]``: a time_point (see TimePoint)."""
    spec = _scalar_of(rep)
    if spec is None or spec.is_char:
        raise TypeError(f"TimePointOf(rep, unit) needs a number marker such as i64, got {rep!r}")
    if isinstance(unit, str) and unit in _UNITS and not spec.is_float:
        return DurationSpec(spec, unit, PERIODS[unit], True)
    if not isinstance(unit, (str, tuple)):
        raise ValueError(f"time_point unit must be one of {sorted(_UNITS)}, not {unit!r}")
    return DurationSpec(spec, None, _period(unit), True)


@dataclasses.dataclass(frozen=True)
class TextSpec:
    """``Annotated[list[int], Text(2)]``: a ``std::basic_string`` of characters
    wider than one byte (``std::u16string``: 2, ``std::u32string``: 4): a count,
    then the characters; the value is the list of character codes.
    ``Annotated[bytes, Text(1)]``: a ``std::string`` as raw ``bytes`` (not
    necessarily UTF-8), fingerprinted as the string it is (plain ``bytes`` is a
    ``std::vector<uint8_t>``)."""

    char_size: int


def Text(char_size: int) -> TextSpec:  # noqa: N802
    if char_size not in (1, 2, 4):
        raise ValueError(f"Text(char_size): 1, 2 or 4, not {char_size!r}")
    return TextSpec(char_size)


@dataclasses.dataclass(frozen=True)
class EnumRange:
    """``Annotated[E, EnumRange(lo, hi)]`` or ``E.__enum_range__ = (lo, hi)``: the
    C++ ``enum_range<E>`` the enum declares (part of its fingerprint)."""

    min: int
    max: int


@dataclasses.dataclass(frozen=True)
class EnumSpec:
    rep: Scalar
    range: "tuple[int, int] | None" = None


def EnumOf(underlying: Any, min: "int | None" = None, max: "int | None" = None) -> EnumSpec:  # noqa: N802
    """``Annotated[int, EnumOf(i8, -2, 3)]``: a C++ enum seen as its underlying
    integer (no Python enum class; what a type description gives, as it does
    not list the enumerators), with the ``enum_range`` it declares, if any.
    Same bytes as the integer; fingerprinted as an enum. With a range of at
    most 4096 values, decoding refuses a value outside it (``invalid_enum``,
    errc ``invalid_value``, as C++) and so does encoding; a wider range is not
    checked."""
    spec = _scalar_of(underlying)
    if spec is None or spec.is_float:
        raise TypeError(f"EnumOf(underlying) needs an integer marker such as u8, got {underlying!r}")
    if (min is None) != (max is None):
        raise ValueError("EnumOf: give both min and max, or neither")
    if min is not None and max is not None:
        if type(min) is not int or type(max) is not int or not spec.min <= min <= max <= spec.max:
            raise ValueError(f"EnumOf: range {min!r} .. {max!r} must be ints within {spec.name}, min <= max")
        return EnumSpec(spec, (min, max))
    return EnumSpec(spec)


@dataclasses.dataclass(frozen=True)
class CustomSpec:
    """``Annotated[T, Custom(0x4d6f6e6579000001)]``: a C++ type with its own
    ``codec<T>`` declaring ``schema_id``: encoded as the hint T (which must give
    the codec's bytes) but fingerprinted as the codec's id."""

    id: int


def Custom(schema_id: int) -> CustomSpec:  # noqa: N802
    if type(schema_id) is not int or not 0 <= schema_id < 2**64:
        raise ValueError(f"Custom(schema_id) needs an int in 0 .. 2**64-1, not {schema_id!r}")
    return CustomSpec(schema_id)


def Tagged(*alternatives: Any) -> TaggedSpec:  # noqa: N802
    """``Annotated[Variant, Tagged(A, B)]``: ``std::variant<A, B>`` as ``Variant(index, value)``."""
    if not alternatives:
        raise TypeError("Tagged needs at least one alternative")
    return TaggedSpec(tuple(alternatives))


_UNITS = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def to_datetime(ticks: int, unit: str = "ns") -> _dt.datetime:
    """A ``time_point`` field's tick count (since the Unix epoch, as
    ``std::chrono::system_clock``) as an aware UTC ``datetime`` (microsecond
    resolution, like ``datetime``). unit: "s", "ms", "us" or "ns"."""
    per = _UNITS[unit]
    micros = ticks * 10**6 // per
    return _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(microseconds=micros)


def from_datetime(value: _dt.datetime, unit: str = "ns") -> int:
    """The tick count of an aware ``datetime`` (naive ones are taken as UTC)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    delta = value - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    micros = (delta.days * 86400 + delta.seconds) * 10**6 + delta.microseconds
    return micros * _UNITS[unit] // 10**6


def _scalar_of(hint: Any) -> "Scalar | None":
    """The Scalar spec of a marker (``u8``) or of a Scalar itself."""
    if isinstance(hint, Scalar):
        return hint
    for meta in getattr(hint, "__metadata__", ()):
        if isinstance(meta, Scalar):
            return meta
    return None


# ---------------------------------------------------------------------------
# schema evolution: retired fields and kept unknown fields (README "Retired
# fields", "Unknown fields kept")


@dataclasses.dataclass(frozen=True)
class Retire:
    """``Annotated[T, Retire()]`` (or ``Retire(value)``): a retired field of an
    evolvable dataclass, the Python side of C++ ``bin_serializer::retired<T>``
    (``retired<T, V>``). The field keeps its wire slot (T's encoding) and its
    place in the fingerprint (hashed as T); writers write T's zero value (or
    ``value``, an int for an integer, bool or enum field), readers decode and
    check a T and drop it. Declare it ``= retired()`` so the constructor does
    not take it."""

    value: "int | None" = None

    def __post_init__(self) -> None:
        if self.value is not None and type(self.value) not in (int, bool):
            raise ValueError(f"Retire(value) takes an int (the fixed wire value), not {self.value!r}")


class Retired:
    """``Retired[u16]`` is ``Annotated[u16, Retire()]``; ``Retired[u16, 7]``
    writes 7 instead of 0."""

    def __class_getitem__(cls, params: Any) -> Any:
        if isinstance(params, tuple):
            if len(params) != 2:
                raise TypeError("use Retired[T] or Retired[T, value]")
            hint, value = params
            return Annotated[hint, Retire(value)]
        return Annotated[params, Retire()]


class _RetiredValue:
    """The value a retired field holds in Python: it has none."""

    _instance: "_RetiredValue | None" = None

    def __new__(cls) -> "_RetiredValue":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "RETIRED"

    def __reduce__(self) -> str:
        return "RETIRED"


RETIRED: Any = _RetiredValue()


def retired() -> Any:
    """The dataclass default of a retired field: not a constructor parameter,
    not compared, not in the repr; the attribute reads ``RETIRED``."""
    return dataclasses.field(default=RETIRED, init=False, repr=False, compare=False)


@dataclasses.dataclass(frozen=True)
class UnknownFields:
    """What a keeps-unknown evolvable dataclass kept of newer data: the number
    of fields beyond its own and their raw bytes (the rest of the body)."""

    count: int
    data: bytes


_UNKNOWN_ATTR = "__bin_serializer_unknown__"
NO_UNKNOWN = UnknownFields(0, b"")


def unknown_fields(obj: Any) -> UnknownFields:
    """The unknown trailing fields `obj` (an instance of a dataclass declaring
    ``__bin_serializer_keep_unknown__ = True``) kept when it was decoded;
    ``UnknownFields(0, b"")`` when none."""
    got = getattr(obj, "__dict__", {}).get(_UNKNOWN_ATTR)
    return got if isinstance(got, UnknownFields) else NO_UNKNOWN


def clear_unknown_fields(obj: Any) -> None:
    """Forgets what `obj` kept: it is then written with its own fields only."""
    getattr(obj, "__dict__", {}).pop(_UNKNOWN_ATTR, None)
