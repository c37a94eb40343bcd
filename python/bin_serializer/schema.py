"""Python types from a C++ type description (docs/schema.md).

``bin_serializer::schema_json<T, Opts>()`` writes a JSON description of what
``serialize<Opts>`` writes for a ``T``. This module turns it into Python:

    from bin_serializer import schema
    Person = schema.load(open("person.portable.json").read())   # a dataclass type
    data = bin_serializer.encode(Person(name="Ada", id=1, scores=[]), "portable")

* ``load(description, customs=None)`` returns the type of the description's
  root (a dataclass for a struct), built at run time;
* ``generate(description, customs=None)`` returns the source of a typed module
  defining the same dataclasses (``python -m bin_serializer generate``), clean
  under ``mypy --strict``. ``load`` executes exactly that source, so the two
  cannot disagree.

Every node kind maps onto the package's markers: ``char`` nodes onto
``char``/``char16``/``char32``, enums onto ``EnumOf(underlying, min, max)``
(an ``int``; ``enum_range`` is part of the fingerprint), durations and time
points onto ``DurationOf`` / ``TimePointOf`` with their period, variants onto
``Tagged(...)`` (values are ``Variant(index, value)``), evolvable structs onto
``__bin_serializer_versions__``, the message id onto
``__bin_serializer_message_id__``. A ``custom`` node (a C++ ``codec<T>`` with a
``schema_id``) needs the Python hint that gives the codec's bytes:
``customs={"ns::Money": i64}``. ``opaque`` and ``unknown`` nodes have no Python
form and are refused.

``breaking_changes(old, new)`` lists what breaks between a saved description
and the current one (``python -m bin_serializer check``; rules in _check.py
and README "Checking a new description against a saved one"). Retired fields
(``"retired"``, ``"retired_value"``, evolvable structs only) become
``Annotated[T, Retire(v)] = field(default=RETIRED, init=False, ...)`` fields
and ``"keeps_unknown"`` ``__bin_serializer_keep_unknown__ = True``.

A description that is not one (malformed JSON, a wrong key or kind, nesting
deeper than ``MAX_DEPTH``, an array or bitset larger than ``MAX_ELEMENTS``)
raises ``DescriptionError`` (a ``SchemaError`` and a ``ValueError``), never
anything else.
"""

from __future__ import annotations

import json
import keyword
import re
from typing import Any, Mapping

from .errors import DescriptionError, SchemaError

__all__ = ["load", "generate", "parse", "breaking_changes", "DescriptionError", "MAX_DEPTH", "MAX_ELEMENTS",
           "MAX_TEXT", "MAX_CONTAINER_NESTING"]

MAX_DEPTH = 64  # nesting of type nodes (a deeper description is refused)
MAX_ELEMENTS = 1 << 16  # elements of a fixed array (all nested arrays multiplied) and bits of a bitset
MAX_TEXT = 16 << 20  # characters of a description text
MAX_NODES = 1 << 16  # type nodes in one description
MAX_TOTAL_ELEMENTS = 1 << 20  # elements of all fixed arrays of a description together
MAX_NAME = 1 << 12  # characters of a type or field name
# containers (sequence, array, set, map, wide string) nested in one another with
# no struct between: the pure-Python codec compiles one loop per level into one
# function, and CPython allows 20 nested blocks in a function
MAX_CONTAINER_NESTING = 16
_CONTAINERS = {"sequence", "array", "set", "map", "string"}

_FORMATS = ("native", "portable", "compact")
_INTS = {("uint", 1): "u8", ("uint", 2): "u16", ("uint", 4): "u32", ("uint", 8): "u64",
         ("sint", 1): "i8", ("sint", 2): "i16", ("sint", 4): "i32", ("sint", 8): "i64",
         ("float", 4): "f32", ("float", 8): "f64",
         ("char", 1): "char", ("char", 2): "char16", ("char", 4): "char32"}
_UNIT_NAMES = {"ns", "us", "ms", "s", "min", "h", "d"}


