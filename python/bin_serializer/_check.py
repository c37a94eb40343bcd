"""Breaking changes between two type descriptions (``schema.breaking_changes``,
``python -m bin_serializer check OLD.json NEW.json``).

The rules are those of the C++ compatibility trait (README "Checking a new
description against a saved one"):

* another format or message id breaks;
* two nodes are *wire-equal* when they are equal once names (of types, fields,
  enumerators), ``since``, ``default``, ``retired``, ``retired_value``, ``keeps_unknown``
  and fingerprints are left out: they encode identically, nothing breaks;
* an evolvable struct against an evolvable struct (the root, or a field's own
  type, recursively): the old versions must be a prefix of the new ones, no
  field may be removed or moved, and each field's type is compared (retiring
  or un-retiring and renaming are safe, appended fields are safe);
* a field's own type (not inside a container) may widen where integers are
  varints (compact, 16 bits and wider): an integer of the same signedness with
  more bytes (``narrowed`` when fewer; with fixed widths another width is
  ``retyped``, as in C++'s compatibility<Old, New, Opts>);
* anything else that is not wire-equal is ``retyped``. A plain struct is
  looked into only to name the first level of fields that differ: inside it
  nothing is safe.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import DescriptionError

MAX_FIELDS = 4096  # as schema.load
MAX_VERSIONS = 4096
MAX_ITEMS = 1 << 16  # members of any JSON array or object inside a type node
_MAX_NEST = 400  # JSON levels (schema.parse refuses text nested deeper than about 272)
_IGNORED = frozenset({"name", "since", "default", "retired", "retired_value", "keeps_unknown", "fingerprint",
                      "version_fingerprints"})
_POSITIONAL = re.compile(r"field[0-9]+|_[0-9]+")
_FORMATS = ("native", "portable", "compact")


def _canon(v: Any, memo: "dict[int, Any]", depth: int = 0) -> Any:
    """A hashable form of a node that ignores what does not reach the wire
    (memo: id of a dict or list -> its form; the parsed description keeps
    every object alive while it is used)."""
    if depth > _MAX_NEST:
        raise DescriptionError(f"description nests deeper than {_MAX_NEST} JSON levels")
    if isinstance(v, (dict, list)):
        got = memo.get(id(v))
        if got is not None:
            return got
        if len(v) > MAX_ITEMS:
            raise DescriptionError(f"description holds a JSON {'object' if isinstance(v, dict) else 'array'} of "
                                   f"{len(v)} items (at most {MAX_ITEMS})")
        if isinstance(v, dict):
            got = ("{", tuple(sorted((k, _canon(x, memo, depth + 1)) for k, x in v.items() if k not in _IGNORED)))
        else:
            got = ("[", tuple(_canon(x, memo, depth + 1) for x in v))
        memo[id(v)] = got
        return got
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, int) and not -(1 << 63) <= v < (1 << 64):
        raise DescriptionError(f"description holds a number outside 64 bits ({str(v)[:40]}...)")
    return v if isinstance(v, (int, str, float)) or v is None else repr(v)


def _kind(node: Any, path: str) -> str:
    if not isinstance(node, dict):
        raise DescriptionError(f"{path}: a type node is a JSON object, not {type(node).__name__}")
    kind = node.get("kind")
    if not isinstance(kind, str):
        raise DescriptionError(f"{path}: a type node needs a string 'kind'")
    return kind


def _short(node: Any, depth: int = 0) -> str:
    """What a node is, for a message: ``uint 2``, ``sequence<sint 4>``."""
    if not isinstance(node, dict):
        return "?"
    kind = str(node.get("kind"))[:40]
    if depth > 3:
        return kind
    if kind in ("uint", "sint", "float", "char"):
        return f"{kind} {node.get('size')}"
    if kind in ("sequence", "array"):
        inner = _short(node.get("element"), depth + 1)
        return f"{kind}<{inner}, {node.get('count')}>" if kind == "array" else f"{kind}<{inner}>"
    if kind == "set":
        return f"set<{_short(node.get('key'), depth + 1)}>"
    if kind == "map":
        return f"map<{_short(node.get('key'), depth + 1)}, {_short(node.get('value'), depth + 1)}>"
    if kind == "optional":
        return f"optional<{_short(node.get('value'), depth + 1)}>"
    if kind == "string":
        return "string" if node.get("char_size") == 1 else f"string of {node.get('char_size')}-byte chars"
    if kind == "enum":
        return f"enum ({_short(node.get('underlying'), depth + 1)})"
    if kind in ("struct", "evolvable"):
        fields = node.get("fields")
        n = len(fields) if isinstance(fields, list) else "?"
        return f"{kind} of {n} field{'' if n == 1 else 's'}"
    return kind


def _fields(node: "dict[str, Any]", path: str) -> "list[Any]":
    fields = node.get("fields")
    if not isinstance(fields, list):
        raise DescriptionError(f"{path}: a struct needs a 'fields' list")
    if len(fields) > MAX_FIELDS:
        raise DescriptionError(f"{path}: more than {MAX_FIELDS} fields")
    for i, f in enumerate(fields):
        if not isinstance(f, dict) or not isinstance(f.get("name", ""), str) or "type" not in f:
            raise DescriptionError(f"{path}.fields[{i}]: a field is an object with a 'type'")
        _kind(f["type"], f"{path}.fields[{i}]")
    return fields


def _versions(node: "dict[str, Any]", nfields: int, path: str) -> "list[int]":
    v = node.get("versions")
    if (not isinstance(v, list) or not v or len(v) > MAX_VERSIONS or not all(type(x) is int for x in v)
            or v[0] < 1 or any(b <= a for a, b in zip(v, v[1:])) or v[-1] != nfields):
        raise DescriptionError(f"{path}: 'versions' must be field counts (at most {MAX_VERSIONS}), strictly "
                               f"increasing, the last the number of fields ({nfields})")
    return v


def _fname(f: "dict[str, Any]", i: int) -> str:
    name = f.get("name")
    return name[:200] if isinstance(name, str) and name else f"field{i}"


class _Checker:
    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.out: "list[str]" = []
        self.memo: "dict[int, Any]" = {}

    def same(self, a: Any, b: Any) -> bool:
        return bool(_canon(a, self.memo) == _canon(b, self.memo))

    def same_but_fields(self, a: "dict[str, Any]", b: "dict[str, Any]") -> bool:
        keys = (set(a) | set(b)) - _IGNORED - {"fields"}
        return all(k in a and k in b and self.same(a[k], b[k]) for k in keys)

    def report(self, path: str, what: str) -> None:
        self.out.append(f"{path}: {what}")

    def retyped(self, path: str, old: Any, new: Any) -> None:
        self.report(path, f"retyped ({_short(old)} -> {_short(new)})")

    def field(self, old: Any, new: Any, path: str) -> None:
        """A field's own type (widening allowed, evolvable structs recursed into)."""
        ok, nk = _kind(old, path), _kind(new, path)
        if self.same(old, new):
            return
        if ok == nk == "evolvable":
            self.evolvable(old, new, path)
            return
        if ok == nk and ok in ("uint", "sint") and type(old.get("size")) is int and type(new.get("size")) is int:
            varints = old.get("encoding") in ("varint", "zigzag") and new.get("encoding") == old.get("encoding")
            if varints and new["size"] > old["size"]:
                return  # the same varint bytes for every old value: a safe widening
            if varints and new["size"] < old["size"]:
                self.report(path, f"narrowed ({ok} {old['size']} -> {nk} {new['size']})")
                return
            # fixed widths (native, portable, 8-bit integers): another width is another encoding
        self.strict(old, new, path)

    def strict(self, old: Any, new: Any, path: str) -> None:
        """Anything but wire-equal breaks; a plain struct names its fields that differ."""
        ok, nk = _kind(old, path), _kind(new, path)
        if self.same(old, new):
            return
        if ok == nk == "struct":
            of, nf = _fields(old, path), _fields(new, path)
            if len(of) == len(nf) and self.same_but_fields(old, new):
                for i, (a, b) in enumerate(zip(of, nf)):
                    if not self.same(a, b):
                        sub = f"{path}.{_fname(a, i)}"
                        if self.same(a["type"], b["type"]):
                            self.report(sub, "layout changed")  # e.g. a native field offset
                        else:
                            self.strict(a["type"], b["type"], sub)
                return
        self.retyped(path, old, new)

    def evolvable(self, old: "dict[str, Any]", new: "dict[str, Any]", path: str) -> None:
        of, nf = _fields(old, path), _fields(new, path)
        ov, nv = _versions(old, len(of), path), _versions(new, len(nf), path)
        for k, (a, b) in enumerate(zip(ov, nv), 1):
            if a != b:
                self.report(path, f"version {k}'s field count edited ({a} -> {b})")
        new_index: "dict[str, int]" = {}
        for j, f in enumerate(nf):
            new_index.setdefault(_fname(f, j), j)
        for i in range(min(len(of), len(nf))):
            name = _fname(of[i], i)
            sub = f"{path}.{name}"
            moved = new_index.get(name)
            if moved is not None and moved != i and not _POSITIONAL.fullmatch(name):
                self.report(sub, f"reordered (was field {i}, now field {moved})")
            self.field(of[i]["type"], nf[i]["type"], sub)
        for i in range(len(nf), len(of)):
            self.report(f"{path}.{_fname(of[i], i)}", "removed (retire it instead of removing it)")


