"""How decoded dataclass instances are made. The compiled codec builds an
instance without calling the class when that cannot be told apart from the
call (_accel.fast_construct_ok: the __init__ @dataclass generated, nothing
after it, no metaclass __call__, no __new__, ...): object.__new__ and the
fields stored, into the __slots__ directly. Here every kind of class gives,
through decode and through LogReader, exactly what calling it gives: type,
equality, repr, __dict__ and slot contents, GC tracking; __post_init__ runs
once per value, in order, and its error propagates; the classes the fast path
must not take are called (their metaclass, __new__, __init__ run).

Every test runs against both codecs (conftest.py; the Python codec always
calls the class, so the two backends are also compared with each other)."""

from __future__ import annotations

import abc
import dataclasses
import gc
import io
import sys
from dataclasses import InitVar, dataclass, field

import pytest

from bin_serializer import _accel, api, decode, encode
from bin_serializer._schema import build_node
from bin_serializer.log import LogReader, LogWriter
from bin_serializer.types import u16, u32

FORMATS = ("native", "portable", "compact")


@dataclass
class Plain:
    a: u32
    s: str
    xs: list[u16]


@dataclass(slots=True)
class Slotted:
    a: u32
    s: str
    xs: list[u16]


@dataclass(frozen=True)
class Frozen:
    a: u32
    s: str


@dataclass(frozen=True, slots=True)
class FrozenSlotted:
    a: u32
    s: str


@dataclass
class Base:
    a: u32


@dataclass
class Child(Base):
    s: str


@dataclass(slots=True)
class SBase:
    a: u32


@dataclass(slots=True)
class SChild(SBase):
    s: str


class SubOfSlotted(SBase):
    """Not decorated: the generated __init__ is SBase's; instances have a __dict__ too."""


@dataclass
class Defaults:
    a: u32 = 7
    s: str = "default"
    xs: list[u16] = field(default_factory=lambda: [1, 2])


@dataclass(slots=True)
class KwOnly:
    a: u32
    s: str = field(default="k", kw_only=True)


@dataclass
class Posted:
    a: u32
    s: str
    seen = []

    def __post_init__(self) -> None:
        Posted.seen.append(self.a)
        if self.a == 13:
            raise ValueError("unlucky 13")


@dataclass
class OwnInit:
    a: u32
    s: str

    def __init__(self, a: int, s: str) -> None:
        self.a = a + 0
        self.s = s
        OwnInit.calls += 1


OwnInit.calls = 0


class Counting(type):
    calls = 0

    def __call__(cls, *args, **kwargs):
        Counting.calls += 1
        return super().__call__(*args, **kwargs)


@dataclass
class Metaclassed(metaclass=Counting):
    a: u32
    s: str


@dataclass(slots=True)
class Abstract(abc.ABC):
    a: u32

    @abc.abstractmethod
    def run(self) -> None: ...


@dataclass
class OwnNew:
    a: u32
    s: str

    def __new__(cls, *args, **kwargs):
        OwnNew.calls += 1
        return super().__new__(cls)


OwnNew.calls = 0


@dataclass
class Watched:
    a: u32
    s: str

    def __setattr__(self, name, value):
        Watched.stores.append(name)
        object.__setattr__(self, name, value)


Watched.stores = []

@dataclass
class NotInInit:
    a: u32
    b: u32 = field(init=False, default=3)


@dataclass
class WithInitVar:
    a: u32
    k: InitVar[int] = 0

    def __post_init__(self, k: int) -> None:
        self.seen_k = k


@dataclass(slots=True)
class Versioned:  # evolvable (docs/evolution.md); data of version 1 lacks s and xs
    a: u32
    s: str = "new"
    xs: list[u16] = field(default_factory=lambda: [7])
    __bin_serializer_versions__ = (1, 3)


@dataclass
class VersionedPosted:
    a: u32
    s: str = "new"
    __bin_serializer_versions__ = (1, 2)
    seen = []

    def __post_init__(self) -> None:
        VersionedPosted.seen.append((self.a, self.s))