def parse(description: Any) -> dict:
    """The description as a dict: JSON text (str / bytes) or an already parsed dict."""
    if isinstance(description, (bytes, bytearray)):
        try:
            description = bytes(description).decode("utf-8")
        except UnicodeDecodeError as e:
            raise DescriptionError(f"description is not UTF-8: {e}") from None
    if isinstance(description, str):
        if len(description) > MAX_TEXT:
            raise DescriptionError(f"description is {len(description)} characters, more than {MAX_TEXT}")
        _check_nesting(description)
        try:
            description = json.loads(description)
        except (ValueError, RecursionError) as e:
            raise DescriptionError(f"description is not valid JSON: {e}") from None
    if not isinstance(description, dict):
        raise DescriptionError(f"a description is a JSON object, not {type(description).__name__}")
    return description


def _check_nesting(text: str) -> None:
    """Refuses JSON nested deeper than the type nodes may be, before json.loads
    recurses into it (brackets inside strings are over-counted: harmless, a
    description's strings are names)."""
    limit = 4 * MAX_DEPTH + 16  # a node is at most a few JSON levels deep ({"type": {...}}, "fields": [...])
    depth = 0
    # a string's closing quote is optional so that every match succeeds: linear time
    for m in re.finditer(r'[\[\]{}]|"(?:[^"\\]|\\.)*"?', text, re.S):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > limit:
                raise DescriptionError(f"description nests deeper than {limit} JSON levels")
        elif c in "]}":
            depth -= 1


# ---------------------------------------------------------------------------
# description -> module source


def _need(obj: dict, key: str, types: Any, where: str) -> Any:
    if key not in obj:
        raise DescriptionError(f"{where}: missing key {key!r}")
    v = obj[key]
    if not isinstance(v, types) or (isinstance(v, bool) and bool not in (types if isinstance(types, tuple)
                                                                          else (types,))):
        raise DescriptionError(f"{where}: {key!r} must be {getattr(types, '__name__', types)}, not {v!r:.80}")
    return v


def _name(obj: dict, where: str) -> str:
    name = _need(obj, "name", str, where)
    if len(name) > MAX_NAME:
        raise DescriptionError(f"{where}: a name of {len(name)} characters (at most {MAX_NAME})")
    return name


def _int(obj: dict, key: str, where: str, lo: int, hi: int) -> int:
    v = _need(obj, key, int, where)
    if not lo <= v <= hi:
        raise DescriptionError(f"{where}: {key!r} = {v} is outside {lo} .. {hi}")
    return v


def _ident(name: str, used: "set[str]", prefix: str) -> str:
    """A Python identifier for a C++ name (its last component), unique in `used`."""
    base = name.rsplit("::", 1)[-1]
    base = re.sub(r"\W", "_", base, flags=re.ASCII).strip("_") or prefix
    if base[0].isdigit():
        base = f"{prefix}_{base}"
    if keyword.iskeyword(base) or base in _RESERVED:
        base += "_"
    out, n = base, 2
    while out in used:
        out, n = f"{base}_{n}", n + 1
    used.add(out)
    return out


_RESERVED = {"Annotated", "Any", "dataclass", "Variant", "Monostate", "DurationOf", "TimePointOf", "Tagged",
             "Fixed", "Bits", "Text", "EnumOf", "Custom", "ROOT", "FORMAT", "FINGERPRINT", "MESSAGE_ID",
             "annotations", "field", "Retire", "retired", "RETIRED"} | set(_INTS.values())


