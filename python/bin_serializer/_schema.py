"""Type hints -> a tree of schema nodes, and the layout facts derived from it.

Nodes are format-independent; sizes and layouts take ``native``, the wire
mode of the format (``mode_of(format)``): False, True or ``COMPACT``.

* portable (False): every leaf little-endian, no padding anywhere;
* native (True; little-endian hosts only): like portable, except that a struct
  that C++ copies as one block (trivially copyable) keeps its in-memory layout
  with alignment padding, and a bitset takes ``sizeof(std::bitset<N>)`` bytes;
* compact (``COMPACT``, falsy: everything native-specific is off): like
  portable, except that 16/32/64-bit integers (enums, durations and the variant
  index included) and every length/count prefix are LEB128 varints (signed
  integers zigzag-encoded first). A node holding such an integer has no fixed
  layout in compact.
"""

from __future__ import annotations

import dataclasses
import enum
import keyword
import sys
import typing
from typing import Annotated, Any, Union, get_args, get_origin

from .errors import SchemaError
from .types import (F64, BitsetSpec, CustomSpec, DurationSpec, EnumRange, EnumSpec, Fixed, Monostate, NDArraySpec,
                    RecordsSpec, Retire, Scalar, TaggedSpec, TextSpec, Variant)

LENGTH_PREFIX = 8
EVOLVABLE_PREFIX = 8  # [u32 body_length][u32 field_count], fixed in every format
VARIANT_INDEX = 4


class _CompactMode:
    """The wire mode of the compact format (see the module docstring). Falsy,
    so every ``if native:`` keeps its portable meaning; tell it apart with
    ``native is COMPACT``."""

    __slots__ = ()

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "COMPACT"

    def __reduce__(self) -> str:
        return "COMPACT"


COMPACT: Any = _CompactMode()

FORMATS = ("portable", "native", "compact")
_MODES = {"portable": False, "native": True, "compact": COMPACT}


def mode_of(fmt: str) -> Any:
    """The wire mode (the ``native`` argument of layout/min_size/...) of a format name."""
    try:
        return _MODES[fmt]
    except (KeyError, TypeError):
        raise ValueError(f"format must be 'portable', 'native' or 'compact', not {fmt!r}") from None


def format_error(fmt: Any) -> ValueError:
    return ValueError(f"format must be 'portable', 'native' or 'compact', not {fmt!r}")


# Compact varints: the most bytes of an integer of each size, and the largest
# value its last allowed byte may hold (bits beyond the width are refused).
VARINT_MAX_LEN = {2: 3, 4: 5, 8: 10}
VARINT_LAST_MAX = {2: 0x03, 4: 0x0F, 8: 0x01}


def is_varint(node: "Node", native: Any) -> bool:
    """Whether `node` is a number written as a varint in this mode (compact:
    an integer, enum or integer duration of 16, 32 or 64 bits)."""
    return (native is COMPACT and isinstance(node, (ScalarN, EnumN)) and not node.spec.is_float
            and not node.spec.is_char and node.spec.size > 1)


def varint_bytes(x: int) -> bytes:
    """The unsigned LEB128 encoding of x >= 0."""
    out = bytearray()
    while x >= 0x80:
        out.append((x & 0x7F) | 0x80)
        x >>= 7
    out.append(x)
    return bytes(out)


def zigzag(n: int) -> int:
    """The zigzag code of a signed integer (0, -1, 1, -2 ... -> 0, 1, 2, 3 ...): for
    a value in range, the same as ``(n << 1) ^ (n >> (bits - 1))`` in its own width."""
    return n << 1 if n >= 0 else ((-n) << 1) - 1


def unzigzag(u: int) -> int:
    return (u >> 1) ^ -(u & 1)


class Node:
    """Base of all schema nodes."""

    __slots__ = ("_min", "_layout", "custom_id", "__weakref__")

    def __init__(self) -> None:
        self._min: dict = {}
        self._layout: dict = {}
        # Annotated[T, Custom(id)]: encoded as T, fingerprinted as a user codec's schema_id
        self.custom_id: "int | None" = None

    def describe(self) -> str:  # short type name for messages and paths
        return type(self).__name__


class ScalarN(Node):
    """A number. duration: a chrono duration / time_point tick count; unit:
    for a time_point declared with TimePoint[...], the tick unit ("s", "ms",
    "us", "ns"), so decode(..., datetimes=True) can make it a datetime."""

    __slots__ = ("spec", "duration", "unit", "period", "time_point", "enum")

    def __init__(self, spec: Scalar, duration: bool = False, unit: "str | None" = None,
                 period: "tuple | None" = None, time_point: bool = False) -> None:
        super().__init__()
        self.spec = spec
        self.duration = duration
        self.unit = unit
        self.period = period  # (num, den) of a duration's tick period, when declared
        self.time_point = time_point
        # Annotated[int, EnumOf(...)]: a C++ enum as its integer; True, or its enum_range (min, max)
        self.enum: "bool | tuple" = False

    def describe(self) -> str:
        return f"Duration[{self.spec.name}]" if self.duration else self.spec.name


