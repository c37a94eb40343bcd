"""Compiles schema nodes into Python functions (generated source, exec'd once).

Design
------
* The fast path is straight-line generated code with no bookkeeping: runs of
  consecutive fixed-width leaves are one precompiled ``struct.Struct``
  (``unpack_from`` / ``pack``), a fixed-size dataclass is one Struct, a list of
  fixed-size elements is one ``iter_unpack`` (or one ``unpack_from`` of ``n``
  scalars), strings are one slice + decode.
* It detects every malformed input (``struct.error`` when the input is short,
  explicit checks for length prefixes, bools, flags, variant indices,
  duplicate keys; ``KeyError`` for an enum value that is no member;
  ``UnicodeDecodeError``) but does not say where. Any exception sends the
  caller to the reference interpreter (``_slow.py``), which decodes the same
  bytes again with full path and offset tracking and raises the precise
  ``DecodeError``. Errors cost a second pass; success costs nothing extra.
* Encoding works the same way: generated packers, and on any failure
  ``_slow.diagnose`` finds the offending field for ``EncodeError``.
* Every dataclass gets one decode and one encode function per compiler
  (format, numpy option), shared by all schemas that contain it; recursion
  goes through the shared namespace, so recursive dataclasses work.
"""

from __future__ import annotations

import array as _array
import linecache
import struct
import sys
from operator import index as _index

from ._schema import (COMPACT, VARINT_LAST_MAX, VARINT_MAX_LEN, Leaf, ArrayN, BitsetN, BoolN, BytesN, EnumN,
                      Layout, ListN, MapN, MonostateN, Node, OptionalN, ScalarN, SetN, StrN, StructN, TupleN,
                      VariantN, element_min, is_varint, layout, min_size, records_dtype, varint_bytes)
from .types import U64 as _U64
from .types import Monostate, Variant

LITTLE_ENDIAN_HOST = sys.byteorder == "little"

# Leaves beyond this many in one unpack are read through a tuple instead of
# one local variable each (keeps generated functions small).
_MAX_NAMED_LEAVES = 48


class _Fail(Exception):
    """Raised by generated code: malformed input / unencodable value. Carries no
    details; the reference interpreter finds them."""


def _tobool(x):
    if x is True or x is False:
        return x
    if isinstance(x, int) and not isinstance(x, bool) and (x == 0 or x == 1):
        return x == 1
    raise _Fail


def _changed():
    """A list changed size while its elements were encoded (by user code the
    encoding ran: __index__, __float__, ...): the count already written would
    be wrong. The same error as the compiled codec's."""
    raise RuntimeError("sequence changed size during encoding")


def _asbytes(x):
    if isinstance(x, (bytes, bytearray)):
        return bytes(x)
    if isinstance(x, memoryview):
        return x.tobytes()
    raise _Fail


def _aslist(x):
    if isinstance(x, (list, tuple)):
        return x
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, np.ndarray) and x.ndim == 1:
        return x.tolist()
    raise _Fail


def _asmap(x):
    if isinstance(x, dict):
        return x
    raise _Fail


def _setorder(s):
    if not isinstance(s, (set, frozenset)):
        raise _Fail
    try:
        return sorted(s)  # std::set order (ascending) when the elements are ordered
    except TypeError:
        return list(s)


def _asvariant(v):
    if isinstance(v, Variant):
        return v
    raise _Fail


# ---- compact varints (any failure raises; the reference interpreter explains it)

_V1 = [bytes((i,)) for i in range(128)]


def _rv(buf, pos, maxlen, last):
    """The unsigned varint at pos -> (value, position after it): at most maxlen
    bytes, the last of them <= last, shortest form only."""
    x = 0
    shift = 0
    for i in range(maxlen):
        b = buf[pos + i]  # IndexError: the input ends inside the varint
        if b < 0x80:
            if (i and not b) or (i == maxlen - 1 and b > last):
                raise _Fail
            return x | (b << shift), pos + i + 1
        if i == maxlen - 1:
            raise _Fail
        x |= (b & 0x7F) << shift
        shift += 7
    raise _Fail


def _rvlist(buf, pos, n, maxlen, last, signed):
    """n varints from pos -> (list, position after them)."""
    out = []
    ap = out.append
    for _ in range(n):
        b = buf[pos]
        if b < 0x80:
            pos += 1
            ap(b)
        else:
            b, pos = _rv(buf, pos, maxlen, last)
            ap(b)
    if signed:
        out = [(x >> 1) ^ -(x & 1) for x in out]
    return out, pos


def _wv(x):
    """The varint of an int x >= 0 (bytes or bytearray)."""
    if x < 0x80:
        return _V1[x]
    out = bytearray()
    while x >= 0x80:
        out.append((x & 0x7F) | 0x80)
        x >>= 7
    out.append(x)
    return out


def _wvu(v, hi):
    """The varint of an unsigned integer field (anything with __index__, range-checked)."""
    x = _index(v)
    if x < 0 or x > hi:
        raise _Fail
    return _wv(x)


def _wvs(v, lo, hi):
    """The zigzag varint of a signed integer field."""
    x = _index(v)
    if x < lo or x > hi:
        raise _Fail
    return _wv(x << 1 if x >= 0 else ((-x) << 1) - 1)


def _wvlist(lst, lo, hi, signed):
    """The varints of a list of integers, back to back."""
    out = bytearray()
    ap = out.append
    n = len(lst)
    if signed:
        for v in lst:
            if v.__class__ is int and 0 <= v < 0x40:
                ap(v << 1)
            else:
                out += _wvs(v, lo, hi)  # may run __index__
                if len(lst) != n:
                    _changed()
    else:
        for v in lst:
            if v.__class__ is int and 0 <= v < 0x80:
                ap(v)
            else:
                out += _wvu(v, hi)
                if len(lst) != n:
                    _changed()
    return out


def _bool_bytes(lst):
    b = bytes(lst)  # TypeError / ValueError for non-ints or ints outside 0..255
    if b.translate(None, b"\x00\x01"):
        raise _Fail
    return b