class _Gen:
    def __init__(self, fmt: str, customs: Mapping[str, Any], raw_strings: bool = False,
                 keep_unknown: bool = False) -> None:
        self.fmt = fmt
        self.raw_strings = raw_strings
        self.keep_unknown = keep_unknown  # every evolvable struct keeps the fields it does not know
        self.customs = customs
        self.custom_names: dict = {}  # C++ name -> module-level alias
        self.used: set = set(_RESERVED)  # module-level names: markers, classes, custom aliases
        # every field name given: a module-level name must differ from each (in a class body
        # mypy reads an annotation `x: Name` as the class's own attribute `Name` if there is one)
        self.field_idents: set = set()
        self.offsets: dict = {}  # class name -> [(field, offset)] of a native struct copied as a block
        self.classes: list = []  # source blocks, dependencies first
        self.by_shape: dict = {}  # (C++ name, canonical JSON) -> class name
        self.markers: set = set()
        self.nodes = 0
        self.elements = 1
        self.total_elements = 0
        self.uses_field = False  # a retired field: the module imports dataclasses.field
        self.uses_default = False  # a field with a 'default': the module imports schema._default
        self.loops = 0  # containers nested since the enclosing struct (MAX_CONTAINER_NESTING)

    def hint(self, node: Any, where: str, depth: int, stack: list, key: bool = False) -> str:
        """The annotation (source text) of a type node."""
        kind = node.get("kind") if isinstance(node, dict) else None
        if not isinstance(kind, str):
            kind = None  # _hint says what is wrong
        if kind in ("struct", "evolvable"):
            saved, self.loops = self.loops, 0  # a struct is a function of its own in the codecs
            try:
                return self._hint(node, where, depth, stack, key)
            finally:
                self.loops = saved
        if kind in _CONTAINERS:
            self.loops += 1
            try:
                if self.loops > MAX_CONTAINER_NESTING:
                    raise DescriptionError(f"{where}: more than {MAX_CONTAINER_NESTING} containers nested in one "
                                           f"another with no struct between (the Python codec cannot compile it)")
                return self._hint(node, where, depth, stack, key)
            finally:
                self.loops -= 1
        return self._hint(node, where, depth, stack, key)

    def _hint(self, node: Any, where: str, depth: int, stack: list, key: bool = False) -> str:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise DescriptionError(f"description has more than {MAX_NODES} type nodes")
        if depth > MAX_DEPTH:
            raise DescriptionError(f"{where}: types nest deeper than {MAX_DEPTH}")
        if not isinstance(node, dict):
            raise DescriptionError(f"{where}: a type node is a JSON object, not {type(node).__name__}")
        kind = _need(node, "kind", str, where)
        d = depth + 1
        if kind == "bool":
            self._encoding(node, where, varint=False)
            return "bool"
        if kind in ("uint", "sint", "float", "char"):
            size = _need(node, "size", int, where)
            name = _INTS.get((kind, size))
            if name is None:
                raise DescriptionError(f"{where}: no {kind} of {size!r} bytes")
            self._encoding(node, where, varint=kind in ("uint", "sint") and size > 1,
                           zigzag=kind == "sint")
            self.markers.add(name)
            return name
        if kind == "enum":
            under = _need(node, "underlying", dict, where)
            u = self.hint(under, f"{where}.underlying", d, stack)
            if under.get("kind") not in ("uint", "sint", "char"):
                raise DescriptionError(f"{where}: an enum's underlying type is an integer")
            self.markers.add("EnumOf")
            if "min" in node or "max" in node:
                lo = _need(node, "min", int, where)
                hi = _need(node, "max", int, where)
                size = under["size"]
                signed = under["kind"] == "sint" or (under["kind"] == "char" and size == 1)
                lim_lo, lim_hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if signed else (0, (1 << (8 * size)) - 1)
                if not lim_lo <= lo <= hi <= lim_hi:
                    raise DescriptionError(f"{where}: enum range {lo} .. {hi} does not fit its underlying type")
                return f"Annotated[int, EnumOf({u}, {lo}, {hi})]"
            return f"Annotated[int, EnumOf({u})]"
        if kind == "array":
            count = _int(node, "count", where, 0, MAX_ELEMENTS)
            saved = self.elements
            self.elements *= max(1, count)
            self.total_elements += self.elements
            if self.elements > MAX_ELEMENTS or self.total_elements > MAX_TOTAL_ELEMENTS:
                raise DescriptionError(f"{where}: fixed arrays of more than {MAX_ELEMENTS} elements (nested "
                                       f"arrays multiplied), or {MAX_TOTAL_ELEMENTS} in the description")
            elem = self.hint(_need(node, "element", dict, where), f"{where}.element", d, stack, key)
            self.elements = saved
            self.markers.add("Fixed")
            return f"Annotated[{'tuple' if key else 'list'}[{elem}{', ...' if key else ''}], Fixed({count})]"
        if kind == "string":
            size = _need(node, "char_size", int, where)
            if size == 1 and self.raw_strings:
                self.markers.add("Text")
                return "Annotated[bytes, Text(1)]"
            if size == 1:
                return "str"
            if size not in (2, 4):
                raise DescriptionError(f"{where}: no string of {size!r}-byte characters")
            self.markers.add("Text")
            return f"Annotated[{'tuple[int, ...]' if key else 'list[int]'}, Text({size})]"
        if kind == "sequence":
            elem = self.hint(_need(node, "element", dict, where), f"{where}.element", d, stack, key)
            return f"tuple[{elem}, ...]" if key else f"list[{elem}]"
        if kind == "set":
            elem = self.hint(_need(node, "key", dict, where), f"{where}.key", d, stack, True)
            return f"frozenset[{elem}]"
        if kind == "map":
            if key:
                raise DescriptionError(f"{where}: a map inside a set element or map key has no Python form")
            k = self.hint(_need(node, "key", dict, where), f"{where}.key", d, stack, True)
            v = self.hint(_need(node, "value", dict, where), f"{where}.value", d, stack)
            return f"dict[{k}, {v}]"
        if kind == "optional":
            inner_node = _need(node, "value", dict, where)
            if inner_node.get("kind") == "optional":
                raise DescriptionError(f"{where}: an optional of an optional has no Python form")
            inner = self.hint(inner_node, f"{where}.value", d, stack, key)
            return f"{inner} | None"
        if kind == "variant":
            alts = _need(node, "alternatives", list, where)
            if not alts or len(alts) > 255:
                raise DescriptionError(f"{where}: a variant has 1 .. 255 alternatives")
            hs = [self.hint(a, f"{where}.alternatives[{i}]", d, stack, key) for i, a in enumerate(alts)]
            self.markers.add("Tagged")
            return f"Annotated[Variant, Tagged({', '.join(hs)})]"
        if kind == "monostate":
            return "Monostate"
        if kind == "tuple":
            elems = _need(node, "elements", list, where)
            if len(elems) > 1024:
                raise DescriptionError(f"{where}: a tuple of more than 1024 elements")
            hs = [self.hint(e, f"{where}.elements[{i}]", d, stack, key) for i, e in enumerate(elems)]
            return f"tuple[{', '.join(hs)}]" if hs else "tuple[()]"
        if kind == "bitset":
            bits = _int(node, "bits", where, 0, MAX_ELEMENTS)
            self.markers.add("Bits")
            return f"Annotated[int, Bits({bits})]"
        if kind == "duration":
            rep, period = self._duration(node, where, d, stack)
            self.markers.add("DurationOf")
            return f"Annotated[{'float' if rep.startswith('f') else 'int'}, DurationOf({rep}, {period})]"
        if kind == "time_point":
            dur = _need(node, "duration", dict, where)
            if dur.get("kind") != "duration":
                raise DescriptionError(f"{where}: a time_point's duration is a duration node")
            rep, period = self._duration(dur, f"{where}.duration", d, stack)
            self.markers.add("TimePointOf")
            return f"Annotated[{'float' if rep.startswith('f') else 'int'}, TimePointOf({rep}, {period})]"
        if kind in ("struct", "evolvable"):
            return self.struct(node, kind, where, d, stack, key)
        if kind == "ref":
            name = _name(node, where)
            depth_up = _int(node, "depth", where, 1, len(stack) or 1)
            if depth_up > len(stack):
                raise DescriptionError(f"{where}: ref {name!r} depth {depth_up}: no enclosing struct there")
            if key:
                raise DescriptionError(f"{where}: a recursive struct inside a set element or map key")
            return stack[-depth_up]
        if kind == "custom":
            name = _name(node, where)
            cid = _need(node, "id", str, where)
            if not re.fullmatch(r"0x[0-9a-f]{16}", cid):
                raise DescriptionError(f"{where}: custom id {cid!r:.40} is not 0x and 16 hex digits")
            if name not in self.customs:
                raise DescriptionError(f"{where}: {name!r} has its own C++ codec (schema id {cid}); give the "
                                       f"Python hint of its bytes: customs={{{name!r}: hint}} "
                                       f"(command line: --custom '{name}=module:attribute')")
            alias = self.custom_names.get(name)
            if alias is None:
                alias = self.custom_names[name] = self._module_name("custom_" + name.rsplit("::", 1)[-1], "custom")
            self.markers.add("Custom")
            return f"Annotated[{alias}, Custom({cid})]"
        if kind in ("opaque", "unknown"):
            raise DescriptionError(f"{where}: a {kind} node has no Python form")
        raise DescriptionError(f"{where}: unknown kind {kind!r:.40}")

    def _module_name(self, cname: str, prefix: str) -> str:
        name = _ident(cname, self.used | self.field_idents, prefix)
        self.used.add(name)
        return name

    def _encoding(self, node: dict, where: str, varint: bool, zigzag: bool = False) -> None:
        enc = _need(node, "encoding", str, where)
        want = ("zigzag" if zigzag else "varint") if varint and self.fmt == "compact" else "fixed"
        if enc != want:
            raise DescriptionError(f"{where}: encoding {enc!r:.20} in the {self.fmt} format; this package "
                                   f"writes {want!r} there")

    def _duration(self, node: dict, where: str, d: int, stack: list) -> "tuple[str, str]":
        num = _int(node, "num", where, 1, (1 << 63) - 1)
        den = _int(node, "den", where, 1, (1 << 63) - 1)
        rep_node = _need(node, "rep", dict, where)
        if rep_node.get("kind") not in ("uint", "sint", "float"):
            raise DescriptionError(f"{where}: a duration's rep is a number")
        rep = self.hint(rep_node, f"{where}.rep", d, stack)
        return rep, f"({num}, {den})"

    def struct(self, node: dict, kind: str, where: str, d: int, stack: list, key: bool) -> str:
        cname = _name(node, where)
        fields = _need(node, "fields", list, where)
        if len(fields) > 4096:
            raise DescriptionError(f"{where}: more than 4096 fields")
        if key:
            raise DescriptionError(f"{where}: a struct inside a set element or map key has no Python form here")
        pyname = self._module_name(cname, "Struct")
        versions = None
        if kind == "evolvable":
            versions = _need(node, "versions", list, where)
            if (not versions or len(versions) > 4096 or not all(type(v) is int for v in versions)
                    or versions[0] < 1 or any(b <= a for a, b in zip(versions, versions[1:]))
                    or versions[-1] != len(fields)):
                raise DescriptionError(f"{where}: versions {versions!r:.80} must be field counts, strictly "
                                       f"increasing, the last the number of fields")
        keep = node.get("keeps_unknown", False)
        if type(keep) is not bool:
            raise DescriptionError(f"{where}: 'keeps_unknown' must be true or false, not {keep!r:.40}")
        if keep and versions is None:
            raise DescriptionError(f"{where}: 'keeps_unknown' on a struct that is not evolvable")
        keep = keep or (self.keep_unknown and versions is not None)
        bulk = None
        if "bulk" in node:
            bulk = _int(node, "bulk", where, 1, 1 << 32)
            if self.fmt != "native":
                raise DescriptionError(f"{where}: 'bulk' exists only in the native format")
        lines = []
        offsets = []
        names: set = set()
        defaulted = False
        since = 0
        for i, f in enumerate(fields):
            fw = f"{where}.fields[{i}]"
            if not isinstance(f, dict):
                raise DescriptionError(f"{fw}: a field is a JSON object")
            fname = _name(f, fw)
            retired = f.get("retired", False)
            if type(retired) is not bool:
                raise DescriptionError(f"{fw}: 'retired' must be true or false, not {retired!r:.40}")
            if "retired_value" in f and not retired:
                raise DescriptionError(f"{fw}: 'retired_value' on a field that is not retired")
            if retired and versions is None:
                raise DescriptionError(f"{fw}: a retired field of a struct that is not evolvable has no Python "
                                       f"form here")
            if versions is not None:
                since = _int(f, "since", fw, 1, len(versions))
                first = next(k for k, n in enumerate(versions, 1) if i < n)
                if since != first:
                    raise DescriptionError(f"{fw}: since {since}, but versions {versions} put it in version {first}")
            taken = names | self.used
            ident = _ident(fname, taken, "field")
            names.add(ident)
            self.field_idents.add(ident)
            if bulk is not None:
                offsets.append((ident, _int(f, "offset", fw, 0, bulk)))
            ftype = _need(f, "type", dict, fw)
            h = self.hint(ftype, f"{where}.{ident}", d, stack + [pyname])
            comment = "" if ident == fname else f"  # C++ name: {json.dumps(fname[:80])}"
            if retired:
                value = ""
                if "retired_value" in f:
                    rv = _need(f, "retired_value", int, fw)
                    if ftype.get("kind") not in ("uint", "sint", "bool", "enum", "char"):
                        raise DescriptionError(f"{fw}: 'retired_value' on a {ftype.get('kind')!r:.40} field (an "
                                               f"integer, bool or enum field takes one)")
                    if not -(1 << 63) <= rv < (1 << 64):
                        raise DescriptionError(f"{fw}: 'retired_value' {rv} does not fit 64 bits")
                    value = str(rv)
                self.markers.update(("Retire", "RETIRED"))
                self.uses_field = True
                # field(...) spelled out rather than types.retired(): mypy knows the former is no parameter
                h = f"Annotated[{h}, Retire({value})] = field(default=RETIRED, init=False, repr=False, compare=False)"
            elif "default" in f:
                dflt = _need(f, "default", str, fw)
                if len(dflt) > 1 << 20 or not re.fullmatch(r"(?:[0-9a-f]{2})*", dflt):
                    raise DescriptionError(f"{fw}: 'default' must be the hex of the field's encoding")
                if versions is None or since == 1:
                    raise DescriptionError(f"{fw}: 'default' on a field that is not added after version 1")
                self.uses_field = True
                self.uses_default = True
                defaulted = True
                # decoded when an instance is made without it, in the module's format
                h = f"{h} = field(default_factory=lambda: _default({h}, {dflt!r}, FORMAT))"
            elif defaulted:
                raise DescriptionError(f"{fw}: a field after one with a 'default' needs one too")
            lines.append(f"    {ident}: {h}{comment}")
        body = ["@dataclass", f"class {pyname}:", f'    """C++ {json.dumps(cname[:200])[1:-1]}"""',
                *lines]
        if versions is not None:
            body.append(f"    __bin_serializer_versions__ = {tuple(versions)!r}")
        if keep:
            body.append("    __bin_serializer_keep_unknown__ = True")
        if self.fmt == "native" and versions is None:
            body.append(f"    __trivially_copyable__ = {bulk is not None}")
        # the same C++ struct met again (same name, same fields) is the same class
        shape = (cname, kind, tuple(versions or ()), bulk, keep, tuple(lines))
        got = self.by_shape.get(shape)
        if got is not None:
            return got
        self.classes.append("\n".join(body))
        self.by_shape[shape] = pyname
        if bulk is not None:
            self.offsets[pyname] = (bulk, offsets)
        return pyname