class BoolN(Node):
    __slots__ = ()

    def describe(self) -> str:
        return "bool"


class EnumN(Node):
    """An IntEnum (closed: decoding checks membership) or IntFlag (any value
    the flag class accepts)."""

    __slots__ = ("cls", "spec", "members", "is_flag", "range")

    def __init__(self, cls: type, spec: Scalar, range: "tuple | None" = None) -> None:
        super().__init__()
        self.cls = cls
        self.spec = spec
        self.range = range  # the C++ enum_range (min, max), part of the fingerprint
        self.is_flag = issubclass(cls, enum.Flag)
        self.members = {int(m): m for m in cls}  # value -> member (aliases map to canonical)
        for m in cls:
            if not (spec.min <= int(m) <= spec.max):
                raise SchemaError(f"{cls.__name__}.{m.name} = {int(m)} does not fit its underlying type {spec.name}")

    @classmethod
    def ranged(cls, spec: Scalar, lo: int, hi: int) -> "EnumN":
        """``Annotated[int, EnumOf(i8, lo, hi)]``: a C++ enum with an enum_range and no
        Python enum class: its values are the plain ints lo .. hi (decoding refuses
        others, like C++). A class of its own names it in messages; values are ints."""
        node = cls.__new__(cls)
        Node.__init__(node)
        node.cls = type(f"EnumOf({spec.name}, {lo}, {hi})", (int,), {"__slots__": ()})
        node.spec = spec
        node.is_flag = False
        node.members = {v: v for v in range(lo, hi + 1)}
        node.range = (lo, hi)
        return node

    def describe(self) -> str:
        return self.cls.__name__


# EnumOf ranges up to this many values are checked when decoding and encoding
ENUM_RANGE_CHECKED = 1 << 12


