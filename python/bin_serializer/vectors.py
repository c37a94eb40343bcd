"""Golden vectors: the JSON schema descriptors shared with the C++ generator.

A vector is ``<NAME>.bin`` (the encoded message) next to ``<NAME>.json``::

    {"name": "person", "format": "portable", "schema": <type>, "value": <value>}

("format": "portable", "native" or "compact")

Type descriptors: a string for primitives ("u8" ... "i64", "f32", "f64", "bool",
"str", "bytes"), or ``{"list": T}``, ``{"set": T}``, ``{"array": T, "len": N}``,
``{"optional": T}``, ``{"variant": [T, ...]}``, ``{"tuple": [T, ...]}``,
``{"map": [K, V]}``, ``{"struct": "Name", "trivial": bool, "fields": [{"name":
..., "type": T}, ...]}``, ``{"enum": "Name", "underlying": "u8"}``,
``{"bitset": N}``, ``{"duration": "i64"}`` (and, as an extension, "monostate").

``hint_from_descriptor`` turns a descriptor into an ordinary type hint
(generating dataclasses on the fly), so vectors go through exactly the same
compiled codecs as user schemas. ``from_json`` / ``to_json`` convert values.

Python values: enums and durations are plain ints (the descriptor lists no
members), bitsets ints, variants ``Variant(index, value)``, maps dicts in wire
order, sets ``set``; inside set elements and map keys (which must be hashable)
lists become tuples and structs frozen dataclasses.
"""

from __future__ import annotations

import dataclasses
import json
import keyword
import math
import re
import struct
from pathlib import Path
from typing import Annotated, Any, Optional

from .api import Codec, compile_codec, decode, encode
from .errors import SchemaError
from .types import SCALARS, Bitset, Duration, Fixed, Monostate, TaggedUnion, Variant

__all__ = ["hint_from_descriptor", "codec_for", "from_json", "to_json", "canonical",
           "GoldenVector", "load_vectors", "check_vector"]

_PRIMITIVES: dict = {name: Annotated[float if s.is_float else int, s] for name, s in SCALARS.items()}
_PRIMITIVES.update({"bool": bool, "str": str, "bytes": bytes, "monostate": Monostate})

_CLASSES: dict = {}


def _key(desc: Any) -> str:
    return json.dumps(desc, sort_keys=True, separators=(",", ":"))


def py_field_name(name: str) -> str:
    """The dataclass attribute used for a C++ field name (keywords get a '_')."""
    if not name.isidentifier():
        name = re.sub(r"\W", "_", name)
        if not name or name[0].isdigit():
            name = "_" + name
    return name + "_" if keyword.iskeyword(name) else name


def hint_from_descriptor(desc: Any, *, hashable: bool = False) -> Any:
    """The type hint for a JSON type descriptor. hashable: the value is a set
    element or map key (tuples instead of lists, frozen dataclasses)."""
    if isinstance(desc, str):
        try:
            return _PRIMITIVES[desc]
        except KeyError:
            raise SchemaError(f"unknown primitive type {desc!r}") from None
    if not isinstance(desc, dict):
        raise SchemaError(f"bad type descriptor {desc!r}")
    if "list" in desc:
        elem = hint_from_descriptor(desc["list"], hashable=hashable)
        return tuple[elem, ...] if hashable else list[elem]
    if "set" in desc:
        elem = hint_from_descriptor(desc["set"], hashable=True)
        return frozenset[elem] if hashable else set[elem]
    if "array" in desc:
        elem = hint_from_descriptor(desc["array"], hashable=hashable)
        n = int(desc["len"])
        return Annotated[tuple[elem, ...], Fixed(n)] if hashable else Annotated[list[elem], Fixed(n)]
    if "optional" in desc:
        inner = desc["optional"]
        if isinstance(inner, dict) and "optional" in inner:
            raise SchemaError("optional<optional<T>> has no unambiguous JSON/Python value (null is both)")
        return Optional[hint_from_descriptor(inner, hashable=hashable)]
    if "variant" in desc:
        alts = tuple(hint_from_descriptor(a, hashable=hashable) for a in desc["variant"])
        return TaggedUnion[alts]
    if "tuple" in desc:
        elems = tuple(hint_from_descriptor(e, hashable=hashable) for e in desc["tuple"])
        return tuple[elems] if elems else tuple[()]
    if "map" in desc:
        if hashable:
            raise SchemaError("a map cannot be a set element or map key in Python (dicts are unhashable)")
        k, v = desc["map"]
        return dict[hint_from_descriptor(k, hashable=True), hint_from_descriptor(v)]
    if "struct" in desc:
        return _struct_class(desc, hashable)
    if "enum" in desc:
        return _PRIMITIVES[desc.get("underlying", "i32")]
    if "bitset" in desc:
        return Bitset(int(desc["bitset"]))
    if "duration" in desc:
        return Duration[_PRIMITIVES[desc["duration"]]]
    raise SchemaError(f"unknown type descriptor {desc!r}")