def _default(hint: Any, hexstr: str, fmt: str) -> Any:
    """A field's value in a value-initialised C++ struct, from the description's
    ``default`` (the hex of its encoding): what a reader of older data gives it."""
    from .api import decode
    return decode(hint, bytes.fromhex(hexstr), fmt)


def _source(desc: dict, customs: Mapping[str, Any], custom_imports: "dict[str, str] | None",
            raw_strings: bool = False, keep_unknown: bool = False) -> "tuple[str, _Gen]":
    where = "description"
    version = _need(desc, "bin_serializer_schema", int, where)
    if version != 1:
        raise DescriptionError(f"bin_serializer_schema {version}: this package reads version 1")
    fmt = _need(desc, "format", str, where)
    if fmt not in _FORMATS:
        raise DescriptionError(f"format {fmt!r:.40} is not one of {_FORMATS}")
    fp = _need(desc, "fingerprint", str, where)
    if not re.fullmatch(r"0x[0-9a-f]{16}", fp):
        raise DescriptionError(f"fingerprint {fp!r:.40} is not 0x and 16 lowercase hex digits")
    mid = _int(desc, "message_id", where, 0, 0xFFFFFFFF)
    if "version_fingerprints" in desc:
        vf = _need(desc, "version_fingerprints", list, where)
        versions = desc["type"].get("versions") if isinstance(desc.get("type"), dict) else None
        if (not isinstance(versions, list) or len(vf) != len(versions)
                or not all(isinstance(x, str) and re.fullmatch(r"0x[0-9a-f]{16}", x) for x in vf)):
            raise DescriptionError("version_fingerprints: one 0x-hex fingerprint per version of an evolvable type")
    g = _Gen(fmt, customs, raw_strings, keep_unknown)
    root = g.hint(_need(desc, "type", dict, where), "type", 0, [])
    is_struct = desc["type"].get("kind") in ("struct", "evolvable")
    if mid and not is_struct:
        raise DescriptionError("message_id on a type that is not a struct has no Python form")
    out = ['"""Generated by `python -m bin_serializer generate` from a bin_serializer type description',
           f"(format {fmt}, fingerprint {fp}). Do not edit: generate it again from the new description.",
           '"""', "", "from __future__ import annotations", "",
           "from dataclasses import dataclass, field" if g.uses_field else "from dataclasses import dataclass",
           "from typing import Annotated", ""]
    names = sorted(g.markers - {"Tagged", "EnumOf", "Fixed", "Bits", "Text", "DurationOf", "TimePointOf",
                                 "Custom"})
    extra = sorted(g.markers & {"Tagged", "EnumOf", "Fixed", "Bits", "Text", "DurationOf", "TimePointOf",
                                "Custom"})
    imports = names + extra
    body_text = "\n".join(g.classes) + root
    if "Variant" in body_text:
        imports.append("Variant")
    if "Monostate" in body_text:
        imports.append("Monostate")
    if imports:
        out.append(f"from bin_serializer.types import {', '.join(sorted(set(imports)))}")
    if g.uses_default:
        out.append("from bin_serializer.schema import _default")
    for cname, alias in g.custom_names.items():
        spec = (custom_imports or {}).get(cname)
        if spec is not None:
            mod, _, attr = spec.partition(":")
            out.append(f"from {mod} import {attr} as {alias}")
        else:
            out.append(f"from bin_serializer.schema import _custom as {alias}  # {json.dumps(cname[:80])}")
    out += ["", "FORMAT = " + repr(fmt), f"FINGERPRINT = {fp}", f"MESSAGE_ID = {mid}", ""]
    for block in g.classes:
        out += ["", block, ""]
    if is_struct and mid:
        out[-2] += f"\n    __bin_serializer_message_id__ = {mid}"
    out += ["", f"ROOT = {root}", ""]
    return "\n".join(out), g