# class -> (field values, made without calling the class when decoded by the compiled codec)
CASES = {
    Plain: ((5, "five", [1, 2, 3]), True),
    Slotted: ((5, "five", [1, 2, 3]), True),
    Frozen: ((6, "six"), True),
    FrozenSlotted: ((6, "six"), True),
    Child: ((8, "eight"), True),
    SChild: ((8, "eight"), True),
    SubOfSlotted: ((9,), True),
    Defaults: ((300, "given", [9]), True),
    KwOnly: ((4, "given"), True),
    Posted: ((1, "one"), False),
    OwnInit: ((2, "two"), False),
    Metaclassed: ((3, "three"), False),
    OwnNew: ((4, "four"), False),
    Watched: ((5, "five"), False),
    Versioned: ((5, "five", [1, 2]), True),
    NotInInit: ((1,), False),  # b is not on the wire: __init__ gives it its default
    WithInitVar: ((2,), False),
}


def names(cls) -> list:
    return [f.name for f in dataclasses.fields(cls)]


def make(cls, values):
    """The instance calling the class with the wire fields makes."""
    return cls(**{f.name: x for f, x in zip(dataclasses.fields(cls), values) if f.init})


def state(v) -> tuple:
    """Everything an instance holds: its __dict__ (if any) and every slot of its class and bases."""
    slots = []
    for k in type(v).__mro__:
        for name in k.__dict__.get("__slots__", ()):
            if name not in ("__dict__", "__weakref__"):
                slots.append((k.__name__, name, getattr(v, name, "<unset>")))
    return (dict(vars(v)) if hasattr(v, "__dict__") else None, slots)


def untracked_when_decoded(v) -> bool:
    """The one way a decoded instance may differ from the called class's:
    the compiled codec leaves a frozen slotted dataclass whose fields hold
    only untracked values out of the cycle collector (it can never be in a
    cycle; calling the class makes it tracked)."""
    params = type(v).__dict__.get("__dataclass_params__")
    return (api.backend() == "c" and params is not None and params.frozen and "__slots__" in type(v).__dict__
            and not hasattr(v, "__dict__")
            and all(settled(getattr(v, f.name)) for f in dataclasses.fields(v)))


def settled(x) -> bool:
    """A field value that can never become part of a cycle: none of the
    collector's (numbers, strings, bytes, None), or an untracked tuple or
    frozen record; an untracked dict is not (storing a list in it tracks it)."""
    if not gc.is_tracked(x):
        return (type(x) in (int, float, str, bytes, bool, type(None)) or type(x) is tuple
                or (dataclasses.is_dataclass(x) and type(x).__dataclass_params__.frozen))
    return False


def same(got, want) -> None:
    assert type(got) is type(want)
    assert got == want
    assert repr(got) == repr(want)
    assert state(got) == state(want)
    assert gc.is_tracked(got) == (gc.is_tracked(want) and not untracked_when_decoded(got))


def log_of(values, types) -> bytes:
    f = io.BytesIO()
    with LogWriter(f, types) as w:
        for v in values:
            w.write(v)
    return f.getvalue()


@pytest.mark.parametrize("cls", list(CASES), ids=lambda c: c.__name__)
def test_fast_path_is_taken_only_where_the_call_is_not_observable(cls):
    assert _accel.fast_construct_ok(cls, names(cls)) is CASES[cls][1]
    if _accel.available():  # the compiled plan's root entry (kind, flags, ...) says so too
        root = _accel._Builder(False, False)
        entry = root.entries[root.add(build_node(cls))]
        assert bool(entry[1] & _accel.F_FASTNEW) is CASES[cls][1]