def _struct_class(desc: dict, hashable: bool) -> type:
    key = (_key(desc), hashable)
    cls = _CLASSES.get(key)
    if cls is not None:
        return cls
    name = re.sub(r"\W", "_", str(desc["struct"])) or "Struct"
    if not name.isidentifier():
        name = "S_" + name
    fields = []
    for f in desc.get("fields", []):
        fields.append((py_field_name(f["name"]), hint_from_descriptor(f["type"], hashable=hashable)))
    ns = {"__trivially_copyable__": bool(desc["trivial"]) if "trivial" in desc else None}
    if "versions" in desc:  # an evolvable struct
        ns["__bin_serializer_versions__"] = tuple(desc["versions"])
    cls = dataclasses.make_dataclass(name, fields, namespace=ns, frozen=hashable, order=hashable)
    cls.__module__ = __name__
    _CLASSES[key] = cls
    return cls


def codec_for(desc: Any, format: str = "portable") -> Codec:
    return compile_codec(hint_from_descriptor(desc), format)


# ---------------------------------------------------------------------------
# values


def _float(v: Any) -> float:
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-nan": -math.nan}[v.lower()]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"expected a number, got {v!r}")
    return float(v)


def from_json(desc: Any, v: Any, *, hashable: bool = False) -> Any:
    """The Python value (as the codec of hint_from_descriptor(desc) takes it)
    of a JSON value."""
    if isinstance(desc, str):
        if desc in ("f32", "f64"):
            return _float(v)
        if desc in SCALARS:
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"expected an integer for {desc}, got {v!r}")
            return v
        if desc == "bool":
            if not isinstance(v, bool):
                raise ValueError(f"expected true/false, got {v!r}")
            return v
        if desc == "str":
            return str(v)
        if desc == "bytes":
            return bytes.fromhex(v)
        if desc == "monostate":
            return Monostate()
        raise SchemaError(f"unknown primitive type {desc!r}")
    if "list" in desc:
        items = [from_json(desc["list"], x, hashable=hashable) for x in v]
        return tuple(items) if hashable else items
    if "set" in desc:
        items = [from_json(desc["set"], x, hashable=True) for x in v]
        return frozenset(items) if hashable else set(items)
    if "array" in desc:
        items = [from_json(desc["array"], x, hashable=hashable) for x in v]
        return tuple(items) if hashable else items
    if "optional" in desc:
        return None if v is None else from_json(desc["optional"], v, hashable=hashable)
    if "variant" in desc:
        i = int(v["index"])
        return Variant(i, from_json(desc["variant"][i], v["value"], hashable=hashable))
    if "tuple" in desc:
        return tuple(from_json(t, x, hashable=hashable) for t, x in zip(desc["tuple"], v, strict=True))
    if "map" in desc:
        kd, vd = desc["map"]
        return {from_json(kd, k, hashable=True): from_json(vd, x) for k, x in v}
    if "struct" in desc:
        cls = _struct_class(desc, hashable)
        kwargs = {py_field_name(f["name"]): from_json(f["type"], v[f["name"]], hashable=hashable)
                  for f in desc.get("fields", [])}
        return cls(**kwargs)
    if "enum" in desc:
        return int(v)
    if "bitset" in desc:
        n = int(desc["bitset"])
        if not isinstance(v, str) or len(v) != n or set(v) - {"0", "1"}:
            raise ValueError(f"bitset<{n}> value must be a string of {n} '0'/'1' characters, got {v!r}")
        return int(v, 2) if n else 0
    if "duration" in desc:
        return _float(v) if desc["duration"] in ("f32", "f64") else int(v)
    raise SchemaError(f"unknown type descriptor {desc!r}")


