"""The compact format: portable traversal, but 16/32/64-bit integers (enums,
durations, the variant index) and every length/count prefix are unsigned
LEB128 varints, signed integers zigzag-encoded first. Golden bytes written by
hand, every rejection rule with its kind, errc and offset; each test runs
against both codecs (conftest.py)."""

from __future__ import annotations

import dataclasses
import io
from typing import Annotated, Optional, Union

import pytest

from bin_serializer import (DecodeError, EncodeError, ErrorKind, SchemaError, compile_codec, decode, decode_from,
                            encode, iter_decode)
from bin_serializer.types import (Array, Bitset, Duration, Monostate, TaggedUnion, Variant, f32, f64, i8, i16,
                                  i32, i64, u8, u16, u32, u64)
from schemas import (Car, Color, Everything, Model, Node, Person, Tick, make_car, make_everything, make_person,
                     make_tick)


def leb(x: int) -> str:
    """Test-local LEB128 (hex), independent of the package."""
    assert x >= 0
    out = []
    while True:
        b = x & 0x7F
        x >>= 7
        out.append(b | (0x80 if x else 0))
        if not x:
            return bytes(out).hex()


def zz(n: int) -> str:
    return leb(2 * n if n >= 0 else -2 * n - 1)


def text(s: str) -> str:
    b = s.encode()
    return leb(len(b)) + b.hex()


def f32h(x: float) -> str:
    import struct
    return struct.pack("<f", x).hex()


def f64h(x: float) -> str:
    import struct
    return struct.pack("<d", x).hex()


def roundtrip(hint, value, hexstr):
    data = encode(value, "compact", schema=hint)
    assert data.hex() == hexstr
    back = decode(hint, data, "compact")
    assert encode(back, "compact", schema=hint) == data
    return back


# ---------------------------------------------------------------------------
# the examples of the spec


@pytest.mark.parametrize("hint, value, hexstr", [
    (u32, 300, "ac02"),
    (u16, 0, "00"),
    (i32, -1, "01"),
    (i32, 1, "02"),
    (i64, -2**63, "ffffffffffffffffff01"),
    (u64, 2**64 - 1, "ffffffffffffffffff01"),
    (u16, 65535, "ffff03"),
    (str, "hi", "026869"),
    (str, "", "00"),
    (list[u32], [1, 300], "0201ac02"),
    (Optional[i32], 5, "010a"),
    (Optional[i32], None, "00"),
    (TaggedUnion[u8, i32], Variant(1, -2), "0103"),
])
def test_spec_examples(hint, value, hexstr):
    assert roundtrip(hint, value, hexstr) == value


# ---------------------------------------------------------------------------
# boundaries of every width


def _bounds():
    cases = []
    for hint, spec_min, spec_max, signed in [(u16, 0, 2**16 - 1, False), (u32, 0, 2**32 - 1, False),
                                             (u64, 0, 2**64 - 1, False), (i16, -2**15, 2**15 - 1, True),
                                             (i32, -2**31, 2**31 - 1, True), (i64, -2**63, 2**63 - 1, True)]:
        values = {0, 1, 63, 64, 127, 128, 16383, 16384, 2**21 - 1, 2**21, spec_max, spec_max - 1}
        if signed:
            values |= {-1, -64, -65, -128, -8192, -8193, spec_min, spec_min + 1}
        for v in sorted(x for x in values if spec_min <= x <= spec_max):
            cases.append(pytest.param(hint, v, zz(v) if signed else leb(v), id=f"{hint.__metadata__[0].name}={v}"))
    return cases


@pytest.mark.parametrize("hint, value, hexstr", _bounds())
def test_integer_boundaries(hint, value, hexstr):
    assert roundtrip(hint, value, hexstr) == value


@pytest.mark.parametrize("hint, value, hexstr", [
    (u16, 127, "7f"), (u16, 128, "8001"), (u16, 16383, "ff7f"), (u16, 16384, "808001"),
    (u32, 2**32 - 1, "ffffffff0f"), (u64, 2**63, "80808080808080808001"),
    (i16, -32768, "ffff03"), (i16, 32767, "feff03"), (i16, -64, "7f"), (i16, 64, "8001"),
    (i32, -2**31, "ffffffff0f"), (i32, 2**31 - 1, "feffffff0f"),
    (i64, 2**63 - 1, "feffffffffffffffff01"),
])
def test_integer_boundaries_literal(hint, value, hexstr):
    assert roundtrip(hint, value, hexstr) == value