def test_fast_path_refuses_a_metaclass_call_and_an_abstract_class():
    assert not _accel.fast_construct_ok(Metaclassed, ["a", "s"])
    assert not _accel.fast_construct_ok(Abstract, ["a"])
    # an ABCMeta class without abstract methods is an ordinary class
    concrete = dataclass(slots=True)(type("Concrete", (Abstract,), {"run": lambda self: None}))
    assert _accel.fast_construct_ok(concrete, ["a"])


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("cls", [c for c in CASES if c is not Posted], ids=lambda c: c.__name__)
def test_decode_and_log_give_what_calling_the_class_gives(cls, fmt):
    values = CASES[cls][0]
    want = make(cls, values)
    OwnInit.calls = Counting.calls = OwnNew.calls = 0
    Watched.stores.clear()
    same(decode(cls, encode(want, fmt), fmt), want)
    log = log_of([want, want], [cls])
    got = list(LogReader(log, [cls]))
    assert len(got) == 2 and got[0] is not got[1]
    for g in got:
        same(g, want)
    # the classes the fast path refuses were called once per value made
    calls = {OwnInit: OwnInit.calls, Metaclassed: Counting.calls, OwnNew: OwnNew.calls,
             Watched: len(Watched.stores) // 2}
    if cls in calls:
        assert calls[cls] == 3


@pytest.mark.parametrize("fmt", FORMATS)
def test_evolvable_data_lacking_fields_gives_what_calling_the_class_gives(fmt):
    @dataclass
    class V1:
        a: u32
        __bin_serializer_versions__ = (1,)

    old = encode(V1(4), fmt)
    same(decode(Versioned, old, fmt), Versioned(4))
    a, b = decode(Versioned, old, fmt), decode(Versioned, old, fmt)
    assert a.xs == [7] and a.xs is not b.xs  # a default_factory's value per instance, as __init__ makes it
    VersionedPosted.seen.clear()
    same(decode(VersionedPosted, old, fmt), VersionedPosted(4))
    assert VersionedPosted.seen == [(4, "new"), (4, "new")]  # the decode's and the call's


def test_frozen_stays_frozen():
    for cls in (Frozen, FrozenSlotted):
        v = decode(cls, encode(make(cls, (1, "x"))))
        with pytest.raises(dataclasses.FrozenInstanceError):
            v.a = 2
        assert hash(v) == hash(make(cls, (1, "x")))


def test_slotted_values_have_no_dict_and_hold_their_own_references():
    v = decode(Slotted, encode(Slotted(1, "s" * 40, [4, 5])))
    assert not hasattr(v, "__dict__")
    xs = v.xs
    before = sys.getrefcount(xs)
    del v
    assert sys.getrefcount(xs) == before - 1  # the instance owned exactly one reference
    assert xs == [4, 5]


def test_abstract_class_cannot_be_made_by_decoding_either():
    data = encode(5, schema=u32)  # the bytes of Abstract(a=5)
    with pytest.raises(TypeError, match="abstract"):
        Abstract(5)
    with pytest.raises(TypeError, match="abstract"):
        decode(Abstract, data)


def unlucky(a: int, s: str) -> Posted:
    """A Posted whose __post_init__ raises when it is decoded (made without it)."""
    v = object.__new__(Posted)
    v.a, v.s = a, s
    return v


@pytest.mark.parametrize("fmt", FORMATS)
def test_post_init_runs_once_per_value_in_order_and_its_error_propagates(fmt):
    vals = [Posted(i, str(i)) for i in (1, 2, 3)]
    Posted.seen.clear()
    assert list(LogReader(log_of(vals, [Posted]), [Posted])) == vals
    assert Posted.seen == [1, 2, 3]
    assert decode(Posted, encode(vals[1], fmt), fmt) == vals[1] and Posted.seen == [1, 2, 3, 2]

    log13 = log_of(vals[:2] + [unlucky(13, "x")] + vals[2:], [Posted])
    data13 = encode(unlucky(13, "x"), fmt)
    Posted.seen.clear()
    got = []
    with pytest.raises(ValueError, match="unlucky 13"):
        for v in LogReader(log13, [Posted]):
            got.append(v)
    assert got == vals[:2] and Posted.seen == [1, 2, 13]
    Posted.seen.clear()
    with pytest.raises(ValueError, match="unlucky 13"):
        decode(Posted, data13, fmt)
    assert Posted.seen == [13]


def test_a_failing_post_init_leaks_nothing():
    log = log_of([Posted(1, "a" * 30), unlucky(13, "b" * 30)], [Posted])
    data = encode(unlucky(13, "c" * 30))

    def run():
        with pytest.raises(ValueError):
            list(LogReader(log, [Posted]))
        with pytest.raises(ValueError):
            decode(Posted, data)

    for _ in range(20):  # warm caches (codecs, interned names)
        run()
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(200):
        run()
    gc.collect()
    assert len(gc.get_objects()) - before < 50
