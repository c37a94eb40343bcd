"""Differential fuzz test: the compiled codec against the generated-Python one.

Seeded random values of every schema in schemas.py (and evolvable ones) are
encoded by both codecs (same bytes, or the same EncodeError), and their
encodings, mutated (bytes flipped, cut, inserted, random garbage), are
decoded by both: the same value (compared by its Python-codec encoding, so
NaNs compare), or the same DecodeError kind, offset and path. Runs once (in
the "c" pass of the suite) and only when the extension is built;
BIN_SERIALIZER_FUZZ_ROUNDS=n for a longer run (e.g. under ASan, see README).
"""

from __future__ import annotations

import dataclasses
import os
import random
import struct
import sys

import pytest

from bin_serializer import DecodeError, EncodeError, api
from bin_serializer._schema import (ArrayN, BitsetN, BoolN, BytesN, EnumN, ListN, MapN, MonostateN, OptionalN,
                                    ScalarN, SetN, StrN, StructN, TupleN, VariantN)
from bin_serializer.types import Monostate, Variant
from schemas import BookSlots, Car, Everything, Flags, Node, Outer, Pad, Person, PersonSlots, Tick, TickSlots
from test_message import LimitsPy, ProfileV1, ProfileV2, ProfileV3

SEED = 20261123
ROUNDS = int(os.environ.get("BIN_SERIALIZER_FUZZ_ROUNDS", "60"))  # random values per schema and format
MUTATIONS = 12  # mutated inputs per value

SCHEMAS = [Person, Car, Everything, Tick, Flags, Node, Outer, Pad, LimitsPy, ProfileV1, ProfileV2, ProfileV3,
           list[Tick], dict[str, list[Person]], tuple[Node, ...], PersonSlots, TickSlots, BookSlots]


def codecs(hint, fmt):
    saved = api._BACKEND
    try:
        api._BACKEND = "python"
        py = api.Codec(hint, fmt, False)
        api._BACKEND = "c"
        c = api.Codec(hint, fmt, False)
    finally:
        api._BACKEND = saved
    assert py.program is None and c.program is not None
    return py, c


def rand_value(node, rng: random.Random, depth: int = 0):
    if isinstance(node, ScalarN):
        s = node.spec
        if s.is_float:
            x = rng.choice([0.0, -0.0, 1.5, rng.uniform(-1e6, 1e6), float("inf"), float("nan"), 1e-310])
            return struct.unpack("<f", struct.pack("<f", x))[0] if s.code == "f" else x
        return rng.choice([s.min, s.max, 0, rng.randint(s.min, s.max)])
    if isinstance(node, BoolN):
        return rng.random() < 0.5
    if isinstance(node, EnumN):
        if node.is_flag:
            return node.cls(rng.randint(0, sum(int(m) for m in node.cls)))
        return rng.choice(list(node.members.values()))
    if isinstance(node, BitsetN):
        return rng.getrandbits(node.n) if node.n else 0
    if isinstance(node, StrN):
        return "".join(rng.choice("ab Z\u00e9\u4e2d\U0001f600") for _ in range(rng.randint(0, 6)))
    if isinstance(node, BytesN):
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 6)))
    if isinstance(node, ListN):
        n = 0 if depth > 3 else rng.randint(0, 3)
        items = [rand_value(node.elem, rng, depth + 1) for _ in range(n)]
        return tuple(items) if node.container == "tuple" else items
    if isinstance(node, ArrayN):
        items = [rand_value(node.elem, rng, depth + 1) for _ in range(node.n)]
        return tuple(items) if node.container == "tuple" else items
    if isinstance(node, OptionalN):
        return None if rng.random() < 0.4 else rand_value(node.inner, rng, depth + 1)
    if isinstance(node, VariantN):
        i = rng.randrange(len(node.alts))
        v = rand_value(node.alts[i], rng, depth + 1)
        return Variant(i, v) if node.tagged else v
    if isinstance(node, MonostateN):
        return Monostate()
    if isinstance(node, TupleN):
        return tuple(rand_value(e, rng, depth + 1) for e in node.elems)
    if isinstance(node, MapN):
        return {rand_value(node.key, rng, depth + 1): rand_value(node.value, rng, depth + 1)
                for _ in range(0 if depth > 3 else rng.randint(0, 3))}
    if isinstance(node, SetN):
        s = {rand_value(node.elem, rng, depth + 1) for _ in range(rng.randint(0, 3))}
        return frozenset(s) if node.frozen else s
    if isinstance(node, StructN):
        kw = {name: rand_value(f, rng, depth + 1) for name, f in node.fields}
        return node.cls(**kw)
    raise AssertionError(node)


def mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    op = rng.randrange(7)
    if op == 0 and b:
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif op == 1 and b:
        b[rng.randrange(len(b))] = rng.choice([0, 1, 2, 0x7F, 0x80, 0xFF])
    elif op == 2:
        del b[rng.randrange(len(b) + 1):]
    elif op == 3:
        at = rng.randrange(len(b) + 1)
        b[at:at] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 9)))
    elif op == 4 and len(b) >= 8:  # a huge or odd length prefix somewhere
        at = rng.randrange(len(b) - 7)
        b[at:at + 8] = struct.pack("<Q", rng.choice([2**64 - 1, 2**63, 2**32, 1000, len(b)]))
    elif op == 5:  # compact: a varint at its limits (over-long, out of range, non-shortest, cut)
        at = rng.randrange(len(b) + 1)
        span = rng.randint(0, 3)
        b[at:at + span] = rng.choice([b"\x80", b"\x80\x00", b"\xff\xff\x03", b"\xff\xff\x04", b"\xff\xff\x83",
                                      b"\xff\xff\xff\xff\x0f", b"\xff\xff\xff\xff\x10", b"\xff" * 9 + b"\x01",
                                      b"\xff" * 9 + b"\x02", b"\x80" * 10 + b"\x01", b"\xac\x02", b"\x7f"])
    else:
        b = bytearray(rng.getrandbits(8) for _ in range(rng.randint(0, 40)))
    return bytes(b)


