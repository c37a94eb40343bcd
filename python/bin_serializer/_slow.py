"""Reference interpreter: decodes with full offset/path tracking, and explains
why a value cannot be encoded.

The generated fast path (``_codegen.py``) only signals *that* input is
malformed; when it does, the same bytes are decoded again here to raise a
``DecodeError`` saying what and where. The interpreter is also an independent
implementation of the format that the tests compare the fast path against.
"""

from __future__ import annotations

import os
import struct
import sys
import types
from typing import Any

from ._schema import (COMPACT, VARINT_LAST_MAX, VARINT_MAX_LEN, ArrayN, BitsetN, BoolN, BytesN, EnumN, ListN,
                      MapN, MonostateN, Node, OptionalN, ScalarN, SetN, StrN, StructN, TupleN, VariantN,
                      element_min, is_varint, layout, min_size, unzigzag)
from .errors import DecodeError, EncodeError, ErrorKind as K
from .types import Monostate, Variant

_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_LEAF_STRUCTS: dict = {}


def _leaf_struct(code: str) -> struct.Struct:
    s = _LEAF_STRUCTS.get(code)
    if s is None:
        s = _LEAF_STRUCTS[code] = struct.Struct("<" + code)
    return s


def format_path(root: str, segs: list) -> str:
    out = [root]
    for s in segs:
        if isinstance(s, int):
            out.append(f"[{s}]")
        else:
            out.append(s if s[:1] in "[<" else f".{s}")
    return "".join(out)


def root_name(node: Node) -> str:
    return node.name if isinstance(node, StructN) else node.describe()


class _Reader:
    __slots__ = ("buf", "end", "native", "path", "root", "build")

    def __init__(self, buf, native: bool, root: str, build: bool = True) -> None:
        self.buf = buf
        self.end = len(buf)
        self.native = native
        self.path: list = []
        self.root = root
        # False: check the input only; no dataclass instance is built (no user
        # code runs). _KEY: inside a map key or set element of such a check,
        # whose values the duplicate check compares: instances are _Shadow
        # tuples (no user code runs either)
        self.build: Any = build

    def fail(self, kind: str, offset: int, detail: str, extra: tuple = (), needed: "int | None" = None):
        raise DecodeError(kind, offset, format_path(self.root, self.path + list(extra)), detail, needed)

    def need(self, pos: int, n: int, what: str, extra: tuple = ()) -> None:
        if pos + n > self.end:
            have = max(0, self.end - pos)
            self.fail(K.TRUNCATED, pos, f"{what} needs {n} byte{'s' if n != 1 else ''}, "
                      f"{have} remain{'s' if have == 1 else ''}", extra, needed=pos + n)

    def varint(self, pos: int, size: int, what: str) -> "tuple[int, int]":
        """Compact: the unsigned LEB128 varint of an integer of `size` bytes at
        pos -> (value, position after it). Every failure is reported at pos."""
        maxlen = VARINT_MAX_LEN[size]
        last = VARINT_LAST_MAX[size]
        x = 0
        for i in range(maxlen):
            if pos + i >= self.end:
                self.fail(K.TRUNCATED, pos, f"{what} (varint) ends after {i} byte{'s' if i != 1 else ''}, "
                          f"the input ends there", needed=self.end + 1)
            b = self.buf[pos + i]
            if i == maxlen - 1 and b > last:
                if b & 0x80:
                    self.fail(K.INVALID_VARINT, pos, f"{what} varint longer than {maxlen} bytes "
                              f"(the most a {8 * size}-bit integer takes)")
                self.fail(K.INVALID_VARINT, pos, f"{what} varint holds bits beyond {8 * size} bits "
                          f"(last byte {b:#04x} > {last:#04x})")
            x |= (b & 0x7F) << (7 * i)
            if b < 0x80:
                if i and b == 0:
                    self.fail(K.INVALID_VARINT, pos, f"{what} varint of {i + 1} bytes is not in its shortest "
                              f"form (last byte 0x00)")
                return x, pos + i + 1
        raise AssertionError("unreachable")

    def count(self, pos: int, per_item: int, what: str) -> "tuple[int, int]":
        if self.native is COMPACT:
            n, after = self.varint(pos, 8, f"{what} length prefix")
        else:
            self.need(pos, 8, f"{what} length prefix")
            (n,) = _U64.unpack_from(self.buf, pos)
            after = pos + 8
        left = self.end - after
        if n > left // per_item:
            unit = "bytes" if per_item == 1 else f"elements of at least {per_item} bytes"
            self.fail(K.LENGTH_EXCEEDS_INPUT, pos,
                      f"{what} declares {n} {unit} but only {left} byte{'s' if left != 1 else ''} "
                      f"follow{'s' if left == 1 else ''} the length prefix",
                      needed=after + n * per_item)
        return n, after