def _np_bytes(x, dtype, scalar):
    """ndarray (or sequence) -> little-endian bytes of dtype, range-checked."""
    import numpy as np

    a = np.asarray(x)
    if a.ndim != 1:
        raise _Fail
    if a.dtype != dtype:
        if a.dtype.kind not in "biuf" or (a.dtype.kind == "f" and not scalar.is_float):
            raise _Fail
        if not scalar.is_float and a.size and (int(a.min()) < scalar.min or int(a.max()) > scalar.max):
            raise _Fail
        if scalar.code == "f" and a.size and a.dtype.kind == "f":
            finite = np.isfinite(a)
            if (np.abs(a[finite]) > 3.4028234663852886e38).any():
                raise _Fail
        a = a.astype(dtype)
    return a.tobytes()


def _nd_copy(buf, dtype, n, pos):
    """n elements of dtype at buf[pos:] as a new writable array; the bytes
    are copied as they are (padding of a structured dtype included, which
    ndarray.copy() would leave uninitialised)."""
    import numpy as np

    out = np.empty(n, dtype)
    out.view(np.uint8)[:] = np.frombuffer(buf, np.uint8, n * dtype.itemsize, pos)
    return out


def _rec_bytes(x, dtype, _unused=None):
    """A structured array (fields named like the record's) -> its wire bytes."""
    import numpy as np

    if not isinstance(x, np.ndarray) or x.ndim != 1 or x.dtype.names is None:
        raise _Fail
    padded = sum(f[0].itemsize for f in dtype.fields.values()) != dtype.itemsize
    if x.dtype != dtype or padded:  # padding is written as zeros, whatever the array holds
        if set(x.dtype.names) != set(dtype.names):
            raise _Fail
        out = np.zeros(len(x), dtype)
        for name in dtype.names:
            col = x[name]
            if col.dtype != dtype.fields[name][0]:
                if col.dtype.kind not in "biuf" or (col.dtype.kind == "f" and dtype.fields[name][0].kind != "f"):
                    raise _Fail
                if not np.can_cast(col.dtype, dtype.fields[name][0], "same_kind") and col.size:
                    info = np.iinfo(dtype.fields[name][0]) if dtype.fields[name][0].kind in "iu" else None
                    if info is not None and (int(col.min()) < info.min or int(col.max()) > info.max):
                        raise _Fail
            out[name] = col
        x = out
    return x.tobytes()


class _CountCache(dict):
    """count -> Struct('<{count}{code}').unpack_from, for the counts seen (up to 4096 of them)."""

    def __init__(self, code: str) -> None:
        super().__init__()
        self.code = code

    def make(self, n: int):
        u = struct.Struct(f"<{n}{self.code}").unpack_from
        if len(self) < 4096:
            self[n] = u
        return u


def _pack_n(code):
    if code in "fd":  # array('d') converts as struct does, keeping the exception a __float__ raises
        def pack(lst):
            return struct.pack(f"<{len(lst)}{code}", *_array.array("d", lst))
        return pack

    def pack(lst):
        return struct.pack(f"<{len(lst)}{code}", *lst)
    return pack


def _tf(x):
    """A float leaf that is not a float: converted like struct.pack does
    (__float__, or __index__), but an exception of that user code is kept."""
    return _array.array("d", (x,))[0]


