"""Record logs (bin_serializer.log, docs/wire-format.md section 13): the
spec's example byte for byte, CRC32C, round trips, how a log ends (clean,
zeros, torn, corrupt), damage never changing a record, append, unknown
types, hostile headers, the cat command and the market example."""

from __future__ import annotations

import dataclasses
import io
import json
import mmap
import itertools
import os
import random
import re
import struct
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import bin_serializer
from bin_serializer import DecodeError, ErrorKind, SchemaError, encode
from bin_serializer import _accel
from bin_serializer.__main__ import main as cli
from bin_serializer.errors import LogCorruptError, LogHeaderError, LogRecordError
from bin_serializer.log import LogReader, LogWriter, crc32c, crc32c_py
from bin_serializer.message import schema_hash
from bin_serializer.types import Retired, char, f64, i32, i64, retired, u16, u32, u64
from schemas import Car, LimitsV1, LimitsV2, Person, Tick, make_car, make_tick

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

FORMATS = ["native", "portable", "compact"]


@dataclass
class SpecTick:  # the spec's example: struct Tick { std::uint32_t id; double px; }
    id: u32
    px: f64


@dataclass
class Note:
    id: i32
    text: str
    tags: list[str]


@dataclass
class Nested:
    name: str
    people: list[Person]
    pos: tuple[i32, i32]


@dataclass
class Evo:
    id: u32
    old: Retired[u16, 7] = retired()
    name: str = ""
    extra: i64 = -5
    __bin_serializer_versions__ = (3, 4)


@dataclass(slots=True)
class Small:
    a: u32
    c: char


def make_person() -> Person:  # f32 scores that round-trip exactly
    return Person("John Doe", 25, "john.doe@example.com", [2.5, 3.25, -4.5])


def u32le(x: int) -> bytes:
    return struct.pack("<I", x)


def log_bytes(records, types, **kw) -> bytes:
    f = io.BytesIO()
    with LogWriter(f, types, **kw) as w:
        for r in records:
            w.write(r)
    return f.getvalue()


def blocks_of(data: bytes) -> "list[tuple[int, int]]":
    """(start, end) of each block of a well-formed log."""
    pos = 16 + struct.unpack_from("<I", data, 8)[0]
    out = []
    while pos < len(data):
        n = struct.unpack_from("<I", data, pos + 4)[0]
        out.append((pos, pos + 16 + n))
        pos += 16 + n
    return out


def records_per_block(data: bytes, types) -> "list[int]":
    """How many records each block holds (read by skipping nothing, block by block)."""
    counts = []
    for start, end in blocks_of(data):
        header_end = 16 + struct.unpack_from("<I", data, 8)[0]
        one = data[:header_end] + data[start:end]
        counts.append(len(list(LogReader(one, types))))
    return counts


# ---------------------------------------------------------------------------
# CRC32C


def test_crc32c_check_values():
    assert crc32c_py(b"123456789") == 0xE3069283
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(b"") == 0 and crc32c_py(b"") == 0
    assert crc32c(bytes(32)) == 0x8A9136AA  # RFC 3720 B.4: 32 bytes of zeros
    assert crc32c(b"\xff" * 32) == 0x62A8AB43  # RFC 3720 B.4: 32 bytes of ones
    assert crc32c(bytes(range(32))) == 0x46DD794E  # RFC 3720 B.4: incrementing
    assert crc32c(b"6789", crc32c(b"12345")) == 0xE3069283  # continued


@pytest.mark.skipif(not _accel.available(), reason="the compiled extension is not built")
def test_crc32c_implementations_agree_on_random_data(backend):
    if backend != "c":
        pytest.skip("compares the implementations itself: runs once")
    rng = random.Random(7)
    cext = _accel._cext
    for n in list(range(0, 70)) + [255, 256, 1000, 4096, 4097, 65536 + 3]:
        data = rng.randbytes(n)
        want = crc32c_py(data)
        assert cext.crc32c(data) == want, n
        assert cext.crc32c(data, 0, True) == want, n  # the table (slicing-by-8) path
        off = rng.randrange(n + 1)
        assert cext.crc32c(data[off:], cext.crc32c(data[:off])) == want
        assert cext.crc32c(memoryview(data)[1:], cext.crc32c(data[:1], 0, True), True) == want


# ---------------------------------------------------------------------------
# the spec's example


def test_spec_example_log_byte_for_byte():
    data = log_bytes([SpecTick(1, 2.5), SpecTick(300, -1.0)], [SpecTick], descriptions=False)
    fp = schema_hash(SpecTick, "compact")
    # type table: varint type_count, u64 fingerprint, u32 message id, varint description length
    table = b"\x01" + struct.pack("<Q", fp) + u32le(0) + b"\x00"
    assert len(table) == 14
    head = b"BSLG" + bytes([1, 2]) + b"\x00\x00" + u32le(len(table))
    header = head + u32le(crc32c_py(head + table)) + table
    body = bytes.fromhex("00 09 01 0000000000000440" "00 0a ac02 000000000000f0bf")
    assert len(body) == 0x17
    bhead = b"BSLB" + u32le(len(body)) + u32le(crc32c_py(body))
    block = bhead + u32le(crc32c_py(bhead)) + body
    assert data == header + block
    r = LogReader(data, [SpecTick])
    assert list(r) == [SpecTick(1, 2.5), SpecTick(300, -1.0)]
    assert (r.end, r.end_offset) == ("clean", len(data))
    assert r.header.format == "compact" and r.header.types[0].fingerprint == fp
    assert r.header.types[0].description is None and r.header.data_offset == 16 + 14


# ---------------------------------------------------------------------------
# round trips


def _values():
    return [make_person(), Note(-3, "ünï", ["a", "", "bc" * 40]), make_tick(5),
            Nested("n", [make_person(), Person("", 0, "", [])], (-1, 7)), Evo(9, name="x", extra=123),
            Note(0, "", []), make_tick(6), Evo(1)]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("block_bytes", [1, 64, 4096])
def test_round_trip_all_formats(fmt, block_bytes):
    types = [Person, Note, Tick, Nested, Evo]
    values = _values() * 20
    data = log_bytes(values, types, format=fmt, block_bytes=block_bytes)
    r = LogReader(data, types)
    assert list(r) == values
    assert r.end == "clean" and r.format == fmt
    # from the embedded descriptions alone: other classes, the same bytes
    r2 = LogReader(data)
    got = list(r2)
    assert [encode(v, fmt) for v in got] == [encode(v, fmt) for v in values]
    assert [type(v).__name__ for v in got] == [type(v).__name__ for v in values]
    assert [t.name for t in r2.header.types] == ["Person", "Note", "Tick", "Nested", "Evo"]


def test_round_trip_car_and_slots_and_sources(tmp_path):
    types = [Car, Small]
    values = [make_car(), Small(1, ord("x")), Small(2**32 - 1, 0)] * 50
    path = tmp_path / "c.bslog"
    with LogWriter(path, types) as w:
        for v in values:
            w.write(v)
    data = path.read_bytes()
    want = [encode(v, "compact") for v in values]  # Car has f32 fields: compare the bytes

    def enc(records):
        return [encode(v, "compact") for v in records]

    assert enc(LogReader(path, types)) == want
    assert enc(LogReader(str(path), types)) == want
    assert enc(LogReader(bytearray(data), types)) == want
    assert enc(LogReader(memoryview(data), types)) == want
    with open(path, "rb") as f:
        r = LogReader(f, types)
        assert isinstance(r._buf, mmap.mmap)  # a regular file is mapped, not read whole
        assert enc(r) == want
        r.close()
    with open(path, "rb") as f:  # past its start: the log is what follows, read
        f.read(3)
        with pytest.raises(LogHeaderError):
            LogReader(f, types)
    with open(tmp_path / "two", "wb") as f:
        f.write(b"xyz" + data)
    with open(tmp_path / "two", "rb") as f:
        f.seek(3)
        assert enc(LogReader(f, types)) == want
    assert enc(LogReader(io.BytesIO(data), types)) == want  # no descriptor: read
    assert list(LogReader(data, types, only=[Small])) == [v for v in values if type(v) is Small]


def test_descriptions_describe_the_types(backend):
    if backend != "python":
        pytest.skip("no codec involved: runs once")
    from bin_serializer import schema
    from bin_serializer._describe import describe
    for fmt in FORMATS:
        for cls in (Person, Note, Nested, Evo, Car, Tick, Small):
            loaded = schema.load(describe(cls, fmt))
            assert schema_hash(loaded, fmt) == schema_hash(cls, fmt)