@pytest.mark.parametrize("hint, value, hexstr", [
    (u8, 255, "ff"), (i8, -1, "ff"), (bool, True, "01"),
    (f32, 1.0, "0000803f"), (f64, 1.0, "000000000000f03f"),
    (Bitset(12), 0xABC, "bc0a"), (Array[u8, 3], [1, 2, 3], "010203"),
])
def test_fixed_leaves_as_portable(hint, value, hexstr):
    assert roundtrip(hint, value, hexstr) == value
    assert encode(value, "portable", schema=hint).hex() == hexstr


def test_enums_and_durations():
    assert roundtrip(Color, Color.BLUE, "02")  # underlying u8: one fixed byte
    assert roundtrip(Annotated[Color, u16], Color.GREEN, "01")
    assert roundtrip(Model, Model.A, zz(65))  # no underlying type: i32, zigzag
    assert roundtrip(Annotated[Model, i8], Model.C, "43")  # i8: a plain byte
    assert roundtrip(Duration[i64], -(10**12), zz(-(10**12)))
    assert roundtrip(Duration[u32], 7, "07")
    assert roundtrip(Duration[f64], 1.5, f64h(1.5))


def test_variant_index_and_untagged_union():
    alts = TaggedUnion[tuple(u8 for _ in range(200))]
    assert roundtrip(alts, Variant(150, 9), leb(150) + "09")  # a 2-byte index
    assert roundtrip(Union[u32, str], 300, "00ac02")
    assert roundtrip(Union[u32, str], "x", "010178")
    assert roundtrip(TaggedUnion[i32, Monostate], Variant(1, Monostate()), "01")


def test_containers():
    assert roundtrip(list[list[u16]], [[1], [], [2, 300]], "03" "0101" "00" "0202ac02")
    assert roundtrip(dict[str, u32], {"a": 1, "bc": 300}, "02" "016101" "026263ac02")
    assert roundtrip(set[i64], {-1, 2}, "02" "01" "04")  # ascending order
    assert roundtrip(tuple[u8, i16, str], (1, -3, "z"), "01" "05" "017a")
    assert roundtrip(tuple[i32, ...], (1, -1), "02" "02" "01")
    assert roundtrip(list[bool], [True, False], "020100")
    assert roundtrip(list[f32], [1.0], "01" + f32h(1.0))
    assert roundtrip(Array[u32, 2], [1, 128], "01" "8001")
    assert roundtrip(list[Optional[i16]], [None, -1], "02" "00" "0101")
    assert roundtrip(bytes, b"\x00\xff", "0200ff")
    big = "x" * 200
    assert roundtrip(str, big, "c801" + big.encode().hex())
    assert roundtrip(list[u8], list(range(130)), "8201" + bytes(range(130)).hex())


def test_person_and_tick_golden():
    p = make_person()
    want = (text("John Doe") + zz(25) + text("john.doe@example.com")
            + "03" + f32h(2.1) + f32h(3.2) + f32h(4.5))
    assert encode(p, "compact").hex() == want
    back = decode(Person, bytes.fromhex(want), "compact")
    assert back.name == "John Doe" and back.id == 25 and len(back.scores) == 3
    t = make_tick(3)
    want_t = leb(t.timestamp_ns) + leb(t.symbol_id) + leb(t.quantity) + f64h(t.price) + "%02x" % t.side
    assert encode(t, "compact").hex() == want_t
    assert decode(Tick, bytes.fromhex(want_t), "compact") == t
    assert compile_codec(Tick, "compact").fixed_size is None  # varints: no fixed size
    assert compile_codec(Tick, "portable").fixed_size == 25


def test_car_golden():
    c = make_car()
    e = c.engine
    want = (zz(c.timestamp) + leb(c.serial_number) + leb(c.model_year) + "01" + "%02x" % c.code
            + "".join(leb(x) for x in c.some_numbers) + bytes(c.vehicle_code).hex() + "%02x" % c.extras
            + leb(e.capacity) + "%02x" % e.num_cylinders + leb(e.max_rpm) + bytes(e.manufacturer_code).hex()
            + "%02x%02x" % (e.booster.boost_type, e.booster.horse_power)
            + leb(len(c.fuel_figures))
            + "".join(leb(f.speed) + f32h(f.mpg) + text(f.usage_description) for f in c.fuel_figures)
            + leb(len(c.performance_figures))
            + "".join("%02x" % pf.octane_rating + leb(len(pf.acceleration))
                      + "".join(leb(a.mph) + f32h(a.seconds) for a in pf.acceleration)
                      for pf in c.performance_figures)
            + text(c.manufacturer) + text(c.model) + text(c.activation_code))
    data = encode(c, "compact")
    assert data.hex() == want
    assert len(data) < len(encode(c, "portable"))
    assert encode(decode(Car, data, "compact"), "compact") == data