def slow_decode(node: Node, native: bool, buf, pos: int, build: bool = True) -> "tuple[Any, int]":
    """(value, position after it), or the DecodeError of the input. With
    build=False the input is only checked: the value is not built (it may
    be None or hold None for each dataclass instance), so no ``__post_init__``
    or other user code runs, but the same errors are raised."""
    r = _Reader(buf, native, root_name(node), build)
    try:
        return _dec(r, node, pos)
    except RecursionError:
        raise DecodeError(K.LIMIT_EXCEEDED, pos, r.root, "nesting too deep for the Python interpreter "
                          "(recursive schema)") from None


def _dec(r: _Reader, node: Node, pos: int) -> "tuple[Any, int]":
    lay = layout(node, r.native)
    if lay is not None:
        values = []
        blocks = _blocks(node, r.native)
        for k, leaf in enumerate(lay.leaves):
            at = pos + leaf.offset
            block = blocks[k]
            if block is None:
                r.need(at, leaf.size, leaf.node.describe(), _segs(leaf.path))
            elif block[0] == leaf.offset:  # the first leaf of an array read as one block
                r.need(at, block[1], block[3], block[2])
            (v,) = _leaf_struct(leaf.code).unpack_from(r.buf, at)
            values.append(_check_leaf(r, leaf, v, at, pos))
        r.need(pos, lay.size, f"{node.describe()} (with padding)")
        it = iter(values)
        return _build(r, node, it), pos + lay.size
    if is_varint(node, r.native):  # compact integers
        s = node.spec
        u, end = r.varint(pos, s.size, node.describe())
        v = unzigzag(u) if s.signed else u
        if isinstance(node, EnumN):
            if node.is_flag:
                return (node.cls(v) if r.build else v), end
            m = node.members.get(v)
            if m is None:
                r.fail(K.INVALID_ENUM, pos, f"{v} is not a value of {node.cls.__name__} "
                       f"(members: {_members(node)})")
            return m, end
        return v, end
    if isinstance(node, StrN):
        n, pos = r.count(pos, 1, "string")
        raw = bytes(r.buf[pos:pos + n])
        try:
            return raw.decode("utf-8"), pos + n
        except UnicodeDecodeError as e:
            r.fail(K.INVALID_UTF8, pos + e.start, f"string bytes are not UTF-8 ({e.reason} at string byte "
                   f"{e.start}); use a `bytes` field for raw std::string contents")
    if isinstance(node, BytesN):
        n, pos = r.count(pos, 1, "bytes")
        return bytes(r.buf[pos:pos + n]), pos + n
    if isinstance(node, ListN):
        n, pos = r.count(pos, element_min(node.elem, r.native), "list")
        out = []
        for i in range(n):
            r.path.append(i)
            v, pos = _dec(r, node.elem, pos)
            r.path.pop()
            out.append(v)
        return (_container(node, out) if r.build else out), pos
    if isinstance(node, ArrayN):
        out = []
        for i in range(node.n):
            r.path.append(i)
            v, pos = _dec(r, node.elem, pos)
            r.path.pop()
            out.append(v)
        return (_container(node, out) if r.build else out), pos
    if isinstance(node, OptionalN):
        r.need(pos, 1, "optional presence byte")
        flag = r.buf[pos]
        if flag == 0:
            return None, pos + 1
        if flag != 1:
            r.fail(K.INVALID_OPTIONAL_FLAG, pos, f"optional presence byte is {flag:#04x}, not 0 or 1")
        return _dec(r, node.inner, pos + 1)
    if isinstance(node, VariantN):
        if r.native is COMPACT:
            idx, after = r.varint(pos, 4, "variant index")
        else:
            r.need(pos, 4, "variant index")
            (idx,) = _U32.unpack_from(r.buf, pos)
            after = pos + 4
        if idx >= len(node.alts):
            r.fail(K.VARIANT_INDEX_OUT_OF_RANGE, pos,
                   f"variant index {idx} but {node.describe()} has {len(node.alts)} alternatives")
        alt = node.alts[idx]
        r.path.append(f"<{idx}:{alt.describe()}>")
        v, pos = _dec(r, alt, after)
        r.path.pop()
        return (Variant(idx, v) if node.tagged else v), pos
    if isinstance(node, TupleN):
        out = []
        for i, e in enumerate(node.elems):
            r.path.append(i)
            v, pos = _dec(r, e, pos)
            r.path.pop()
            out.append(v)
        return tuple(out), pos
    if isinstance(node, MapN):
        per = max(1, min_size(node.key, r.native) + min_size(node.value, r.native))
        n, pos = r.count(pos, per, "map")
        d: dict = {}
        build = r.build
        for i in range(n):
            at = pos
            r.path.append(f"[#{i}].key")
            r.build = True if build is True else _KEY  # values for the duplicate check, without user code
            try:
                k, pos = _dec(r, node.key, pos)
            finally:
                r.build = build
            if k in d:
                r.fail(K.DUPLICATE_KEY, at, f"key {k!r} appears twice in the map")
            r.path[-1] = f"[#{i}].value"
            v, pos = _dec(r, node.value, pos)
            r.path.pop()
            d[k] = v
        return d, pos
    if isinstance(node, SetN):
        n, pos = r.count(pos, element_min(node.elem, r.native), "set")
        s: set = set()
        build = r.build
        for i in range(n):
            at = pos
            r.path.append(f"[#{i}]")
            r.build = True if build is True else _KEY  # values for the duplicate check, without user code
            try:
                k, pos = _dec(r, node.elem, pos)
            finally:
                r.build = build
            if k in s:
                r.fail(K.DUPLICATE_KEY, at, f"element {k!r} appears twice in the set")
            r.path.pop()
            s.add(k)
        return (frozenset(s) if node.frozen else s), pos
    if isinstance(node, StructN) and node.versions is not None:
        from . import _evolution

        def field(i, at):
            r.path.append(node.fields[i][0])
            v, at = _dec(r, node.fields[i][1], at)
            r.path.pop()
            return v, at
        return _evolution.decode(node, r.buf, pos, field, lambda kind, at, detail: r.fail(kind, at, detail),
                                 True if r.build is True else _shadow if r.build else False)
    if isinstance(node, StructN):
        vals = []
        for name, f in node.fields:
            r.path.append(name)
            v, pos = _dec(r, f, pos)
            r.path.pop()
            vals.append(v)
        return _made(r, node, vals), pos
    if isinstance(node, MonostateN):
        return Monostate(), pos
    raise AssertionError(node)