def _top(desc: "dict[str, Any]", which: str) -> "tuple[str, int, dict[str, Any]]":
    version = desc.get("bin_serializer_schema")
    if type(version) is not int or version != 1:
        raise DescriptionError(f"{which}: 'bin_serializer_schema' must be 1, not {version!r:.40}")
    fmt = desc.get("format")
    if not isinstance(fmt, str) or fmt not in _FORMATS:
        raise DescriptionError(f"{which}: 'format' {fmt!r:.40} is not one of {_FORMATS}")
    mid = desc.get("message_id", 0)
    if type(mid) is not int or not 0 <= mid <= 0xFFFFFFFF:
        raise DescriptionError(f"{which}: 'message_id' must be an integer 0 .. 2**32-1, not {mid!r:.40}")
    root = desc.get("type")
    _kind(root, f"{which}: type")
    assert isinstance(root, dict)
    return fmt, mid, root


def _root_name(node: "dict[str, Any]") -> str:
    name = node.get("name")
    if node.get("kind") in ("struct", "evolvable") and isinstance(name, str) and name:
        short = name.split("<", 1)[0].rsplit("::", 1)[-1].strip()
        if short:
            return short[:200]
    return "<root>"


def breaking_changes(old: Any, new: Any) -> "list[str]":
    """Every change from description `old` (the one data and readers were made
    with) to `new` that breaks reading, one line each naming the field path
    (``Config.limits.max_users: retyped (uint 2 -> sint 2)``); [] when the
    new description is compatible. Each is JSON text (str / bytes) or a
    parsed dict. A description that cannot be read raises DescriptionError."""
    from .schema import parse
    try:
        od = parse(old)
        nd = parse(new)
        ofmt, omid, oroot = _top(od, "old description")
        nfmt, nmid, nroot = _top(nd, "new description")
        root = _root_name(oroot)
        out: "list[str]" = []
        if ofmt != nfmt:
            out.append(f"{root}: format changed ({ofmt} -> {nfmt})")
        if omid != nmid:
            out.append(f"{root}: message id changed ({omid} -> {nmid})")
        if ofmt != nfmt:
            return out  # every integer's encoding differs: nothing else to say
        c = _Checker(nfmt)
        if _kind(oroot, root) == _kind(nroot, root) == "evolvable":
            c.evolvable(oroot, nroot, root)
        else:
            c.strict(oroot, nroot, root)
        return out + c.out
    except RecursionError:
        raise DescriptionError("description nests too deeply") from None