def test_blocks_follow_block_bytes():
    big = Note(1, "x" * 300, [])
    small = Note(2, "", [])
    data = log_bytes([small, small, big, small], [Note], block_bytes=100)
    # a block is sealed once its body reaches 100 bytes after a record (the C++ writer's rule: the
    # 300-byte record joins the open block and seals it)
    assert records_per_block(data, [Note]) == [3, 1]
    data = log_bytes([small] * 30, [Note], block_bytes=20)
    rec = len(encode(small, "compact")) + 2
    per = -(-20 // rec)
    assert records_per_block(data, [Note]) == [per] * (30 // per) + ([30 % per] if 30 % per else [])


def test_flush_modes(tmp_path):
    path = tmp_path / "f.bslog"
    w = LogWriter(path, [Tick], flush="manual")
    header_size = path.stat().st_size
    for i in range(2000):
        w.write(make_tick(i))
    assert path.stat().st_size == header_size  # manual: nothing until flush()
    w.flush()
    assert len(list(LogReader(path, [Tick]))) == 2000
    w.close()
    w = LogWriter(path, [Tick], flush="record")
    w.write(make_tick(1))
    r = LogReader(path, [Tick])
    assert list(r) == [make_tick(1)] and r.end == "clean"
    w.close()
    w = LogWriter(path, [Tick])  # block: whole blocks as they fill
    for i in range(1000):
        w.write(make_tick(i))
    r = LogReader(path, [Tick])
    got = list(r)
    assert 0 < len(got) < 1000 and got == [make_tick(i) for i in range(len(got))] and r.end == "clean"
    w.close()
    assert len(list(LogReader(path, [Tick]))) == 1000


def test_writer_refuses_other_classes_and_duplicates():
    w = LogWriter(io.BytesIO(), [Tick, Person])
    with pytest.raises(TypeError, match="none of this log's types"):
        w.write(Note(1, "", []))

    @dataclass
    class Tick2:  # the same shape as Tick: the same fingerprint
        timestamp_ns: u64
        symbol_id: u32
        quantity: u32
        price: f64
        side: bin_serializer.types.u8

    if schema_hash(Tick2, "compact") == schema_hash(Tick, "compact"):
        with pytest.raises(SchemaError, match="could not tell"):
            LogWriter(io.BytesIO(), [Tick, Tick2])
    with pytest.raises(ValueError):
        LogWriter(io.BytesIO(), [Tick], flush="often")


# ---------------------------------------------------------------------------
# how a log ends


def _ticks_log(n=300, block_bytes=256):
    values = [make_tick(i) for i in range(n)]
    return values, log_bytes(values, [Tick], block_bytes=block_bytes)


def test_clean_end_and_zero_tail():
    values, data = _ticks_log()
    r = LogReader(data + bytes(1000), [Tick])
    assert list(r) == values and (r.end, r.end_offset) == ("clean", len(data))
    r = LogReader(data + bytes(3), [Tick])
    assert list(r) == values and (r.end, r.end_offset) == ("clean", len(data))
    header_end = blocks_of(data)[0][0]
    r = LogReader(data[:header_end], [Tick])
    assert list(r) == [] and (r.end, r.end_offset) == ("clean", header_end)


def test_torn_at_every_offset_of_the_last_two_blocks():
    values, data = _ticks_log()
    blocks = blocks_of(data)
    counts = records_per_block(data, [Tick])
    assert len(blocks) >= 3
    for cut in range(blocks[-2][0], len(data) + 1):
        r = LogReader(data[:cut], [Tick])
        got = list(r)
        whole = [i for i, (s, e) in enumerate(blocks) if e <= cut]
        assert got == values[:sum(counts[i] for i in whole)], cut
        boundary = cut in [s for s, _ in blocks] or cut == len(data)
        assert (r.end, r.end_offset) == (("clean", cut) if boundary else ("torn", blocks[len(whole)][0])), cut


def test_torn_with_zero_magic_and_body_past_end():
    values, data = _ticks_log()
    s, e = blocks_of(data)[-1]
    n_last = records_per_block(data, [Tick])[-1]
    zero_magic = data[:s] + bytes(4) + data[s + 4:e]
    r = LogReader(zero_magic, [Tick])
    assert list(r) == values[:-n_last] and (r.end, r.end_offset) == ("torn", s)
    # zeros after the last byte of a block: it is complete and fails its CRC (rule 6), not a zero tail
    r = LogReader(data[:e - 1] + bytes(50), [Tick])
    assert list(r.records(on_corruption="skip")) == values[:-n_last] and (r.end, r.end_offset) == ("corrupt", s)


def test_corruption_with_a_valid_block_after_it_raise_resume_skip():
    values, data = _ticks_log()
    blocks = blocks_of(data)
    counts = records_per_block(data, [Tick])
    k = 1
    s, e = blocks[k]
    bad = bytearray(data)
    bad[s + 20] ^= 0x01
    bad = bytes(bad)
    before = sum(counts[:k])
    r = LogReader(bad, [Tick])
    got = []
    with pytest.raises(LogCorruptError) as ei:
        for v in r:
            got.append(v)
    assert got == values[:before]
    err = ei.value
    assert isinstance(err, DecodeError) and err.kind == ErrorKind.CORRUPT_BLOCK
    assert err.offset == s and err.resume_offset == e and (r.end, r.end_offset) == ("corrupt", s)
    rest = list(r.resume())
    assert rest == values[before + counts[k]:] and r.end == "clean"
    r = LogReader(bad, [Tick])
    assert list(r.records(on_corruption="skip")) == values[:before] + values[before + counts[k]:]
    assert [c.offset for c in r.corruptions] == [s] and r.end == "clean"


def test_corruption_of_the_last_complete_block():
    values, data = _ticks_log()
    s, e = blocks_of(data)[-1]
    n_last = records_per_block(data, [Tick])[-1]
    bad = bytearray(data)
    bad[e - 1] ^= 0xFF
    r = LogReader(bytes(bad), [Tick])
    got = []
    with pytest.raises(LogCorruptError) as ei:
        for v in r:
            got.append(v)
    assert got == values[:-n_last]
    assert ei.value.offset == s and ei.value.resume_offset is None
    assert (r.end, r.end_offset) == ("corrupt", s)
    assert list(r) == []  # nothing to resume
    r = LogReader(bytes(bad), [Tick])
    assert list(r.records(on_corruption="skip")) == values[:-n_last] and r.end == "corrupt"


@pytest.mark.parametrize("mode", ["xor", "bit"])
def test_damage_in_the_last_two_blocks_never_changes_a_record(mode):
    values, data = _ticks_log(n=120, block_bytes=200)
    blocks = blocks_of(data)
    counts = records_per_block(data, [Tick])
    starts = [sum(counts[:i]) for i in range(len(blocks))]
    rng = random.Random(1)
    for pos in range(blocks[-2][0], len(data)):
        bad = bytearray(data)
        bad[pos] ^= 0xFF if mode == "xor" else 1 << rng.randrange(8)
        k = next(i for i, (s, e) in enumerate(blocks) if s <= pos < e)
        r = LogReader(bytes(bad), [Tick])
        got = list(r.records(on_corruption="skip"))
        # every block but the damaged one, nothing changed
        want = [v for i in range(len(blocks)) if i != k for v in values[starts[i]:starts[i] + counts[i]]]
        assert got == want, pos
        assert r.end == ("clean" if k < len(blocks) - 1 else r.end) and r.end in ("clean", "torn", "corrupt")
        if k < len(blocks) - 1:
            assert [c.offset for c in r.corruptions] == [blocks[k][0]], pos


# ---------------------------------------------------------------------------
# append


def test_append_after_a_torn_tail(tmp_path):
    values, data = _ticks_log()
    s, e = blocks_of(data)[-1]
    n_last = records_per_block(data, [Tick])[-1]
    path = tmp_path / "a.bslog"
    path.write_bytes(data[:e - 5])
    with LogWriter(path, [Tick], append=True, block_bytes=256) as w:
        for i in range(1000, 1010):
            w.write(make_tick(i))
    r = LogReader(path, [Tick])
    assert list(r) == values[:-n_last] + [make_tick(i) for i in range(1000, 1010)] and r.end == "clean"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="flock is POSIX")
def test_a_second_writer_of_the_same_file_fails_and_changes_nothing(tmp_path):
    import subprocess
    path = tmp_path / "locked.bslog"
    w = LogWriter(path, [Tick], block_bytes=256)
    for i in range(10):
        w.write(make_tick(i))
    w.flush()
    before = path.read_bytes()
    for append in (False, True):  # a new log would truncate it, an append would cut its tail
        with pytest.raises(BlockingIOError):
            LogWriter(path, [Tick], append=append)
        assert path.read_bytes() == before
    # Another process: the lock is the file's (a C++ writer takes the same one).
    child = ("import sys\nfrom bin_serializer.log import LogWriter\nfrom bin_serializer.types import u8\n"
             "from dataclasses import dataclass\n@dataclass\nclass T:\n    x: u8\n"
             "try:\n    LogWriter(sys.argv[1], [T], append=True)\nexcept BlockingIOError:\n    sys.exit(0)\nsys.exit(1)\n")
    assert subprocess.run([sys.executable, "-c", child, str(path)]).returncode == 0
    assert path.read_bytes() == before
    assert list(LogReader(path, [Tick])) == [make_tick(i) for i in range(10)]  # readers take no lock
    for i in range(10, 20):
        w.write(make_tick(i))
    w.close()
    with LogWriter(path, [Tick], append=True) as w2:  # released by close()
        w2.write(make_tick(20))
    assert list(LogReader(path, [Tick])) == [make_tick(i) for i in range(21)]


def test_append_checks_the_header_and_the_tail(tmp_path):
    values, data = _ticks_log()
    path = tmp_path / "a.bslog"
    path.write_bytes(data)
    with pytest.raises(SchemaError, match="append"):
        LogWriter(path, [Person], append=True)
    with pytest.raises(SchemaError, match="append"):
        LogWriter(path, [Tick], append=True, format="portable")
    with pytest.raises(SchemaError, match="append"):
        LogWriter(path, [Tick, Person], append=True)
    s, e = blocks_of(data)[-1]
    bad = bytearray(data)
    bad[e - 1] ^= 0x10
    path.write_bytes(bytes(bad))
    with pytest.raises(LogCorruptError):
        LogWriter(path, [Tick], append=True)
    assert path.read_bytes() == bytes(bad)  # refused: untouched
    n_last = records_per_block(data, [Tick])[-1]
    with LogWriter(path, [Tick], append=True, recover=True) as w:
        w.write(make_tick(7777))
    r = LogReader(path, [Tick])
    assert list(r) == values[:-n_last] + [make_tick(7777)] and r.end == "clean"
    # corruption with valid blocks after it: refused even with recover=True
    # (as the C++ writer refuses it with cut_corrupt_tail), the file untouched
    s1, _ = blocks_of(data)[1]
    mid = bytearray(data)
    mid[s1 + 20] ^= 1
    path.write_bytes(bytes(mid))
    with pytest.raises(LogCorruptError) as ei:
        LogWriter(path, [Tick], append=True, recover=True)
    assert s1 <= ei.value.offset < blocks_of(data)[2][0]
    assert path.read_bytes() == bytes(mid)
    # a clean log: appended to as it is
    path.write_bytes(data)
    with LogWriter(path, [Tick], append=True) as w:
        w.write(make_tick(1))
    assert list(LogReader(path, [Tick])) == values + [make_tick(1)]


def test_append_starts_anew_after_a_header_never_published(tmp_path):
    """A writer killed before it published the header (its magic is stored
    last) leaves the header's bytes or a prefix of them, the magic perhaps
    still zero, then zeros: no reader ever found a log there, so appending
    starts a new one (as the C++ writers do); other bytes are refused."""
    header = log_bytes([], [Tick])
    fresh = log_bytes([make_tick(i) for i in range(5)], [Tick])
    zero_magic = bytes(4) + header[4:]
    path = tmp_path / "u.bslog"
    for data in (zero_magic, zero_magic + bytes(4096), header[:10], zero_magic[:40], bytes(4096), bytes(3)):
        path.write_bytes(data)
        with LogWriter(path, [Tick], append=True) as w:
            w.write_all([make_tick(i) for i in range(5)])
        assert path.read_bytes() == fresh
    other = log_bytes([], [Tick], format="portable")
    for data in (zero_magic + bytes(100) + b"\x01", other[:20]):
        path.write_bytes(data)
        with pytest.raises(LogHeaderError) as ei:
            LogWriter(path, [Tick], append=True)
        assert ei.value.kind == ErrorKind.TRUNCATED
        assert path.read_bytes() == data


# ---------------------------------------------------------------------------
# versions of a type (docs/logs.md, "Versions of a type")


@dataclass
class ProfV1:
    name: str = ""
    id: i32 = 0
    __bin_serializer_versions__ = (2,)


@dataclass
class ProfV3:
    name: str = ""
    id: i32 = 0
    email: str = ""
    scores: list[float] = dataclasses.field(default_factory=list)
    __bin_serializer_versions__ = (2, 3, 4)


@dataclass
class ProfV2:
    name: str = ""
    id: i32 = 0
    email: str = ""
    __bin_serializer_versions__ = (2, 3)


def _v3_of(p: ProfV1) -> ProfV3:
    return ProfV3(p.name, p.id)


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_old_log_read_by_newer_types_and_a_new_one_by_older(fmt, tmp_path):
    path = tmp_path / "v1.bslog"
    with LogWriter(path, [ProfV1, Tick], format=fmt) as w:
        w.write_all([ProfV1("Ann", 1), make_tick(1), ProfV1("Zed", 9)])
    # A later program: its types in another order, one the file never held.
    r = LogReader(path, [Tick, ProfV3, Note])
    assert list(r) == [_v3_of(ProfV1("Ann", 1)), make_tick(1), _v3_of(ProfV1("Zed", 9))] and r.end == "clean"
    newer = ProfV3("Bo", 3, "b@x.org", [1.0])
    path3 = tmp_path / "v3.bslog"
    with LogWriter(path3, [ProfV3, Tick], format=fmt) as w:
        w.write_all([make_tick(2), newer])
    assert list(LogReader(path3, [ProfV1, Tick])) == [make_tick(2), ProfV1("Bo", 3)]
    # With no classes at all, from the descriptions: each file's own version.
    assert [dataclasses.asdict(v) for v in LogReader(path3)][1] == dataclasses.asdict(newer)


def test_append_by_a_newer_version_than_the_header_describes_is_refused(tmp_path):
    path = tmp_path / "v1.bslog"
    with LogWriter(path, [ProfV1, Tick]) as w:
        w.write(ProfV1("Ann", 1))
    before = path.read_bytes()
    with pytest.raises(SchemaError, match="without version 2 of ProfV3.*start a new log"):
        LogWriter(path, [ProfV3, Tick], append=True)
    assert path.read_bytes() == before
    with pytest.raises(SchemaError, match="without version 3 of ProfV3"):  # version 2 of 3 is not enough
        LogWriter(_with(tmp_path / "v2.bslog", [ProfV2, Tick]), [ProfV3, Tick], append=True)
    # An older version appends to a log that describes a newer one.
    path3 = tmp_path / "v3.bslog"
    with LogWriter(path3, [ProfV3, Tick]) as w:
        w.write(ProfV3("Bo", 3, "b@x.org", [1.0]))
    with LogWriter(path3, [ProfV1, Tick], append=True) as w:
        w.write(ProfV1("Old", 2))
    assert list(LogReader(path3, [ProfV3, Tick])) == [ProfV3("Bo", 3, "b@x.org", [1.0]), _v3_of(ProfV1("Old", 2))]
    with LogWriter(path3, [ProfV3, Tick], append=True) as w:  # and the same version, as always
        w.write(ProfV3("Cy", 4))
    assert len(list(LogReader(path3, [ProfV1, Tick]))) == 3
    # A log without descriptions has none to contradict: by fingerprint alone.
    bare = tmp_path / "bare.bslog"
    with LogWriter(bare, [ProfV1, Tick], descriptions=False) as w:
        w.write(ProfV1("Ann", 1))
    with LogWriter(bare, [ProfV3, Tick], append=True) as w:
        w.write(ProfV3("Bo", 3))
    assert list(LogReader(bare, [ProfV3, Tick])) == [_v3_of(ProfV1("Ann", 1)), ProfV3("Bo", 3)]


# An evolvable struct nested in a logged type (log/described.hpp): LimitsV1 is
# LimitsV2's first version, so their holders share one fingerprint.
@dataclass
class RoomV1:
    id: u32 = 0
    limits: LimitsV1 = dataclasses.field(default_factory=LimitsV1)
    history: list[LimitsV1] = dataclasses.field(default_factory=list)


@dataclass
class RoomLater:  # Lim gained a version, in the field and in the elements
    id: u32 = 0
    limits: LimitsV2 = dataclasses.field(default_factory=LimitsV2)
    history: list[LimitsV2] = dataclasses.field(default_factory=list)


@dataclass
class RoomHalf:  # the field's type newer, the elements' not yet
    id: u32 = 0
    limits: LimitsV2 = dataclasses.field(default_factory=LimitsV2)
    history: list[LimitsV1] = dataclasses.field(default_factory=list)


@pytest.mark.parametrize("fmt", FORMATS)
def test_append_by_a_newer_nested_evolvable_struct_is_refused(fmt, tmp_path):
    assert schema_hash(RoomV1, fmt) == schema_hash(RoomLater, fmt) == schema_hash(RoomHalf, fmt)
    room = RoomV1(1, LimitsV1(5), [LimitsV1(1), LimitsV1(2)])
    path = tmp_path / "rooms.bslog"
    with LogWriter(path, [RoomV1, Tick], format=fmt) as w:
        w.write(room)
    before = path.read_bytes()
    for newer, where in ((RoomLater, "/type/fields/1/type"), (RoomHalf, "/type/fields/1/type")):
        with pytest.raises(SchemaError, match=f"at {where} of RoomV1 with 1 fields in its version 2, "
                                              f"and this writer's {newer.__name__} writes 2"):
            LogWriter(path, [newer, Tick], format=fmt, append=True)
        assert path.read_bytes() == before
    half = tmp_path / "half.bslog"
    with LogWriter(half, [RoomHalf, Tick], format=fmt) as w:
        w.write(RoomHalf())
    with pytest.raises(SchemaError, match="at /type/fields/2/type/element of RoomHalf"):
        LogWriter(half, [RoomLater, Tick], format=fmt, append=True)
    for older in (room, RoomHalf(2)):  # older everywhere, and as old as the file
        with LogWriter(half, [type(older), Tick], format=fmt, append=True) as w:
            w.write(older)
    later = tmp_path / "later.bslog"
    with LogWriter(later, [RoomLater, Tick], format=fmt) as w:
        w.write(RoomLater(3))
    for older in (room, RoomHalf(4)):
        with LogWriter(later, [type(older), Tick], format=fmt, append=True) as w:
            w.write(older)
    assert [r.id for r in LogReader(later, [RoomV1, Tick])] == [3, 1, 4]
    assert list(LogReader(later, [RoomLater, Tick]))[1] == RoomLater(1, LimitsV2(5, 3), [LimitsV2(1, 3), LimitsV2(2, 3)])
    bare = tmp_path / "bare.bslog"
    bare.write_bytes(log_bytes([room], [RoomV1, Tick], format=fmt, descriptions=False))
    with LogWriter(bare, [RoomLater, Tick], format=fmt, append=True) as w:  # nothing to contradict
        w.write(RoomLater())


def test_evolvable_nodes_are_where_the_cpp_descriptions_have_them():
    """The paths the nested check compares are the same in both languages'
    descriptions of one type: for each C++ golden description, the Python
    description of the type it loads to lists the same evolvable nodes."""
    from bin_serializer._describe import describe
    from bin_serializer.log import _evolvable_nodes
    from bin_serializer.schema import load
    golden = Path(__file__).resolve().parents[2] / "tests" / "frame" / "golden"
    seen = 0
    for path in sorted(golden.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        fmt = json.loads(text)["format"]
        cpp = _evolvable_nodes(text)
        assert cpp is not None
        py = _evolvable_nodes(describe(load(text, customs={"schema_json_test::Money": i64}), fmt))
        assert py == cpp, path.name
        seen += len(cpp)
    assert seen >= 9  # profile_v3 (itself and its Limits) and everything's, in three formats
    # not JSON, too deep: nothing to compare
    assert _evolvable_nodes("not json") is None
    assert _evolvable_nodes("[" * 300 + "]" * 300) is None
    assert _evolvable_nodes("[" * 257 + "]" * 257) == []
    assert _evolvable_nodes('{"kind":"evolvable","versions":[1],"versions":[2,3]}') == [("", [2, 3])]
    assert _evolvable_nodes('{"kind":"evolvable","versions":[1,-2]}') == []
    # a key given twice: the last one counts (json keeps it), as in C++
    assert _evolvable_nodes('{"type":{"kind":"evolvable","versions":[1]},'
                            '"type":{"kind":"evolvable","versions":[1,2]}}') == [("/type", [1, 2])]
    # many nodes under one long path: a budget, as in C++
    wide = '{"' + "k" * 65536 + '":[' + ",".join(['{"kind":"evolvable","versions":[1]}'] * 300) + "]}"
    assert _evolvable_nodes(wide) is None
    assert len(_evolvable_nodes(wide.replace("k" * 65536, "k")) or []) == 300


def _with(path, types):
    with LogWriter(path, types) as w:
        w.write(types[0]())
    return path


# ---------------------------------------------------------------------------
# types


def test_unknown_type_is_an_error_only_skips():
    values = [make_tick(1), make_person(), make_tick(2)]
    data = log_bytes(values, [Tick, Person])
    r = LogReader(data, [Tick])
    got = []
    with pytest.raises(LogRecordError) as ei:
        for v in r:
            got.append(v)
    assert got == [make_tick(1)]
    err = ei.value
    assert err.kind == ErrorKind.UNKNOWN_TYPE and err.type_index == 1
    assert "Person" in str(err) and "type index 1" in str(err)
    rec_at = blocks_of(data)[0][0] + 16 + 2 + len(encode(make_tick(1), "compact"))
    assert err.offset == rec_at and f"offset {rec_at}" in str(err)
    assert (r.end, r.end_offset) == ("error", rec_at)
    assert list(LogReader(data, [Tick], only=[Tick])) == [make_tick(1), make_tick(2)]
    assert list(LogReader(data, [Tick, Person], only=["Person"])) == [make_person()]
    assert [encode(v) for v in LogReader(data, only=[0])] == [encode(make_tick(1)), encode(make_tick(2))]
    with pytest.raises(ValueError):
        LogReader(data, [Tick], only=["Nope"])
    # no description, no class: the same error
    data = log_bytes(values, [Tick, Person], descriptions=False)
    with pytest.raises(LogRecordError, match="no description"):
        list(LogReader(data))
    assert list(LogReader(data, [Tick, Person])) == values


def _raw_log(types_entries, body_records, fmt=2) -> bytes:
    table = bytes([len(types_entries)])
    for fp, mid in types_entries:
        table += struct.pack("<QI", fp, mid) + b"\x00"
    head = b"BSLG" + bytes([1, fmt]) + b"\x00\x00" + u32le(len(table))
    out = head + u32le(crc32c_py(head + table)) + table
    body = b"".join(body_records)
    bhead = b"BSLB" + u32le(len(body)) + u32le(crc32c_py(body))
    return out + bhead + u32le(crc32c_py(bhead)) + body


def test_payload_that_does_not_decode_is_a_record_error():
    fp = schema_hash(Note, "compact")
    good = encode(Note(1, "a", []), "compact")
    bad = bytes([good[0], 0x7F]) + b"x"  # a string length of 127 with one byte
    longer = good + b"\x00"  # one byte more than the value
    for payload, kind in ((bad, ErrorKind.LENGTH_EXCEEDS_INPUT), (longer, ErrorKind.TRAILING_BYTES)):
        data = _raw_log([(fp, 0)], [b"\x00" + bytes([len(good)]) + good, b"\x00" + bytes([len(payload)]) + payload])
        r = LogReader(data, [Note])
        got = []
        with pytest.raises(LogRecordError) as ei:
            for v in r:
                got.append(v)
        assert got == [Note(1, "a", [])]
        err = ei.value
        assert err.kind in (kind, ErrorKind.TRUNCATED)
        assert err.offset == len(data) - len(payload) - 2
        assert isinstance(err.payload_error, DecodeError)


def _block(body: bytes) -> bytes:
    bhead = b"BSLB" + u32le(len(body)) + u32le(crc32c_py(body))
    return bhead + u32le(crc32c_py(bhead)) + body


def test_record_framing_errors_are_corruption_at_the_record():
    fp = schema_hash(Tick, "compact")
    p = encode(make_tick(1), "compact")
    good = b"\x00" + bytes([len(p)]) + p
    for bad in (b"\x01" + bytes([len(p)]) + p,  # type_index 1 of 1 type
                b"\x80\x00" + bytes([len(p)]) + p,  # not the shortest form
                b"\x00" + bytes([len(p) + 1]) + p,  # payload past the body
                b"\x00\x80\x80\x80\x80\x01" + p):  # payload_length of 5 bytes
        data = _raw_log([(fp, 0)], [good, bad])  # one block: a good record, then a bad one
        rec_at = len(data) - len(bad)
        r = LogReader(data, [Tick])
        got = []
        with pytest.raises(LogCorruptError) as ei:
            for v in r:
                got.append(v)
        # the records before it were returned (the block's CRCs passed); corruption at the record
        assert got == [make_tick(1)]
        assert ei.value.offset == rec_at and ei.value.resume_offset is None
        assert (r.end, r.end_offset) == ("corrupt", rec_at)
        # a valid block after it: resumed there
        tail = _block(good)
        r = LogReader(data + tail, [Tick])
        assert list(r.records(on_corruption="skip")) == [make_tick(1), make_tick(1)]
        assert [(c.offset, c.resume_offset) for c in r.corruptions] == [(rec_at, len(data))]
        assert r.end == "clean"
        # a block whose records do not tile its body is no place to resume at (rule 4)
        r = LogReader(data + _block(good + bad), [Tick])
        assert list(r.records(on_corruption="skip")) == [make_tick(1)]
        assert [(c.offset, c.resume_offset) for c in r.corruptions] == [(rec_at, None)] and r.end == "corrupt"


def _header(table: bytes, *, magic=b"BSLG", version=1, fmt=2, flags=0, table_length=None, crc=None) -> bytes:
    tl = len(table) if table_length is None else table_length
    head = magic + bytes([version, fmt]) + struct.pack("<H", flags) + u32le(tl)
    c = crc32c_py(head + table) if crc is None else crc
    return head + u32le(c) + table


def test_hostile_headers_fail_cleanly_and_fast():
    fp = schema_hash(Tick, "compact")
    entry = struct.pack("<QI", fp, 0) + b"\x00"
    good = _header(b"\x01" + entry)
    assert LogReader(good).header.types[0].fingerprint == fp
    huge_count = bytes([0xC0, 0x84, 0x3D])  # 10**6
    cases = {
        "short": good[:10],
        "empty": b"",
        "magic": _header(b"\x01" + entry, magic=b"BSLX"),
        "version": _header(b"\x01" + entry, version=2),
        "format": _header(b"\x01" + entry, fmt=3),
        "flags": _header(b"\x01" + entry, flags=2),
        "big-endian flag": _header(b"\x01" + entry, flags=1),
        "crc": _header(b"\x01" + entry, crc=1),
        "table_length huge": _header(b"\x01" + entry, table_length=0xFFFFFFFF),
        "table_length 2^26 short input": _header(b"\x01" + entry, table_length=1 << 26),
        "type_count 10**6": _header(huge_count + entry),
        "type_count 0": _header(b"\x00"),
        "type_count 16384 truncated": _header(b"\x80\x80\x01" + entry * 3),
        "table truncated": _header(b"\x02" + entry + entry[:5]),
        "table longer": _header(b"\x01" + entry + b"\x00"),
        "description past table": _header(b"\x01" + entry[:-1] + b"\xff\xff\xff\x7f"),
        "description length not shortest": _header(b"\x01" + entry[:-1] + b"\x80\x00"),
        "duplicate": _header(b"\x02" + entry + entry),
        "description not utf-8": _header(b"\x01" + entry[:-1] + b"\x02\xff\xfe"),
        "magic still zero": _header(b"\x01" + entry, magic=b"\0\0\0\0"),
        "table_length 0": _header(b"\x01" + entry, table_length=0),
    }
    # The header's own fields: the C++ reader's errors and offsets
    # (tests/log/test_log_format.cpp, LogHostile.BadHeaders).
    want = {"short": ("truncated", 0), "empty": ("truncated", 0), "magic": ("bad_header", 0),
            "magic still zero": ("truncated", 0), "version": ("bad_header", 4), "format": ("bad_header", 5),
            "flags": ("bad_header", 6), "big-endian flag": ("bad_header", 6), "crc": ("bad_header", 12),
            "table_length huge": ("bad_header", 8), "table_length 0": ("bad_header", 8),
            "table_length 2^26 short input": ("truncated", 8), "type_count 0": ("bad_header", 16)}
    for name, data in cases.items():
        t0 = time.perf_counter()
        with pytest.raises(LogHeaderError) as ei:
            LogReader(data)
        assert time.perf_counter() - t0 < 1.0, name
        assert isinstance(ei.value, DecodeError) and ei.value.kind in (ErrorKind.BAD_HEADER, ErrorKind.TRUNCATED)
        assert 0 <= ei.value.offset <= max(len(data), 16), name
        if name in want:
            assert (ErrorKind.ERRC[ei.value.kind], ei.value.offset) == want[name], name


def test_hostile_blocks_are_bounded():
    fp = schema_hash(Tick, "compact")
    header = _header(b"\x01" + struct.pack("<QI", fp, 0) + b"\x00")
    # a block head (valid head_crc) claiming 2^28 bytes of body: torn, nothing allocated for it
    bhead = b"BSLB" + u32le(1 << 28) + u32le(0)
    data = header + bhead + u32le(crc32c_py(bhead)) + b"\x00" * 10
    t0 = time.perf_counter()
    r = LogReader(data, [Tick])
    assert list(r) == [] and (r.end, r.end_offset) == ("torn", len(header))
    # over max_block_bytes: corrupt
    bhead = b"BSLB" + u32le(100) + u32le(0)
    data = header + bhead + u32le(crc32c_py(bhead)) + b"\x01" * 100
    r = LogReader(data, [Tick], max_block_bytes=50)
    with pytest.raises(LogCorruptError):
        list(r)
    # body_length 0 and > 2^28: corrupt
    for n in (0, (1 << 28) + 1):
        bhead = b"BSLB" + u32le(n) + u32le(0)
        r = LogReader(header + bhead + u32le(crc32c_py(bhead)), [Tick])
        with pytest.raises(LogCorruptError):
            list(r)
    # many block magics and nothing valid: still quick
    data = header + b"BSLB" * 20000
    r = LogReader(data, [Tick])
    with pytest.raises(LogCorruptError):
        list(r)
    assert time.perf_counter() - t0 < 5.0


# ---------------------------------------------------------------------------
# python -m bin_serializer cat


def test_cat(tmp_path, capsys):
    values = [make_tick(1), make_person(), Note(2, "ü", ["t"])]
    path = tmp_path / "c.bslog"
    path.write_bytes(log_bytes(values, [Tick, Person, Note], block_bytes=1))
    import json
    assert cli(["cat", str(path)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(x["type"], x["name"]) for x in lines] == [(0, "Tick"), (1, "Person"), (2, "Note")]
    assert lines[2]["value"] == {"id": 2, "text": "ü", "tags": ["t"]}
    assert lines[0]["value"]["timestamp_ns"] == make_tick(1).timestamp_ns
    assert cli(["cat", str(path), "--type", "Note", "--type", "0"]) == 0
    assert [json.loads(x)["type"] for x in capsys.readouterr().out.splitlines()] == [0, 2]
    data = path.read_bytes()
    blocks = blocks_of(data)
    path.write_bytes(data[:-3])  # torn
    assert cli(["cat", str(path)]) == 3
    out = capsys.readouterr()
    assert len(out.out.splitlines()) == 2 and f"torn tail at offset {blocks[-1][0]}" in out.err
    bad = bytearray(data)
    bad[blocks[1][0] + 17] ^= 1  # corrupt the middle block
    path.write_bytes(bytes(bad))
    assert cli(["cat", str(path)]) == 1
    out = capsys.readouterr()
    assert [json.loads(x)["type"] for x in out.out.splitlines()] == [0, 2]
    assert f"corrupt log at offset {blocks[1][0]}" in out.err
    path.write_bytes(b"not a log at all")
    assert cli(["cat", str(path)]) == 2
    assert "bad header" in capsys.readouterr().err
    assert cli(["cat", str(tmp_path / "missing")]) == 2
    path.write_bytes(data)
    assert cli(["cat", str(path), "--type", "Nope"]) == 2
    with pytest.raises(SystemExit) as ei:
        cli(["cat"])
    assert ei.value.code == 2


def test_cat_shows_fields_its_descriptions_do_not_know(tmp_path, capsys):
    """Records of a newer version of an evolvable type than the header
    describes (blocks of a ProfV3 log after a ProfV1 log's header: what an
    append by a newer version made before appending checked the versions, or
    a nested evolvable struct that gained a field): cat shows the fields it
    has no names for as "__unknown__", never drops them silently."""
    import json
    old = log_bytes([ProfV1("Ann", 1)], [ProfV1, Tick])
    newer = log_bytes([ProfV3("Bo", 3, "b@x.org", [1.0])], [ProfV3, Tick], descriptions=False)
    path = tmp_path / "mixed.bslog"
    path.write_bytes(old + newer[LogReader(newer).header.data_offset:])
    assert cli(["cat", str(path)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[0]["value"] == {"name": "Ann", "id": 1}
    tail = encode("b@x.org", "compact", schema=str) + encode([1.0], "compact", schema=list[float])
    assert lines[1]["value"] == {"name": "Bo", "id": 3, "__unknown__": {"count": 2, "data": tail.hex()}}
    # A reader given the classes reads every field, as ever.
    assert list(LogReader(path, [ProfV3, Tick])) == [ProfV3("Ann", 1), ProfV3("Bo", 3, "b@x.org", [1.0])]


def test_cat_stdin(tmp_path):
    import subprocess
    data = log_bytes([make_tick(3)], [Tick])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(bin_serializer.__file__).parents[1]), env.get("PYTHONPATH", "")])
    p = subprocess.run([sys.executable, "-m", "bin_serializer", "cat", "-"], input=data, capture_output=True, env=env)
    assert p.returncode == 0 and p.stdout.count(b"\n") == 1 and b'"name": "Tick"' in p.stdout
    p = subprocess.run([sys.executable, "-m", "bin_serializer", "cat", "-"], input=data[:-1], capture_output=True,
                       env=env)
    assert p.returncode == 3 and p.stdout == b"" and b"torn tail" in p.stderr


# ---------------------------------------------------------------------------
# Reading from a block boundary (start=, valid_end), and a log as it is written


def test_start_reads_from_any_block_boundary(backend):
    values = [make_tick(i) if i % 3 else Note(i, "n" * (i % 7), ["t"] * (i % 3)) for i in range(400)]
    data = log_bytes(values, [Tick, Note], block_bytes=128)
    counts = records_per_block(data, [Tick, Note])
    starts = [b for b, _ in blocks_of(data)] + [len(data)]
    assert len(starts) > 20
    for k, at in enumerate(starts):
        r = LogReader(data, [Tick, Note], start=at)
        assert list(r) == values[sum(counts[:k]):], at
        assert (r.end, r.end_offset, r.valid_end) == ("clean", len(data), len(data))
    # 0 is the first block, as when no start is given.
    assert list(LogReader(data, [Tick, Note], start=0)) == values


def test_start_outside_the_blocks(backend):
    values = [make_tick(i) for i in range(300)]
    data = log_bytes(values, [Tick], block_bytes=128)
    blocks = blocks_of(data)
    for at in (1, 16, blocks[0][0] - 1):
        with pytest.raises(ValueError, match="inside the log's header"):
            LogReader(data, [Tick], start=at)
    with pytest.raises(ValueError):
        LogReader(data, [Tick], start=-1)
    with pytest.raises(DecodeError) as e:
        LogReader(data, [Tick], start=len(data) + 1)
    assert e.value.kind == ErrorKind.TRUNCATED and e.value.offset == len(data)
    # Inside a block: corruption there; reading goes on at the next block.
    inside = blocks[3][0] + 5
    r = LogReader(data, [Tick], start=inside)
    with pytest.raises(LogCorruptError) as c:
        list(r)
    assert c.value.offset == inside and c.value.resume_offset == blocks[4][0]
    rest = list(r.resume())
    assert rest == values[len(values) - len(rest):] and r.end == "clean"
    assert sum(records_per_block(data, [Tick])[4:]) == len(rest)


def test_iterating_again_after_stopping_loses_no_record(tmp_path, backend):
    """A reader is one position, as a file is: a loop left early, then
    records(), read_all(), follow() or tally() goes on with the next record,
    none lost or repeated, whether the iterator was dropped, left open, or
    read (type index, record) pairs."""
    values = [make_tick(i) if i % 3 else Note(i, "n" * (i % 7), ["t"] * (i % 3)) for i in range(5000)]
    data = log_bytes(values, [Tick, Note], block_bytes=256)
    r = LogReader(data, [Tick, Note])
    got: list = []
    for n in (1, 2, 700, 1345, 2048, 1, 3):  # inside batches and across their edges
        got += itertools.islice(r, n)  # a new iterator each time, dropped after n
    for v in r:
        got.append(v)
        if len(got) == 4321:
            break
    got += r.read_all()
    assert got == values and r.end == "clean"
    # An iterator left open: a new reading takes its records, and it ends.
    r = LogReader(data, [Tick, Note])
    it = iter(r)
    head = [next(it) for _ in range(10)]
    assert head + r.read_all() == values
    assert list(it) == []
    # Pairs and records mixed: the same records, with the right type indexes.
    r = LogReader(data, [Tick, Note])
    a = list(itertools.islice(r.records(with_index=True), 5))
    b = list(itertools.islice(r.records(), 5))
    c = list(itertools.islice(r.records(with_index=True), 5))
    assert [v for _, v in a] + b + [v for _, v in c] == values[:15]
    assert [i for i, _ in a + c] == [int(isinstance(v, Note)) for v in values[:5] + values[10:15]]
    assert list(r.records(with_index=True))[0] == (int(isinstance(values[15], Note)), values[15])
    # tally() counts what is left, the records read but not handed out among them.
    r = LogReader(data, [Tick, Note])
    assert len(list(itertools.islice(r, 10))) == 10
    assert sum(r.tally()) == len(values) - 10 and list(r) == []
    # follow() after a loop left early.
    path = tmp_path / "stopped.bsl"
    path.write_bytes(data)
    with LogReader(path, [Tick, Note]) as r:
        head = list(itertools.islice(r, 7))
        assert head + list(r.follow(interval=0.01, idle_timeout=0.05)) == values


_FOLLOWED_WRITER = """
import sys, time
sys.path[:0] = [sys.argv[3]]
from schemas import Tick, make_tick
from bin_serializer.log import LogWriter
w = LogWriter(sys.argv[1], [Tick], block_bytes=256, flush=sys.argv[2])
i = 0
while True:
    w.write(make_tick(i))
    i += 1
    if i % 20 == 0:
        time.sleep(0.001)
"""


def _start_writer(path: Path, flush: str):
    """A process writing Tick records to path until it is killed."""
    import subprocess
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(bin_serializer.__file__).parents[1]), env.get("PYTHONPATH", "")])
    return subprocess.Popen([sys.executable, "-c", _FOLLOWED_WRITER, str(path), flush, str(Path(__file__).parent)],
                            env=env)