def test_everything_and_recursive_round_trip():
    ev = make_everything()
    data = encode(ev, "compact")
    assert encode(decode(Everything, data, "compact"), "compact") == data
    tree = Node(-1, [Node(300, []), Node(2, [Node(-70000, [])])])
    data = encode(tree, "compact")
    assert data.hex() == zz(-1) + "02" + zz(300) + "00" + zz(2) + "01" + zz(-70000) + "00"
    assert decode(Node, data, "compact") == tree


@dataclasses.dataclass
class Evo:
    id: u32 = 0
    name: str = ""
    score: i16 = 0
    __bin_serializer_versions__ = (2, 3)


@dataclasses.dataclass
class EvoOld:
    id: u32 = 0
    name: str = ""
    __bin_serializer_versions__ = (2,)


def test_evolvable_prefix_stays_fixed():
    body = "ac02" "0178" "03"
    want = "05000000" "03000000" + body  # u32 body_length, u32 field_count: fixed LE
    assert roundtrip(Evo, Evo(300, "x", -2), want) == Evo(300, "x", -2)
    # an older reader skips the unknown field by body_length
    assert decode(EvoOld, bytes.fromhex(want), "compact") == EvoOld(300, "x")
    # a newer reader gives the missing field its default
    old = encode(EvoOld(5, ""), "compact")
    assert old.hex() == "02000000" "02000000" "0500"
    assert decode(Evo, old, "compact") == Evo(5, "", 0)


# ---------------------------------------------------------------------------
# rejections: kind, errc, offset (and path)


def reject(hint, hexstr, kind, offset, path=None):
    with pytest.raises(DecodeError) as e:
        decode(hint, bytes.fromhex(hexstr), "compact")
    err = e.value
    assert (err.kind, err.offset) == (kind, offset), str(err)
    assert err.errc == ErrorKind.ERRC[kind]
    if path is not None:
        assert err.path == path
    return err


BAD = ErrorKind.INVALID_VARINT


@pytest.mark.parametrize("hint, hexstr", [
    (u16, "808004"),  # (b) out of range: the 3rd byte of a u16 is at most 0x03
    (u16, "ffff80"),  # (a) too long
    (u16, "ffff83"),
    (u32, "8000"),  # (c) non-shortest
    (u32, "ffffffff10"),  # (b)
    (u32, "ffffffff8f"),  # (a)
    (u32, "8080808000"),  # (c)
    (u64, "ffffffffffffffffff02"),  # (b)
    (u64, "ffffffffffffffffff81"),  # (a)
    (u64, "8080808080808080808001"),  # (a) an 11-byte varint
    (u64, "80808080808080808000"),  # (c)
    (i16, "ffff04"),
    (i32, "8100"),
    (i64, "ff00"),
])
def test_invalid_varints(hint, hexstr):
    err = reject(hint, hexstr, BAD, 0)
    assert err.errc == "invalid_value"


@pytest.mark.parametrize("hint, hexstr", [
    (u32, "80"), (u32, ""), (u16, "ffff"), (u64, "ffffffffffffffffff"), (i32, "8080"),
])
def test_truncated_varints(hint, hexstr):
    err = reject(hint, hexstr, ErrorKind.TRUNCATED, 0)
    assert err.errc == "truncated"


def test_offsets_inside_structs():
    head = text("ab")  # 3 bytes
    reject(Person, head + "8080808080", BAD, 3, "Person.id")
    reject(Person, head + "8080", ErrorKind.TRUNCATED, 3, "Person.id")
    # email length prefix: non-shortest, too long, truncated
    reject(Person, head + "02" + "8000", BAD, 4, "Person.email")
    reject(Person, head + "02" + "ffffffffffffffffff02", BAD, 4, "Person.email")
    reject(Person, head + "02" + "ff", ErrorKind.TRUNCATED, 4, "Person.email")
    # a count larger than the input: truncated (length_exceeds_input) at the prefix
    err = reject(Person, head + "02" + "00" + "05" + f32h(1.0), ErrorKind.LENGTH_EXCEEDS_INPUT, 5,
                 "Person.scores")
    assert err.errc == "truncated"
    reject(Person, "8000", BAD, 0, "Person.name")