class BitsetN(Node):
    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def describe(self) -> str:
        return f"Bitset({self.n})"

    def size(self, native: bool) -> int:
        if native:
            return 1 if self.n == 0 else 8 * ((self.n + 63) // 64)
        return (self.n + 7) // 8

    def align(self, native: bool) -> int:
        return 1 if self.n == 0 or not native else 8


class StrN(Node):
    __slots__ = ()

    def describe(self) -> str:
        return "str"


class BytesN(Node):
    """bytes: a std::vector<uint8_t>, or with text=True (``Annotated[bytes, Text(1)]``)
    a std::string whose bytes are not UTF-8 text (same bytes, the string's fingerprint)."""

    __slots__ = ("text",)

    def __init__(self, text: bool = False) -> None:
        super().__init__()
        self.text = text

    def describe(self) -> str:
        return "bytes"


class ListN(Node):
    """[u64 count][elements]: std::vector / list / deque. container: 'list',
    'tuple' (``tuple[T, ...]``), 'ndarray' (numbers) or 'records' (a numpy
    structured array of flat all-number dataclasses)."""

    __slots__ = ("elem", "container", "text")

    def __init__(self, elem: Node, container: str = "list", text: bool = False) -> None:
        super().__init__()
        self.elem = elem
        self.container = container
        self.text = text  # Annotated[list[int], Text(n)]: a std::basic_string of n-byte characters

    def describe(self) -> str:
        if self.container == "ndarray":
            return f"NDArray[{self.elem.describe()}]"
        if self.container == "records":
            return f"Records[{self.elem.describe()}]"
        if self.container == "tuple":
            return f"tuple[{self.elem.describe()}, ...]"
        return f"list[{self.elem.describe()}]"


class ArrayN(Node):
    """[N elements], no count: std::array<T, N> / T[N]."""

    __slots__ = ("elem", "n", "container")

    def __init__(self, elem: Node, n: int, container: str = "list") -> None:
        super().__init__()
        self.elem = elem
        self.n = n
        self.container = container

    def describe(self) -> str:
        return f"Array[{self.elem.describe()}, {self.n}]"


class OptionalN(Node):
    __slots__ = ("inner",)

    def __init__(self, inner: Node) -> None:
        super().__init__()
        self.inner = inner

    def describe(self) -> str:
        return f"Optional[{self.inner.describe()}]"


class VariantN(Node):
    """[u32 index][alternative]. tagged: values are types.Variant(index, value);
    otherwise the bare value, the alternative chosen by its Python type."""

    __slots__ = ("alts", "tagged", "by_type", "by_isinstance")

    def __init__(self, alts: list, tagged: bool) -> None:
        super().__init__()
        self.alts = alts
        self.tagged = tagged
        self.by_type: dict = {}
        self.by_isinstance: list = []
        if not tagged:
            for i, alt in enumerate(alts):
                for t in runtime_types(alt):
                    if t in self.by_type:
                        j = self.by_type[t]
                        raise SchemaError(
                            f"union alternatives {j} ({alts[j].describe()}) and {i} ({alt.describe()}) "
                            f"both hold Python {t.__name__} values, so encode() could not tell which "
                            f"index to send. Use TaggedUnion[...] (values are Variant(index, value)) or "
                            f"wrap the alternatives in distinct dataclasses.")
                    self.by_type[t] = i
            # Subclasses (bool for int, IntEnum members for int, user subclasses)
            # fall back to isinstance in declaration order.
            self.by_isinstance = [(t, i) for t, i in self.by_type.items()]

    def index_of(self, value: Any) -> "int | None":
        """The alternative an untagged union's value belongs to, or None."""
        i = self.by_type.get(type(value))
        if i is not None:
            return i
        for t, j in self.by_isinstance:
            if isinstance(value, t):
                return j
        return None

    def describe(self) -> str:
        inner = ", ".join(a.describe() for a in self.alts)
        return f"TaggedUnion[{inner}]" if self.tagged else f"Union[{inner}]"


class MonostateN(Node):
    __slots__ = ()

    def describe(self) -> str:
        return "Monostate"


class TupleN(Node):
    __slots__ = ("elems",)

    def __init__(self, elems: list) -> None:
        super().__init__()
        self.elems = elems

    def describe(self) -> str:
        return f"tuple[{', '.join(e.describe() for e in self.elems)}]"


class MapN(Node):
    __slots__ = ("key", "value")

    def __init__(self, key: Node, value: Node) -> None:
        super().__init__()
        self.key = key
        self.value = value

    def describe(self) -> str:
        return f"dict[{self.key.describe()}, {self.value.describe()}]"


class SetN(Node):
    __slots__ = ("elem", "frozen")

    def __init__(self, elem: Node, frozen: bool) -> None:
        super().__init__()
        self.elem = elem
        self.frozen = frozen

    def describe(self) -> str:
        return f"{'frozenset' if self.frozen else 'set'}[{self.elem.describe()}]"


class StructN(Node):
    """A dataclass. fields: list of (name, node) in wire order. trivial: the
    C++ type is trivially copyable (native format copies it with padding)."""

    __slots__ = ("cls", "name", "fields", "trivial", "kw_only", "_tc", "versions", "retired", "keep_unknown",
                 "no_init", "_fixed")

    def __init__(self, cls: type) -> None:
        super().__init__()
        self.cls = cls
        self.name = cls.__name__
        self.fields: list = []
        self.trivial: "bool | None" = getattr(cls, "__trivially_copyable__", None)
        self.kw_only: set = set()
        self._tc: "bool | None" = None
        # Evolvable (docs/wire-format.md section 11): field counts of the
        # published versions, from the class attribute __bin_serializer_versions__.
        v = getattr(cls, "__bin_serializer_versions__", None)
        self.versions: "tuple | None" = tuple(v) if v is not None else None
        # retired fields (types.Retire): field index -> its Retire marker; their
        # wire value is fixed (fixed_value), the attribute is never read
        self.retired: dict = {}
        self.no_init: set = set()  # retired fields that are not __init__ parameters
        self._fixed: dict = {}
        # __bin_serializer_keep_unknown__: unknown trailing fields are kept (types.unknown_fields)
        self.keep_unknown: bool = bool(getattr(cls, "__bin_serializer_keep_unknown__", False))

    def fixed_value(self, i: int) -> Any:
        """The Python value written in retired field i's slot: the Retire
        marker's value, else the zero value of its type (C++ T{})."""
        if i in self._fixed:
            return self._fixed[i]
        from . import _evolution
        node = self.fields[i][1]
        want = self.retired[i].value
        if want is None:
            v = _evolution.zero_value(node)
        elif isinstance(node, BoolN):
            v = bool(want)
        elif isinstance(node, EnumN):
            v = node.members.get(want, node.cls(want) if node.is_flag else want)
        else:
            v = want
        self._fixed[i] = v
        return v

    def describe(self) -> str:
        return self.name


# ---------------------------------------------------------------------------
# hints -> nodes


class _Builder:
    def __init__(self) -> None:
        self.structs: dict = {}
        self._numpy_default = False

    def build(self, hint: Any, *, ctx: str = "") -> Node:
        where = f" (in {ctx})" if ctx else ""
        if isinstance(hint, str) or isinstance(hint, typing.ForwardRef):
            raise SchemaError(f"unresolved forward reference {hint!r}{where}: define the class at "
                              f"module level so typing.get_type_hints() can resolve it")
        origin = get_origin(hint)
        if origin is Annotated:
            return self._annotated(hint, ctx)
        if hint is bool:
            return BoolN()
        if hint is str:
            return StrN()
        if hint is bytes or hint is bytearray:
            return BytesN()
        if hint is float:
            return ScalarN(F64)
        if hint is int:
            raise SchemaError(f"plain `int` has no width{where}: use u8/u16/u32/u64/i8/i16/i32/i64 "
                              f"from bin_serializer.types")
        if hint is Monostate:
            return MonostateN()
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return self._enum(hint, None, ctx)
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            return self._struct(hint)
        if origin is Union or (sys.version_info >= (3, 10) and _is_uniontype(hint)):
            return self._union(get_args(hint), ctx)
        if origin in (list, typing.List):
            (elem,) = get_args(hint) or (None,)
            if elem is None:
                raise SchemaError(f"list needs an element type{where}: list[T]")
            return ListN(self.build(elem, ctx=ctx))
        if origin in (tuple, typing.Tuple):
            args = get_args(hint)
            if len(args) == 2 and args[1] is Ellipsis:
                return ListN(self.build(args[0], ctx=ctx), "tuple")
            if args == ((),):  # typing.Tuple[()]
                args = ()
            return TupleN([self.build(a, ctx=ctx) for a in args])
        if origin in (dict, typing.Dict):
            args = get_args(hint)
            if len(args) != 2:
                raise SchemaError(f"dict needs key and value types{where}: dict[K, V]")
            key = self.build(args[0], ctx=ctx)
            _require_hashable(key, "dict key", ctx)
            return MapN(key, self.build(args[1], ctx=ctx))
        if origin in (set, frozenset, typing.Set, typing.FrozenSet):
            (elem,) = get_args(hint) or (None,)
            if elem is None:
                raise SchemaError(f"set needs an element type{where}")
            node = self.build(elem, ctx=ctx)
            _require_hashable(node, "set element", ctx)
            return SetN(node, origin in (frozenset, typing.FrozenSet))
        np_node = _numpy_hint(hint)
        if np_node is not None:
            return np_node
        if hint is tuple:
            raise SchemaError(f"bare `tuple` has no element types{where}: use tuple[A, B] or tuple[T, ...]")
        raise SchemaError(f"no wire layout for {hint!r}{where}")

    def _annotated(self, hint: Any, ctx: str) -> Node:
        base = hint.__origin__
        metas = hint.__metadata__
        scalar = next((m for m in metas if isinstance(m, Scalar)), None)
        fixed = next((m for m in metas if isinstance(m, Fixed)), None)
        bitset = next((m for m in metas if isinstance(m, BitsetSpec)), None)
        duration = any(isinstance(m, DurationSpec) for m in metas)
        unit = next((m.unit for m in metas if isinstance(m, DurationSpec) and m.unit), None)
        tagged = next((m for m in metas if isinstance(m, TaggedSpec)), None)
        nd = next((m for m in metas if isinstance(m, NDArraySpec)), None)
        rec = next((m for m in metas if isinstance(m, RecordsSpec)), None)
        custom = next((m for m in metas if isinstance(m, CustomSpec)), None)
        if any(isinstance(m, Retire) for m in metas):
            raise SchemaError(f"Retired[...] / Retire() marks the type of an evolvable dataclass's field, not one "
                              f"inside another type{' (in ' + ctx + ')' if ctx else ''}")
        if custom is not None:
            inner = hint.__origin__ if len(metas) == 1 else Annotated[(hint.__origin__,) + tuple(
                m for m in metas if not isinstance(m, CustomSpec))]
            node = self.build(inner, ctx=ctx)
            if isinstance(node, StructN):
                raise SchemaError(f"Custom(id) on a dataclass{' (in ' + ctx + ')' if ctx else ''}: wrap the "
                                  f"codec's value in another hint (a struct node is shared by every use)")
            node.custom_id = custom.id
            return node
        en = next((m for m in metas if isinstance(m, EnumSpec)), None)
        if en is not None:
            if base is not int:
                raise SchemaError(f"EnumOf(...) annotates int, not {base!r}")
            if en.range is not None and en.range[1] - en.range[0] < ENUM_RANGE_CHECKED:
                return EnumN.ranged(en.rep, *en.range)
            node = ScalarN(en.rep)
            node.enum = en.range if en.range is not None else True
            return node
        text = next((m for m in metas if isinstance(m, TextSpec)), None)
        if text is not None and text.char_size == 1:
            if base not in (bytes, bytearray):
                raise SchemaError(f"Text(1) annotates bytes (a std::string read as raw bytes), not {base!r}")
            return BytesN(text=True)
        if text is not None:
            from .types import CHAR, CHAR16, CHAR32
            return ListN(ScalarN({1: CHAR, 2: CHAR16, 4: CHAR32}[text.char_size]), "list", text=True)
        if rec is not None:
            return self._records(rec.record, ctx)
        if scalar is None:  # Annotated[Color, u8]: the metadata is itself a marker alias
            for m in metas:
                for inner in getattr(m, "__metadata__", ()):
                    if isinstance(inner, Scalar):
                        scalar = inner
        if isinstance(base, type) and issubclass(base, enum.Enum):
            rng = next((m for m in metas if isinstance(m, EnumRange)), None)
            return self._enum(base, scalar, ctx, rng)
        if bitset is not None:
            return BitsetN(bitset.n)
        if tagged is not None:
            return VariantN([self.build(a, ctx=ctx) for a in tagged.alternatives], tagged=True)
        if nd is not None:
            node = ListN(ScalarN(nd.scalar), "ndarray")
            if fixed is not None:
                return ArrayN(node.elem, fixed.n, "ndarray")
            return node
        if fixed is not None:
            inner = self.build(base, ctx=ctx)
            if isinstance(inner, ListN):
                return ArrayN(inner.elem, fixed.n, inner.container)
            raise SchemaError(f"Fixed(n) applies to list[T] / tuple[T, ...], not {base!r}")
        dspec = next((m for m in metas if isinstance(m, DurationSpec)), None)
        if scalar is None and dspec is not None:  # Annotated[int, DurationOf(i64)]
            scalar = dspec.rep
        if scalar is not None:
            if base not in (int, float):
                raise SchemaError(f"number marker {scalar.name} on {base!r}")
            period = dspec.period if dspec is not None else None
            return ScalarN(scalar, duration, unit, period, bool(dspec is not None and dspec.time_point))
        return self.build(base, ctx=ctx)

    def _records(self, cls: Any, ctx: str) -> Node:
        node = self.build(cls, ctx=ctx)
        if not (isinstance(node, StructN) and node.versions is None and node.fields
                and all(isinstance(f, ScalarN) for _, f in node.fields)):
            raise SchemaError(f"Records[{getattr(cls, '__name__', cls)!r}]: the record must be a dataclass whose "
                              f"fields are all numbers (u8 ... f64, Duration)")
        return ListN(node, "records")

    def _enum(self, cls: type, scalar: "Scalar | None", ctx: str, rng: "EnumRange | None" = None) -> Node:
        if not issubclass(cls, int):
            raise SchemaError(f"enum {cls.__name__} must be an IntEnum / IntFlag (its wire value is an integer)")
        if scalar is None:
            under = cls.__dict__.get("__underlying__")
            if under is None:
                for base in cls.__mro__:
                    under = base.__dict__.get("__underlying__")
                    if under is not None:
                        break
            if under is not None:
                from .types import _scalar_of
                scalar = _scalar_of(under)
                if scalar is None:
                    raise SchemaError(f"{cls.__name__}.__underlying__ must be an integer marker such as u8")
        if scalar is None:
            from .types import I32
            scalar = I32  # like a C++ `enum class` without an underlying type
        if scalar.is_float:
            raise SchemaError(f"enum {cls.__name__}: underlying type must be an integer, not {scalar.name}")
        bounds = (rng.min, rng.max) if rng is not None else getattr(cls, "__enum_range__", None)
        if bounds is not None:
            if not (isinstance(bounds, tuple) and len(bounds) == 2 and all(type(b) is int for b in bounds)
                    and scalar.min <= bounds[0] <= bounds[1] <= scalar.max):
                raise SchemaError(f"enum {cls.__name__}: enum_range {bounds!r} must be (min, max) ints within "
                                  f"its underlying type {scalar.name}, min <= max")
            bounds = (bounds[0], bounds[1])
        return EnumN(cls, scalar, bounds)

    def _union(self, args: tuple, ctx: str) -> Node:
        has_none = type(None) in args
        alts = [a for a in args if a is not type(None)]
        if not alts:
            raise SchemaError("a union of None alone has no layout")
        if len(alts) == 1:
            inner = self.build(alts[0], ctx=ctx)
        else:
            inner = VariantN([self.build(a, ctx=ctx) for a in alts], tagged=False)
        if has_none:
            if isinstance(inner, OptionalN):
                raise SchemaError("Optional[Optional[T]] cannot be told apart from Optional[T] in Python")
            return OptionalN(inner)
        return inner

    def _struct(self, cls: type) -> StructN:
        node = self.structs.get(cls)
        if node is not None:
            return node
        node = StructN(cls)
        self.structs[cls] = node  # before the fields: recursive schemas refer to it
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except NameError as e:
            raise SchemaError(f"cannot resolve the type hints of {cls.__qualname__}: {e}. Define the "
                              f"referenced classes at module level") from e
        for f in dataclasses.fields(cls):
            hint = hints[f.name]
            mark = None
            if get_origin(hint) is Annotated:
                mark = next((m for m in hint.__metadata__ if isinstance(m, Retire)), None)
            if not f.init and mark is None:
                continue  # not an __init__ parameter: not on the wire
            if keyword.iskeyword(f.name):
                raise SchemaError(f"{cls.__name__}.{f.name}: a field cannot be named after a keyword")
            if mark is not None:
                rest = tuple(m for m in hint.__metadata__ if not isinstance(m, Retire))
                hint = Annotated[(hint.__origin__,) + rest] if rest else hint.__origin__
                node.retired[len(node.fields)] = mark
                if not f.init:
                    node.no_init.add(f.name)
            fnode = self.build(hint, ctx=f"{cls.__name__}.{f.name}")
            if mark is not None and mark.value is not None:
                spec = getattr(fnode, "spec", None)
                ok = isinstance(fnode, (BoolN, EnumN)) or (isinstance(fnode, ScalarN) and not fnode.spec.is_float)
                if not ok or (isinstance(fnode, BoolN) and mark.value not in (0, 1)) or (
                        spec is not None and not spec.min <= mark.value <= spec.max):
                    raise SchemaError(f"{cls.__name__}.{f.name}: Retire({mark.value!r}) needs an integer, bool or "
                                      f"enum field whose type holds that value, not {fnode.describe()}")
            node.fields.append((f.name, fnode))
            if getattr(f, "kw_only", False) is True:
                node.kw_only.add(f.name)
        if node.retired and node.versions is None:
            raise SchemaError(f"{cls.__name__}: retired fields belong to evolvable structs (declare "
                              f"__bin_serializer_versions__)")
        if node.keep_unknown:
            if node.versions is None:
                raise SchemaError(f"{cls.__name__}.__bin_serializer_keep_unknown__: only an evolvable struct "
                                  f"(__bin_serializer_versions__) keeps unknown fields")
            if "__dict__" not in dir(cls):
                raise SchemaError(f"{cls.__name__}.__bin_serializer_keep_unknown__: the kept fields are stored in "
                                  f"the instance __dict__, which a slots=True dataclass does not have")
        if node.versions is not None:
            v = node.versions
            if (not v or v[0] < 1 or any(b <= a for a, b in zip(v, v[1:]))
                    or v[-1] != len(node.fields)):
                raise SchemaError(
                    f"{cls.__name__}.__bin_serializer_versions__ = {v!r}: list each published version's "
                    f"field count, oldest first, strictly increasing, the last equal to the number of "
                    f"fields ({len(node.fields)})")
        return node


def _is_uniontype(hint: Any) -> bool:
    import types as _t
    return isinstance(hint, _t.UnionType)


def _numpy_hint(hint: Any) -> "Node | None":
    """numpy.typing.NDArray[np.float32] and friends (only if numpy is loaded)."""
    np = sys.modules.get("numpy")
    if np is None:
        return None
    if get_origin(hint) is not np.ndarray:
        return None
    args = get_args(hint)
    dtype_hint = args[1] if len(args) == 2 else None
    dargs = get_args(dtype_hint) if dtype_hint is not None else ()
    if not dargs:
        raise SchemaError(f"{hint!r}: give the element dtype, e.g. NDArray[np.float32]")
    from .types import SCALARS
    try:
        dt = np.dtype(dargs[0])
    except TypeError as e:
        raise SchemaError(f"{hint!r}: unsupported dtype") from e
    name = {"u": "u", "i": "i", "f": "f"}.get(dt.kind)
    spec = SCALARS.get(f"{name}{dt.itemsize * 8}") if name else None
    if spec is None:
        raise SchemaError(f"{hint!r}: dtype {dt} has no wire type (use an integer or float dtype)")
    return ListN(ScalarN(spec), "ndarray")


def build_node(hint: Any) -> Node:
    return _Builder().build(hint)


# ---------------------------------------------------------------------------
# facts about nodes


def runtime_types(node: Node) -> tuple:
    """The Python classes an untagged union dispatches on for this alternative."""
    if isinstance(node, (ScalarN, BitsetN)):
        return (float,) if isinstance(node, ScalarN) and node.spec.is_float else (int,)
    if isinstance(node, BoolN):
        return (bool,)
    if isinstance(node, EnumN):
        return (node.cls,)
    if isinstance(node, StrN):
        return (str,)
    if isinstance(node, BytesN):
        return (bytes, bytearray)
    if isinstance(node, (ListN, ArrayN)):
        if node.container in ("ndarray", "records"):
            np = sys.modules.get("numpy")
            return (np.ndarray,) if np is not None else ()
        return (tuple,) if node.container == "tuple" else (list,)
    if isinstance(node, TupleN):
        return (tuple,)
    if isinstance(node, MapN):
        return (dict,)
    if isinstance(node, SetN):
        return (frozenset,) if node.frozen else (set,)
    if isinstance(node, StructN):
        return (node.cls,)
    if isinstance(node, MonostateN):
        return (Monostate,)
    if isinstance(node, VariantN) and node.tagged:
        return (Variant,)
    raise SchemaError(f"{node.describe()} cannot be an alternative of an untagged union "
                      f"(use TaggedUnion[...])")


def _require_hashable(node: Node, what: str, ctx: str, seen: "set | None" = None) -> None:
    seen = seen if seen is not None else set()
    where = f" in {ctx}" if ctx else ""
    if isinstance(node, (ListN, ArrayN)):
        if node.container != "tuple":
            raise SchemaError(f"{what} {node.describe()}{where} decodes to an unhashable value: use tuple[T, ...] "
                              f"(or Annotated[tuple[T, ...], Fixed(n)])")
        _require_hashable(node.elem, what, ctx, seen)
    elif isinstance(node, (MapN,)) or (isinstance(node, SetN) and not node.frozen):
        raise SchemaError(f"{what} {node.describe()}{where} decodes to an unhashable value (use frozenset)")
    elif isinstance(node, SetN):
        _require_hashable(node.elem, what, ctx, seen)
    elif isinstance(node, TupleN):
        for e in node.elems:
            _require_hashable(e, what, ctx, seen)
    elif isinstance(node, OptionalN):
        _require_hashable(node.inner, what, ctx, seen)
    elif isinstance(node, VariantN):
        for a in node.alts:
            _require_hashable(a, what, ctx, seen)
    elif isinstance(node, StructN):
        if node in seen:
            return
        seen.add(node)
        params = getattr(node.cls, "__dataclass_params__", None)
        if node.cls.__hash__ is None or not (params and (params.frozen or params.unsafe_hash)):
            if node.cls.__hash__ is None:
                raise SchemaError(f"{what} {node.name}{where} is not hashable: declare it @dataclass(frozen=True)")
        for _, f in node.fields:
            _require_hashable(f, what, ctx, seen)


def cxx_trivially_copyable(node: Node, _stack: "tuple" = ()) -> bool:
    """Whether the C++ counterpart of `node` is trivially copyable (native
    format: copied as memory, padding included)."""
    if isinstance(node, (ScalarN, BoolN, EnumN, BitsetN, MonostateN)):
        return True
    if isinstance(node, ArrayN):
        return cxx_trivially_copyable(node.elem, _stack)
    if isinstance(node, OptionalN):
        return cxx_trivially_copyable(node.inner, _stack)
    if isinstance(node, VariantN):
        return all(cxx_trivially_copyable(a, _stack) for a in node.alts)
    if isinstance(node, TupleN):
        return not node.elems  # std::tuple<> only; pair/tuple have user-provided assignment
    if isinstance(node, StructN):
        if node.versions is not None:
            return False  # an evolvable struct is never copied as a block
        if node._tc is not None:
            return node._tc
        if node in _stack:
            return False
        if node.trivial is not None:
            node._tc = bool(node.trivial)
        else:
            node._tc = all(cxx_trivially_copyable(f, _stack + (node,)) for _, f in node.fields)
        return node._tc
    return False


# ---------------------------------------------------------------------------
# fixed layouts


@dataclasses.dataclass
class Leaf:
    """One struct-module item of a fixed layout."""

    offset: int
    code: str  # 'B', 'H', ..., 'd', or '<k>s'
    size: int
    node: Node  # ScalarN / BoolN / EnumN / BitsetN
    path: tuple  # path segments from the laid-out node to this leaf


@dataclasses.dataclass
class Layout:
    size: int
    align: int
    leaves: list  # in wire order (== offset order)

    def fmt(self) -> str:
        """The struct-module format of this layout, padding as 'x'."""
        out = ["<"]
        at = 0
        for leaf in self.leaves:
            if leaf.offset > at:
                out.append(f"{leaf.offset - at}x")
            out.append(leaf.code)
            at = leaf.offset + leaf.size
        if self.size > at:
            out.append(f"{self.size - at}x")
        return "".join(out)

    def has_padding(self) -> bool:
        return sum(l.size for l in self.leaves) != self.size


def _shift(leaves: list, by: int, seg: Any) -> list:
    return [Leaf(l.offset + by, l.code, l.size, l.node, (seg,) + l.path) for l in leaves]


def layout(node: Node, native: bool, in_tc: bool = False) -> "Layout | None":
    """The fixed layout of `node`, or None if its encoding has no fixed size
    (or is not a plain run of scalars). in_tc: inside a native trivially
    copyable struct (memory layout)."""
    key = (native, in_tc)
    if key in node._layout:
        return node._layout[key]
    node._layout[key] = None  # recursion guard: a struct containing itself is not fixed
    result = _layout(node, native, in_tc)
    node._layout[key] = result
    return result


def _layout(node: Node, native: bool, in_tc: bool) -> "Layout | None":
    if is_varint(node, native):
        return None  # compact: a varint has no fixed size
    if isinstance(node, (ScalarN, EnumN)):
        s = node.spec
        return Layout(s.size, s.size, [Leaf(0, s.code, s.size, node, ())])
    if isinstance(node, BoolN):
        return Layout(1, 1, [Leaf(0, "B", 1, node, ())])
    if isinstance(node, BitsetN):
        size = node.size(native)
        if size == 0:
            return Layout(0, 1, [])
        code = {1: "B", 2: "H", 4: "I", 8: "Q"}.get(size, f"{size}s")
        return Layout(size, node.align(native), [Leaf(0, code, size, node, ())])
    if isinstance(node, MonostateN):
        if in_tc:
            return None
        return Layout(0, 1, [])
    if isinstance(node, ArrayN):
        if node.container == "ndarray":
            return None
        el = layout(node.elem, native, in_tc)
        if el is None or (in_tc and node.n == 0):
            return None
        leaves: list = []
        for i in range(node.n):
            leaves += _shift(el.leaves, i * el.size, i)
        return Layout(el.size * node.n, el.align, leaves)
    if isinstance(node, TupleN):
        if in_tc:
            return None
        return _sequence([layout(e, native, False) for e in node.elems], list(range(len(node.elems))))
    if isinstance(node, StructN) and node.versions is not None:
        return None  # [u32 body_length][u32 field_count][fields]: no fixed layout
    if isinstance(node, StructN):
        names = [n for n, _ in node.fields]
        if native and cxx_trivially_copyable(node):
            subs = [layout(f, native, True) for _, f in node.fields]
            for (name, f), sub in zip(node.fields, subs):
                if sub is None:
                    raise SchemaError(
                        f"native format: {node.name} is trivially copyable in C++ (copied as raw memory), "
                        f"but field {name!r} ({f.describe()}) has no memory layout this package models "
                        f"(std::optional / std::variant / empty members). Use the portable format, or "
                        f"set {node.name}.__trivially_copyable__ = False if the C++ type is not.")
            leaves = []
            at = 0
            align = 1
            for name, sub in zip(names, subs):
                at = -(-at // sub.align) * sub.align
                leaves += _shift(sub.leaves, at, name)
                at += sub.size
                align = max(align, sub.align)
            size = max(1, -(-at // align) * align)
            return Layout(size, align, leaves)
        if in_tc:
            return None
        return _sequence([layout(f, native, False) for _, f in node.fields], names)
    return None


def _sequence(subs: list, segs: list) -> "Layout | None":
    if any(s is None for s in subs):
        return None
    leaves: list = []
    at = 0
    for sub, seg in zip(subs, segs):
        leaves += _shift(sub.leaves, at, seg)
        at += sub.size
    return Layout(at, 1, leaves)


def min_size(node: Node, native: bool) -> int:
    """Fewest bytes any encoding of `node` takes (the bound a count prefix is
    checked against, like the C++ min_size_of)."""
    if native in node._min:
        return node._min[native]
    node._min[native] = 0  # recursion guard
    lay = layout(node, native)
    compact = native is COMPACT
    if lay is not None:
        result = lay.size
    elif is_varint(node, native):
        result = 1
    elif isinstance(node, (StrN, BytesN, ListN, MapN, SetN)):
        result = 1 if compact else LENGTH_PREFIX
    elif isinstance(node, OptionalN):
        result = 1
    elif isinstance(node, VariantN):
        result = (1 if compact else VARIANT_INDEX) + min(min_size(a, native) for a in node.alts)
    elif isinstance(node, TupleN):
        result = sum(min_size(e, native) for e in node.elems)
    elif isinstance(node, ArrayN):
        result = node.n * min_size(node.elem, native)
    elif isinstance(node, StructN) and node.versions is not None:
        result = EVOLVABLE_PREFIX  # an older writer may have sent no field beyond the prefix
    elif isinstance(node, StructN):
        result = sum(min_size(f, native) for _, f in node.fields)
    else:
        result = 0
    node._min[native] = result
    return result


def element_min(node: Node, native: bool) -> int:
    """Per-element bytes used in the count check: max(1, min_size), as in the
    C++ count_fits (a count can never exceed the bytes left, even for
    elements that encode to nothing)."""
    return max(1, min_size(node, native))


def records_dtype(node: StructN, native: bool):
    """The numpy structured dtype of a Records[...] element: the record's wire
    layout (portable: packed; native: the C++ memory image with padding)."""
    import numpy as np
    lay = layout(node, native)
    if lay is None:
        raise SchemaError(_compact_records_message(node))
    names = [leaf.path[0] for leaf in lay.leaves]
    formats = ["<" + {"B": "u1", "H": "u2", "I": "u4", "Q": "u8", "b": "i1", "h": "i2", "i": "i4", "q": "i8",
                      "f": "f4", "d": "f8"}[leaf.code] for leaf in lay.leaves]
    return np.dtype({"names": names, "formats": formats, "offsets": [leaf.offset for leaf in lay.leaves],
                     "itemsize": lay.size})


def _compact_records_message(node: StructN) -> str:
    bad = [f"{name} ({f.describe()})" for name, f in node.fields if layout(f, COMPACT) is None]
    return (f"Records[{node.name}] cannot be used with the compact format: its fields "
            f"{', '.join(bad)} are varints there (only 8-bit integers and f32/f64 have a fixed size "
            f"in compact); use a list of {node.name}, or the portable format")


def check_compact(node: Node, arrays: bool) -> None:
    """Raises SchemaError when `node` asks for numpy bulk copies that the compact
    format cannot do: an NDArray (or, with arrays=True, a list of numbers) of
    16/32/64-bit integers, or Records[...] of a record with such fields (they
    are varints in compact, one by one)."""
    seen: set = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, (ListN, ArrayN)):
            if n.container == "records" and layout(n.elem, COMPACT) is None:
                raise SchemaError(_compact_records_message(n.elem))
            nd = n.container == "ndarray" or (arrays and isinstance(n, ListN) and n.container == "list"
                                              and isinstance(n.elem, ScalarN))
            if nd and is_varint(n.elem, COMPACT):
                spec = n.elem.spec
                dtype = ("<" + {"H": "u2", "I": "u4", "Q": "u8", "h": "i2", "i": "i4", "q": "i8"}[spec.code])
                how = "an NDArray" if n.container == "ndarray" else "arrays=True"
                raise SchemaError(
                    f"{n.describe()}: numpy dtype {dtype} ({spec.name}) is not supported in the compact "
                    f"format ({how}): its integers are varints there, not a fixed-width block. Only 1-byte "
                    f"integers and float32/float64 arrays are bulk-copied in compact; use a list "
                    f"(arrays=False) or the portable format")
            stack.append(n.elem)
        elif isinstance(n, OptionalN):
            stack.append(n.inner)
        elif isinstance(n, VariantN):
            stack.extend(n.alts)
        elif isinstance(n, TupleN):
            stack.extend(n.elems)
        elif isinstance(n, MapN):
            stack += [n.key, n.value]
        elif isinstance(n, SetN):
            stack.append(n.elem)
        elif isinstance(n, StructN):
            stack.extend(f for _, f in n.fields)