def _wait_for_log(path: Path, proc) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            LogReader(path, [Tick]).close()  # the header is written
            return
        except (OSError, DecodeError):
            assert proc.poll() is None, "the writer died"
            time.sleep(0.01)
    raise AssertionError("no log header after 60 s")


@pytest.mark.parametrize("flush", ["record", "block"])
def test_follow_a_log_another_process_writes_then_is_killed(tmp_path, backend, flush):
    """follow() hands out the records a live writer seals, each once, in
    order; the writer is killed by SIGKILL while it is followed; what the
    follower got is then exactly what a reader of the whole file returns."""
    import signal
    path = tmp_path / "live.bsl"
    proc = _start_writer(path, flush)
    try:
        _wait_for_log(path, proc)
        r = LogReader(path, [Tick])
        got = []
        polls = 0
        for rec in r.follow(0.005):
            got.append(rec)
            if len(got) >= 300 * (polls + 1):
                polls += 1
                if polls == 3:
                    break
        assert r.end is None or r.end in ("clean", "torn")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # What the writer sealed before it died, then nothing more for a while.
    got.extend(r.follow(0.005, idle_timeout=0.2))
    assert r.end in ("clean", "torn") and not r.corruptions
    whole = LogReader(path, [Tick])
    assert got == list(whole) and len(got) >= 900
    assert got == [make_tick(i) for i in range(len(got))]
    assert r.valid_end == whole.valid_end
    r.close()