def test_count_checks_use_compact_minimum_sizes():
    # a varint element takes at least 1 byte: 3 elements fit in 3 bytes
    assert decode(list[u64], bytes.fromhex("03010203"), "compact") == [1, 2, 3]
    reject(list[u64], "040102", ErrorKind.LENGTH_EXCEEDS_INPUT, 0)
    reject(list[u64], "ffffffffffffffffff01", ErrorKind.LENGTH_EXCEEDS_INPUT, 0)  # 2**64-1 elements
    # strings: at least 1 byte (their count); f32: 4 bytes
    reject(list[str], "0300", ErrorKind.LENGTH_EXCEEDS_INPUT, 0)
    reject(list[f32], "02" + f32h(1.0) + "0000", ErrorKind.LENGTH_EXCEEDS_INPUT, 0)
    # map entries: key + value minimums (1 + 1)
    reject(dict[u32, u32], "020101" "01", ErrorKind.LENGTH_EXCEEDS_INPUT, 0)
    assert decode(dict[u32, u32], bytes.fromhex("0201010202"), "compact") == {1: 1, 2: 2}
    # the count prefix itself: every varint rule
    reject(list[u8], "8000", BAD, 0)
    reject(list[u8], "80", ErrorKind.TRUNCATED, 0)
    reject(bytes, "ffffffffffffffffff81", BAD, 0)
    err = reject(list[list[u8]], "02" "00" "81", ErrorKind.TRUNCATED, 2, "list[list[u8]][1]")
    assert err.needed is not None


def test_variant_index_rejections():
    reject(TaggedUnion[u8, i32], "0201", ErrorKind.VARIANT_INDEX_OUT_OF_RANGE, 0)
    reject(TaggedUnion[u8, i32], "8000", BAD, 0)
    reject(TaggedUnion[u8, i32], "ffffffff1f", BAD, 0)  # (b) for the u32 index
    reject(TaggedUnion[u8, i32], "8080", ErrorKind.TRUNCATED, 0)
    reject(tuple[u8, TaggedUnion[u8, i32]], "07" "01" "80", ErrorKind.TRUNCATED, 2)


def test_enum_and_other_rejections():
    reject(Annotated[Color, u16], "05", ErrorKind.INVALID_ENUM, 0)
    reject(Annotated[Color, u16], "8500", BAD, 0)
    reject(Optional[i32], "02", ErrorKind.INVALID_OPTIONAL_FLAG, 0)
    reject(tuple[i32, bool], "0102", ErrorKind.INVALID_BOOL, 1)
    reject(str, "02c328", ErrorKind.INVALID_UTF8, 1)
    reject(set[u32], "020101", ErrorKind.DUPLICATE_KEY, 2)
    with pytest.raises(DecodeError) as e:
        decode(u32, bytes.fromhex("0100"), "compact")
    assert (e.value.kind, e.value.offset) == (ErrorKind.TRAILING_BYTES, 1)


def test_evolvable_rejections():
    reject(Evo, "0600000003000000" "ac02" "0178", ErrorKind.LENGTH_EXCEEDS_INPUT, 0)
    reject(Evo, "0600000003000000" "ac02" "0178" "8000", BAD, 12, "Evo.score")
    reject(Evo, "0200000003000000" "ac02", ErrorKind.TRUNCATED, 10, "Evo.name")
    reject(Evo, "0200000003000000" "ac02" "00" "00", ErrorKind.INVALID_VALUE, 10)  # fields overrun the body


def test_every_truncation_fails():
    for value, hint in [(make_car(), Car), (make_everything(), Everything), (Evo(1, "abc", -300), Evo)]:
        data = encode(value, "compact", schema=hint)
        for cut in range(len(data)):
            with pytest.raises(DecodeError):
                decode(hint, data[:cut], "compact")