def _json_float(x: float, f32: bool) -> Any:
    if f32:
        x = struct.unpack("<f", struct.pack("<f", x))[0]
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def to_json(desc: Any, v: Any) -> Any:
    """The JSON value of a Python value (f32 floats rounded to f32; sets as
    lists in ascending order of their JSON text; maps as [key, value] pairs in
    iteration order)."""
    if isinstance(desc, str):
        if desc in ("f32", "f64"):
            return _json_float(v, desc == "f32")
        if desc == "bytes":
            return bytes(v).hex()
        if desc == "monostate":
            return None
        if desc == "bool":
            return bool(v)
        return v if desc == "str" else int(v)
    if "list" in desc:
        return [to_json(desc["list"], x) for x in v]
    if "array" in desc:
        return [to_json(desc["array"], x) for x in v]
    if "set" in desc:
        return sorted((to_json(desc["set"], x) for x in v), key=_key)
    if "optional" in desc:
        return None if v is None else to_json(desc["optional"], v)
    if "variant" in desc:
        return {"index": v.index, "value": to_json(desc["variant"][v.index], v.value)}
    if "tuple" in desc:
        return [to_json(t, x) for t, x in zip(desc["tuple"], v)]
    if "map" in desc:
        kd, vd = desc["map"]
        return [[to_json(kd, k), to_json(vd, x)] for k, x in v.items()]
    if "struct" in desc:
        return {f["name"]: to_json(f["type"], getattr(v, py_field_name(f["name"])))
                for f in desc.get("fields", [])}
    if "enum" in desc:
        return int(v)
    if "bitset" in desc:
        n = int(desc["bitset"])
        return format(v, f"0{n}b") if n else ""
    if "duration" in desc:
        return _json_float(v, desc["duration"] == "f32") if desc["duration"] in ("f32", "f64") else int(v)
    raise SchemaError(f"unknown type descriptor {desc!r}")


def canonical(desc: Any, json_value: Any) -> Any:
    """A JSON value in the form to_json produces (for comparisons)."""
    return to_json(desc, from_json(desc, json_value))


def _has_nan(desc: Any, v: Any) -> bool:
    text = json.dumps(v)
    return "nan" in text.lower()


# ---------------------------------------------------------------------------
# files


@dataclasses.dataclass
class GoldenVector:
    name: str
    format: str
    schema: Any
    value: Any
    data: bytes
    json_path: Path
    bin_path: Path


def load_vectors(directory: "str | Path") -> list:
    """Every <NAME>.json with its <NAME>.bin in `directory`, sorted by name."""
    out = []
    for jp in sorted(Path(directory).glob("*.json")):
        bp = jp.with_suffix(".bin")
        if not bp.exists():
            raise FileNotFoundError(f"{jp} has no matching {bp.name}")
        meta = json.loads(jp.read_text(encoding="utf-8"))
        out.append(GoldenVector(meta.get("name", jp.stem), meta["format"], meta["schema"], meta["value"],
                                bp.read_bytes(), jp, bp))
    return out


def check_vector(vec: GoldenVector) -> None:
    """Decodes, compares and re-encodes one vector; raises AssertionError with
    the details on any mismatch."""
    hint = hint_from_descriptor(vec.schema)
    decoded = decode(hint, vec.data, vec.format)
    got = to_json(vec.schema, decoded)
    want = canonical(vec.schema, vec.value)
    if got != want:
        raise AssertionError(f"{vec.name} ({vec.format}): decoded value differs from the JSON\n"
                             f"  decoded: {json.dumps(got)[:2000]}\n  json:    {json.dumps(want)[:2000]}")
    again = encode(decoded, vec.format, schema=hint)
    if again != vec.data:
        raise AssertionError(f"{vec.name} ({vec.format}): re-encoding differs\n"
                             f"  file:      {vec.data.hex()}\n  re-encoded: {again.hex()}")
    if not _has_nan(vec.schema, vec.value):  # NaN sign/payload are not in the JSON
        fresh = encode(from_json(vec.schema, vec.value), vec.format, schema=hint)
        if fresh != vec.data:
            raise AssertionError(f"{vec.name} ({vec.format}): encoding the JSON value differs\n"
                                 f"  file:    {vec.data.hex()}\n  encoded: {fresh.hex()}")