def test_follow_reports_a_corruption_once_and_reads_what_follows_it(tmp_path, backend):
    values = [make_tick(i) for i in range(200)]
    data = bytearray(log_bytes(values, [Tick], block_bytes=128))
    blocks = blocks_of(bytes(data))
    data[blocks[-1][0] + 20] ^= 0xFF  # the last block: a corrupt tail, nothing valid after it
    path = tmp_path / "bad.bsl"
    path.write_bytes(bytes(data))
    r = LogReader(path, [Tick])
    got = list(r.follow(0.01, on_corruption="skip", idle_timeout=0.1))  # several polls meet it
    lost = records_per_block(log_bytes(values, [Tick], block_bytes=128), [Tick])[-1]
    assert got == values[:-lost] and len(r.corruptions) == 1 and r.corruptions[0].offset == blocks[-1][0]
    # A writer that goes on after the bad block: its blocks are read, the corruption is not said again.
    more = log_bytes([make_tick(i) for i in range(200, 260)], [Tick], block_bytes=128)
    with open(path, "ab") as f:
        f.write(more[blocks_of(more)[0][0]:])
    again = list(r.follow(0.01, on_corruption="skip", idle_timeout=0.1))
    assert again == [make_tick(i) for i in range(200, 260)] and len(r.corruptions) == 1
    # The same with on_corruption="raise": raised once, then read past.
    r = LogReader(path, [Tick])
    with pytest.raises(LogCorruptError):
        list(r.follow(0.01, idle_timeout=0.1))
    assert list(r.follow(0.01, idle_timeout=0.1)) == [make_tick(i) for i in range(200, 260)]


def _zeroed_fourth_block(path):
    """A log of 300 ticks (128-byte blocks) at path whose fourth block's magic
    is zero (as a writer into a mapping leaves a block it has not sealed):
    (values, data as written whole, the block's offset, the records before
    it, records per block)."""
    values = [make_tick(i) for i in range(300)]
    data = log_bytes(values, [Tick], block_bytes=128)
    per_block = records_per_block(data, [Tick])
    x = blocks_of(data)[3][0]
    path.write_bytes(data[:x] + bytes(4) + data[x + 4:])
    return values, data, x, sum(per_block[:3]), per_block