def test_encode_range_errors():
    with pytest.raises(EncodeError):
        encode(65536, "compact", schema=u16)
    with pytest.raises(EncodeError):
        encode(-1, "compact", schema=u64)
    with pytest.raises(EncodeError):
        encode(2**31, "compact", schema=i32)
    with pytest.raises(EncodeError):
        encode(1.5, "compact", schema=u32)
    with pytest.raises(EncodeError):
        encode([1, -1], "compact", schema=list[u32])
    assert encode(Color(1), "compact", schema=Annotated[Color, u16]) == b"\x01"
    with pytest.raises(EncodeError):
        encode(7, "compact", schema=Annotated[Color, u16])
    assert encode(True, "compact", schema=u32) == b"\x01"  # ints by __index__, like portable


# ---------------------------------------------------------------------------
# API surface


def test_format_is_validated_everywhere():
    for call in (lambda: encode(1, "compactt", schema=u32), lambda: decode(u32, b"\x00", "bogus"),
                 lambda: compile_codec(u32, "Compact"), lambda: decode_from(u32, b"\x00", 0, "x")):
        with pytest.raises(ValueError, match="'portable', 'native' or 'compact'"):
            call()


def test_decode_from_and_streams():
    msgs = [make_tick(i) for i in range(50)]
    data = b"".join(encode(t, "compact") for t in msgs)
    assert decode_from(Tick, b"\xff" + data, 1, "compact") == (msgs[0], 1 + len(encode(msgs[0], "compact")))
    assert list(iter_decode(Tick, data, "compact")) == msgs
    # a file read in tiny chunks: varints split across chunk boundaries
    assert list(iter_decode(Tick, io.BytesIO(data), "compact", chunk_size=3)) == msgs
    with pytest.raises(DecodeError) as e:
        list(iter_decode(Tick, io.BytesIO(data[:-1]), "compact", chunk_size=5))
    assert e.value.kind == ErrorKind.TRUNCATED
    people = [make_person(), Person("", -5, "x" * 300, [])]
    data = b"".join(encode(p, "compact") for p in people)
    assert list(iter_decode(Person, io.BytesIO(data), "compact", chunk_size=2)) == [decode(Person, encode(
        p, "compact"), "compact") for p in people]


def test_numpy_in_compact():
    np = pytest.importorskip("numpy")
    from bin_serializer import records_dtype
    from bin_serializer.types import NDArray, Records

    data = encode(np.array([1.5, 2.0], dtype=np.float32), "compact", schema=NDArray[f32])
    assert data.hex() == "02" + f32h(1.5) + f32h(2.0)
    assert decode(NDArray[f32], data, "compact").tolist() == [1.5, 2.0]
    assert decode(list[f64], encode([1.0], "compact", schema=list[f64]), "compact", arrays=True).dtype == np.float64
    got = decode(list[u8], bytes.fromhex("020102"), "compact", arrays=True)
    assert isinstance(got, np.ndarray) and got.tolist() == [1, 2]
    assert decode(list[i8], bytes.fromhex("01ff"), "compact", arrays=True).tolist() == [-1]
    # 16/32/64-bit integer arrays are varints one by one: refused at compile time
    with pytest.raises(SchemaError, match="int32.*compact|i4.*compact"):
        compile_codec(NDArray[i32], "compact")
    with pytest.raises(SchemaError, match="u2"):
        compile_codec(list[u16], "compact", arrays=True)
    assert compile_codec(list[u16], "compact").node is not None  # fine without arrays=True
    with pytest.raises(SchemaError, match="Records"):
        compile_codec(Records[Tick], "compact")
    with pytest.raises(SchemaError):
        records_dtype(Tick, "compact")

    @dataclasses.dataclass
    class Px:
        a: u8
        b: f32

    rec = np.zeros(2, dtype=records_dtype(Px, "compact"))
    rec["a"] = [1, 2]
    data = encode(rec, "compact", schema=Records[Px])
    assert data.hex() == "02" + "01" + f32h(0.0) + "02" + f32h(0.0)
    assert decode(Records[Px], data, "compact").tolist() == rec.tolist()


# ---------------------------------------------------------------------------
# framed messages and the schema fingerprint