def runs_user_code(node: Node) -> bool:
    """Whether decoding `node` calls a dataclass's own __init__ or
    __post_init__ (anything but the __init__ @dataclass generated)."""
    from ._accel import _children, fast_construct_ok
    seen: set = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, StructN) and (
                n.versions is not None or not fast_construct_ok(n.cls, [name for name, _ in n.fields])):
            return True
        stack.extend(_children(n))
    return False


def _segs(path: tuple) -> tuple:
    return tuple(path)


_BLOCKS: dict = {}


def _blocks(node: Node, native) -> list:
    """For each leaf of node's layout: None, or (offset, size, path, what) of
    the block it belongs to: a value the C++ reader copies as one block of
    bytes (category bulk: a fixed-size array of fixed-width numbers, a
    trivially copyable struct in the native format, a padding-free struct of
    such values in the portable and compact formats; see _is_block). Input
    that ends inside it is reported at the block's start, for the block (not
    the first missing leaf); the outermost such value counts."""
    key = (id(node), native)
    hit = _BLOCKS.get(key)
    if hit is not None and hit[0] is node:
        return hit[1]
    out: list = []
    for leaf in layout(node, native).leaves:
        block = None
        cur = node
        for depth in range(len(leaf.path) + 1):
            if isinstance(cur, (ArrayN, StructN)) and _is_block(cur, native):
                block = (depth, layout(cur, native).size)
                break
            if depth == len(leaf.path):
                break
            cur = _child(cur, leaf.path[depth])
        out.append(block)
    # turn (depth, size) into (offset, size, path, what): the block starts at
    # the offset of the first leaf sharing the path prefix
    result: list = []
    starts: dict = {}
    for leaf, block in zip(layout(node, native).leaves, out):
        if block is None:
            result.append(None)
            continue
        depth, size = block
        prefix = tuple(leaf.path[:depth])
        start = starts.setdefault(prefix, leaf.offset)
        cur = node
        for seg in prefix:
            cur = _child(cur, seg)
        result.append((start, size, prefix, cur.describe()))
    _BLOCKS[key] = (node, result)
    return result