def test_follow_an_unpublished_block_before_sealed_ones(tmp_path, backend):
    """A log written in place (a C++ MappedFile) can be read while its
    writer seals a block and then more after it: the bytes read show the
    block unpublished (zero magic) and valid blocks after it. follow() stops
    there instead of reporting corruption and reads it again at once, sealed
    by then. A block whose magic stays zero is corruption at that second
    reading."""
    path = tmp_path / "inplace.bsl"
    values, data, x, before, per_block = _zeroed_fourth_block(path)
    r = LogReader(path, [Tick])
    it = r.follow(0.01, on_corruption="skip", idle_timeout=0.2)
    assert [next(it) for _ in range(before)] == values[:before]
    with open(path, "r+b") as f:  # the writer publishes the block
        f.seek(x)
        f.write(data[x:x + 4])
    assert list(it) == values[before:] and r.corruptions == []
    # Never published: corruption, at the second reading that finds it, said once.
    path.write_bytes(data[:x] + bytes(4) + data[x + 4:])
    r = LogReader(path, [Tick])
    got = list(r.follow(0.01, on_corruption="skip", idle_timeout=0.2))
    assert got == values[:before] + values[before + per_block[3]:]
    assert [e.offset for e in r.corruptions] == [x]
    # Outside follow(), as ever: corruption at once.
    with pytest.raises(LogCorruptError):
        list(LogReader(path, [Tick]))


@pytest.mark.skipif(not hasattr(os, "pread") or sys.platform == "win32", reason="flock and pread: POSIX")
def test_follow_reads_no_further_than_the_open_block_of_a_writer_that_holds_the_file(
        tmp_path, backend, monkeypatch):
    """While a writer holds the file (its lock), each poll reads from
    valid_end up to the chunk that holds the writer's first unsealed block,
    not the zeros a C++ MappedFile keeps ahead of it (up to half of the
    file, 64 MiB here); without the lock it reads to the file's end."""
    import fcntl
    import bin_serializer.log as log_module
    values = [make_tick(i) for i in range(300)]
    data = log_bytes(values[:200], [Tick], block_bytes=128)
    more = log_bytes(values[200:], [Tick], block_bytes=128)
    more = more[blocks_of(more)[0][0]:]
    path = tmp_path / "live.bsl"
    zeros = 64 << 20
    with open(path, "wb") as f:
        f.write(data)
        f.truncate(len(data) + zeros)  # sparse
    read = []
    real = log_module._pread_into
    monkeypatch.setattr(log_module, "_pread_into", lambda fd, view, at: read.append(len(view)) or real(fd, view, at))
    holder = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        r = LogReader(path, [Tick])
        it = r.follow(0.01, idle_timeout=0.1)
        assert [next(it) for _ in range(200)] == values[:200]  # the first reading: the mapping
        os.pwrite(holder, more, len(data))  # the writer seals blocks in place
        assert list(it) == values[200:]
        assert len(read) >= 2 and max(read) <= log_module._LIVE_CHUNK
        assert r.valid_end == len(data) + len(more)
    finally:
        os.close(holder)
    del read[:]
    assert list(r.follow(0.01, idle_timeout=0.05)) == []  # no writer: every byte is read
    assert max(read) == len(data) + zeros - r.valid_end  # to the file's end


@pytest.mark.skipif(not hasattr(os, "pread") or sys.platform == "win32", reason="pread: POSIX")
def test_follow_reads_a_block_found_unsealed_before_sealed_ones_again_before_any_wait(
        tmp_path, backend, monkeypatch):
    """The block its writer sealed while follow() read the bytes (blocks
    after it already sealed) is read again at once, as C++'s log_follower
    does, not after the next wait: with a wait of a minute, every record is
    handed out before the first wait."""
    import time
    import bin_serializer.log as log_module
    path = tmp_path / "inplace.bsl"
    values, data, x, _, _ = _zeroed_fourth_block(path)
    real = log_module._read_span

    def sealed_meanwhile(fd, view, pos, size):  # the writer publishes the block before the second reading
        with open(path, "r+b") as f:
            f.seek(x)
            f.write(data[x:x + 4])
        return real(fd, view, pos, size)

    monkeypatch.setattr(log_module, "_read_span", sealed_meanwhile)
    got: list = []
    waits: list = []
    monkeypatch.setattr(time, "sleep", lambda s: waits.append((s, len(got))))
    for v in LogReader(path, [Tick]).follow(60, on_corruption="skip", idle_timeout=0):
        got.append(v)
    assert got == values
    assert waits[0] == (60, len(values))


@pytest.mark.skipif(not hasattr(os, "pread") or sys.platform == "win32", reason="flock and pread: POSIX")
def test_follow_while_a_writer_holds_the_file_ends_each_reading_at_a_zeroed_block(tmp_path, backend):
    """While a writer holds the file, a block whose magic is zero is its
    open block, wherever valid blocks follow it: each reading ends there and
    no corruption is said (C++'s open_block_ends). Once the writer is gone,
    a zeroed block before valid ones is damage: said once, and the blocks
    after it are read."""
    import fcntl
    path = tmp_path / "held.bsl"
    values, data, x, before, per_block = _zeroed_fourth_block(path)
    holder = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        r = LogReader(path, [Tick])
        assert list(r.follow(0.01, on_corruption="skip", idle_timeout=0.1)) == values[:before]
        assert r.corruptions == [] and r.valid_end == x
    finally:
        os.close(holder)
    got = list(r.follow(0.01, on_corruption="skip", idle_timeout=0.1))
    assert got == values[before + per_block[3]:]
    assert [e.offset for e in r.corruptions] == [x]


@pytest.mark.skipif(not hasattr(os, "pread") or sys.platform == "win32", reason="pread: POSIX")
def test_follow_reads_the_zeros_a_dead_writer_left_once_while_the_file_keeps_its_size(
        tmp_path, backend, monkeypatch):
    """A C++ MappedFile writer that died leaves zeros after its last sealed
    block (up to half of the file) and no lock. One reading checks them all;
    while the file keeps that size, a poll reads only from valid_end to the
    block there, since blocks are sealed in order. A block sealed there is
    read; a file of another size is checked whole again (C++'s
    log_follower does the same)."""
    import bin_serializer.log as log_module
    values = [make_tick(i) for i in range(300)]
    data = log_bytes(values[:200], [Tick], block_bytes=128)
    more = log_bytes(values[200:], [Tick], block_bytes=128)
    more = more[blocks_of(more)[0][0]:]
    zeros = 16 << 20
    path = tmp_path / "dead.bsl"
    with open(path, "wb") as f:
        f.write(data)
        f.truncate(len(data) + zeros)  # sparse
    read: list = []
    real = log_module._pread_into
    monkeypatch.setattr(log_module, "_pread_into", lambda fd, view, at: read.append(len(view)) or real(fd, view, at))
    r = LogReader(path, [Tick])
    assert list(r.follow(0.01, idle_timeout=0.1)) == values[:200]  # its mapping, then polls
    assert r.valid_end == len(data) and read and sum(read) <= len(read) * log_module._LIVE_FIRST
    with open(path, "r+b") as f:  # sealed in place, as a writer into a mapping
        f.seek(len(data))
        f.write(more)
    del read[:]
    it = r.follow(0.01, idle_timeout=0.1)
    assert [next(it) for _ in range(100)] == values[200:]
    assert sum(read) < 1 << 20  # up to the next zero block
    assert list(it) == []
    assert sum(read) >= zeros - len(more)  # the zeros after it, checked once
    del read[:]
    assert list(r.follow(0.01, idle_timeout=0.05)) == []
    assert sum(read) <= len(read) * log_module._LIVE_FIRST
    os.truncate(path, len(data) + zeros + 4096)  # another size
    del read[:]
    assert list(r.follow(0.01, idle_timeout=0.05)) == []
    assert sum(read) >= zeros - len(more)


def test_follow_refuses_what_it_cannot_follow(tmp_path, backend):
    data = log_bytes([make_tick(i) for i in range(50)], [Tick], block_bytes=128)
    with pytest.raises(ValueError, match="path"):
        LogReader(data, [Tick]).follow()
    path = tmp_path / "f.bsl"
    path.write_bytes(data)
    r = LogReader(path, [Tick])
    with pytest.raises(ValueError):
        r.follow(on_corruption="ignore")
    it = r.follow(0.01)
    assert [next(it) for _ in range(50)] == [make_tick(i) for i in range(50)]
    path.write_bytes(data[:len(data) - 100])  # cut before where reading stands
    with pytest.raises(DecodeError) as e:
        next(it)
    assert e.value.kind == ErrorKind.TRUNCATED and e.value.offset == len(data) - 100
    path.write_bytes(log_bytes([make_tick(1)], [Tick, Note]))  # another log in the same file
    r = LogReader(path, [Tick, Note])
    assert list(r.follow(0.01, idle_timeout=0.05)) == [make_tick(1)]
    path.write_bytes(data)
    with pytest.raises(LogHeaderError, match="another log"):
        list(r.follow(0.01, idle_timeout=0.05))
    # A rotated log: the path names a new file, though of the same types.
    r = LogReader(path, [Tick])
    assert len(list(r.follow(0.01, idle_timeout=0.05))) == 50
    path.rename(tmp_path / "f.bsl.1")
    path.write_bytes(data + data[blocks_of(data)[0][0]:])
    with pytest.raises(LogHeaderError, match="another file"):
        list(r.follow(0.01, idle_timeout=0.05))


def _next_n(it, n: int) -> list:
    return [next(it) for _ in range(n)]


def _next_n_while(it, n: int, action) -> list:
    """n records of it, taken while action (which changes the followed
    path) runs in another thread."""
    import threading
    t = threading.Thread(target=action)
    t.start()
    try:
        return _next_n(it, n)
    finally:
        t.join()


def test_follow_a_rotated_log(tmp_path, backend):
    """follow(on_rotation="follow") (tail -F): the renamed file is read to
    its end while its writer, which holds its lock, still writes it, though
    the new file at the path already holds records; once it is closed,
    reading goes on in the new file. Each record once, in order."""
    path = tmp_path / "r.bsl"
    ticks = [make_tick(i) for i in range(200)]
    w1 = LogWriter(path, [Tick], flush="record")
    w1.write_all(ticks[:10])
    r = LogReader(path, [Tick])
    with pytest.raises(ValueError, match="on_rotation"):
        r.follow(on_rotation="reopen")
    it = r.follow(0.01, on_rotation="follow", idle_timeout=2)
    assert _next_n(it, 10) == ticks[:10]
    path.rename(tmp_path / "r.bsl.1")  # rotated while its writer still writes it
    w1.write_all(ticks[10:20])
    w2 = LogWriter(path, [Tick], flush="record")
    w2.write_all(ticks[100:110])
    assert _next_n(it, 10) == ticks[10:20]
    w1.write_all(ticks[20:25])  # still the old file's writer: still read there
    assert _next_n(it, 5) == ticks[20:25]
    w1.close()
    assert _next_n(it, 10) == ticks[100:110]
    w2.write(ticks[110])
    assert next(it) == ticks[110]
    w2.close()
    whole = LogReader(path, [Tick])
    assert whole.read_all() == ticks[100:111]
    assert list(it) == []  # nothing more: idle, then the end
    assert r.end == "clean" and r.valid_end == whole.valid_end == path.stat().st_size  # in the new file
    whole.close()
    r.close()


def test_follow_a_rotated_log_waits_for_the_new_file(tmp_path, backend):
    """Rotated by renaming after closing: the path names no file for a
    while, then one whose header is not yet written (zeros), then the log;
    the follower waits through both. A new file holding another log:
    LogHeaderError. In raise mode, a path naming no file: FileNotFoundError."""
    path = tmp_path / "w.bsl"
    ticks = [make_tick(i) for i in range(40)]
    with LogWriter(path, [Tick], flush="record") as w:
        w.write_all(ticks[:20])
    first = path.read_bytes()
    r = LogReader(path, [Tick])
    it = r.follow(0.01, on_rotation="follow", idle_timeout=10)
    assert _next_n(it, 20) == ticks[:20]
    path.rename(tmp_path / "w.bsl.1")

    def later() -> None:
        time.sleep(0.15)
        path.write_bytes(bytes(64))  # created, header not published
        time.sleep(0.15)
        with LogWriter(path, [Tick], flush="record") as w2:
            w2.write_all(ticks[20:])
    assert _next_n_while(it, 20, later) == ticks[20:]
    r.close()
    # another log at the path after the rotation
    path.write_bytes(first)
    r = LogReader(path, [Tick])
    path.rename(tmp_path / "w.bsl.2")
    path.write_bytes(log_bytes([make_tick(1)], [Tick, Note]))
    with pytest.raises(LogHeaderError, match="another log"):
        list(r.follow(0.01, on_rotation="follow", idle_timeout=5))
    r.close()
    # raise mode (the default), the path naming no file
    path.write_bytes(first)
    r = LogReader(path, [Tick])
    path.unlink()
    with pytest.raises(FileNotFoundError):
        list(r.follow(0.01, idle_timeout=5))
    r.close()
    with pytest.raises(ValueError, match="closed"):
        r.follow()
    # renamed away and back, then appended to: still the file followed
    path.write_bytes(first)
    r = LogReader(path, [Tick])
    it = r.follow(0.01, on_rotation="follow", idle_timeout=10)
    assert _next_n(it, 20) == ticks[:20]
    path.rename(tmp_path / "w.bsl.3")

    def back() -> None:
        time.sleep(0.1)
        (tmp_path / "w.bsl.3").rename(path)
        time.sleep(0.1)
        with LogWriter(path, [Tick], flush="record", append=True) as w2:
            w2.write_all(ticks[20:])
    assert _next_n_while(it, 20, back) == ticks[20:]
    r.close()
    # closed while it is followed: a clean error at the next poll, no read of a closed descriptor
    path.write_bytes(first)
    r = LogReader(path, [Tick])
    it = r.follow(0.01, idle_timeout=5)
    assert _next_n(it, 20) == ticks[:20]
    r.close()
    with pytest.raises(ValueError, match="closed"):
        next(it)


