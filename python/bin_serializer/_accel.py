"""Schema nodes -> the plan table of the compiled codec (``_cext.c``).

The C extension knows no schema rules: this module takes every decision
(layouts and padding, count bounds, which numbers and classes are involved)
and hands them over as a flat table, one entry per node, children referred
to by index (so recursive dataclasses are cycles in the table). An entry is

    (kind, flags, code, size, n, per, kids, offsets, order, npos, objs)

``available()`` says whether the extension was built; everything else in the
package works without it (the generated-Python codec of ``_codegen.py``).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any

from . import _codegen, _evolution
from ._schema import (COMPACT, ArrayN, BitsetN, BoolN, BytesN, EnumN, ListN, MapN, MonostateN, Node, OptionalN,
                      ScalarN, SetN, StrN, StructN, TupleN, VariantN, cxx_trivially_copyable, element_min,
                      is_varint, layout, min_size, records_dtype)
from .types import Monostate, Variant

try:
    if os.environ.get("BIN_SERIALIZER_PURE_PYTHON", "") not in ("", "0"):
        raise ImportError("BIN_SERIALIZER_PURE_PYTHON is set")
    from . import _cext
except ImportError as _e:  # no compiler at install time, another interpreter, or forced off
    _cext = None
    IMPORT_ERROR: "ImportError | None" = _e
else:
    IMPORT_ERROR = None

K_SCALAR, K_BOOL, K_ENUM, K_FLAG, K_BITSET, K_STR, K_BYTES, K_LIST, K_ARRAY = range(9)
K_OPTIONAL, K_VARIANT, K_MONOSTATE, K_TUPLE, K_MAP, K_SET, K_STRUCT, K_EVOLVABLE = range(9, 17)

F_TUPLE, F_FROZEN, F_TAGGED, F_PADDED, F_FASTNEW, F_NDARRAY, F_SLOTS, F_RECURSIVE = 1, 2, 4, 8, 16, 32, 64, 128
# compact: the entry's integer (scalar, enum, flag), count prefix (str, bytes,
# list, map, set) or index (variant) is a varint
F_VARINT = 256

_DTYPES = {"B": "u1", "H": "u2", "I": "u4", "Q": "u8", "b": "i1", "h": "i2", "i": "i4", "q": "i8",
           "f": "f4", "d": "f8"}


def available() -> bool:
    return _cext is not None


def _nd_from(buf, dtype, n, pos):
    return _codegen._nd_copy(buf, dtype, n, pos)


class Trailing(Exception):
    """Raised by Program.decode when bytes are left after the message; args[0] is its end."""


if _cext is not None:
    _cext.init(_codegen._Fail, Trailing, Variant, Monostate(), _nd_from, _codegen._aslist, _codegen._setorder)


def _dtype(code: str):
    import numpy as np
    return np.dtype("<" + _DTYPES[code])


def fast_construct_ok(cls: type, names: list) -> bool:
    """Whether an instance can be made with object.__new__ and attribute
    stores instead of calling the class: its __init__ is the one @dataclass
    generated (parameters = the wire fields, in order), nothing runs after it
    (__post_init__), and attribute stores are plain. Calling the class must
    do nothing else either: no metaclass __call__, not abstract (calling an
    abstract class raises)."""
    if getattr(cls, "__post_init__", None) is not None:
        return False
    if type(cls).__call__ is not type.__call__ or getattr(cls, "__abstractmethods__", None):
        return False
    if cls.__new__ is not object.__new__:
        return False
    params = getattr(cls, "__dataclass_params__", None)
    if params is None:
        return False
    if cls.__setattr__ is not object.__setattr__ and not params.frozen:
        return False
    if any(not f.init for f in dataclasses.fields(cls)) or len(dataclasses.fields(cls)) != len(names):
        return False
    init = cls.__init__
    code = getattr(init, "__code__", None)
    if code is None or code.co_filename not in ("<string>",) or not init.__qualname__.endswith("__init__"):
        return False
    argc = code.co_argcount + code.co_kwonlyargcount
    if list(code.co_varnames[1:argc]) != list(names):
        return False
    return True


def _children(node: Node) -> list:
    if isinstance(node, (ListN, ArrayN, SetN)):
        return [node.elem]
    if isinstance(node, OptionalN):
        return [node.inner]
    if isinstance(node, VariantN):
        return list(node.alts)
    if isinstance(node, TupleN):
        return list(node.elems)
    if isinstance(node, MapN):
        return [node.key, node.value]
    if isinstance(node, StructN):
        return [f for _, f in node.fields]
    return []


def _contains(node: Node, target: Node) -> bool:
    """Whether `target` occurs inside `node` (a recursive schema when node is target)."""
    seen: set = set()
    stack = _children(node)
    while stack:
        n = stack.pop()
        if n is target:
            return True
        if id(n) not in seen:
            seen.add(id(n))
            stack.extend(_children(n))
    return False


def _frozen(cls: type) -> bool:
    """Whether cls is itself a ``@dataclass(frozen=True)``: its generated
    ``__setattr__`` and ``__delattr__`` refuse every store on its instances,
    so the references an instance is made with are the ones it keeps."""
    params = cls.__dict__.get("__dataclass_params__")
    return params is not None and bool(params.frozen)


def slot_offsets(cls: type, names: list) -> "tuple | None":
    """The instance offsets of the fields when every one is a plain
    ``__slots__`` member (``@dataclass(slots=True)``) and instances have no
    ``__dict__``; else None."""
    if "__dict__" in dir(cls) or type(cls) is not type:
        return None
    out = []
    for name in names:
        descr = next((base.__dict__[name] for base in cls.__mro__ if name in base.__dict__), None)
        off = _cext.slot_offset(descr) if descr is not None else None
        if off is None:
            return None
        out.append(off)
    return tuple(out)


class _Builder:
    def __init__(self, native: bool, arrays: bool) -> None:
        self.native = native
        self.arrays = arrays
        self.entries: list = []
        self.index: dict = {}  # id(node) -> entry index (structs: shared, recursion)
        self.keep: list = []

    def add(self, node: Node) -> int:
        """The index of node's entry (made on first sight)."""
        key = id(node)
        i = self.index.get(key)
        if i is not None:
            return i
        i = len(self.entries)
        self.entries.append(None)
        self.index[key] = i
        self.keep.append(node)
        self.entries[i] = self._entry(node)
        return i

    def _entry(self, node: Node) -> tuple:
        e = self._entry_fmt(node)
        if self.native is COMPACT and (is_varint(node, COMPACT) or isinstance(
                node, (StrN, BytesN, ListN, MapN, SetN, VariantN))):
            e = (e[0], e[1] | F_VARINT) + e[2:]
        return e

    def _entry_fmt(self, node: Node) -> tuple:
        native = self.native
        E = _entry
        if isinstance(node, ScalarN):
            return E(K_SCALAR, code=node.spec.code, size=node.spec.size)
        if isinstance(node, BoolN):
            return E(K_BOOL, size=1)
        if isinstance(node, EnumN):
            if node.is_flag:
                return E(K_FLAG, code=node.spec.code, size=node.spec.size, objs=(node.cls,))
            return E(K_ENUM, code=node.spec.code, size=node.spec.size, objs=(node.members, node.cls))
        if isinstance(node, BitsetN):
            return E(K_BITSET, size=node.size(native), n=node.n)
        if isinstance(node, StrN):
            return E(K_STR)
        if isinstance(node, BytesN):
            return E(K_BYTES)
        if isinstance(node, ListN) and node.container == "records":
            lay = layout(node.elem, native)
            return E(K_LIST, flags=F_NDARRAY, size=lay.size, per=max(1, lay.size), kids=(self.add(node.elem),),
                     objs=(records_dtype(node.elem, native), None, _codegen._rec_bytes))
        if isinstance(node, ListN):
            nd = node.container == "ndarray" or (
                self.arrays and node.container == "list" and isinstance(node.elem, ScalarN))
            flags = (F_TUPLE if node.container == "tuple" else 0) | (F_NDARRAY if nd else 0)
            objs = (_dtype(node.elem.spec.code), node.elem.spec, _codegen._np_bytes) if nd else ()
            per = node.elem.spec.size if nd else max(1, element_min(node.elem, native))
            return E(K_LIST, flags=flags, size=node.elem.spec.size if nd else 0, per=per,
                     kids=(self.add(node.elem),), objs=objs)
        if isinstance(node, ArrayN):
            nd = node.container == "ndarray"
            flags = (F_TUPLE if node.container == "tuple" else 0) | (F_NDARRAY if nd else 0)
            objs = (_dtype(node.elem.spec.code), node.elem.spec, _codegen._np_bytes) if nd else ()
            return E(K_ARRAY, flags=flags, size=node.elem.spec.size if nd else 0, n=node.n,
                     kids=(self.add(node.elem),), objs=objs)
        if isinstance(node, OptionalN):
            return E(K_OPTIONAL, kids=(self.add(node.inner),))
        if isinstance(node, VariantN):
            kids = tuple(self.add(a) for a in node.alts)
            if node.tagged:
                return E(K_VARIANT, flags=F_TAGGED, kids=kids)
            return E(K_VARIANT, kids=kids, objs=(node.by_type, node.index_of))
        if isinstance(node, MonostateN):
            return E(K_MONOSTATE)
        if isinstance(node, TupleN):
            return E(K_TUPLE, kids=tuple(self.add(e) for e in node.elems))
        if isinstance(node, MapN):
            per = max(1, min_size(node.key, native) + min_size(node.value, native))
            return E(K_MAP, per=per, kids=(self.add(node.key), self.add(node.value)))
        if isinstance(node, SetN):
            per = element_min(node.elem, native)
            return E(K_SET, flags=F_FROZEN if node.frozen else 0, per=per, kids=(self.add(node.elem),))
        if isinstance(node, StructN):
            return self._struct(node)
        raise AssertionError(node)

    def _struct(self, node: StructN) -> tuple:
        names = [n for n, _ in node.fields]
        # placeholder so recursive references resolve; the kids are filled after
        kids = tuple(self.add(f) for _, f in node.fields)
        pos_idx = [i for i, n in enumerate(names) if n not in node.kw_only]
        kw_idx = [i for i, n in enumerate(names) if n in node.kw_only]
        order = tuple(pos_idx + kw_idx)
        kwnames = tuple(names[i] for i in kw_idx) if kw_idx else None
        inames = tuple(sys.intern(n) for n in names)
        if node.versions is not None:
            default = (lambda i, _node=node: _evolution.default_of(_node, i))
            objs = (node.cls, inames, kwnames, frozenset(node.versions), default)
            if node.retired or node.keep_unknown:  # retired fields, unknown fields kept: see dec_evolvable
                fixed = tuple((node.fixed_value(i),) if i in node.retired else None for i in range(len(names)))
                kept = (lambda v, _node=node: _evolution.kept_of(_node, v)) if node.keep_unknown else None
                objs += ((fixed, _evolution.builder(node), kept),)
                flags = 0
            else:  # every value (read or a default) is stored as the generated __init__ would
                flags = F_FASTNEW if fast_construct_ok(node.cls, names) else 0
            return _entry(K_EVOLVABLE, flags=flags, n=len(names), kids=kids, order=order, npos=len(pos_idx),
                          objs=objs)
        flags = F_RECURSIVE if _contains(node, node) else 0
        offsets: tuple = ()
        size = 0
        if self.native and cxx_trivially_copyable(node):
            flags |= F_PADDED
            at = 0
            offs = []
            for _, f in node.fields:
                sub = layout(f, True, True)
                at = -(-at // sub.align) * sub.align
                offs.append(at)
                at += sub.size
            offsets = tuple(offs)
            size = layout(node, True).size
        slots = None
        if fast_construct_ok(node.cls, names):
            flags |= F_FASTNEW
            slots = slot_offsets(node.cls, names)
            if slots is not None:
                flags |= F_SLOTS
                if _frozen(node.cls):
                    flags |= F_FROZEN  # see construct in _cext.c: untracked when it holds only atoms
                lay = layout(node, self.native)
                if not flags & F_PADDED and lay is not None:
                    size = lay.size  # the encoding's fixed size, reserved at once
        return _entry(K_STRUCT, flags=flags, size=size, n=len(names), kids=kids, offsets=offsets, order=order,
                      npos=len(pos_idx), objs=(node.cls, inames, kwnames, slots))


def _entry(kind: int, *, flags: int = 0, code: str = "", size: int = 0, n: int = 0, per: int = 1,
           kids: tuple = (), offsets: tuple = (), order: tuple = (), npos: int = 0, objs: tuple = ()) -> tuple:
    return (kind, flags, code, size, n, per, kids, offsets, order, npos, objs)


def program(node: Node, native: bool, arrays: bool) -> Any:
    """The compiled Program of `node` (requires the extension)."""
    b = _Builder(native, arrays)
    root = b.add(node)
    lay = layout(node, native)
    fixed = lay.size if lay is not None else -1
    prog = _cext.Program(tuple(b.entries), root, fixed)
    return prog


__all__ = ["available", "program", "fast_construct_ok", "IMPORT_ERROR"]