def _check_offsets(g: _Gen, ns: dict) -> None:
    """A native struct copied as a block: Python's memory layout must put each field
    where the description says (the fingerprint holds only the struct's size)."""
    from ._schema import build_node, layout
    for pyname, (bulk, offsets) in g.offsets.items():
        lay = layout(build_node(ns[pyname]), True)
        if lay is None or lay.size != bulk:
            raise DescriptionError(f"{pyname}: C++ copies it as {bulk} bytes; this package lays it out as "
                                   f"{'no block' if lay is None else f'{lay.size} bytes'}")
        first: dict = {}
        for leaf in lay.leaves:
            first.setdefault(leaf.path[0], leaf.offset)
        for name, offset in offsets:
            if name in first and first[name] != offset:
                raise DescriptionError(f"{pyname}.{name}: at offset {offset} in C++, {first[name]} in this "
                                       f"package's layout")


def breaking_changes(old: Any, new: Any) -> "list[str]":
    """Every change from description `old` (saved: what data and readers were
    made with) to `new` that breaks compatibility, one line each naming the
    field path, e.g. ``Config.limits.max_users: retyped (uint 2 -> sint 2)``;
    [] when `new` is compatible. DescriptionError when either cannot be read."""
    from ._check import breaking_changes as check
    return check(old, new)