def _is_block(node: Node, native) -> bool:
    """Whether the C++ counterpart of `node` is read as one block (its
    category is bulk, core/classify.hpp): native: trivially copyable and made
    of numbers, bools, enums, non-empty arrays and structs of them (not a
    std::bitset, optional, variant or tuple, whose codecs have layouts of
    their own); portable and compact: those, when their object bytes are
    their encoding (the packed fact of core/classify.hpp): no varint and no padding anywhere
    (a struct's field sizes add up to its sizeof)."""
    key = (native, "block")
    hit = node._layout.get(key)
    if hit is None:
        hit = node._layout[key] = _bulk(node, native)
    return hit


def _bulk(node: Node, native) -> bool:
    if isinstance(node, (ScalarN, EnumN)):
        return not is_varint(node, native)
    if isinstance(node, BoolN):
        return True
    if isinstance(node, ArrayN):
        return node.container != "ndarray" and node.n > 0 and _bulk(node.elem, native)
    if isinstance(node, StructN):
        if node.versions is not None or not node.fields or node.trivial is False:
            return False
        if not all(_bulk(f, native) for _, f in node.fields):
            return False
        if native is True:
            return True
        at, align = 0, 1  # the C++ struct's memory layout: padding-free?
        for _, f in node.fields:
            sub = layout(f, True, True)
            if sub is None or at % sub.align:
                return False
            at += sub.size
            align = max(align, sub.align)
        return at % align == 0
    return False


def _child(node: Node, seg) -> Node:
    if isinstance(node, ArrayN):
        return node.elem
    if isinstance(node, TupleN):
        return node.elems[seg]
    if isinstance(node, StructN):
        return dict(node.fields)[seg]
    raise AssertionError(node)


def _container(node, items: list):
    if node.container == "tuple":
        return tuple(items)
    if node.container == "records":
        import numpy as np
        from ._schema import records_dtype
        dt = records_dtype(node.elem, False)
        return np.array([tuple(getattr(x, n) for n in dt.names) for x in items], dtype=dt)
    if node.container == "ndarray":
        import numpy as np
        code = node.elem.spec.code
        return np.array(items, dtype="<" + {"B": "u1", "H": "u2", "I": "u4", "Q": "u8", "b": "i1", "h": "i2",
                                             "i": "i4", "q": "i8", "f": "f4", "d": "f8"}[code])
    return items


def _check_leaf(r: _Reader, leaf, v, at: int, base: int):
    node = leaf.node
    if isinstance(node, BoolN):
        if v > 1:
            r.fail(K.INVALID_BOOL, at, f"bool byte is {v:#04x}, not 0 or 1", _segs(leaf.path))
        return v == 1
    if isinstance(node, EnumN):
        if node.is_flag:
            return node.cls(v)
        m = node.members.get(v)
        if m is None:
            r.fail(K.INVALID_ENUM, at, f"{v} is not a value of {node.cls.__name__} "
                   f"(members: {_members(node)})", _segs(leaf.path))
        return m
    if isinstance(node, BitsetN):
        if isinstance(v, bytes):
            v = int.from_bytes(v, "little")
        if v >> node.n:
            size = node.size(r.native)
            # like the C++ codec: portable reports the last byte, native the bitset's start
            off = at if r.native else at + size - 1
            r.fail(K.INVALID_BITSET, off, f"bits set at positions >= {node.n} (value {v:#x})",
                   _segs(leaf.path))
        return v
    return v