def test_token_stream_differs_only_in_the_format_token():
    from bin_serializer.message import schema_hash, token_stream
    for hint in (Person, Car, Node, Evo, list[u32], TaggedUnion[i32, str], dict[str, set[i64]]):
        p = token_stream(hint, "portable")
        c = token_stream(hint, "compact")
        assert p[0] == c[0] == 0x01  # the format token, u64 parameter: 1 portable, 2 compact
        assert p[1:9] == (1).to_bytes(8, "little") and c[1:9] == (2).to_bytes(8, "little")
        assert p[9:] == c[9:]
        assert schema_hash(hint, "compact") != schema_hash(hint, "portable")
        assert schema_hash(hint, "compact") != schema_hash(hint, "native")
    with pytest.raises(ValueError, match="compact"):
        token_stream(Person, "packed")


def test_messages():
    from bin_serializer.message import (FLAG_BIG_ENDIAN, decode_message, encode_message, iter_messages,
                                        message_is, read_header, schema_hash)
    p = make_person()
    data = encode_message(p, "compact")
    payload = encode(p, "compact")
    assert data[:4] == b"BSMF" and data[4] == 1 and data[5] == 2  # format byte 2
    assert data[6:8] == b"\x00\x00"
    assert int.from_bytes(data[8:16], "little") == schema_hash(Person, "compact")
    assert int.from_bytes(data[16:24], "little") == len(payload) and data[24:] == payload
    h = read_header(data)
    assert h.format == "compact" and h.payload_length == len(payload)
    assert decode_message(Person, data, "compact") == decode(Person, payload, "compact")
    assert message_is(Person, h, "compact") and not message_is(Person, h, "portable")
    for other in ("portable", "native"):
        with pytest.raises(DecodeError) as e:
            decode_message(Person, data, other)
        assert (e.value.kind, e.value.offset) == (ErrorKind.SCHEMA_MISMATCH, 5)
    with pytest.raises(DecodeError) as e:
        decode_message(Person, encode_message(p, "portable"), "compact")
    assert (e.value.kind, e.value.offset) == (ErrorKind.SCHEMA_MISMATCH, 5)
    # the big-endian flag is refused for compact, as for portable
    bad = bytearray(data)
    bad[6] |= FLAG_BIG_ENDIAN
    with pytest.raises(DecodeError) as e:
        read_header(bytes(bad))
    assert (e.value.kind, e.value.offset) == (ErrorKind.BAD_HEADER, 6)
    bad = bytearray(data)
    bad[5] = 3
    with pytest.raises(DecodeError) as e:
        read_header(bytes(bad))
    assert (e.value.kind, e.value.offset) == (ErrorKind.BAD_HEADER, 5)
    stream = data + encode_message(make_tick(1), "compact") + encode_message(p, "portable")
    assert [hd.format for hd, _ in iter_messages(stream)] == ["compact", "compact", "portable"]
    assert [hd.format for hd, _ in iter_messages(io.BytesIO(stream), chunk_size=7)] == [
        "compact", "compact", "portable"]


# ---------------------------------------------------------------------------
# every width against a test-local reference decoder, on biased random bytes


def ref_varint(data: bytes, bits: int, signed: bool):
    """(value, end) or (kind, 0) per the spec."""
    maxlen = {16: 3, 32: 5, 64: 10}[bits]
    x = 0
    for i in range(maxlen):
        if i >= len(data):
            return ErrorKind.TRUNCATED, 0
        b = data[i]
        x |= (b & 0x7F) << (7 * i)
        if b < 0x80:
            if (i and b == 0) or x >> bits:
                return BAD, 0
            if signed:
                x = (x >> 1) ^ -(x & 1)
            return x, i + 1
    return BAD, 0


@pytest.mark.parametrize("hint, bits, signed", [(u16, 16, False), (u32, 32, False), (u64, 64, False),
                                                (i16, 16, True), (i32, 32, True), (i64, 64, True)])
def test_random_varints_against_reference(hint, bits, signed):
    import random
    rng = random.Random(f"compact-{bits}-{signed}")
    pool = [0x00, 0x01, 0x02, 0x03, 0x04, 0x0F, 0x10, 0x7F, 0x80, 0x81, 0xFF, 0xFE]
    for _ in range(1500):
        data = bytes(rng.choice(pool) if rng.random() < 0.8 else rng.getrandbits(8)
                     for _ in range(rng.randint(0, 12)))
        want = ref_varint(data, bits, signed)
        try:
            got = decode_from(hint, data, 0, "compact")
        except DecodeError as e:
            got = (e.kind, e.offset)
        assert got == want, data.hex()
        if isinstance(want[0], int):
            assert encode(want[0], "compact", schema=hint) == data[:want[1]]