_custom: Any = None  # placeholder target of a custom alias while a module is executed by load()


def generate(description: Any, customs: "Mapping[str, str] | None" = None, *, raw_strings: bool = False) -> str:
    """The source of a typed module for a description: its dataclasses, then
    FORMAT, FINGERPRINT (an int), MESSAGE_ID and ROOT (the root type). customs:
    C++ name of a custom-codec type -> "module:attribute" of its Python hint
    (imported, to check the module's fingerprint against the description's
    before it is returned). raw_strings: as in load()."""
    desc = parse(description)
    customs = dict(customs or {})
    hints = {}
    for k, v in customs.items():
        if not (isinstance(v, str) and re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*", v)):
            raise DescriptionError(f"custom {k!r}: give 'module:attribute', not {v!r:.80}")
        mod, _, attr = v.partition(":")
        try:
            import importlib
            hints[k] = getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError) as e:
            raise DescriptionError(f"custom {k!r}: cannot import {v}: {e}") from None
    _load(desc, hints, True, raw_strings)  # the module the source defines has the description's fingerprint
    return _source(desc, hints, customs, raw_strings)[0]


def load(description: Any, customs: "Mapping[str, Any] | None" = None, *, check_fingerprint: bool = True,
         raw_strings: bool = False, keep_unknown: bool = False) -> Any:
    """The root type of a description, built at run time: a dataclass for a
    struct (nested structs are nested dataclasses), with the description's
    message id, evolvable versions and, in native, whether C++ copies it as a
    block. customs: C++ name of a custom-codec type -> the Python hint that
    gives its bytes (e.g. i64). The result's fingerprint
    (``bin_serializer.message.schema_hash(T, format)``) is checked against the
    description's: a mismatch raises DescriptionError (check_fingerprint=False
    skips that, for a description written by hand). raw_strings: every
    ``std::string`` (a string of 1-byte characters) is ``bytes``
    (``Annotated[bytes, Text(1)]``) instead of ``str``, for strings that are
    not UTF-8 text. keep_unknown: every evolvable struct keeps the fields a
    newer writer appended (``types.unknown_fields``), as if the description
    said ``"keeps_unknown": true``: what a reader with no code of its own
    (``cat``, ``dump``) shows rather than drops."""
    return _load(parse(description), dict(customs or {}), check_fingerprint, raw_strings, keep_unknown)