def _build(r: _Reader, node: Node, it):
    if isinstance(node, (ScalarN, BoolN, EnumN)):
        return next(it)
    if isinstance(node, BitsetN):
        return next(it) if node.size(r.native) else 0
    if isinstance(node, MonostateN):
        return Monostate()
    if isinstance(node, ArrayN):
        items = [_build(r, node.elem, it) for _ in range(node.n)]
        return _container(node, items) if r.build else items
    if isinstance(node, TupleN):
        return tuple(_build(r, e, it) for e in node.elems)
    if isinstance(node, StructN):
        vals = [_build(r, f, it) for _, f in node.fields]
        return _made(r, node, vals)
    raise AssertionError(node)


class _Shadow(tuple):
    """What a dataclass instance inside a map key or set element decodes to
    while the input is only checked (build=False): (class, *field values),
    equal and hashing as the @dataclass-generated __eq__/__hash__ do, without
    running user code (__init__, __post_init__)."""

    def __repr__(self) -> str:
        cls = self[0]
        names = [n for n in getattr(cls, "__dataclass_fields__", {})]
        return f"{cls.__qualname__}({', '.join(f'{n}={v!r}' for n, v in zip(names, self[1:]))})"


# _Reader.build inside map keys and set elements of an input being checked
_KEY = "key"


def _shadow(node: StructN, vals: list) -> _Shadow:
    return _Shadow((node.cls, *vals))


def _made(r: "_Reader", node: StructN, vals: list):
    if r.build is True:
        return _construct(node, vals)
    return _shadow(node, vals) if r.build else None


def _construct(node: StructN, vals: list):
    args = []
    kwargs = {}
    for (name, _), v in zip(node.fields, vals):
        if name in node.kw_only:
            kwargs[name] = v
        else:
            args.append(v)
    return node.cls(*args, **kwargs)


# ---------------------------------------------------------------------------
# encoding diagnosis


def diagnose(node: Node, native: bool, value: Any) -> "EncodeError | None":
    """The EncodeError explaining why `value` cannot be encoded as `node`
    (None if no reason is found)."""
    return diagnose_fault(node, native, value)[0]


def diagnose_fault(node: Node, native: bool, value: Any) -> "tuple[EncodeError | None, bool]":
    """(error, by_user_code): why `value` cannot be encoded as `node`, found
    without running user code: ``__index__`` and ``__float__`` of objects that
    are not ints or floats are not called (the encoder that failed called
    them already). When nothing else is wrong, the fault is put at the first
    such object (by_user_code True): what its method did (raise, return a
    value that does not fit) is the only thing left that can have failed."""
    segs: list = []
    root = root_name(node)
    user: list = []  # [path, message] of the first value converted by user code
    try:
        msg = _why(node, native, value, segs, user)
    except RecursionError:
        return EncodeError(root, "nesting too deep (recursive value)"), False
    if msg is None:
        if user:
            return EncodeError(format_path(root, user[0]), user[1]), True
        return None, False
    return EncodeError(format_path(root, segs), msg), False


_MISSING = object()
_USER = object()
_LIB_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _class_attr(v: Any, name: str) -> Any:
    for base in type(v).__mro__:
        d = base.__dict__
        if name in d:
            return d[name]
    return _MISSING


def _plain_attr(v: Any, name: str) -> Any:
    """The attribute `name` of `v` when reading it runs no user code (an
    instance __dict__ entry, a __slots__ member, a plain class attribute);
    _USER when it would (a property or other descriptor, __getattribute__,
    __getattr__); _MISSING when there is none."""
    t = type(v)
    if t.__getattribute__ is not object.__getattribute__:
        return _USER
    attr = _class_attr(v, name)
    get = getattr(type(attr), "__get__", None) if attr is not _MISSING else None
    if get is not None:
        if isinstance(attr, types.MemberDescriptorType):  # __slots__
            try:
                return attr.__get__(v, t)
            except AttributeError:
                return _MISSING
        if hasattr(type(attr), "__set__") or hasattr(type(attr), "__delete__"):
            return _USER  # a data descriptor (property) wins over the instance __dict__
    try:
        d = object.__getattribute__(v, "__dict__")
    except AttributeError:
        d = None
    if d is not None and type(d) is dict and name in d:
        return d[name]
    if get is not None:
        return _USER
    if attr is not _MISSING:
        return attr
    return _USER if _class_attr(v, "__getattr__") is not _MISSING else _MISSING