class Compiler:
    """Generates and caches the functions of one (format, numpy option) pair."""

    def __init__(self, native: bool, arrays: bool) -> None:
        self.native = native
        self.arrays = arrays
        self.k = 0
        self.ns: dict = {
            "_F": _Fail, "_range": range, "_len": len, "_str": str, "_bytes": bytes,
            "_isinst": isinstance, "_tobool": _tobool, "_asbytes": _asbytes, "_aslist": _aslist,
            "_asmap": _asmap, "_setorder": _setorder, "_asvariant": _asvariant,
            "_Variant": Variant, "_MONO": Monostate(), "_bool_bytes": _bool_bytes,
            "_list": list, "_tuple": tuple, "_set": set, "_frozenset": frozenset,
            "_map": map, "_boolf": bool, "_ifb": int.from_bytes, "_np_bytes": _np_bytes, "_rec_bytes": _rec_bytes, "_nd_copy": _nd_copy,
            "_unpack_from": struct.unpack_from, "_pack": struct.pack, "_arr": _array.array,
            "_u64": struct.Struct("<Q").unpack_from, "_u32": struct.Struct("<I").unpack_from,
            "_pQ": struct.Struct("<Q").pack, "_pI": struct.Struct("<I").pack,
            "_rv": _rv, "_rvlist": _rvlist, "_wv": _wv, "_wvu": _wvu, "_wvs": _wvs, "_wvlist": _wvlist,
            "_changed": _changed, "_tf": _tf,
        }
        self.compact = native is COMPACT
        self._consts: dict = {}
        self._structs: dict = {}
        self.dec_fn: dict = {}  # dataclass -> function name
        self.enc_fn: dict = {}
        self._pending: list = []
        self.sources: list = []  # every generated function, for inspection

    # ---- helpers -------------------------------------------------------------

    def name(self, prefix: str) -> str:
        self.k += 1
        return f"{prefix}{self.k}"

    def const(self, obj, prefix: str = "_k") -> str:
        key = (prefix, id(obj))
        name = self._consts.get(key)
        if name is None:
            name = self.name(prefix)
            self.ns[name] = obj
            self._consts[key] = name
            self._consts[(prefix, "keep", name)] = obj  # keep id() valid
        return name

    def struct(self, fmt: str) -> str:
        name = self._structs.get(fmt)
        if name is None:
            name = self.name("_S")
            self.ns[name] = struct.Struct(fmt)
            self._structs[fmt] = name
        return name

    def lay(self, node: Node) -> "Layout | None":
        return layout(node, self.native)

    def _flush(self) -> None:
        while self._pending:
            src = self._pending.pop(0)
            filename = f"<bin_serializer generated {self.name('')}>"
            # registered with linecache so tracebacks through generated code show it
            linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
            self.sources.append(src)
            exec(compile(src, filename, "exec"), self.ns)

    # ---- public entry points ---------------------------------------------------

    def decoder(self, node: Node):
        """fn(buf, pos) -> (value, new_pos)"""
        if isinstance(node, StructN):
            name = self.struct_decoder(node)
        else:
            fn = _Fn(self)
            name = self.name("_droot")
            fn.line(0, f"def {name}(buf, pos):")
            fn.line(1, "end = _len(buf)")
            self.dec(fn, node, "r", 1)
            fn.line(1, "return r, pos")
            self._pending.append(fn.source())
        self._flush()
        return self.ns[name]

    def encoder(self, node: Node):
        """fn(value, out: bytearray) -> None"""
        if isinstance(node, StructN):
            name = self.struct_encoder(node)
        else:
            fn = _Fn(self)
            name = self.name("_eroot")
            fn.line(0, f"def {name}(v, out):")
            self.enc(fn, node, "v", 1)
            fn.line(1, "pass")
            self._pending.append(fn.source())
        self._flush()
        return self.ns[name]

    def many_decoder(self, node: Node):
        """For fixed-size nodes: fn(buf, pos, n) -> list of n values (decoded
        from n back-to-back messages), or None for variable-size nodes."""
        lay = self.lay(node)
        if lay is None or lay.size == 0:
            return None
        fn = _Fn(self)
        name = self.name("_dmany")
        fn.line(0, f"def {name}(buf, pos, n):")
        fn.line(1, f"e = pos + n * {lay.size}")
        fn.line(1, "if e > _len(buf): raise _F")
        self._flat_list(fn, node, lay, "r", "n", 1)
        fn.line(1, "return r")
        self._pending.append(fn.source())
        self._flush()
        return self.ns[name]

    # ---- dataclasses ------------------------------------------------------------

    def struct_decoder(self, node: StructN) -> str:
        name = self.dec_fn.get(node.cls)
        if name is not None:
            return name
        name = self.name(f"_d_{node.name}_")
        self.dec_fn[node.cls] = name
        if node.versions is not None:
            self.ns[name] = self._evolvable_decoder(node)
            return name
        fn = _Fn(self)
        fn.line(0, f"def {name}(buf, pos):")
        lay = self.lay(node)
        if lay is not None:
            self._flat_dec(fn, node, lay, "r", 1)
            fn.line(1, "return r, pos")
        else:
            fn.line(1, "end = _len(buf)")
            names = self._seq_dec(fn, [f for _, f in node.fields], 1)
            fn.line(1, f"return {self._construct(node, names)}, pos")
        self._pending.append(fn.source())
        return name

    def struct_encoder(self, node: StructN) -> str:
        name = self.enc_fn.get(node.cls)
        if name is not None:
            return name
        name = self.name(f"_e_{node.name}_")
        self.enc_fn[node.cls] = name
        if node.versions is not None:
            self.ns[name] = self._evolvable_encoder(node)
            return name
        cls = self.const(node.cls, "_C")
        fn = _Fn(self)
        fn.line(0, f"def {name}(v, out):")
        lay = self.lay(node)
        if lay is not None:  # one pack of the whole struct (native: with its padding)
            args = self._args(fn, node, "v", 1)
            if lay.size:
                fn.line(1, f"out += {self.struct(lay.fmt())}.pack({', '.join(args)})")
            fn.flush_post(1)
        else:
            fn.line(1, f"if v.__class__ is not {cls} and not _isinst(v, {cls}): raise _F")
            self._seq_enc(fn, [(f"v.{n}", f) for n, f in node.fields], 1)
        fn.line(1, "pass")
        self._pending.append(fn.source())
        return name

    # Evolvable structs (_evolution.py) are plain Python functions over the
    # fields' compiled codecs, fetched on first use (the fields may be defined
    # later, or be this struct itself). A failure raises; Codec.fail then asks
    # the reference decoder for the precise error.
    def _evolvable_decoder(self, node: StructN):
        from . import _evolution
        decs: list = []

        def fail(kind, at, detail):
            raise ValueError(detail)

        def field(i, pos):
            return decs[i](buf_box[0], pos)

        buf_box = [b""]

        def dec(buf, pos):
            if not decs:
                decs.extend(self.decoder(f) for _, f in node.fields)
            saved = buf_box[0]
            buf_box[0] = buf
            try:
                return _evolution.decode(node, buf, pos, field, fail)
            finally:
                buf_box[0] = saved
        return dec

    def _evolvable_encoder(self, node: StructN):
        from . import _evolution
        encs: list = []

        def enc(v, out):
            if not encs:
                encs.extend(self.encoder(f) for _, f in node.fields)
            if not isinstance(v, node.cls):
                raise TypeError(f"expected {node.name}")
            _evolution.encode(node, v, lambda i, x, o: encs[i](x, o), out)
        return enc

    def _construct(self, node: StructN, args: list) -> str:
        cls = self.const(node.cls, "_C")
        parts = []
        for (fname, _), a in zip(node.fields, args):
            parts.append(f"{fname}={a}" if fname in node.kw_only else a)
        return f"{cls}({', '.join(parts)})"

    # ---- decoding -------------------------------------------------------------------

    def _seq_dec(self, fn: "_Fn", nodes: list, ind: int) -> list:
        """Decodes a sequence of nodes (struct fields, tuple elements) into fresh
        locals; consecutive fixed-size ones share one unpack. Returns the names."""
        out = []
        i = 0
        while i < len(nodes):
            lay = self.lay(nodes[i])
            if lay is None:
                v = fn.var("f")
                self.dec(fn, nodes[i], v, ind)
                out.append(v)
                i += 1
                continue
            j = i
            group = []
            while j < len(nodes):
                l2 = self.lay(nodes[j])
                if l2 is None:
                    break
                group.append((nodes[j], l2))
                j += 1
            run = _concat([l for _, l in group])
            fused = j < len(nodes) and self._count_prefixed(nodes[j])
            if fused:  # read the next field's length prefix with the run: one unpack fewer
                run = _concat([run, _COUNT_LAYOUT])
            src = self._unpack(fn, run, "pos", ind)
            fn.line(ind, f"pos += {run.size}")
            for node, _ in group:
                expr = self._build(fn, node, src, ind)
                if expr.isidentifier():
                    out.append(expr)
                else:
                    v = fn.var("f")
                    fn.line(ind, f"{v} = {expr}")
                    out.append(v)
            if fused:
                count = src.next()
                v = fn.var("f")
                self.dec(fn, nodes[j], v, ind, count=count)
                out.append(v)
                j += 1
            i = j
        return out

    def _unpack(self, fn: "_Fn", lay: Layout, pos: str, ind: int) -> "_LeafSrc":
        s = self.struct(lay.fmt())
        n = len(lay.leaves)
        if n == 0:
            if lay.size:
                fn.line(ind, f"{s}.unpack_from(buf, {pos})")
            return _LeafSrc([])
        if n <= _MAX_NAMED_LEAVES:
            names = [fn.var("v") for _ in range(n)]
            fn.line(ind, f"{', '.join(names)}, = {s}.unpack_from(buf, {pos})")
            return _LeafSrc(names)
        t = fn.var("t")
        fn.line(ind, f"{t} = {s}.unpack_from(buf, {pos})")
        return _LeafSrc([f"{t}[{k}]" for k in range(n)], tuple_name=t)

    def _flat_dec(self, fn: "_Fn", node: Node, lay: Layout, dst: str, ind: int) -> None:
        src = self._unpack(fn, lay, "pos", ind)
        if lay.size:
            fn.line(ind, f"pos += {lay.size}")
        fn.line(ind, f"{dst} = {self._build(fn, node, src, ind)}")

    def _build(self, fn: "_Fn", node: Node, src: "_LeafSrc", ind: int) -> str:
        """Expression building `node`'s value from unpacked leaves (emitting the
        value checks it needs first)."""
        if isinstance(node, ScalarN):
            return src.next()
        if isinstance(node, BoolN):
            v = src.next()
            fn.line(ind, f"if {v} > 1: raise _F")
            return f"({v} == 1)"
        if isinstance(node, EnumN):
            v = src.next()
            if node.is_flag:
                return f"{self.const(node.cls, '_E')}({v})"
            return f"{self.const(node.members, '_M')}[{v}]"
        if isinstance(node, BitsetN):
            size = node.size(self.native)
            if size == 0:
                return "0"
            v = src.next()
            if size not in (1, 2, 4, 8):
                t = fn.var("b")
                fn.line(ind, f"{t} = _ifb({v}, 'little')")
                v = t
            if node.n < 8 * size:
                fn.line(ind, f"if {v} >> {node.n}: raise _F")
            return v
        if isinstance(node, MonostateN):
            return "_MONO"
        if isinstance(node, ArrayN):
            if isinstance(node.elem, ScalarN) and src.tuple_name is not None and node.n > 0:
                lo, hi = src.take(node.n)
                items = f"{src.tuple_name}[{lo}:{hi}]"
                return f"_list({items})" if node.container == "list" else items
            items = [self._build(fn, node.elem, src, ind) for _ in range(node.n)]
            if node.container == "tuple":
                return f"({', '.join(items)}{',' if items else ''})"
            return f"[{', '.join(items)}]"
        if isinstance(node, TupleN):
            items = [self._build(fn, e, src, ind) for e in node.elems]
            return f"({', '.join(items)}{',' if items else ''})"
        if isinstance(node, StructN):
            items = [self._build(fn, f, src, ind) for _, f in node.fields]
            return self._construct(node, items)
        raise AssertionError(node)

    def _count_prefixed(self, node: Node) -> bool:
        """Whether node's encoding starts with a u64 count that dec(count=...) accepts
        (compact: a varint, never read with a fixed-size run)."""
        return not self.compact and isinstance(node, (StrN, BytesN, ListN, MapN, SetN))

    def _count(self, fn: "_Fn", per_item: int, ind: int, count: "str | None" = None) -> str:
        """Reads a u64 count (unless already read into `count`) and checks
        count * per_item against the input left."""
        if count is not None:
            n = count
        elif self.compact:
            n = fn.var("n")
            self._read_varint(fn, n, 8, ind)
        else:
            n = fn.var("n")
            fn.line(ind, f"{n}, = _u64(buf, pos)")
            fn.line(ind, "pos += 8")
        if per_item == 1:
            fn.line(ind, f"if {n} > end - pos: raise _F")
        else:
            fn.line(ind, f"if {n} > (end - pos) // {per_item}: raise _F")
        return n

    def _read_varint(self, fn: "_Fn", dst: str, size: int, ind: int) -> None:
        """dst = the unsigned varint of an integer of `size` bytes at pos (compact)."""
        fn.line(ind, f"{dst} = buf[pos]")
        fn.line(ind, f"if {dst} < 128: pos += 1")
        fn.line(ind, f"else: {dst}, pos = _rv(buf, pos, {VARINT_MAX_LEN[size]}, {VARINT_LAST_MAX[size]})")

    def _dec_varint(self, fn: "_Fn", node: Node, dst: str, ind: int) -> None:
        """A compact integer / enum (is_varint) into dst."""
        s = node.spec
        self._read_varint(fn, dst, s.size, ind)
        if s.signed:
            fn.line(ind, f"{dst} = ({dst} >> 1) ^ -({dst} & 1)")
        if isinstance(node, EnumN):
            if node.is_flag:
                fn.line(ind, f"{dst} = {self.const(node.cls, '_E')}({dst})")
            else:
                fn.line(ind, f"{dst} = {self.const(node.members, '_M')}[{dst}]")

    def _flat_list(self, fn: "_Fn", elem: Node, lay: Layout, dst: str, n: str, ind: int,
                   container: str = "list") -> None:
        """dst = [n fixed-size elements from buf[pos:e]]; e is set by the caller."""
        if lay.size == 0:
            val = self._build(fn, elem, _LeafSrc([]), ind)
            fn.line(ind, f"{dst} = [{val} for _ in _range({n})]")
        elif isinstance(elem, (ScalarN, EnumN)) and len(lay.leaves) == 1:
            code = lay.leaves[0].code
            cache = self.const(_CountCache(code), "_NC")
            u = fn.var("u")
            fn.line(ind, f"{u} = {cache}.get({n})")
            fn.line(ind, f"if {u} is None: {u} = {cache}.make({n})")
            fn.line(ind, f"{dst} = _list({u}(buf, pos))")
            if isinstance(elem, EnumN):
                if elem.is_flag:
                    fn.line(ind, f"{dst} = _list(_map({self.const(elem.cls, '_E')}, {dst}))")
                else:
                    m = self.const(elem.members, "_M")
                    fn.line(ind, f"{dst} = [{m}[x] for x in {dst}]")
        elif isinstance(elem, BoolN):
            c = fn.var("c")
            fn.line(ind, f"{c} = _bytes(buf[pos:e])")
            fn.line(ind, f"if {c}.translate(None, b'\\x00\\x01'): raise _F")
            fn.line(ind, f"{dst} = _list(_map(_boolf, {c}))")
        else:
            s = self.struct(lay.fmt())
            body = _Fn(self, fn)
            n_leaves = len(lay.leaves)
            if n_leaves <= _MAX_NAMED_LEAVES:
                names = [fn.var("v") for _ in range(n_leaves)]
                src = _LeafSrc(names)
                # No leaves (a field-less struct: only its padding byte) still
                # needs a loop target; the empty tuple unpacks into "()".
                target = f"{', '.join(names)}," if names else "()"
            else:
                t = fn.var("t")
                src = _LeafSrc([f"{t}[{k}]" for k in range(n_leaves)], tuple_name=t)
                target = t
            expr = self._build(body, elem, src, ind + 1)
            if not body.lines:
                fn.line(ind, f"{dst} = [{expr} for {target} in {s}.iter_unpack(buf[pos:e])]")
            else:
                ap = fn.var("ap")
                fn.line(ind, f"{dst} = []")
                fn.line(ind, f"{ap} = {dst}.append")
                fn.line(ind, f"for {target} in {s}.iter_unpack(buf[pos:e]):")
                fn.lines.extend(body.lines)
                fn.line(ind + 1, f"{ap}({expr})")
        if container == "tuple":
            fn.line(ind, f"{dst} = _tuple({dst})")

    def dec(self, fn: "_Fn", node: Node, dst: str, ind: int, count: "str | None" = None) -> None:
        """Emits statements that decode `node` at `pos` into local `dst`.
        count: the local holding the node's length prefix, already read."""
        if isinstance(node, StructN):
            fname = self.struct_decoder(node)
            fn.line(ind, f"{dst}, pos = {fname}(buf, pos)")
            return
        lay = self.lay(node)
        if lay is not None:
            self._flat_dec(fn, node, lay, dst, ind)
            return
        if is_varint(node, self.native):
            self._dec_varint(fn, node, dst, ind)
        elif isinstance(node, StrN):
            n = self._count(fn, 1, ind, count)
            fn.line(ind, f"{dst} = _str(buf[pos:pos + {n}], 'utf-8')")
            fn.line(ind, f"pos += {n}")
        elif isinstance(node, BytesN):
            n = self._count(fn, 1, ind, count)
            fn.line(ind, f"{dst} = _bytes(buf[pos:pos + {n}])")
            fn.line(ind, f"pos += {n}")
        elif isinstance(node, ListN):
            self._dec_list(fn, node, dst, ind, count)
        elif isinstance(node, ArrayN):
            self._dec_array(fn, node, dst, ind)
        elif isinstance(node, OptionalN):
            flag = fn.var("o")
            fn.line(ind, f"{flag} = buf[pos]")
            fn.line(ind, "pos += 1")
            fn.line(ind, f"if {flag} == 1:")
            self.dec(fn, node.inner, dst, ind + 1)
            fn.line(ind, f"elif {flag}: raise _F")
            fn.line(ind, f"else: {dst} = None")
        elif isinstance(node, VariantN):
            idx = fn.var("i")
            if self.compact:
                self._read_varint(fn, idx, 4, ind)
            else:
                fn.line(ind, f"{idx}, = _u32(buf, pos)")
                fn.line(ind, "pos += 4")
            for k, alt in enumerate(node.alts):
                fn.line(ind, f"{'if' if k == 0 else 'elif'} {idx} == {k}:")
                if node.tagged:
                    x = fn.var("x")
                    self.dec(fn, alt, x, ind + 1)
                    fn.line(ind + 1, f"{dst} = _Variant({k}, {x})")
                else:
                    self.dec(fn, alt, dst, ind + 1)
            fn.line(ind, "else: raise _F")
        elif isinstance(node, TupleN):
            names = self._seq_dec(fn, node.elems, ind)
            fn.line(ind, f"{dst} = ({', '.join(names)}{',' if names else ''})")
        elif isinstance(node, MapN):
            per = max(1, min_size(node.key, self.native) + min_size(node.value, self.native))
            n = self._count(fn, per, ind, count)
            fn.line(ind, f"{dst} = {{}}")
            fn.line(ind, f"for _ in _range({n}):")
            k = fn.var("k")
            self.dec(fn, node.key, k, ind + 1)
            fn.line(ind + 1, f"if {k} in {dst}: raise _F")
            v = fn.var("v")
            self.dec(fn, node.value, v, ind + 1)
            fn.line(ind + 1, f"{dst}[{k}] = {v}")
        elif isinstance(node, SetN):
            n = self._count(fn, element_min(node.elem, self.native), ind, count)
            elay = self.lay(node.elem)
            if elay is not None:
                lst = fn.var("l")
                fn.line(ind, f"e = pos + {n} * {elay.size}")
                self._flat_list(fn, node.elem, elay, lst, n, ind)
                fn.line(ind, "pos = e")
                fn.line(ind, f"{dst} = {'_frozenset' if node.frozen else '_set'}({lst})")
                fn.line(ind, f"if _len({dst}) != {n}: raise _F")
            else:
                fn.line(ind, f"{dst} = _set()")
                fn.line(ind, f"for _ in _range({n}):")
                k = fn.var("k")
                self.dec(fn, node.elem, k, ind + 1)
                fn.line(ind + 1, f"if {k} in {dst}: raise _F")
                fn.line(ind + 1, f"{dst}.add({k})")
                if node.frozen:
                    fn.line(ind, f"{dst} = _frozenset({dst})")
        elif isinstance(node, MonostateN):
            fn.line(ind, f"{dst} = _MONO")
        else:
            raise AssertionError(node)

    def _numpy_dtype(self, scalar) -> str:
        import numpy as np
        self.ns.setdefault("_np", np)
        return self.const(np.dtype("<" + {"B": "u1", "H": "u2", "I": "u4", "Q": "u8", "b": "i1", "h": "i2",
                                          "i": "i4", "q": "i8", "f": "f4", "d": "f8"}[scalar.code]), "_DT")

    def _wants_ndarray(self, node) -> bool:
        return node.container == "ndarray" or (
            self.arrays and node.container == "list" and isinstance(node.elem, ScalarN))

    def _dec_list(self, fn: "_Fn", node: ListN, dst: str, ind: int, count: "str | None" = None) -> None:
        elem = node.elem
        elay = self.lay(elem)
        if node.container == "records":
            self.ns.setdefault("_np", __import__("numpy"))
            dt = self.const(records_dtype(elem, self.native), "_DT")
            n = self._count(fn, max(1, elay.size), ind, count)
            fn.line(ind, f"{dst} = _nd_copy(buf, {dt}, {n}, pos)")
            fn.line(ind, f"pos += {n} * {elay.size}")
            return
        if self._wants_ndarray(node):
            dt = self._numpy_dtype(elem.spec)
            n = self._count(fn, elem.spec.size, ind, count)
            fn.line(ind, f"{dst} = _np.frombuffer(buf, {dt}, {n}, pos).copy()")
            fn.line(ind, f"pos += {n} * {elem.spec.size}")
            return
        if elay is not None:
            n = self._count(fn, max(1, elay.size), ind, count)
            fn.line(ind, f"e = pos + {n} * {elay.size}")
            self._flat_list(fn, elem, elay, dst, n, ind, node.container)
            fn.line(ind, "pos = e")
            return
        n = self._count(fn, element_min(elem, self.native), ind, count)
        if isinstance(elem, ScalarN) and is_varint(elem, self.native):
            s = elem.spec
            fn.line(ind, f"{dst}, pos = _rvlist(buf, pos, {n}, {VARINT_MAX_LEN[s.size]}, "
                         f"{VARINT_LAST_MAX[s.size]}, {s.signed})")
            if node.container == "tuple":
                fn.line(ind, f"{dst} = _tuple({dst})")
            return
        ap = fn.var("ap")
        fn.line(ind, f"{dst} = []")
        fn.line(ind, f"{ap} = {dst}.append")
        fn.line(ind, f"for _ in _range({n}):")
        x = fn.var("x")
        self.dec(fn, elem, x, ind + 1)
        fn.line(ind + 1, f"{ap}({x})")
        if node.container == "tuple":
            fn.line(ind, f"{dst} = _tuple({dst})")

    def _dec_array(self, fn: "_Fn", node: ArrayN, dst: str, ind: int) -> None:
        if node.container == "ndarray":
            dt = self._numpy_dtype(node.elem.spec)
            size = node.n * node.elem.spec.size
            fn.line(ind, f"if pos + {size} > end: raise _F")
            fn.line(ind, f"{dst} = _np.frombuffer(buf, {dt}, {node.n}, pos).copy()")
            fn.line(ind, f"pos += {size}")
            return
        ap = fn.var("ap")
        fn.line(ind, f"{dst} = []")
        fn.line(ind, f"{ap} = {dst}.append")
        fn.line(ind, f"for _ in _range({node.n}):")
        x = fn.var("x")
        self.dec(fn, node.elem, x, ind + 1)
        fn.line(ind + 1, f"{ap}({x})")
        if node.container == "tuple":
            fn.line(ind, f"{dst} = _tuple({dst})")

    # ---- encoding ---------------------------------------------------------------------

    def _seq_enc(self, fn: "_Fn", items: list, ind: int) -> None:
        """items: (source expression, node); consecutive fixed-size ones are one pack."""
        i = 0
        while i < len(items):
            src, node = items[i]
            lay = self.lay(node)
            if lay is None:
                self.enc(fn, node, src, ind)
                i += 1
                continue
            args: list = []
            layouts = []
            while i < len(items):
                src, node = items[i]
                l2 = self.lay(node)
                if l2 is None:
                    break
                layouts.append(l2)
                args += self._args(fn, node, src, ind)
                i += 1
            run = _concat(layouts)
            if run.size:
                fn.line(ind, f"out += {self.struct(run.fmt())}.pack({', '.join(args)})")
            fn.flush_post(ind)

    def _bind(self, fn: "_Fn", src: str, ind: int, prefix: str = "a") -> str:
        if src.isidentifier():
            return src
        v = fn.var(prefix)
        fn.line(ind, f"{v} = {src}")
        return v

    def _args(self, fn: "_Fn", node: Node, src: str, ind: int) -> list:
        """Pack arguments for a fixed-size node (checks emitted first)."""
        if isinstance(node, ScalarN):
            if node.spec.is_float:  # struct.pack would replace an exception of __float__ (struct.error)
                v = self._bind(fn, src, ind)
                return [f"({v} if {v}.__class__ is float else _tf({v}))"]
            return [src]
        if isinstance(node, BoolN):
            v = self._bind(fn, src, ind)
            fn.line(ind, f"if {v} is not True and {v} is not False: {v} = _tobool({v})")
            return [v]
        if isinstance(node, EnumN):
            if node.is_flag:
                return [src]
            v = self._bind(fn, src, ind)
            fn.line(ind, f"if {v} not in {self.const(node.members, '_M')}: raise _F")
            return [v]
        if isinstance(node, BitsetN):
            v = self._bind(fn, src, ind)
            size = node.size(self.native)
            if node.n < 8 * size or size == 0:
                fn.line(ind, f"if {v} >> {node.n}: raise _F")
            if size == 0:
                return []
            if size not in (1, 2, 4, 8):
                return [f"{v}.to_bytes({size}, 'little')"]
            return [v]
        if isinstance(node, MonostateN):
            return []
        if isinstance(node, ArrayN):
            v = self._bind(fn, src, ind)
            fn.line(ind, f"if _len({v}) != {node.n}: raise _F")
            if node.n:
                fn.post.append(f"if _len({v}) != {node.n}: _changed()")
            if isinstance(node.elem, ScalarN):
                if node.elem.spec.is_float:  # array('d') converts as struct does, keeping __float__'s exception
                    return [f"*_arr('d', {v})"] if node.n else []
                return [f"*{v}"] if node.n else []
            args = []
            for k in range(node.n):
                args += self._args(fn, node.elem, f"{v}[{k}]", ind)
            return args
        if isinstance(node, TupleN):
            v = self._bind(fn, src, ind)
            fn.line(ind, f"if _len({v}) != {len(node.elems)}: raise _F")
            args = []
            for k, e in enumerate(node.elems):
                args += self._args(fn, e, f"{v}[{k}]", ind)
            return args
        if isinstance(node, StructN):
            v = self._bind(fn, src, ind)
            cls = self.const(node.cls, "_C")
            fn.line(ind, f"if {v}.__class__ is not {cls} and not _isinst({v}, {cls}): raise _F")
            args = []
            for fname, f in node.fields:
                args += self._args(fn, f, f"{v}.{fname}", ind)
            return args
        raise AssertionError(node)

    def enc(self, fn: "_Fn", node: Node, src: str, ind: int) -> None:
        """Emits statements appending the encoding of expression `src` to `out`."""
        if isinstance(node, StructN) and self.lay(node) is None:
            fn.line(ind, f"{self.struct_encoder(node)}({src}, out)")
            return
        lay = self.lay(node)
        if lay is not None:
            args = self._args(fn, node, src, ind)
            if lay.size:
                fn.line(ind, f"out += {self.struct(lay.fmt())}.pack({', '.join(args)})")
            fn.flush_post(ind)
            return
        if is_varint(node, self.native):
            self._enc_varint(fn, node, src, ind)
        elif isinstance(node, StrN):
            b = fn.var("s")
            fn.line(ind, f"{b} = {src}.encode('utf-8')")
            fn.line(ind, f"out += {self._cnt(f'_len({b})')}")
            fn.line(ind, f"out += {b}")
        elif isinstance(node, BytesN):
            b = self._bind(fn, src, ind, "s")
            fn.line(ind, f"if {b}.__class__ is not bytes: {b} = _asbytes({b})")
            fn.line(ind, f"out += {self._cnt(f'_len({b})')}")
            fn.line(ind, f"out += {b}")
        elif isinstance(node, ListN):
            self._enc_list(fn, node, src, ind)
        elif isinstance(node, ArrayN):
            v = self._bind(fn, src, ind)
            if node.container == "ndarray":
                b = fn.var("s")
                fn.line(ind, f"{b} = _np_bytes({v}, {self._numpy_dtype(node.elem.spec)}, "
                             f"{self.const(node.elem.spec, '_SC')})")
                fn.line(ind, f"if _len({b}) != {node.n * node.elem.spec.size}: raise _F")
                fn.line(ind, f"out += {b}")
                return
            fn.line(ind, f"if _len({v}) != {node.n}: raise _F")
            x = fn.var("x")
            fn.line(ind, f"for {x} in {v}:")
            self.enc(fn, node.elem, x, ind + 1)
            fn.line(ind + 1, "pass")
            fn.line(ind, f"if _len({v}) != {node.n}: _changed()")  # resized by user code it ran
        elif isinstance(node, OptionalN):
            v = self._bind(fn, src, ind)
            fn.line(ind, f"if {v} is None: out.append(0)")
            fn.line(ind, "else:")
            fn.line(ind + 1, "out.append(1)")
            self.enc(fn, node.inner, v, ind + 1)
        elif isinstance(node, VariantN):
            v = self._bind(fn, src, ind)
            idx = fn.var("i")
            if node.tagged:
                fn.line(ind, f"if {v}.__class__ is not _Variant: {v} = _asvariant({v})")
                x = fn.var("x")
                fn.line(ind, f"{idx}, {x} = {v}")
            else:
                vn = self.const(node, "_VN")
                fn.line(ind, f"{idx} = {self.const(node.by_type, '_VT')}.get({v}.__class__)")
                fn.line(ind, f"if {idx} is None: {idx} = {vn}.index_of({v})")
                x = v
            for k, alt in enumerate(node.alts):
                fn.line(ind, f"{'if' if k == 0 else 'elif'} {idx} == {k}:")
                if self.compact:
                    fn.line(ind + 1, f"out += {varint_bytes(k)!r}")
                else:
                    fn.line(ind + 1, f"out += _pI({k})")
                self.enc(fn, alt, x, ind + 1)
            fn.line(ind, "else: raise _F")
        elif isinstance(node, TupleN):
            v = self._bind(fn, src, ind)
            fn.line(ind, f"if _len({v}) != {len(node.elems)}: raise _F")
            self._seq_enc(fn, [(f"{v}[{k}]", e) for k, e in enumerate(node.elems)], ind)
        elif isinstance(node, MapN):
            v = self._bind(fn, src, ind)
            fn.line(ind, f"if {v}.__class__ is not dict: {v} = _asmap({v})")
            fn.line(ind, f"out += {self._cnt(f'_len({v})')}")
            k, x = fn.var("k"), fn.var("x")
            fn.line(ind, f"for {k}, {x} in {v}.items():")
            self.enc(fn, node.key, k, ind + 1)
            self.enc(fn, node.value, x, ind + 1)
            fn.line(ind + 1, "pass")
        elif isinstance(node, SetN):
            v = fn.var("a")
            fn.line(ind, f"{v} = _setorder({src})")
            self._enc_elems(fn, node.elem, v, ind)
        elif isinstance(node, StructN):
            fn.line(ind, f"{self.struct_encoder(node)}({src}, out)")
        else:
            raise AssertionError(node)

    def _cnt(self, expr: str) -> str:
        """The expression of the bytes of a length/count prefix."""
        return f"_wv({expr})" if self.compact else f"_pQ({expr})"

    def _enc_varint(self, fn: "_Fn", node: Node, src: str, ind: int) -> None:
        """A compact integer / enum (is_varint) appended to out."""
        s = node.spec
        v = self._bind(fn, src, ind)
        if isinstance(node, EnumN) and not node.is_flag:
            fn.line(ind, f"if {v} not in {self.const(node.members, '_M')}: raise _F")
        if s.signed:
            fn.line(ind, f"if {v}.__class__ is int and 0 <= {v} < 64: out.append({v} << 1)")
            fn.line(ind, f"else: out += _wvs({v}, {s.min}, {s.max})")
        else:
            fn.line(ind, f"if {v}.__class__ is int and 0 <= {v} < 128: out.append({v})")
            fn.line(ind, f"else: out += _wvu({v}, {s.max})")

    def _enc_list(self, fn: "_Fn", node: ListN, src: str, ind: int) -> None:
        v = self._bind(fn, src, ind)
        if node.container == "records":
            b = fn.var("s")
            dt = self.const(records_dtype(node.elem, self.native), "_DT")
            fn.line(ind, f"{b} = _rec_bytes({v}, {dt}, None)")
            fn.line(ind, f"out += {self._cnt(f'_len({b}) // {dt}.itemsize')}")
            fn.line(ind, f"out += {b}")
            return
        if self._wants_ndarray(node):
            b = fn.var("s")
            fn.line(ind, f"{b} = _np_bytes({v}, {self._numpy_dtype(node.elem.spec)}, "
                         f"{self.const(node.elem.spec, '_SC')})")
            fn.line(ind, f"out += {self._cnt(f'_len({b}) // {node.elem.spec.size}')}")
            fn.line(ind, f"out += {b}")
            return
        fn.line(ind, f"if {v}.__class__ is not list: {v} = _aslist({v})")
        self._enc_elems(fn, node.elem, v, ind)

    def _enc_elems(self, fn: "_Fn", elem: Node, v: str, ind: int) -> None:
        """[u64 count][elements] for a list/tuple held in local `v`. The
        elements' encoding may run user code (__index__, ...) that resizes
        the list: that raises _changed() (the count is written already), as
        in the compiled codec."""
        n = fn.var("n")
        fn.line(ind, f"{n} = _len({v})")
        fn.line(ind, f"out += {self._cnt(n)}")
        if isinstance(elem, ScalarN) and is_varint(elem, self.native):
            s = elem.spec
            fn.line(ind, f"out += _wvlist({v}, {s.min}, {s.max}, {s.signed})")
        elif isinstance(elem, ScalarN):
            code = elem.spec.code
            if LITTLE_ENDIAN_HOST and code != "f":
                fn.line(ind, f"out += _arr('{code}', {v})")
            else:  # struct range-checks f32 (array('f') would silently store inf)
                fn.line(ind, f"out += {self.const(_pack_n(code), '_PN')}({v})")
        elif isinstance(elem, BoolN):
            fn.line(ind, f"out += _bool_bytes({v})")
        else:
            x = fn.var("x")
            fn.line(ind, f"for {x} in {v}:")
            self.enc(fn, elem, x, ind + 1)
            fn.line(ind + 1, f"if _len({v}) != {n}: _changed()")
        fn.line(ind, f"if _len({v}) != {n}: _changed()")