def _load(desc: dict, customs: dict, check_fingerprint: bool, raw_strings: bool = False,
          keep_unknown: bool = False) -> Any:
    source, g = _source(desc, customs, None, raw_strings, keep_unknown)
    import typing
    ns: dict = {"__name__": __name__}  # dataclass() looks the module up in sys.modules
    try:
        exec(compile(source, "<bin_serializer description>", "exec"), ns)  # noqa: S102 - our own output
    except (SyntaxError, ValueError, TypeError) as e:  # pragma: no cover - the generator checked every value
        raise DescriptionError(f"the description's types cannot be built: {e}") from None
    for cname, alias in g.custom_names.items():
        ns[alias] = customs[cname]
    for block in g.classes:
        cls = ns[block.split("class ", 1)[1].split(":", 1)[0]]
        cls.__annotations__ = typing.get_type_hints(cls, globalns=ns, include_extras=True)
    root = eval(source.rsplit("ROOT = ", 1)[1].strip(), ns)  # noqa: S307 - an annotation we wrote
    from ._schema import build_node
    from .message import schema_hash
    try:
        build_node(root)  # SchemaError here: a shape the package refuses (e.g. an unhashable set element)
        _check_offsets(g, ns)
        if not check_fingerprint:
            return root
        got = schema_hash(root, desc["format"])
    except DescriptionError:
        raise
    except SchemaError as e:
        raise DescriptionError(f"the description's types have no Python form: {e}") from None
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps the recursion short
        raise DescriptionError("description nests too deeply") from None
    if got != int(desc["fingerprint"], 16):
        raise DescriptionError(f"the Python type's fingerprint {got:#018x} is not the description's "
                               f"{desc['fingerprint']}: the description disagrees with its own shape")
    if "version_fingerprints" in desc:
        from .message import version_fingerprints
        mine = [f"{h:#018x}" for h in version_fingerprints(root, desc["format"])]
        if mine != desc["version_fingerprints"]:
            raise DescriptionError(f"the Python type's version fingerprints {mine} are not the description's "
                                   f"{desc['version_fingerprints']}")
    return root
