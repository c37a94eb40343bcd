"""Framed messages, schema fingerprints and evolvable structs against the C++
golden vectors in spec/vectors/framed/<format>/ (docs/wire-format.md 9-11)."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from bin_serializer import DecodeError, ErrorKind, decode, encode
from bin_serializer.message import (HEADER_SIZE, decode_message, encode_message, iter_messages, message_is,
                                    read_header, schema_hash, token_stream)
from bin_serializer.types import f32, i32, i64, u16, u32
from bin_serializer.vectors import hint_from_descriptor

FRAMED = Path(__file__).resolve().parents[2] / "spec" / "vectors" / "framed"
FORMATS = ["portable"] + (["native"] if sys.byteorder == "little" else [])


def _load(fmt: str, name: str):
    meta = json.loads((FRAMED / fmt / f"{name}.json").read_text(encoding="utf-8"))
    return meta, (FRAMED / fmt / f"{name}.bin").read_bytes()


@dataclasses.dataclass
class Person:
    name: str
    id: i32
    email: str
    scores: list[f32]


@dataclasses.dataclass
class Renamed:
    full_name: str
    key: i32
    mail: str
    values: list[f32]


PERSON = Person("John Doe", 25, "john.doe@example.com", [2.1, 3.2, 4.5])


@pytest.mark.parametrize("fmt", FORMATS)
def test_message_person_vector(fmt):
    meta, data = _load(fmt, "message_person")
    header = read_header(data)
    assert header.format == fmt
    assert header.payload_length == len(data) - HEADER_SIZE
    # The Python schema computes the same fingerprint as the C++ one.
    assert header.schema_hash == int(meta["schema_hash"], 16)
    assert schema_hash(Person, fmt) == int(meta["schema_hash"], 16)
    assert schema_hash(hint_from_descriptor(meta["schema"]), fmt) == int(meta["schema_hash"], 16)
    got = decode_message(Person, data, fmt)
    assert got.name == "John Doe" and got.id == 25 and len(got.scores) == 3
    assert encode_message(got, fmt) == data


def test_spec_example_token_stream():
    @dataclasses.dataclass
    class P:
        id: i32
        name: str
    # docs/wire-format.md section 9: FORMAT(1) STRUCT(2) SINT(4) STRING(1) END
    want = bytes.fromhex("01 0100000000000000 20 0200000000000000 05 0400000000000000 "
                         "11 0100000000000000 21")
    assert token_stream(P, "portable") == want


def test_hash_ignores_names_and_sees_shape():
    assert schema_hash(Person) == schema_hash(Renamed)

    @dataclasses.dataclass
    class Retyped:
        name: str
        id: i64
        email: str
        scores: list[f32]
    assert schema_hash(Person) != schema_hash(Retyped)
    assert schema_hash(Person, "portable") != schema_hash(Person, "native")


def test_schema_mismatch_and_bad_headers():
    data = encode_message(PERSON)

    @dataclasses.dataclass
    class Other:
        x: u32
    with pytest.raises(DecodeError) as e:
        decode_message(Other, data)
    assert e.value.kind == ErrorKind.SCHEMA_MISMATCH and e.value.offset == 8
    with pytest.raises(DecodeError) as e:
        decode_message(Person, data, "native")
    assert e.value.kind == ErrorKind.SCHEMA_MISMATCH and e.value.offset == 5
    with pytest.raises(DecodeError) as e:
        decode_message(Person, b"X" + data[1:])
    assert e.value.kind == ErrorKind.BAD_HEADER and e.value.offset == 0
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            decode_message(Person, data[:cut])
    longer = data[:16] + (len(data) - HEADER_SIZE - 1).to_bytes(8, "little") + data[24:]
    with pytest.raises(DecodeError) as e:
        decode_message(Person, longer)
    assert e.value.kind == ErrorKind.INVALID_VALUE


def test_stream_framing_skips_unknown():
    @dataclasses.dataclass
    class Ping:
        seq: u32
    stream = encode_message(PERSON) + encode_message(Ping(7)) + encode_message(PERSON)
    seen = []
    for header, payload in iter_messages(stream):
        if message_is(Person, header):
            seen.append(decode(Person, payload).name)
        else:
            seen.append("skipped")
    assert seen == ["John Doe", "skipped", "John Doe"]


# ---- evolvable structs


@dataclasses.dataclass
class LimitsPy:
    max_users: u16 = 10
    max_rooms: u16 = 3
    __bin_serializer_versions__ = (1, 2)


@dataclasses.dataclass
class ProfileV1:
    name: str = ""
    id: i32 = 0
    __bin_serializer_versions__ = (2,)


@dataclasses.dataclass
class ProfileV2:
    name: str = ""
    id: i32 = 0
    email: str = ""
    scores: list[f32] = dataclasses.field(default_factory=list)
    __bin_serializer_versions__ = (2, 4)


@dataclasses.dataclass
class ProfileV3:
    name: str = ""
    id: i32 = 0
    email: str = ""
    scores: list[f32] = dataclasses.field(default_factory=list)
    limits: LimitsPy = dataclasses.field(default_factory=LimitsPy)
    __bin_serializer_versions__ = (2, 4, 5)


VERSIONS = {"evolvable_v1": ProfileV1, "evolvable_v2": ProfileV2, "evolvable_v3": ProfileV3}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(VERSIONS))
def test_evolvable_vectors_every_reader(fmt, name):
    meta, data = _load(fmt, name)
    writer = VERSIONS[name]
    # Own version: decodes and re-encodes to the same bytes; the JSON schema agrees.
    own = decode(writer, data, fmt)
    assert encode(own, fmt) == data
    assert encode(decode(hint_from_descriptor(meta["schema"]), data, fmt), fmt) == data
    for reader in VERSIONS.values():
        got = decode(reader, data, fmt)
        for f in dataclasses.fields(reader):
            if hasattr(own, f.name):
                assert getattr(got, f.name) == getattr(own, f.name)
            else:
                assert getattr(got, f.name) == getattr(reader(), f.name)  # the default
    # Every truncation fails.
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            decode(writer, data[:cut], fmt)


def test_evolvable_fingerprint_is_first_version():
    assert schema_hash(ProfileV1) == schema_hash(ProfileV3)
    assert schema_hash(ProfileV1, "native") == schema_hash(ProfileV2, "native")


def test_evolvable_hostile_prefix():
    data = encode(ProfileV2(name="a", id=1))
    bad = data[:4] + (3).to_bytes(4, "little") + data[8:]  # 3 is no version of ProfileV2
    with pytest.raises(DecodeError) as e:
        decode(ProfileV2, bad)
    assert e.value.kind == ErrorKind.SCHEMA_MISMATCH and e.value.offset == 4
    short = (int.from_bytes(data[:4], "little") - 1).to_bytes(4, "little") + data[4:]
    with pytest.raises(DecodeError) as e:
        decode(ProfileV2, short)
    assert e.value.errc in ("invalid_value", "truncated")