_ROTATING_WRITER = """
import os, sys, time
sys.path[:0] = [sys.argv[2]]
from schemas import Tick, make_tick
from bin_serializer.log import LogWriter
path = sys.argv[1]
w = LogWriter(path, [Tick], block_bytes=256, flush="block")
i = n = 0
t = time.monotonic()
while True:
    w.write(make_tick(i))
    i += 1
    if i % 20 == 0:
        time.sleep(0.001)
    if time.monotonic() - t > 0.3:  # rotate: renamed before or after the writer closes it
        n += 1
        if n % 2:
            w.close()
            os.rename(path, f"{path}.{n}")
        else:
            os.rename(path, f"{path}.{n}")
            w.write(make_tick(i))
            i += 1
            w.close()
        w = LogWriter(path, [Tick], block_bytes=256, flush="block")
        t = time.monotonic()
"""


def test_follow_a_log_a_killed_process_rotated(tmp_path, backend):
    """A process writes a log and rotates it every 0.3 s (path -> path.N),
    renaming it before or after closing it, until SIGKILL; the follower's
    records are exactly those of the rotated files and the last one, read
    whole, in order."""
    import signal
    import subprocess
    path = tmp_path / "rot.bsl"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(bin_serializer.__file__).parents[1]), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen([sys.executable, "-c", _ROTATING_WRITER, str(path), str(Path(__file__).parent)],
                            env=env)
    try:
        _wait_for_log(path, proc)
        r = LogReader(path, [Tick])
        got = []
        it = r.follow(0.01, on_rotation="follow", idle_timeout=1.0)
        for x in it:
            got.append(x)
            if proc.poll() is None and (tmp_path / "rot.bsl.4").exists():
                proc.send_signal(signal.SIGKILL)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    n = 1
    whole = []
    while (tmp_path / f"rot.bsl.{n}").exists():
        whole += LogReader(tmp_path / f"rot.bsl.{n}", [Tick]).read_all()
        n += 1
    assert n >= 5
    try:
        whole += LogReader(path, [Tick]).read_all()
    except (FileNotFoundError, DecodeError):  # killed before the last file's header was written
        pass
    assert len(got) == len(whole) and got == whole
    assert got == [make_tick(i) for i in range(len(got))]  # none lost between two files
    r.close()


