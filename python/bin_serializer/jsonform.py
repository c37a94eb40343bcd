"""Values as JSON data, and back: the form ``python -m bin_serializer dump`` and
``cat`` print, which ``pack`` and :func:`from_json` read again.

    to_json(value)                          JSON data of a decoded value
    from_json(hint, data, format=...)       the value of type `hint` that data
                                            describes, as encode() takes it

The form: a struct is an object of its fields by name (retired fields left
out; the unknown fields an evolvable struct kept are ``"__unknown__":
{"count", "data"}``, data in hex); bytes are hex strings; enums and bitsets
integers; a TaggedUnion's value ``{"index", "value"}`` (an untagged union:
the bare value); monostate ``null``; maps lists of ``[key, value]`` pairs;
sets and tuples lists; non-finite floats the strings ``"NaN"``,
``"Infinity"``, ``"-Infinity"``; numpy arrays lists (a structured array's
records lists of their fields).

Why a hint on the way back: JSON has one kind of number, one kind of list and
objects whose keys are text; the type says which integer width, which
container, which alternative. from_json checks what the type allows (an
integer's range, an array's length, an enum's values, a bitset's width, hex
text, no field missing or unknown, no key or element given twice) and raises
ValueError naming the path (``Order.legs[2].px``) of the first value it
refuses; what it returns, encode() takes. It also takes, where a person
writing JSON by hand would write them, a map whose keys are strings as an
object, a field left out that has a default (the default), a record of a
structured array as an object, and an integer for a float.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any, TypeVar, overload

from ._schema import (ArrayN, BitsetN, BoolN, BytesN, EnumN, ListN, MapN, MonostateN, Node, OptionalN, ScalarN,
                      SetN, StrN, StructN, TupleN, VariantN, build_node)
from .types import _UNKNOWN_ATTR, RETIRED, Monostate, UnknownFields, Variant, unknown_fields

__all__ = ["to_json", "from_json"]

T = TypeVar("T")

MAX_DEPTH = 1000  # values nested deeper than this are refused both ways

_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def to_json(v: Any, depth: int = 0) -> Any:
    """The JSON data (dicts, lists, strings, numbers, booleans, None) of a
    decoded value, in the form of the module docstring. ValueError for a
    value nested deeper than 1000."""
    if depth > MAX_DEPTH:
        raise ValueError("value nests too deeply to print")
    d = depth + 1
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, enum.Enum):
        return int(v.value)
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, Monostate):
        return None
    if isinstance(v, Variant):
        return {"index": v.index, "value": to_json(v.value, d)}
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        out = {}
        for f in dataclasses.fields(v):
            x = getattr(v, f.name, RETIRED)
            if x is not RETIRED:
                out[f.name] = to_json(x, d)
        kept = unknown_fields(v)
        if kept.count:
            out["__unknown__"] = {"count": kept.count, "data": kept.data.hex()}
        return out
    if isinstance(v, dict):  # a map: [key, value] pairs (keys need not be strings), in wire order
        return [[to_json(k, d), to_json(x, d)] for k, x in v.items()]
    if isinstance(v, (set, frozenset)):
        items = [to_json(x, d) for x in v]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(v, (list, tuple)):
        return [to_json(x, d) for x in v]
    if hasattr(v, "tolist"):  # a numpy array (a structured one: its records as lists)
        return to_json(v.tolist(), d)
    return repr(v)


_NODES: "dict[Any, Node]" = {}


@overload
def from_json(hint: "type[T]", data: Any, format: str = "portable") -> T: ...
@overload
def from_json(hint: Any, data: Any, format: str = "portable") -> Any: ...
def from_json(hint: Any, data: Any, format: str = "portable") -> Any:
    """The value of type `hint` (a dataclass, or any hint encode() takes with
    ``schema=``) that the JSON data describes, in the form to_json writes.
    format matters only to a structured numpy array (``Records[...]``),
    whose layout is the format's. ValueError, naming the path of the value,
    for data the type does not allow."""
    try:
        node = _NODES.get(hint)
    except TypeError:  # an unhashable hint
        node = None
    if node is None:
        node = build_node(hint)
        try:
            if len(_NODES) >= 256:
                _NODES.clear()
            _NODES[hint] = node
        except TypeError:
            pass
    name = getattr(hint, "__name__", None) or "value"
    try:
        return _Reader(format).read(node, data, name, 0, False)
    except RecursionError:
        raise ValueError(f"{name}: the value is nested too deeply (Python's recursion limit)") from None


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return f"the number {v!r}"
    if isinstance(v, str):
        return f"the string {v[:40]!r}" + ("..." if len(v) > 40 else "")
    if isinstance(v, list):
        return f"a list of {len(v)}"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


class _Reader:
    def __init__(self, format: str) -> None:
        self.format = format

    def bad(self, path: str, want: str, v: Any) -> ValueError:
        return ValueError(f"{path}: expected {want}, got {_kind(v)}")

    def read(self, node: Node, v: Any, path: str, depth: int, strict: bool) -> Any:
        """strict: the first pass over an untagged union's alternatives (an
        integer is no float, a field must be given): the value then reads as
        the alternative it was written from."""
        if depth > MAX_DEPTH:
            raise ValueError(f"{path}: nested deeper than {MAX_DEPTH}")
        d = depth + 1
        if isinstance(node, BoolN):
            if not isinstance(v, bool):
                raise self.bad(path, "true or false", v)
            return v
        if isinstance(node, ScalarN):
            spec = node.spec
            if spec.is_float:
                if isinstance(v, str) and v in _FLOATS:
                    return _FLOATS[v]
                if isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool) and not strict):
                    return float(v)
                raise self.bad(path, f"a number ({spec.name}; \"NaN\", \"Infinity\" and \"-Infinity\" too)", v)
            if not isinstance(v, int) or isinstance(v, bool):
                raise self.bad(path, f"an integer ({spec.name})", v)
            if not spec.min <= v <= spec.max:
                raise ValueError(f"{path}: {v} is out of range for {spec.name} ({spec.min} .. {spec.max})")
            return v
        if isinstance(node, EnumN):
            if not isinstance(v, int) or isinstance(v, bool):
                raise self.bad(path, f"an integer (a value of {node.describe()})", v)
            m = node.members.get(v)
            if m is not None:
                return m
            if node.is_flag and node.spec.min <= v <= node.spec.max:
                try:
                    return node.cls(v)
                except ValueError:
                    pass
            raise ValueError(f"{path}: {v} is not a value of {node.describe()}")
        if isinstance(node, BitsetN):
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < (1 << node.n):
                raise self.bad(path, f"an integer of {node.n} bits (0 .. 2^{node.n} - 1)", v)
            return v
        if isinstance(node, StrN):
            if not isinstance(v, str):
                raise self.bad(path, "a string", v)
            return v
        if isinstance(node, BytesN):
            if not isinstance(v, str):
                raise self.bad(path, "bytes as a hex string", v)
            try:
                return bytes.fromhex(v)
            except ValueError:
                raise self.bad(path, "bytes as a hex string", v) from None
        if isinstance(node, OptionalN):
            return None if v is None else self.read(node.inner, v, path, d, strict)
        if isinstance(node, MonostateN):
            if v is not None:
                raise self.bad(path, "null (monostate)", v)
            return Monostate()
        if isinstance(node, ListN):
            if not isinstance(v, list):
                raise self.bad(path, "a list", v)
            if node.container == "records":
                return self.records(node.elem, v, path, d)
            items = [self.read(node.elem, x, f"{path}[{i}]", d, strict) for i, x in enumerate(v)]
            return tuple(items) if node.container == "tuple" else items
        if isinstance(node, ArrayN):
            if not isinstance(v, list) or len(v) != node.n:
                raise self.bad(path, f"a list of {node.n}", v)
            items = [self.read(node.elem, x, f"{path}[{i}]", d, strict) for i, x in enumerate(v)]
            return tuple(items) if node.container == "tuple" else items
        if isinstance(node, TupleN):
            if not isinstance(v, list) or len(v) != len(node.elems):
                raise self.bad(path, f"a list of {len(node.elems)} (a tuple)", v)
            return tuple(self.read(e, x, f"{path}[{i}]", d, strict) for i, (e, x) in enumerate(zip(node.elems, v)))
        if isinstance(node, SetN):
            if not isinstance(v, list):
                raise self.bad(path, "a list (a set)", v)
            out: set = set()
            for i, x in enumerate(v):
                item = self.read(node.elem, x, f"{path}[{i}]", d, strict)
                if item in out:
                    raise ValueError(f"{path}[{i}]: {_kind(x)} is in the set twice")
                out.add(item)
            return frozenset(out) if node.frozen else out
        if isinstance(node, MapN):
            return self.map(node, v, path, d, strict)
        if isinstance(node, VariantN):
            return self.variant(node, v, path, d, strict)
        if isinstance(node, StructN):
            return self.struct(node, v, path, d, strict)
        raise ValueError(f"{path}: {node.describe()} has no JSON form")

    def map(self, node: MapN, v: Any, path: str, d: int, strict: bool) -> dict:
        if isinstance(v, dict) and isinstance(node.key, StrN):
            pairs = list(v.items())  # keys given as an object's (JSON object keys are unique)
        elif isinstance(v, list):
            pairs = []
            for i, p in enumerate(v):
                if not isinstance(p, list) or len(p) != 2:
                    raise self.bad(f"{path}[{i}]", "a [key, value] pair", p)
                pairs.append((p[0], p[1]))
        else:
            raise self.bad(path, "a list of [key, value] pairs" + (" or an object" if isinstance(node.key, StrN)
                                                                   else ""), v)
        out: dict = {}
        for i, (k, x) in enumerate(pairs):
            key = self.read(node.key, k, f"{path}[{i}][0]", d, strict)
            if key in out:
                raise ValueError(f"{path}[{i}]: the key {_kind(k)} is in the map twice")
            out[key] = self.read(node.value, x, f"{path}[{key!r}]", d, strict)
        return out

    def variant(self, node: VariantN, v: Any, path: str, d: int, strict: bool) -> Any:
        if node.tagged:
            if not isinstance(v, dict) or set(v) != {"index", "value"}:
                raise self.bad(path, 'an object {"index", "value"} (a variant)', v)
            i = v["index"]
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(node.alts):
                raise ValueError(f"{path}.index: expected 0 .. {len(node.alts) - 1}, got {_kind(i)}")
            return Variant(i, self.read(node.alts[i], v["value"], f"{path}.value", d, strict))
        # untagged: the first alternative that takes the value as written, else the first that takes it
        for lenient in (False, True):
            if lenient and strict:
                break
            for alt in node.alts:
                try:
                    return self.read(alt, v, path, d, not lenient)
                except ValueError:
                    continue
        raise self.bad(path, f"a value of one of {node.describe()}", v)

    def struct(self, node: StructN, v: Any, path: str, d: int, strict: bool) -> Any:
        if not isinstance(v, dict):
            raise self.bad(path, f"an object ({node.name})", v)
        fields = {f.name: f for f in dataclasses.fields(node.cls)}
        names = {name for i, (name, _) in enumerate(node.fields) if i not in node.retired}
        extra = [k for k in v if k not in names and not (k == "__unknown__" and node.keep_unknown)]
        if extra:
            known = ", ".join(n for i, (n, _) in enumerate(node.fields) if i not in node.retired) or "none"
            raise ValueError(f"{path}: {node.name} has no field {extra[0]!r} (its fields: {known})")
        kwargs = {}
        for i, (name, fnode) in enumerate(node.fields):
            if i in node.retired:  # written as its fixed value, whatever the instance holds
                if name not in node.no_init:
                    kwargs[name] = RETIRED
                continue
            if name in v:
                kwargs[name] = self.read(fnode, v[name], f"{path}.{name}", d, strict)
                continue
            f = fields[name]
            has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            if strict or not has_default:
                raise ValueError(f"{path}: field {name!r} of {node.name} is missing")
        try:
            obj = node.cls(**kwargs)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{path}: {node.name}(...) refused the fields: {e}") from None
        kept = v.get("__unknown__")
        if kept is not None:
            count, data = (kept.get("count"), kept.get("data")) if isinstance(kept, dict) else (None, None)
            if (not isinstance(count, int) or isinstance(count, bool) or count < 1 or not isinstance(data, str)
                    or len(kept) != 2):
                raise self.bad(f"{path}.__unknown__", 'an object {"count": fields, "data": hex}', kept)
            try:
                raw = bytes.fromhex(data)
            except ValueError:
                raise self.bad(f"{path}.__unknown__.data", "a hex string", data) from None
            obj.__dict__[_UNKNOWN_ATTR] = UnknownFields(count, raw)
        return obj

    def records(self, elem: Node, v: list, path: str, d: int) -> Any:
        import numpy as np

        from .api import records_dtype
        assert isinstance(elem, StructN)
        names = [n for n, _ in elem.fields]
        rows = []
        for i, row in enumerate(v):
            where = f"{path}[{i}]"
            if isinstance(row, dict):
                missing = [n for n in names if n not in row]
                extra = [k for k in row if k not in names]
                if missing or extra:
                    raise ValueError(f"{where}: a {elem.name} record has the fields {names}, not {sorted(row)}")
                row = [row[n] for n in names]
            if not isinstance(row, list) or len(row) != len(names):
                raise self.bad(where, f"a list of the {len(names)} fields of a {elem.name} record", row)
            rows.append(tuple(self.read(fn, x, f"{where}.{n}", d, False)
                              for (n, fn), x in zip(elem.fields, row)))
        return np.array(rows, dtype=records_dtype(elem.cls, self.format))