def outcome_decode(codec, py_codec, data: bytes):
    try:
        value = codec.whole(data)
    except DecodeError as e:
        return ("error", e.kind, e.offset, e.path, e.needed)
    return ("value", py_codec.encode(value))


def outcome_encode(codec, value):
    try:
        return ("bytes", codec.encode(value))
    except EncodeError as e:
        return ("error", e.path, e.detail)


@pytest.mark.parametrize("fmt", ["portable", "native", "compact"])
@pytest.mark.parametrize("hint", SCHEMAS, ids=lambda h: getattr(h, "__name__", str(h)))
def test_codecs_agree(hint, fmt, backend):
    if backend != "c":
        pytest.skip("differential test: runs once, in the compiled-codec pass")
    if fmt == "native" and sys.byteorder != "little":
        pytest.skip("native format: little-endian hosts only")
    py, c = codecs(hint, fmt)
    rng = random.Random(f"{SEED}-{getattr(hint, '__name__', hint)}-{fmt}")
    decoded = 0
    for _ in range(ROUNDS):
        value = rand_value(py.node, rng)
        enc = outcome_encode(py, value)
        assert outcome_encode(c, value) == enc, value
        if enc[0] != "bytes":
            continue
        data = enc[1]
        assert outcome_decode(c, py, data) == outcome_decode(py, py, data) == ("value", data)
        for _ in range(MUTATIONS):
            bad = mutate(data, rng)
            want = outcome_decode(py, py, bad)
            assert outcome_decode(c, py, bad) == want, (bad.hex(), want)
            decoded += want[0] == "value"
        # decode_from at an offset, and trailing bytes
        assert c.decode_from(b"\x00" + data, 1)[1] == py.decode_from(b"\x00" + data, 1)[1] == len(data) + 1
        with pytest.raises(DecodeError) as e:
            c.whole(data + b"\x00")
        assert (e.value.kind, e.value.offset) == ("trailing_bytes", len(data))


def test_bad_values_rejected_alike(backend):
    """Values that do not fit: both codecs raise the same EncodeError."""
    if backend != "c":
        pytest.skip("differential test: runs once, in the compiled-codec pass")
    from schemas import make_car, make_everything, make_person
    cases = []
    for obj, field, bad in [
        (make_person(), "id", 2**31), (make_person(), "id", "1"), (make_person(), "name", b"x"),
        (make_person(), "scores", [1.0, "x"]), (make_person(), "scores", [1e39]), (make_person(), "scores", None),
        (make_car(), "model_year", -1), (make_car(), "available", 2), (make_car(), "code", 5),
        (make_car(), "some_numbers", [1, 2, 3]), (make_car(), "extras", 256), (make_car(), "extras", -1),
        (make_car(), "engine", None), (make_car(), "fuel_figures", [None]),
        (make_everything(), "tagged", Variant(3, 1)), (make_everything(), "tagged", (0, 1)),
        (make_everything(), "union_", 1.5), (make_everything(), "mapping", {"a": [70000]}),
        (make_everything(), "int_set", {2**63}), (make_everything(), "wide_bits", 1 << 70),
        (make_everything(), "tup", (1, "s")), (make_everything(), "raw", "text"),
        (make_everything(), "colors", [7]), (make_everything(), "names", ["a"]),
        (make_everything(), "opt_some", 3), (make_everything(), "point_map", {1: None}),
    ]:
        cases.append(dataclasses.replace(obj, **{field: bad}))
    for fmt in ("portable", "native", "compact"):
        for value in cases:
            py, c = codecs(type(value), fmt)
            want = outcome_encode(py, value)
            assert want[0] == "error", value
            assert outcome_encode(c, value) == want


def outcome_stream(codec, py_codec, data: bytes, batch: int):
    out = []
    try:
        for v in api._iter_buffer(codec, data, batch):
            out.append(py_codec.encode(v))
    except DecodeError as e:
        out.append(("error", e.kind, e.offset, e.path))
    return out


@pytest.mark.parametrize("fmt", ["portable", "compact"])
@pytest.mark.parametrize("hint", [Person, Car, Everything, Node, ProfileV3, BookSlots, TickSlots],
                         ids=lambda h: h.__name__)
def test_streams_agree(hint, fmt, backend):
    """iter_decode over back-to-back messages (the compiled codec decodes them
    in batches), intact and with a damaged message somewhere."""
    if backend != "c":
        pytest.skip("differential test: runs once, in the compiled-codec pass")
    py, c = codecs(hint, fmt)
    rng = random.Random(f"{SEED}-stream-{hint.__name__}-{fmt}")
    for _ in range(max(5, ROUNDS // 4)):
        msgs = [py.encode(rand_value(py.node, rng)) for _ in range(rng.randint(1, 12))]
        data = b"".join(msgs)
        batch = rng.choice([1, 3, 4096])
        want = outcome_stream(py, py, data, batch)
        assert want == msgs
        assert outcome_stream(c, py, data, batch) == want
        bad = mutate(data, rng)
        assert outcome_stream(c, py, bad, batch) == outcome_stream(py, py, bad, batch), bad.hex()