def _concat(layouts: list) -> Layout:
    """Layouts back to back (struct fields / tuple elements: no padding between)."""
    leaves = []
    at = 0
    for k, lay in enumerate(layouts):
        for leaf in lay.leaves:
            leaves.append(type(leaf)(leaf.offset + at, leaf.code, leaf.size, leaf.node, (k,) + leaf.path))
        at += lay.size
    return Layout(at, 1, leaves)


class _LeafSrc:
    """Hands out the expressions of unpacked leaves in order."""

    def __init__(self, exprs: list, tuple_name: "str | None" = None) -> None:
        self.exprs = exprs
        self.i = 0
        self.tuple_name = tuple_name

    def next(self) -> str:
        e = self.exprs[self.i]
        self.i += 1
        return e

    def take(self, k: int) -> tuple:
        lo = self.i
        self.i += k
        return lo, self.i


class _Fn:
    """Source lines of one generated function."""

    def __init__(self, comp: Compiler, parent: "_Fn | None" = None) -> None:
        self.comp = comp
        self.lines: list = []
        self.parent = parent
        # checks to emit after the next pack: user code run by the pack
        # (__index__, __float__) may resize a fixed-size array it read
        self.post: list = []

    def flush_post(self, ind: int) -> None:
        for text in self.post:
            self.line(ind, text)
        self.post = []

    def var(self, prefix: str) -> str:
        return self.comp.name(prefix)

    def line(self, ind: int, text: str) -> None:
        self.lines.append("    " * ind + text)

    def source(self) -> str:
        return "\n".join(self.lines) + "\n"


# A u64 length prefix as a one-leaf layout (for fusing it into a run).
_COUNT_LAYOUT = Layout(8, 1, [Leaf(0, "Q", 8, ScalarN(_U64), ())])