def _raised_by_user(e: "BaseException | None") -> bool:
    """Whether `e` was raised by code outside this package (its last traceback
    entry is not a file of the package or generated code)."""
    tb = e.__traceback__ if e is not None else None
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    fn = tb.tb_frame.f_code.co_filename
    return not (os.path.abspath(fn).startswith(_LIB_DIR) or fn.startswith("<bin_serializer generated"))


def user_exception(exc: BaseException) -> "BaseException | None":
    """The exception user code (__index__, __float__, a property getter)
    raised during a failed encode, or None: `exc` itself (the compiled
    codec, or user code the generated one called directly), or the one
    struct.pack replaced with struct.error (a raising __float__ or a
    TypeError-raising __index__: the original is its __context__)."""
    if _raised_by_user(exc):
        return exc
    if isinstance(exc, struct.error) and str(exc).startswith("required argument is not") and \
            _raised_by_user(exc.__context__):
        return exc.__context__
    return None


def _tname(v: Any) -> str:
    return type(v).__name__


def _why(node: Node, native: bool, v: Any, segs: list, user: list) -> "str | None":
    if isinstance(node, ScalarN):
        s = node.spec
        if s.is_float:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                if not hasattr(v, "__float__") or isinstance(v, (str, bytes)):
                    return f"expected a float for {s.name}, got {_tname(v)}"
                if not user:  # its __float__ is user code: not called again
                    user[:] = [list(segs), f"the __float__ of a {_tname(v)} (for {s.name}) raised or did not "
                                           f"return a float"]
                return None
            if s.code == "f":
                try:
                    struct.pack("<f", v)
                except (OverflowError, struct.error, TypeError) as e:
                    return f"{v!r} does not fit in f32 ({e})"
            return None
        if not isinstance(v, int):
            if not hasattr(v, "__index__"):
                return f"expected an int for {s.name}, got {_tname(v)}"
            if not user:  # its __index__ is user code: not called again
                user[:] = [list(segs), f"the __index__ of a {_tname(v)} (for {s.name}) raised or returned a "
                                       f"value out of range ({s.min}..{s.max})"]
            return None
        iv = int.__index__(v)  # the int's own value, as the encoders read it
        if not (s.min <= iv <= s.max):
            return f"{iv} is out of range for {s.name} ({s.min}..{s.max})"
        return None
    if isinstance(node, BoolN):
        if v is True or v is False or (type(v) is int and v in (0, 1)):
            return None
        return f"expected a bool, got {v!r}"
    if isinstance(node, EnumN):
        if not isinstance(v, int):
            return f"expected a {node.cls.__name__}, got {_tname(v)}"
        if not node.is_flag and v not in node.members:
            return f"{v!r} is not a member of {node.cls.__name__}"
        if not (node.spec.min <= int(v) <= node.spec.max):
            return f"{int(v)} is out of range for {node.cls.__name__}'s underlying {node.spec.name}"
        return None
    if isinstance(node, BitsetN):
        if not isinstance(v, int) or isinstance(v, bool):
            return f"expected an int holding the bits of Bitset({node.n}), got {_tname(v)}"
        if v < 0 or v >> node.n:
            return f"{v:#x} does not fit in Bitset({node.n}) (0 <= value < 2**{node.n})"
        return None
    if isinstance(node, StrN):
        if not isinstance(v, str):
            return f"expected a str, got {_tname(v)}"
        try:
            v.encode("utf-8")
        except UnicodeEncodeError as e:
            return f"string is not encodable as UTF-8 ({e.reason} at index {e.start})"
        return None
    if isinstance(node, BytesN):
        if not isinstance(v, (bytes, bytearray, memoryview)):
            return f"expected bytes, got {_tname(v)}"
        return None
    if isinstance(node, ListN) and node.container == "records":
        np = sys.modules.get("numpy")
        if np is None or not isinstance(v, np.ndarray) or v.ndim != 1 or v.dtype.names is None:
            return f"expected a 1-D numpy structured array of {node.elem.describe()} records, got {_tname(v)}"
        return None
    if isinstance(node, (ListN, ArrayN)):
        np = sys.modules.get("numpy")
        is_nd = np is not None and isinstance(v, np.ndarray)
        if node.container == "ndarray" or (is_nd and isinstance(node.elem, ScalarN)):
            if not (is_nd or isinstance(v, (list, tuple))):
                return f"expected a numpy array or sequence, got {_tname(v)}"
            if is_nd:
                if v.ndim != 1:
                    return f"expected a 1-D array, got {v.ndim} dimensions"
                v = v.tolist()
        elif not isinstance(v, (list, tuple)):
            return f"expected a list, got {_tname(v)}"
        if isinstance(node, ArrayN) and len(v) != node.n:
            return f"fixed-size array needs exactly {node.n} elements, got {len(v)}"
        for i, e in enumerate(v):
            segs.append(i)
            msg = _why(node.elem, native, e, segs, user)
            if msg:
                return msg
            segs.pop()
        return None
    if isinstance(node, OptionalN):
        return None if v is None else _why(node.inner, native, v, segs, user)
    if isinstance(node, VariantN):
        if node.tagged:
            if not isinstance(v, Variant):
                return f"expected Variant(index, value), got {_tname(v)}"
            if not (isinstance(v.index, int) and 0 <= v.index < len(node.alts)):
                return f"variant index {v.index!r} out of range ({len(node.alts)} alternatives)"
            idx, x = v.index, v.value
        else:
            idx = node.index_of(v)
            if idx is None:
                return (f"{_tname(v)} is none of the alternatives of {node.describe()}")
            x = v
        segs.append(f"<{idx}:{node.alts[idx].describe()}>")
        msg = _why(node.alts[idx], native, x, segs, user)
        if msg:
            return msg
        segs.pop()
        return None
    if isinstance(node, TupleN):
        if not isinstance(v, (tuple, list)) or len(v) != len(node.elems):
            return f"expected a tuple of {len(node.elems)} elements, got {v!r:.80}"
        for i, (e, x) in enumerate(zip(node.elems, v)):
            segs.append(i)
            msg = _why(e, native, x, segs, user)
            if msg:
                return msg
            segs.pop()
        return None
    if isinstance(node, MapN):
        if not isinstance(v, dict):
            return f"expected a dict, got {_tname(v)}"
        for k, x in v.items():
            segs.append(f"[{k!r}]")
            msg = _why(node.key, native, k, segs, user) or _why(node.value, native, x, segs, user)
            if msg:
                return msg
            segs.pop()
        return None
    if isinstance(node, SetN):
        if not isinstance(v, (set, frozenset)):
            return f"expected a set, got {_tname(v)}"
        for i, x in enumerate(v):
            segs.append(f"[#{i}]")
            msg = _why(node.elem, native, x, segs, user)
            if msg:
                return msg
            segs.pop()
        return None
    if isinstance(node, StructN):
        if not isinstance(v, node.cls):
            return f"expected a {node.name}, got {_tname(v)}"
        for i, (name, f) in enumerate(node.fields):
            segs.append(name)
            x = node.fixed_value(i) if i in node.retired else _plain_attr(v, name)
            if x is _MISSING:
                return f"{node.name} object has no attribute {name!r}"
            if x is _USER:  # a property (or another descriptor): user code, not run again
                if not user:
                    user[:] = [list(segs), f"the getter of {node.name}.{name} (a {_tname(_class_attr(v, name))}) "
                                           f"raised or returned a value that cannot be encoded"]
                segs.pop()
                continue
            msg = _why(f, native, x, segs, user)
            if msg:
                return msg
            segs.pop()
        return None
    if isinstance(node, MonostateN):
        return None if isinstance(v, Monostate) or v is None else f"expected Monostate(), got {_tname(v)}"
    return None


def _members(node: EnumN) -> str:
    """The values of an enum for a message (a long EnumOf range as lo .. hi)."""
    if node.range is not None and len(node.members) > 16:
        return f"{node.range[0]} .. {node.range[1]}"
    return str(sorted(node.members))