def test_cat_follow(tmp_path):
    """python -m bin_serializer cat --follow prints the records of a log
    another process writes, as they are sealed, until it is idle."""
    import signal
    import subprocess
    path = tmp_path / "live.bsl"
    proc = _start_writer(path, "record")
    try:
        _wait_for_log(path, proc)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(Path(bin_serializer.__file__).parents[1]),
                                             env.get("PYTHONPATH", "")])
        env.pop("PYTHONUNBUFFERED", None)  # stdout block-buffered, as into any pipe
        cat = subprocess.Popen([sys.executable, "-m", "bin_serializer", "cat", "--follow", "--interval", "0.01",
                                "--idle", "5", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, text=True)
        first = [cat.stdout.readline() for _ in range(500)]  # printed while the writer runs
        assert proc.poll() is None
        # Flushed before each wait, though stdout is a pipe: with the writer
        # stopped, every record it sealed is printed, none held back.
        import threading
        proc.send_signal(signal.SIGSTOP)
        time.sleep(0.05)
        reader = LogReader(path, [Tick])
        sealed = len(reader.read_all())
        reader.close()

        def pump() -> None:
            while len(first) < sealed:
                line = cat.stdout.readline()
                if not line:
                    return
                first.append(line)
        t = threading.Thread(target=pump, daemon=True)
        t.start()
        t.join(3)  # before --idle ends cat (its exit would flush anything)
        assert len(first) >= sealed, ("records held back while no new one came", len(first), sealed)
        proc.send_signal(signal.SIGCONT)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    rest = cat.stdout.read()  # not communicate(): it would skip what readline() buffered
    err = cat.stderr.read()
    cat.wait(timeout=60)
    assert all(first), ("cat --follow ended early", cat.returncode, err)
    lines = [json.loads(x) for x in first + rest.splitlines()]
    whole = list(LogReader(path))
    assert len(lines) == len(whole) >= 500 and cat.returncode in (0, 3), err
    assert [x["value"]["symbol_id"] for x in lines] == [t.symbol_id for t in whole]
    for bad in (["--follow", "-"], ["--idle", "1", str(path)]):
        p = subprocess.run([sys.executable, "-m", "bin_serializer", "cat", *bad], capture_output=True, env=env)
        assert p.returncode == 2 and b"--follow" in p.stderr


def test_cat_follow_name(tmp_path):
    """cat -F follows a rotated log into the new file (every record once, in
    order); cat -f stops there with an error."""
    import subprocess
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(bin_serializer.__file__).parents[1]), env.get("PYTHONPATH", "")])
    ticks = [make_tick(i) for i in range(20)]
    for flag in ("-F", "-f"):
        path = tmp_path / f"cat{flag}.bsl"
        w = LogWriter(path, [Tick], flush="record")
        w.write_all(ticks[:5])
        cat = subprocess.Popen([sys.executable, "-m", "bin_serializer", "cat", flag, "--interval", "0.01",
                                "--idle", "3", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, text=True)
        first = [cat.stdout.readline() for _ in range(5)]
        path.rename(f"{path}.1")
        w.write_all(ticks[5:8])
        w.close()
        with LogWriter(path, [Tick], flush="record") as w:
            w.write_all(ticks[8:12])
        out, err = cat.communicate(timeout=60)
        lines = [json.loads(x) for x in first + out.splitlines()]
        got = [x["value"]["timestamp_ns"] for x in lines if "value" in x]
        if flag == "-F":
            assert cat.returncode == 0, err
            assert got == [t.timestamp_ns for t in ticks[:12]]
        else:
            assert cat.returncode == 1 and "another file" in err
            assert got == [t.timestamp_ns for t in ticks[:len(got)]] and 5 <= len(got) <= 8


def test_info(tmp_path, capsys):
    import json
    values = [make_tick(1), make_person(), Note(2, "x", []), make_tick(2), make_tick(3)] * 20
    data = log_bytes(values, [Tick, Person, Note], block_bytes=100)
    path = tmp_path / "i.bslog"
    path.write_bytes(data)
    header = LogReader(data).header
    assert cli(["info", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: record log, format compact, {len(data)} bytes (header {header.data_offset})"
    assert [line.split()[:2] for line in out[2:5]] == [["0", "60"], ["1", "20"], ["2", "20"]]
    assert out[2].split()[-1] == "Tick" and f"{schema_hash(Person, 'compact'):#018x}" in out[3]
    assert out[-1] == f"100 records; the log ends cleanly at offset {len(data)}"
    assert cli(["info", "--json", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["records"] == 100 and doc["end"] == "clean" and doc["corruptions"] == []
    assert [(t["name"], t["records"], t["described"]) for t in doc["types"]] == [
        ("Tick", 60, True), ("Person", 20, True), ("Note", 20, True)]
    assert doc["bytes"] == len(data) and doc["header_bytes"] == header.data_offset
    blocks = blocks_of(data)
    # torn: the records of the blocks before the last, which a reader returns
    path.write_bytes(data[:-3])
    assert cli(["info", "--json", str(path)]) == 3
    doc = json.loads(capsys.readouterr().out)
    kept = sum(records_per_block(data, [Tick, Person, Note])[:-1])
    assert doc["records"] == kept and (doc["end"], doc["end_offset"]) == ("torn", blocks[-1][0])
    # a corrupt block: counted out, listed, and the walk goes on after it
    bad = bytearray(data)
    bad[blocks[1][0] + 17] ^= 1
    path.write_bytes(bytes(bad))
    assert cli(["info", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"corrupt at offset {blocks[1][0]}" in out and f"going on at offset {blocks[2][0]}" in out
    assert out.splitlines()[-1].startswith(f"{100 - records_per_block(data, [Tick, Person, Note])[1]} records")
    # no descriptions: counted all the same; an evolvable type's versions are shown
    path.write_bytes(log_bytes([make_tick(1)] * 3, [Tick], descriptions=False))
    assert cli(["info", str(path)]) == 0
    row = capsys.readouterr().out.splitlines()[2]
    assert row.split()[:2] == ["0", "3"] and row.endswith("(no description)")
    path.write_bytes(log_bytes([ProfV3("a", 1)], [ProfV3, Tick]))
    assert cli(["info", str(path)]) == 0
    assert "ProfV3 (3 versions)" in capsys.readouterr().out
    path.write_bytes(b"not a log at all")
    assert cli(["info", str(path)]) == 2
    assert "bad header" in capsys.readouterr().err
    assert cli(["info", str(tmp_path / "missing")]) == 2


def test_tally_counts_what_reading_returns(backend):
    """tally() checks what reading checks: on randomly damaged logs its
    counts are those of the records records(on_corruption="skip") returns,
    and it ends the same way; with "raise" it stops at the first corruption
    with the counts before it."""
    types = [Person, Note, Tick]
    values = [make_person(), Note(1, "abc", ["x"]), make_tick(3), Note(-7, "", [])] * 30
    data = log_bytes(values, types, block_bytes=100)
    start = blocks_of(data)[0][0]
    rng = random.Random(11)
    for _ in range(150):
        bad = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            bad[rng.randrange(start, len(bad))] = rng.randrange(256)
        if rng.random() < 0.3:
            bad = bad[:rng.randrange(start, len(bad))]
        bad = bytes(bad)
        read = LogReader(bad, types)
        want = [0, 0, 0]
        for index, _ in read.records(on_corruption="skip", with_index=True):
            want[index] += 1
        counted = LogReader(bad)
        assert counted.tally(on_corruption="skip") == want
        assert (counted.end, counted.end_offset) == (read.end, read.end_offset)
        assert [(c.offset, c.resume_offset) for c in counted.corruptions] == [
            (c.offset, c.resume_offset) for c in read.corruptions]
        if read.corruptions:
            first = LogReader(bad)
            with pytest.raises(LogCorruptError) as ei:
                first.tally()
            assert ei.value.offset == read.corruptions[0].offset
            assert sum(ei.value.counts) <= sum(want)
    # no class, no description needed; the reader can still read afterwards
    plain = log_bytes(values, types, descriptions=False)
    r = LogReader(plain)
    assert r.tally() == [30, 60, 30] and r.end == "clean"
    r = LogReader(plain, types)
    assert r.tally() == [30, 60, 30] and list(r) == []
    with pytest.raises(ValueError):
        r.tally(on_corruption="ignore")


# ---------------------------------------------------------------------------
# the market example


def test_market_example_write_then_read(tmp_path, capsys):
    import market_log
    path = tmp_path / "m.bslog"
    assert market_log.main(["--write", str(path), "1000", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Trade         350" in out and "Quote         600" in out and "Status         50" in out
    r = LogReader(path, market_log.TYPES)
    got = list(r)
    assert got == [market_log.record(i) for i in range(1000)] and r.end == "clean"
    assert market_log.record(0) == market_log.Trade(1_700_000_000_000_000_000, 99_000, 1, ord("B"))
    assert market_log.record(19) == market_log.Status(1_700_000_000_000_019_000, "XNAS", "halt")
    assert market_log.record(39).text == "resume"
    assert market_log.record(7) == market_log.Quote(1_700_000_000_000_007_000, 99_993, 100_008, 92, 120)
    assert [t.name for t in r.header.types] == ["Trade", "Quote", "Status"]


# ---------------------------------------------------------------------------
# user code run by decoding


@dataclass
class Checked:
    n: u32
    calls = 0
    armed = False

    def __post_init__(self) -> None:
        type(self).calls += 1
        if self.n == 13 and type(self).armed:
            raise ValueError("unlucky")


def test_post_init_runs_once_per_record_and_its_error_propagates():
    values = [Checked(i) for i in (1, 2, 13, 4)]
    data = log_bytes(values, [Checked])
    Checked.calls = 0
    Checked.armed = True
    r = LogReader(data, [Checked])
    got = []
    with pytest.raises(ValueError, match="unlucky"):
        for v in r:
            got.append(v)
    Checked.armed = False
    assert [v.n for v in got] == [1, 2] and Checked.calls == 3  # each record's __post_init__ ran once


# ---------------------------------------------------------------------------
# both backends agree on damaged logs


def _outcome(data: bytes, types, only=None):
    r = LogReader(data, types, only=only)
    got, err = [], None
    try:
        for v in r.records(on_corruption="skip"):
            got.append(encode(v, "compact"))
    except DecodeError as e:
        err = (type(e).__name__, e.kind, e.offset)
    return got, err, r.end, r.end_offset, [(c.offset, c.resume_offset) for c in r.corruptions]


@pytest.mark.skipif(not _accel.available(), reason="the compiled extension is not built")
def test_backends_agree_on_randomly_damaged_logs(backend):
    if backend != "c":
        pytest.skip("differential test: runs once, in the compiled-codec pass")
    types = [Person, Note, Tick]
    values = [make_person(), Note(1, "abc", ["x"]), make_tick(3), Note(-7, "", [])] * 40
    data = log_bytes(values, types, block_bytes=100)
    start = blocks_of(data)[0][0]
    rng = random.Random(5)
    previous = bin_serializer.backend()
    try:
        for round_ in range(300):
            bad = bytearray(data)
            for _ in range(rng.randrange(1, 4)):
                at = rng.randrange(start, len(bad))
                bad[at] = rng.randrange(256) if rng.random() < 0.7 else 0
            if rng.random() < 0.3:
                bad = bad[:rng.randrange(start, len(bad))]
            bad = bytes(bad)
            only = [Note] if round_ % 3 == 0 else None
            bin_serializer.set_backend("python")
            slow = _outcome(bad, types, only)
            bin_serializer.set_backend("c")
            fast = _outcome(bad, types, only)
            assert slow == fast, round_
    finally:
        bin_serializer.set_backend(previous)


# ---------------------------------------------------------------------------
# vectors for the C++ writer to match (log_vectors/README.md)

VECTORS = Path(__file__).resolve().parent / "log_vectors"


@pytest.mark.parametrize("fmt", FORMATS)
def test_log_vectors(fmt):
    import market_log
    recs = [market_log.record(i) for i in range(1000)]
    path = VECTORS / f"market_1000.{fmt}.bslog"
    data = log_bytes(recs, market_log.TYPES, format=fmt, descriptions=False)
    assert data == path.read_bytes()
    r = LogReader(path, market_log.TYPES)
    assert list(r) == recs and r.end == "clean"
    tick = log_bytes([SpecTick(1, 2.5), SpecTick(300, -1.0)], [SpecTick], descriptions=False)
    assert tick == (VECTORS / "tick_example.compact.bslog").read_bytes()


@dataclass
class Switcher:
    """A __post_init__ that switches the codec (dropping every cached codec) in the middle of a read."""
    a: u32
    b: str
    calls = 0
    armed = False

    def __post_init__(self) -> None:
        type(self).calls += 1
        if type(self).armed:
            bin_serializer.set_backend("python")
            import gc
            gc.collect()  # the dropped codecs are in reference cycles


def test_codec_switched_by_user_code_during_a_read(backend):
    values = [Switcher(i, str(i)) for i in range(50)]
    data = log_bytes(values, [Switcher], block_bytes=64)
    for _ in range(3):
        bin_serializer.set_backend(backend)
        Switcher.calls = 0
        Switcher.armed = True
        try:
            r = LogReader(data, [Switcher])
            got = list(r)
        finally:
            Switcher.armed = False
        assert got == values and r.end == "clean" and Switcher.calls == 50


def test_append_recover_cuts_a_block_with_a_bad_record_at_its_start(tmp_path):
    fp = schema_hash(Tick, "compact")
    p = encode(make_tick(1), "compact")
    good = b"\x00" + bytes([len(p)]) + p
    first = _raw_log([(fp, 0)], [good])
    data = first + _block(good + b"\x05" + bytes([len(p)]) + p)  # type index 5 of 1
    path = tmp_path / "r.bslog"
    path.write_bytes(data)
    with pytest.raises(LogCorruptError):
        LogWriter(path, [Tick], append=True, descriptions=False)
    with LogWriter(path, [Tick], append=True, recover=True, descriptions=False) as w:
        w.write(make_tick(2))
    r = LogReader(path, [Tick])
    assert list(r) == [make_tick(1), make_tick(2)] and r.end == "clean"
    assert path.read_bytes()[:len(first)] == first


# ---------------------------------------------------------------------------
# C++ -> Python: examples/market_log.cpp (BIN_SERIALIZER_MARKET_LOG_EXE, set by scripts/test.sh)


def test_cpp_market_log_reads_and_matches_the_python_writer(tmp_path, backend):
    exe = os.environ.get("BIN_SERIALIZER_MARKET_LOG_EXE", "")
    if not exe:
        pytest.skip("BIN_SERIALIZER_MARKET_LOG_EXE not set (path of example_market_log)")
    import subprocess

    import market_log
    path = tmp_path / "cpp.bsl"
    n = 5000
    subprocess.run([exe, str(path), str(n)], check=True, capture_output=True, timeout=120)
    # python/examples/market_log.py itself reads the C++ file and checks every record
    assert market_log.main([str(path)]) == 0
    r = LogReader(path, market_log.TYPES)
    assert list(r) == [market_log.record(i) for i in range(n)] and r.end == "clean"
    assert [t.name for t in r.header.types][-1].endswith("Status")
    assert [type(v).__name__ for v in LogReader(path)][:8] == ["Trade"] * 7 + ["Quote"]  # from its descriptions
    # the blocks (everything after the header, which holds each side's descriptions) are the same bytes
    mine = log_bytes([market_log.record(i) for i in range(n)], market_log.TYPES)
    theirs = path.read_bytes()
    assert theirs[r.header.data_offset:] == mine[LogReader(mine).header.data_offset:]


def _verdict(data: bytes, types) -> str:
    """What reading data gives, in tests/log/log_verdicts.cpp's words: the
    records (their index in the market mix), then how each stretch ended,
    going on after every corruption that has a valid block after it."""
    first_ts = 1_700_000_000_000_000_000  # market_log.record(0).ts
    try:
        r = LogReader(data, types)
    except LogHeaderError:
        return "failed"
    out = ""
    while True:
        try:
            for v in r:
                out += f"{(v.ts - first_ts) // 1000} "
        except LogCorruptError as e:
            out += f"| corrupt@{e.offset}"
            if e.resume_offset is None:
                return out
            out += " | "  # iterating again goes on at e.resume_offset
            continue
        except LogRecordError as e:
            out += f"| error@{e.offset} | "
            continue
        return out + f"| {r.end}@{r.end_offset}"


def _append_verdict(data: bytes, types, path, recover: bool) -> str:
    """What a writer appending to data makes of it, in log_verdicts.cpp's
    words: the log it leaves when opened and closed without a record ("kept
    SIZE CRC32C"), or its refusal ("refused ERRC@OFFSET"). No descriptions,
    as log_verdicts: a new header is then the same in both languages."""
    path.write_bytes(data)
    try:
        LogWriter(path, types, append=True, recover=recover, descriptions=False).close()
    except LogCorruptError as e:
        return f"refused corrupt@{e.offset}"
    except LogHeaderError as e:
        return f"refused {ErrorKind.ERRC[e.kind]}@{e.offset}"
    except SchemaError as e:
        return f"refused schema_mismatch ({e})"
    kept = path.read_bytes()
    return f"kept {len(kept)} {crc32c(kept):08x}"


def test_damage_read_alike_by_cpp_and_python(tmp_path, backend):
    """Every byte of a small log (header included) inverted, one bit of it
    flipped, the log cut there, and everything from there zeroed: the C++
    readers (log_reader over the bytes, log_stream_reader over a source of 7
    bytes a call: tests/log/log_verdicts.cpp) and this package must return
    the same records and end the same way at the same offsets; and a writer
    appending to it (with and without recovering a corrupt tail) must leave
    the same bytes or refuse for the same reason at the same offset."""
    exe = os.environ.get("BIN_SERIALIZER_LOG_VERDICTS_EXE", "")
    if not exe:
        pytest.skip("BIN_SERIALIZER_LOG_VERDICTS_EXE not set (path of log_verdicts, built with the tests)")
    import subprocess

    import market_log
    # Without descriptions, so that a header is the same bytes whichever language writes it (an
    # appending writer that finds only an unpublished header writes its own).
    data = log_bytes([market_log.record(i) for i in range(40)], market_log.TYPES, block_bytes=160,
                     descriptions=False)
    assert len(blocks_of(data)) >= 4
    path = tmp_path / "market.bslog"
    path.write_bytes(data)
    append_path = tmp_path / "append.bslog"
    got = subprocess.run([exe, str(path), "0"], check=True, capture_output=True, text=True, timeout=300)
    lines = iter(got.stdout.splitlines())
    ends = set()
    appends = set()
    for k in range(len(data)):
        damaged = {
            "x": data[:k] + bytes([data[k] ^ 0xFF]) + data[k + 1:],
            "b": data[:k] + bytes([data[k] ^ (1 << (k % 8))]) + data[k + 1:],
            "c": data[:k],
            "z": data[:k] + bytes(len(data) - k),
        }
        for what, bad in damaged.items():
            mine = _verdict(bad, market_log.TYPES)
            for reader in ("span", "stream"):
                head, _, theirs = next(lines).partition(f" {reader} ")
                assert head == f"{what} {k}"
                assert theirs == mine, (what, k, reader)
            ends.update(["failed"] if mine == "failed" else re.findall(r"([a-z]+)@", mine))
            for recover in (False, True):
                mode = "append-cut" if recover else "append"
                head, _, theirs = next(lines).partition(f" {mode} ")
                assert head == f"{what} {k}"
                appended = _append_verdict(bad, market_log.TYPES, append_path, recover)
                appends.add("kept" if appended.startswith("kept") else appended.split("@")[0])
                if theirs.startswith("refused corrupt@") and appended.startswith("refused corrupt@"):
                    # C++'s error is at the bad field, LogCorruptError.offset at its block
                    assert int(appended[16:]) <= int(theirs[16:]) < len(bad), (what, k, mode)
                    continue
                assert theirs == appended, (what, k, mode)
    assert next(lines, None) is None
    assert ends == {"failed", "corrupt", "torn", "clean"}  # each kind of end was compared
    # ... and each answer of an appending writer
    assert appends == {"kept", "refused bad_header", "refused truncated", "refused corrupt"}, appends


def test_forged_block_heads_everywhere_stay_linear(backend):
    """A candidate block head (magic, claimed length, correct head CRC) every
    16 bytes, each claiming the rest of the input: the search for the next
    valid block checksums bodies within a budget linear in the bytes searched,
    so this ends quickly, as corruption with nowhere to resume (never torn)."""
    header = log_bytes([], [SpecTick], descriptions=False)
    size = 256 * 1024
    forged = bytearray(size)
    for at in range(0, size - 15, 16):
        head = b"BSLB" + u32le(size - at - 16) + b"\x5a" * 4
        forged[at:at + 16] = head + u32le(crc32c(head))
    data = header + bytes(forged)
    t0 = time.perf_counter()
    r = LogReader(data, [SpecTick], max_block_bytes=1 << 16)
    got = list(r.records(on_corruption="skip"))
    elapsed = time.perf_counter() - t0
    assert got == [] and r.end == "corrupt" and r.end_offset == len(header)
    assert r.corruptions and r.corruptions[0].resume_offset is None
    # a hang guard, not a speed test: unbudgeted, ~2^14 candidates x ~128 KiB each (2 GiB of
    # CRC) would take minutes in C and hours in pure Python; the budget allows ~1.2 MiB
    assert elapsed < 60, elapsed


# ---------------------------------------------------------------------------
# untracked=True: records of atomic fields left out of the cycle collector


@dataclass(slots=True)
class Holder:
    name: str
    items: list[i32]


def test_untracked_records_only_when_asked_and_only_atomic(backend):
    import gc

    values = [Small(i, ord("a")) for i in range(50)] + [Holder("h", [1, 2]), Small(7, ord("b"))]
    data = log_bytes(values, [Small, Holder])
    default = list(LogReader(data, [Small, Holder]))
    asked = list(LogReader(data, [Small, Holder], untracked=True))
    assert asked == default == values
    assert all(gc.is_tracked(v) for v in default)  # the default: every record tracked
    holder = next(v for v in asked if type(v) is Holder)
    assert gc.is_tracked(holder)  # it holds a list: a cycle through it stays collectable
    smalls = [v for v in asked if type(v) is Small]
    if backend == "c":
        assert not any(gc.is_tracked(v) for v in smalls)
    else:  # the pure-Python codec cannot untrack: the option changes nothing
        assert all(gc.is_tracked(v) for v in smalls)
    built = list(LogReader(data, untracked=True))  # classes from the descriptions: the same rule
    assert [encode(v, "compact") for v in built] == [encode(v, "compact") for v in values]
    assert gc.is_tracked(next(v for v in built if type(v).__name__ == "Holder"))


@dataclass(frozen=True, slots=True)
class FSmall:
    a: u32
    c: char


@dataclass(frozen=True, slots=True)
class FHolder:
    name: str
    items: list[i32]


@dataclass(frozen=True, slots=True)
class FInner:
    x: i64
    s: str


@dataclass(frozen=True, slots=True)
class FOuter:
    inner: FInner
    tag: char


@dataclass(slots=True)
class MInner:
    x: i64


@dataclass(frozen=True, slots=True)
class FOverMutable:
    inner: MInner
    tag: char


def test_frozen_slotted_records_of_atoms_are_untracked_by_default(backend):
    import gc

    from bin_serializer import decode

    types = [FSmall, FHolder, FOuter, FOverMutable]
    values = [FSmall(1, ord("a")), FHolder("h", [1, 2]), FOuter(FInner(-5, "in"), ord("t")),
              FOverMutable(MInner(9), ord("m")), FSmall(2, ord("b"))]
    data = log_bytes(values, types)
    for got in (list(LogReader(data, types)), LogReader(data, types).read_all(),
                [decode(type(v), encode(v, "compact"), "compact") for v in values]):
        assert got == values
        small, holder, outer, over, small2 = got
        assert gc.is_tracked(holder)  # it holds a list
        assert gc.is_tracked(over) and gc.is_tracked(over.inner)  # a mutable instance: tracked, and so its holder
        if backend == "c":  # frozen, only atoms (or such records) inside: never in a cycle
            assert not any(gc.is_tracked(v) for v in (small, outer, outer.inner, small2))
        else:  # the pure-Python codec calls the classes: tracked as constructed
            assert all(gc.is_tracked(v) for v in (small, outer, outer.inner, small2))
        # still frozen, hashable, equal to what the class makes
        with pytest.raises(dataclasses.FrozenInstanceError):
            small.a = 3
        assert hash(outer) == hash(FOuter(FInner(-5, "in"), ord("t"))) and {small, small2} == {values[0], values[4]}
    del got, small, holder, outer, over, small2
    gc.collect()


@dataclass(frozen=True, slots=True, weakref_slot=True)
class FMap:
    d: dict[i32, i32]
    tag: char


@dataclass(frozen=True, slots=True)
class FMaybe:
    inner: FInner | None
    tag: char


@dataclass(slots=True)
class MMap:
    d: dict[i32, i32]


class Sentinel:
    pass


def test_frozen_records_stay_tracked_over_what_may_be_tracked_later(backend):
    """A dict of numbers is untracked when decoded, and CPython tracks it
    again once a container is stored in it: a frozen record holding one must
    stay tracked, else a cycle through the dict is never collected (it
    was, before this test). An optional frozen record of atoms is as settled
    as the record itself."""
    import gc
    import weakref

    from bin_serializer import decode

    rec = decode(FMap, encode(FMap({1: 2}, ord("m")), "compact"), "compact")
    assert rec == FMap({1: 2}, ord("m")) and gc.is_tracked(rec)
    mine = Sentinel()
    alive = weakref.ref(mine)
    gone = weakref.ref(rec)
    rec.d[5] = [rec, mine]  # a cycle: rec -> dict -> list -> rec
    del rec, mine
    gc.collect()
    assert alive() is None and gone() is None
    # untracked=True leaves records of atoms untracked, never one holding a
    # container: a dict is one, tracked or not (mutable and frozen alike)
    values = [MMap({1: 2}), FMap({3: 4}, ord("f")), MInner(5)]
    asked = LogReader(log_bytes(values, [MMap, FMap, MInner]), [MMap, FMap, MInner], untracked=True).read_all()
    assert asked == values
    assert gc.is_tracked(asked[0]) and gc.is_tracked(asked[1])
    assert gc.is_tracked(asked[2]) == (backend != "c")
    for v in (FMaybe(FInner(3, "x"), ord("a")), FMaybe(None, ord("b"))):
        got = decode(FMaybe, encode(v, "compact"), "compact")
        assert got == v
        assert gc.is_tracked(got) == (backend != "c")  # the compiled codec: settled, untracked


@pytest.mark.skipif(not _accel.available(), reason="the compiled extension is not built")
def test_iteration_batches_follow_what_the_collector_tracks(backend, monkeypatch):
    """Untracked records come out in small batches (still in the CPU's
    caches), tracked ones in big ones (the collector walks each batch once
    it is out): the first walk is small, each walk's count of tracked
    records sizes the next."""
    import gc

    from bin_serializer import log as logmod

    if backend != "c":
        pytest.skip("the batches are the compiled walk's")
    values = ([FSmall(i, ord("a")) for i in range(5000)] + [MInner(i) for i in range(40000)]
              + [FSmall(i, ord("c")) for i in range(5000)])
    data = log_bytes(values, [FSmall, MInner])
    calls = []
    real = _accel._cext.log_blocks

    def spy(*args):
        r = real(*args)
        calls.append((args[7], len(args[6]), r[5]))
        # the walk's own list is left out of the collector when nothing in it is tracked
        assert gc.is_tracked(args[6]) == (r[5] > 0 or args[8])  # [8]: pairs (tuples)
        return r

    monkeypatch.setattr(_accel._cext, "log_blocks", spy)
    assert list(LogReader(data, [FSmall, MInner])) == values
    assert calls[0][0] == logmod._BATCH_UNTRACKED
    for (asked, got, tracked), (next_asked, _, _) in zip(calls, calls[1:]):
        assert got < asked + 4096  # a walk ends at the block boundary after max_values records
        assert next_asked == (logmod._BATCH if tracked else logmod._BATCH_UNTRACKED)
    assert sum(got for _, got, _ in calls) == len(values)
    assert sum(tracked for _, _, tracked in calls) == 40000  # exactly the mutable records
    assert {a for a, _, _ in calls} == {logmod._BATCH, logmod._BATCH_UNTRACKED}
    pairs = list(LogReader(data, [FSmall, MInner]).records(with_index=True))
    assert pairs == [(0 if type(v) is FSmall else 1, v) for v in values]
    # read_all(): small walks while the records are untracked, then the rest in one walk
    calls.clear()
    everything = LogReader(data, [FSmall, MInner]).read_all()
    assert everything == values and gc.is_tracked(everything)
    first_tracked = next(i for i, c in enumerate(calls) if c[2])
    assert [a for a, _, _ in calls] == [logmod._BATCH_UNTRACKED] * (first_tracked + 1) + [sys.maxsize]
    # only untracked records: the list handed back is a new, tracked one (the walks' lists are not)
    calls.clear()
    frozen = values[:5000]
    got = LogReader(log_bytes(frozen, [FSmall]), [FSmall]).read_all()
    assert got == frozen and gc.is_tracked(got) and len(calls) > 2
    assert all(a == logmod._BATCH_UNTRACKED and not t for a, _, t in calls)

# ---------------------------------------------------------------------------
# varints read a word at a time inside a record: the bytes after a record's
# end (the next record, the next block) may be loaded but never decoded


@dataclass(slots=True)
class Widths:
    a: u16
    b: u32
    c: u64
    d: i64
    e: i32


@dataclass(slots=True)
class Outer:
    w: Widths
    tag: char


def _hostile_varint(rng: random.Random, maxlen: int) -> bytes:
    n = rng.randrange(1, maxlen + 3)
    body = [rng.randrange(128, 256) for _ in range(n - 1)]
    last = rng.choice([0, 1, 2, 3, 4, 15, 16, 127, rng.randrange(128)])
    return bytes(body + [last])


@pytest.mark.skipif(not _accel.available(), reason="the compiled extension is not built")
def test_varints_at_record_ends_backends_agree(backend):
    if backend != "c":
        pytest.skip("differential test: runs once, in the compiled-codec pass")
    fp = schema_hash(Widths, "compact")
    rng = random.Random(11)
    previous = bin_serializer.backend()
    good = Widths(1 << 15, (1 << 32) - 1, (1 << 64) - 1, -(1 << 63), -(1 << 31))
    gp = encode(good, "compact")
    tail = b"\x00" + bytes([len(gp)]) + gp  # a valid record after: bytes to read past the end
    try:
        for case in range(3000):
            if case % 3 == 0:  # valid values of every length
                v = Widths(rng.randrange(1 << rng.randrange(1, 17)), rng.randrange(1 << rng.randrange(1, 33)),
                           rng.randrange(1 << rng.randrange(1, 65)),
                           rng.randrange(-(1 << 63), 1 << 63) >> rng.randrange(64),
                           rng.randrange(-(1 << 31), 1 << 31) >> rng.randrange(32))
                payload = encode(v, "compact")
                if case % 2:  # cut inside the record: the varint runs into the next record
                    payload = payload[:rng.randrange(len(payload))]
            else:  # hostile: overlong, too wide, a 0x00 end, cut short
                payload = b"".join(_hostile_varint(rng, m) for m in (3, 5, 10, 10, 5))
                payload = payload[:rng.randrange(1, len(payload) + 1)]
            data = _raw_log([(fp, 0)], [b"\x00" + bytes([len(payload)]) + payload] + [tail] * 2)
            outcomes = []
            for b in ("python", "c"):
                bin_serializer.set_backend(b)
                r = LogReader(data, [Widths])
                got, err = [], None
                try:
                    for x in r:
                        got.append(x)
                except LogRecordError as e:
                    err = (e.kind, e.offset, type(e.payload_error).__name__,
                           getattr(e.payload_error, "kind", None))
                outcomes.append((got, err, r.end))
            assert outcomes[0] == outcomes[1], (case, payload.hex())
            if case % 3 == 0 and case % 2 == 0:
                assert outcomes[1][0] == [v, good, good]
    finally:
        bin_serializer.set_backend(previous)


def test_untracked_nested_records_and_the_default(backend):
    import gc

    values = [Outer(Widths(i, i << 20, i << 40, -i, -i), ord("x")) for i in range(20)]
    data = log_bytes(values, [Outer])
    default = list(LogReader(data, [Outer]))
    asked = list(LogReader(data, [Outer], untracked=True))
    assert default == asked == values
    assert all(gc.is_tracked(v) and gc.is_tracked(v.w) for v in default)
    if backend == "c":  # inner first, then the outer one (it refers to untracked objects only)
        assert not any(gc.is_tracked(v) or gc.is_tracked(v.w) for v in asked)
    # an untracked record still works as an instance: attributes, equality, deletion
    v = asked[3]
    v.tag = ord("y")
    assert v.tag == ord("y") and v.w.c == 3 << 40
    del asked, default
    gc.collect()


# ---------------------------------------------------------------------------
# read_all: one walk, the same records and errors as iterating


def test_read_all_equals_iteration_clean_torn_corrupt_and_record_errors(backend):
    values, data = _ticks_log()
    r = LogReader(data, [Tick])
    assert r.read_all() == values and r.end == "clean"
    assert r.read_all() == []  # nothing left
    assert LogReader(data, [Tick]).read_all(with_index=True) == [(0, v) for v in values]
    torn = data[:-3]
    it, alls = LogReader(torn, [Tick]), LogReader(torn, [Tick])
    assert alls.read_all() == list(it) and (alls.end, alls.end_offset) == (it.end, it.end_offset) == (
        "torn", blocks_of(data)[-1][0])
    # a corruption with a valid block after it: raise (records before it on the exception), resume, skip
    blocks, counts = blocks_of(data), records_per_block(data, [Tick])
    s, e = blocks[1]
    bad = bytearray(data)
    bad[s + 20] ^= 0x01
    bad = bytes(bad)
    r = LogReader(bad, [Tick])
    with pytest.raises(LogCorruptError) as ei:
        r.read_all()
    assert ei.value.records == values[:counts[0]] and ei.value.offset == s and ei.value.resume_offset == e
    assert r.read_all() == values[counts[0] + counts[1]:] and r.end == "clean"
    r = LogReader(bad, [Tick])
    assert r.read_all(on_corruption="skip") == values[:counts[0]] + values[counts[0] + counts[1]:]
    assert [c.offset for c in r.corruptions] == [s]
    with pytest.raises(ValueError, match="on_corruption"):
        LogReader(data, [Tick]).read_all(on_corruption="ignore")
    # a record that does not decode: the records before it, then the error; reading has ended
    fp = schema_hash(Note, "compact")
    good = encode(Note(1, "a", []), "compact")
    broken = bytes([good[0], 0x7F]) + b"x"
    raw = _raw_log([(fp, 0)], [b"\x00" + bytes([len(good)]) + good] * 3 + [b"\x00\x03" + broken])
    r = LogReader(raw, [Note])
    with pytest.raises(LogRecordError) as ei:
        r.read_all()
    assert ei.value.records == [Note(1, "a", [])] * 3 and r.end == "error"
    assert r.read_all() == []


# ---------------------------------------------------------------------------
# _cext.Batches: the records of the walks' lists, one by one (chain's job)


@pytest.mark.skipif(not _accel.available(), reason="the compiled extension is not built")
def test_batches_hands_out_the_lists_items_and_passes_errors_through(backend):
    import gc
    import weakref

    if backend != "c":
        pytest.skip("the iterator is the extension's: runs once")
    Batches = _accel._cext.Batches

    class Sub(list):
        pass

    it = Batches(iter([[1, 2], [], Sub([3]), [4]]))
    assert iter(it) is it and list(it) == [1, 2, 3, 4]
    assert list(it) == [] and next(it, "end") == "end"  # exhausted stays exhausted

    def failing():
        yield ["a", "b"]
        raise LogCorruptError(ErrorKind.CORRUPT_BLOCK, 7, "log", "bad")

    it = Batches(failing())
    assert next(it) == "a" and next(it) == "b"
    with pytest.raises(LogCorruptError):
        next(it)
    assert next(it, "end") == "end"  # the generator is finished, as chain would see it

    with pytest.raises(TypeError, match="yields lists"):
        list(Batches(iter([[1], (2, 3)])))
    with pytest.raises(TypeError):
        Batches(5)  # not iterable

    # a cycle through the iterator (its source refers to it) is collected
    class Token:
        pass

    token = Token()
    alive = weakref.ref(token)

    def source(box, tok):
        yield [box, tok]

    box: list = []
    it = Batches(source(box, token))
    box.append(it)
    del it, token, box
    gc.collect()
    assert alive() is None

    # the reader's iteration uses it, with the same records and errors as chain
    values = [Small(i, ord("a")) for i in range(3000)]
    data = log_bytes(values, [Small])
    it = iter(LogReader(data, [Small]))
    assert type(it) is Batches and list(it) == values
