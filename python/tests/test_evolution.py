"""Schema evolution (issue 30): retired fields, unknown trailing fields kept,
``python -m bin_serializer check`` (schema.breaking_changes) and ``dump``.

Every test runs against both codecs (conftest.py); both model retired and kept
fields and must give the same bytes, values and errors
(test_compiled_codec_models_evolution compares them on mutated inputs)."""

from __future__ import annotations

import copy
import dataclasses
import enum
import io
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Annotated

import pytest

from bin_serializer import DecodeError, SchemaError, compile_codec, decode, encode, schema
from bin_serializer.__main__ import main
from bin_serializer.errors import DescriptionError
from bin_serializer.message import encode_message, schema_hash, version_fingerprints
from bin_serializer.types import (RETIRED, Retire, Retired, UnknownFields, clear_unknown_fields, i64, retired, u8, u16,
                                  u32, unknown_fields)
from schemas import LimitsV1, LimitsV2
from test_differential import codecs

FORMATS = ["portable", "compact", "native"]


# ---- retired fields ------------------------------------------------------------------------------


@dataclass
class CfgV2:
    id: u32
    old: Retired[u16, 7] = retired()  # C++: [[no_unique_address]] retired<uint16_t, 7> old;
    name: str = ""
    __bin_serializer_versions__ = (3,)


@dataclass
class CfgV1:  # the same struct before `old` was retired
    id: u32
    old: u16
    name: str
    __bin_serializer_versions__ = (3,)


class Mode(enum.IntEnum):
    OFF = 0
    ON = 1
    AUTO = 5
    __underlying__ = u8


@dataclass
class AllRetired:
    a: Retired[bool] = retired()
    b: Annotated[Mode, Retire(5)] = retired()
    c: Retired[str] = retired()
    d: Retired[list[u32]] = retired()
    e: Retired[i64, -2] = retired()
    keep: u8 = 0
    __bin_serializer_versions__ = (6,)


def test_retired_golden_portable():
    v = CfgV2(5, name="x")
    assert v.old is RETIRED
    data = encode(v)
    assert data.hex() == "0f000000" "03000000" "05000000" "0700" "0100000000000000" "78"
    assert data == encode(CfgV1(5, 7, "x"))  # the wire slot stays
    back = decode(CfgV2, encode(CfgV1(5, 999, "x")))  # any valid u16 is read and dropped
    assert back == CfgV2(5, name="x") and back.old is RETIRED
    assert repr(back) == "CfgV2(id=5, name='x')"


def test_retired_golden_compact():
    assert encode(CfgV2(5, name="x"), "compact").hex() == "04000000" "03000000" "05" "07" "01" "78"


def test_retired_zero_values_golden():
    data = encode(AllRetired(keep=9))
    body = "00" "05" "0000000000000000" "0000000000000000" "feffffffffffffff" "09"
    assert data.hex() == f"{len(body) // 2:02x}000000" "06000000" + body
    assert decode(AllRetired, data) == AllRetired(keep=9)


@pytest.mark.parametrize("fmt", FORMATS)
def test_retired_fingerprint_is_t(fmt):
    assert schema_hash(CfgV2, fmt) == schema_hash(CfgV1, fmt)
    assert version_fingerprints(CfgV2, fmt) == version_fingerprints(CfgV1, fmt)
    assert decode(CfgV2, encode(CfgV2(1, name="é"), fmt), fmt) == CfgV2(1, name="é")


def test_retired_field_invalid_bytes():
    data = bytearray(encode(AllRetired(keep=1)))
    data[8] = 2  # the retired bool
    with pytest.raises(DecodeError) as e:
        decode(AllRetired, bytes(data))
    assert e.value.kind == "invalid_bool" and e.value.offset == 8 and e.value.path == "AllRetired.a"
    data = bytearray(encode(AllRetired(keep=1)))
    data[9] = 3  # the retired enum: 3 is no member
    with pytest.raises(DecodeError) as e:
        decode(AllRetired, bytes(data))
    assert e.value.kind == "invalid_enum" and e.value.offset == 9 and e.value.path == "AllRetired.b"
    data = bytearray(encode(CfgV1(1, 0, "é")))
    data[-2] = 0xFF  # the string after the retired slot
    with pytest.raises(DecodeError) as e:
        decode(CfgV2, bytes(data))
    assert e.value.kind == "invalid_utf8" and e.value.path == "CfgV2.name"


def test_retired_value_ignored_on_encode():
    v = CfgV2(3, name="a")
    object.__setattr__(v, "old", "not a u16")  # never read
    assert encode(v) == encode(CfgV2(3, name="a"))


def test_retired_declaration_errors():
    @dataclass
    class Plain:
        a: u32
        b: Retired[u16] = retired()

    with pytest.raises(SchemaError, match="evolvable"):
        encode(Plain(1))

    @dataclass
    class BadValue:
        a: Retired[u8, 300] = retired()
        __bin_serializer_versions__ = (1,)

    with pytest.raises(SchemaError, match="Retire"):
        encode(BadValue())

    @dataclass
    class ValueOnString:
        a: Retired[str, 1] = retired()
        __bin_serializer_versions__ = (1,)

    with pytest.raises(SchemaError, match="Retire"):
        encode(ValueOnString())


def test_retired_marker_inside_another_type_is_refused():
    @dataclass
    class Inside:
        a: list[Retired[u16]]
        __bin_serializer_versions__ = (1,)

    with pytest.raises(SchemaError, match="Retire"):
        encode(Inside([]))


def test_retired_init_field_gets_the_sentinel():
    @dataclass
    class WithInit:  # a retired field left an __init__ parameter: decoding passes RETIRED
        a: u32
        b: Retired[u16]
        __bin_serializer_versions__ = (2,)

    got = decode(WithInit, encode(WithInit(1, 0)))
    assert got.a == 1 and got.b is RETIRED


# ---- unknown fields kept ------------------------------------------------------------------------


@dataclass
class ProfOld:
    id: u32
    name: str
    __bin_serializer_versions__ = (2,)
    __bin_serializer_keep_unknown__ = True


@dataclass
class ProfNew:
    id: u32
    name: str
    score: i64 = 0
    tags: list[u16] = dataclasses.field(default_factory=list)
    __bin_serializer_versions__ = (2, 4)


@dataclass
class Holder:
    before: u8
    prof: ProfOld
    after: u8
    __bin_serializer_versions__ = (3,)


@dataclass
class HolderNew:
    before: u8
    prof: ProfNew
    after: u8
    __bin_serializer_versions__ = (3,)


@pytest.mark.parametrize("fmt", FORMATS)
def test_unknown_fields_survive_an_older_reader(fmt):
    newer = ProfNew(1, "ann", -3, [7, 8])
    old = decode(ProfOld, encode(newer, fmt), fmt)
    assert old == ProfOld(1, "ann") and repr(old) == "ProfOld(id=1, name='ann')"
    kept = unknown_fields(old)
    assert kept.count == 2 and kept.data
    old.name = "bob"  # modified by the older program
    again = encode(old, fmt)
    assert again == encode(ProfNew(1, "bob", -3, [7, 8]), fmt)  # what the newer type writes
    assert decode(ProfNew, again, fmt) == ProfNew(1, "bob", -3, [7, 8])


def test_unknown_fields_golden():
    old = decode(ProfOld, encode(ProfNew(1, "hi", -1, [2])))
    body_known = "01000000" "0200000000000000" "6869"
    body_new = "ffffffffffffffff" "0100000000000000" "0200"
    assert unknown_fields(old) == UnknownFields(2, bytes.fromhex(body_new))
    old.id = 9
    body = "09000000" "0200000000000000" "6869" + body_new
    assert encode(old).hex() == f"{len(body) // 2:02x}000000" "04000000" + body
    assert len(body_known) < len(body)
    # compact: the prefix stays two fixed u32s, the kept bytes are copied verbatim
    oldc = decode(ProfOld, encode(ProfNew(1, "hi", -1, [2]), "compact"), "compact")
    assert unknown_fields(oldc) == UnknownFields(2, bytes.fromhex("01" "01" "02"))
    assert encode(oldc, "compact").hex() == "07000000" "04000000" "01" "02" "6869" "01" "01" "02"


def test_unknown_fields_cleared_by_older_or_equal_data():
    old = decode(ProfOld, encode(ProfNew(1, "a")))
    assert unknown_fields(old).count == 2
    same = decode(ProfOld, encode(ProfOld(1, "a")))
    assert unknown_fields(same) == UnknownFields(0, b"")
    assert encode(same) == encode(ProfOld(1, "a"))
    clear_unknown_fields(old)
    assert encode(old) == encode(ProfOld(1, "a"))
    assert old == ProfOld(1, "a")  # eq ignores what was kept


def test_unknown_fields_nested():
    newer = HolderNew(1, ProfNew(2, "x", 5, [1]), 3)
    h = decode(Holder, encode(newer))
    assert h == Holder(1, ProfOld(2, "x"), 3)
    assert encode(h) == encode(newer)
    assert decode(HolderNew, encode(h)) == newer


def test_unknown_fields_bad_body_is_an_error():
    data = bytearray(encode(ProfNew(1, "a", 2, [])))
    data[0] += 1  # body_length one byte too long: the input ends
    with pytest.raises(DecodeError) as e:
        decode(ProfOld, bytes(data))
    assert e.value.kind == "length_exceeds_input" and e.value.offset == 0


def test_keep_unknown_needs_an_evolvable_dict_class():
    @dataclass
    class NotEvolvable:
        a: u32
        __bin_serializer_keep_unknown__ = True

    with pytest.raises(SchemaError, match="evolvable"):
        encode(NotEvolvable(1))

    @dataclass(slots=True)
    class Slotted:
        a: u32
        __bin_serializer_versions__ = (1,)
        __bin_serializer_keep_unknown__ = True

    with pytest.raises(SchemaError, match="__dict__"):
        encode(Slotted(1))


def test_fingerprint_unchanged_by_keep_unknown():
    @dataclass
    class P:
        id: u32
        name: str
        __bin_serializer_versions__ = (2,)

    assert schema_hash(P) == schema_hash(ProfOld)


# ---- descriptions --------------------------------------------------------------------------------


def U(n, e="fixed"):
    return {"kind": "uint", "size": n, "encoding": e}


def S(n, e="fixed"):
    return {"kind": "sint", "size": n, "encoding": e}


STR = {"kind": "string", "char_size": 1}


def F(name, t, since=1, **kw):
    return {"name": name, "since": since, **kw, "type": t}


def EV(name, versions, fields, **kw):
    return {"kind": "evolvable", "name": name, **kw, "versions": versions, "fields": fields}


def DOC(t, fmt="portable", mid=0, fingerprint=True):
    d = {"bin_serializer_schema": 1, "format": fmt, "fingerprint": "0x0000000000000000", "message_id": mid,
         "type": t}
    if fingerprint:
        root = schema.load(d, check_fingerprint=False)
        d["fingerprint"] = f"{schema_hash(root, fmt):#018x}"
    return d


def test_load_retired_and_keeps_unknown():
    d = DOC(EV("ns::Config", [2, 3], [F("id", U(4)), F("old", U(2), retired=True, retired_value=7),
                                       F("flag", {"kind": "bool", "encoding": "fixed"}, 2, retired=True)],
               keeps_unknown=True))
    T = schema.load(json.dumps(d))
    assert T.__bin_serializer_keep_unknown__ is True
    t = T(id=3)
    assert encode(t).hex() == "07000000" "03000000" "03000000" "0700" "00"
    assert schema_hash(T) == int(d["fingerprint"], 16)
    src = schema.generate(d)
    assert "old: Annotated[u16, Retire(7)] = field(default=RETIRED, init=False" in src
    assert "__bin_serializer_keep_unknown__ = True" in src


def test_load_refuses_bad_evolution_keys():
    bad = [
        EV("A", [1], [F("a", U(4), retired="yes")]),
        EV("A", [1], [F("a", U(4), retired_value=3)]),
        EV("A", [1], [F("a", STR, retired=True, retired_value=3)]),
        EV("A", [1], [F("a", U(4))], keeps_unknown=1),
        {"kind": "struct", "name": "A", "keeps_unknown": True, "fields": [{"name": "a", "type": U(4)}]},
        {"kind": "struct", "name": "A", "fields": [{"name": "a", "retired": True, "type": U(4)}]},
        EV("A", [1], [F("a", U(1), retired=True, retired_value=256)]),
    ]
    for t in bad:
        with pytest.raises(DescriptionError):
            schema.load(DOC(t, fingerprint=False), check_fingerprint=False)


def test_generated_evolution_module_passes_mypy_strict(tmp_path, backend):
    if backend != "python":
        pytest.skip("static check: runs once")
    import importlib.util
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    d = DOC(EV("ns::Config", [2, 3], [F("id", U(4)), F("retired", U(2), retired=True, retired_value=7),
                                       F("name", STR, 2)], keeps_unknown=True))
    path = tmp_path / "evolved.py"
    path.write_text(schema.generate(d), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    got = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
                          str(tmp_path / "cache"), str(path)], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert got.returncode == 0, got.stdout + got.stderr


# ---- check ----------------------------------------------------------------------------------------

BASE = EV("ns::Config", [2, 3], [F("id", U(4)), F("name", STR), F("limits", EV("ns::Limits", [1], [
    F("max_users", U(2))])), ])
BASE["fields"][2]["since"] = 2


def _edit(fn, base=BASE):
    t = copy.deepcopy(base)
    fn(t)
    return t


def _set(path, value):
    def fn(t):
        cur = t
        for k in path[:-1]:
            cur = cur[k]
        cur[path[-1]] = value
    return fn


def _cvt(fmt):
    """BASE in the compact format (integers as varints)."""
    def walk(n):
        if isinstance(n, dict):
            if n.get("kind") in ("uint", "sint") and n.get("size", 1) > 1:
                n["encoding"] = "varint" if n["kind"] == "uint" else "zigzag"
            for v in n.values():
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)
    t = copy.deepcopy(BASE)
    if fmt == "compact":
        walk(t)
    return t


def _swap(t):
    t["fields"][0], t["fields"][1] = t["fields"][1], t["fields"][0]


def _remove(t):
    del t["fields"][2]
    t["versions"] = [2]


def _append(t):
    t["fields"].append(F("extra", S(8), 3))
    t["versions"] = [2, 3, 4]


CHECK_CASES = [
    # (id, fmt, edit of OLD giving NEW, expected lines)
    ("retype", "portable", _set(["fields", 0, "type"], S(4)), ["Config.id: retyped (uint 4 -> sint 4)"]),
    ("retype nested", "portable", _set(["fields", 2, "type", "fields", 0, "type"], S(2)),
     ["Config.limits.max_users: retyped (uint 2 -> sint 2)"]),
    ("remove", "portable", _remove,
     ["Config.limits: removed (retire it instead of removing it)"]),
    ("reorder", "portable", _swap,
     ["Config.id: reordered (was field 0, now field 1)", "Config.id: retyped (uint 4 -> string)",
      "Config.name: reordered (was field 1, now field 0)", "Config.name: retyped (string -> uint 4)"]),
    ("version count edited", "portable", _set(["versions"], [1, 3]),
     ["Config: version 1's field count edited (2 -> 1)"]),
    ("narrow", "compact", _set(["fields", 0, "type"], U(2)), ["Config.id: narrowed (uint 4 -> uint 2)"]),
    # u8 is one fixed byte in compact, not a varint: another encoding (as in C++)
    ("narrow nested to a byte", "compact", _set(["fields", 2, "type", "fields", 0, "type"], U(1)),
     ["Config.limits.max_users: retyped (uint 2 -> uint 1)"]),
    ("widen in portable", "portable", _set(["fields", 0, "type"], U(8)), ["Config.id: retyped (uint 4 -> uint 8)"]),
    ("narrow in portable", "portable", _set(["fields", 0, "type"], U(2)), ["Config.id: retyped (uint 4 -> uint 2)"]),
    ("widen 8-bit in compact", "compact", None, ["Config.small: retyped (uint 1 -> uint 2)"]),
    ("widen signedness", "compact", _set(["fields", 0, "type"], S(8, "zigzag")),
     ["Config.id: retyped (uint 4 -> sint 8)"]),
    ("widen inside a container", "compact", None, ["Config.tags: retyped (sequence<uint 2> -> sequence<uint 4>)"]),
    ("format", "portable", None, ["Config: format changed (portable -> compact)"]),
    ("message id", "portable", None, ["Config: message id changed (0 -> 7)"]),
    ("evolvable to struct", "portable",
     _set(["fields", 2, "type"], {"kind": "struct", "name": "ns::Limits", "fields": [{"name": "max_users",
                                                                                   "type": U(2)}]}),
     ["Config.limits: retyped (evolvable of 1 field -> struct of 1 field)"]),
    # safe
    ("append", "portable", _append, []),
    ("retire", "portable", _set(["fields", 1, "retired"], True), []),
    ("retire with a value", "portable", lambda t: t["fields"][0].update(retired=True, retired_value=3), []),
    ("un-retire", "portable", None, []),
    ("keeps_unknown removed", "portable", None, []),
    ("rename", "portable", _set(["fields", 1, "name"], "title"), []),
    ("rename a type", "portable", _set(["name"], "ns::Settings"), []),
    ("compact widening", "compact", _set(["fields", 0, "type"], U(8)), []),
    ("compact widening nested", "compact", _set(["fields", 2, "type", "fields", 0, "type"], U(4)), []),
    ("keeps_unknown added", "portable", _set(["keeps_unknown"], True), []),
    ("nested append", "portable", lambda t: t["fields"][2]["type"].update(
        versions=[1, 2], fields=[F("max_users", U(2)), F("max_rooms", U(4), 2)]), []),
]


def _case_docs(case_id, fmt, edit):
    old_t = _cvt(fmt)
    if case_id == "widen inside a container":
        old_t["fields"].append(F("tags", {"kind": "sequence", "element": U(2, "varint")}, 3))
        old_t["versions"] = [2, 3, 4]
        new_t = copy.deepcopy(old_t)
        new_t["fields"][3]["type"]["element"] = U(4, "varint")
        return DOC(old_t, fmt, fingerprint=False), DOC(new_t, fmt, fingerprint=False)
    if case_id == "widen 8-bit in compact":  # u8 is a fixed byte in compact, u16 a varint: not the same bytes
        old_t["fields"].append(F("small", U(1), 3))
        old_t["versions"] = [2, 3, 4]
        new_t = copy.deepcopy(old_t)
        new_t["fields"][3]["type"] = U(2, "varint")
        return DOC(old_t, fmt, fingerprint=False), DOC(new_t, fmt, fingerprint=False)
    if case_id in ("un-retire", "keeps_unknown removed"):  # OLD had it, NEW has not
        old_t["fields"][1]["retired"] = True
        old_t["keeps_unknown"] = True
        new_t = copy.deepcopy(old_t)
        if case_id == "un-retire":
            del new_t["fields"][1]["retired"]
        else:
            del new_t["keeps_unknown"]
        return DOC(old_t, fmt, fingerprint=False), DOC(new_t, fmt, fingerprint=False)
    if case_id == "format":
        return DOC(old_t, fingerprint=False), DOC(_cvt("compact"), "compact", fingerprint=False)
    if case_id == "message id":
        return DOC(old_t, fingerprint=False), DOC(copy.deepcopy(old_t), mid=7, fingerprint=False)
    new_t = copy.deepcopy(old_t)
    edit(new_t)
    if fmt == "compact":  # an edit's integer nodes are written fixed: make them varints
        new_t = _edit(lambda t: None, new_t)
        stack = [new_t]
        while stack:
            n = stack.pop()
            if isinstance(n, dict):
                if n.get("kind") in ("uint", "sint") and n.get("size", 1) > 1:
                    n["encoding"] = "varint" if n["kind"] == "uint" else "zigzag"
                stack.extend(n.values())
            elif isinstance(n, list):
                stack.extend(n)
    return DOC(old_t, fmt, fingerprint=False), DOC(new_t, fmt, fingerprint=False)


@pytest.mark.parametrize("case_id, fmt, edit, expected", CHECK_CASES, ids=[c[0] for c in CHECK_CASES])
def test_check_table(case_id, fmt, edit, expected, tmp_path, capsys, backend):
    old, new = _case_docs(case_id, fmt, edit)
    assert schema.breaking_changes(json.dumps(old), json.dumps(new)) == expected
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    rc = main(["check", str(tmp_path / "old.json"), str(tmp_path / "new.json")])
    out = capsys.readouterr().out.splitlines()
    if expected:
        assert rc == 1 and out == expected
    else:
        assert rc == 0 and out == ["compatible"]


def test_check_table_types_read_each_other():
    """The old and new types of a change `check` accepts read each other's bytes."""
    import typing
    old_d, new_d = _case_docs("append", "portable", _append)
    Old, New = schema.load(DOC(old_d["type"])), schema.load(DOC(new_d["type"]))
    Limits = typing.get_type_hints(New)["limits"]
    newer = New(id=1, name="a", limits=Limits(max_users=2), extra=-1)
    older = decode(Old, encode(newer))
    assert (older.id, older.name, older.limits.max_users) == (1, "a", 2)
    assert decode(New, encode(older)).extra == 0


def test_check_positional_names_are_not_reordered():
    old = DOC(EV("P", [2], [F("field0", U(4)), F("field1", U(4))]), fingerprint=False)
    new = copy.deepcopy(old)
    new["type"]["fields"].reverse()
    assert schema.breaking_changes(old, new) == []
    new["type"]["fields"][0]["name"] = "a"
    old2 = copy.deepcopy(old)
    old2["type"]["fields"][0]["name"] = "a"
    assert schema.breaking_changes(old2, new) == []  # "a" stays at index 0


def test_check_plain_root():
    old = DOC({"kind": "struct", "name": "ns::Tick", "fields": [{"name": "a", "type": U(4)},
                                                                {"name": "b", "type": U(8)}]}, fingerprint=False)
    new = copy.deepcopy(old)
    new["type"]["fields"][1]["type"] = S(8)
    new["type"]["fields"][0]["name"] = "renamed"
    assert schema.breaking_changes(old, new) == ["Tick.b: retyped (uint 8 -> sint 8)"]
    new["type"]["fields"].append({"name": "c", "type": U(1)})
    assert schema.breaking_changes(old, new) == ["Tick: retyped (struct of 2 fields -> struct of 3 fields)"]
    leaf = DOC(U(4), fingerprint=False)
    assert schema.breaking_changes(leaf, DOC(U(8), fingerprint=False)) == ["<root>: retyped (uint 4 -> uint 8)"]


HOSTILE = {
    "malformed JSON": b'{"bin_serializer_schema": 1, "format": ',
    "not JSON": b"\x00\x01 definitely not json",
    "invalid UTF-8": b'{"format": "\xff\xfe"}',
    "not an object": b"[1, 2, 3]",
    "deep nesting": b"[" * 100000 + b"]" * 100000,
    "deep objects": b'{"a":' * 100000 + b"1" + b"}" * 100000,
    "huge count": json.dumps(DOC(EV("A", [10**30], [F("a", U(4))]), fingerprint=False)).encode(),
    "huge array count": json.dumps(DOC(EV("A", [1], [F("a", {"kind": "array", "count": 10**30, "element": U(1)})]),
                                       fingerprint=False)).encode(),
    "huge size": json.dumps(DOC(EV("A", [1], [F("a", U(10**30))]), fingerprint=False)).encode(),
    "huge number text": b'{"bin_serializer_schema": ' + b"9" * 100000 + b"}",
    "huge versions": json.dumps(DOC(EV("A", list(range(1, 200001)), [F("a", U(4))]), fingerprint=False)).encode(),
    "huge fields": json.dumps(DOC(EV("A", [100000], [F("a", U(4))] * 100000), fingerprint=False)).encode(),
    "huge array in a node": json.dumps(DOC(EV("A", [1], [F("a", {"kind": "variant", "alternatives": [U(1)] * 70000})]),
                                           fingerprint=False)).encode(),
    "wrong format": json.dumps({**DOC(U(4), fingerprint=False), "format": "nope"}).encode(),
    "fields not a list": json.dumps(DOC({"kind": "evolvable", "name": "A", "versions": [1], "fields": 3},
                                        fingerprint=False)).encode(),
    "node not an object": json.dumps(DOC(EV("A", [1], [F("a", 5)]), fingerprint=False)).encode(),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_check_hostile_descriptions(name, tmp_path, capsys, backend):
    if backend != "python":
        pytest.skip("no codec involved: runs once")
    good = json.dumps(DOC(EV("A", [1], [F("a", U(4))]), fingerprint=False)).encode()
    bad = HOSTILE[name]
    for old, new in ((good, bad), (bad, good)):
        start = time.monotonic()
        with pytest.raises(DescriptionError):
            schema.breaking_changes(old, new)
        (tmp_path / "old.json").write_bytes(old)
        (tmp_path / "new.json").write_bytes(new)
        rc = main(["check", str(tmp_path / "old.json"), str(tmp_path / "new.json")])
        captured = capsys.readouterr()
        assert rc == 2, captured.out
        assert "Traceback" not in captured.err and captured.err.startswith("bin_serializer check: ")
        assert time.monotonic() - start < 20


def test_check_cli_subprocess(tmp_path, backend):
    if backend != "python":
        pytest.skip("runs once")
    old, new = _case_docs("retype", "portable", CHECK_CASES[0][2])
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    (tmp_path / "bad.json").write_bytes(b"[" * 100000)
    run = lambda *a: subprocess.run([sys.executable, "-m", "bin_serializer", "check", *a], capture_output=True,
                                    text=True, cwd=tmp_path, timeout=60)
    got = run("old.json", "new.json")
    assert got.returncode == 1 and got.stdout == "Config.id: retyped (uint 4 -> sint 4)\n"
    got = run("old.json", "old.json")
    assert got.returncode == 0 and got.stdout == "compatible\n"
    got = run("old.json", "bad.json")
    assert got.returncode == 2 and "Traceback" not in got.stderr
    got = run("old.json", "missing.json")
    assert got.returncode == 2 and "Traceback" not in got.stderr


# ---- dump -----------------------------------------------------------------------------------------


def _dump_desc():
    return DOC(EV("ns::Rec", [2, 3], [F("id", U(4)), F("name", STR), F("flags", {
        "kind": "map", "key": U(2), "value": {"kind": "variant", "alternatives": [STR, {"kind": "float", "size": 8,
                                                                                          "encoding": "fixed"}]}}, 2)]))


def _run_dump(argv, capsys):
    rc = main(["dump", *argv])
    out = capsys.readouterr()
    return rc, [json.loads(line) for line in out.out.splitlines()], out.err


def test_dump_plain(tmp_path, capsys):
    from bin_serializer import Variant
    desc = _dump_desc()
    (tmp_path / "d.json").write_text(json.dumps(desc))
    Rec = schema.load(desc)
    a = encode(Rec(id=1, name="a", flags={2: Variant(0, "x"), 3: Variant(1, float("nan"))}))
    b = encode(Rec(id=2, name="é", flags={}))
    (tmp_path / "m.bin").write_bytes(a + b)
    rc, lines, _ = _run_dump(["--schema", str(tmp_path / "d.json"), str(tmp_path / "m.bin")], capsys)
    assert rc == 0
    assert lines == [
        {"file": str(tmp_path / "m.bin"), "offset": 0,
         "value": {"id": 1, "name": "a", "flags": [[2, {"index": 0, "value": "x"}], [3, {"index": 1, "value": "NaN"}]]}},
        {"file": str(tmp_path / "m.bin"), "offset": len(a), "value": {"id": 2, "name": "é", "flags": []}},
    ]
    # a torn tail: the error line names the kind and the absolute offset, exit 1
    (tmp_path / "torn.bin").write_bytes(a + b[:-1])
    rc, lines, _ = _run_dump(["--schema", str(tmp_path / "d.json"), str(tmp_path / "torn.bin")], capsys)
    assert rc == 1 and len(lines) == 2
    assert lines[1]["error"] in ("length_exceeds_input", "truncated") and lines[1]["offset"] == len(a)
    # bad bytes inside: an invalid variant index
    bad = bytearray(a + b)
    bad[8 + 4 + 8 + 1 + 8 + 2] = 9  # first map entry's variant index
    (tmp_path / "bad.bin").write_bytes(bytes(bad))
    rc, lines, _ = _run_dump(["--schema", str(tmp_path / "d.json"), str(tmp_path / "bad.bin")], capsys)
    assert rc == 1 and lines == [{"file": str(tmp_path / "bad.bin"), "offset": 31, "error": "variant_index_out_of_range",
                                  "detail": lines[0]["detail"], "path": "Rec.flags[#0].value"}]


def test_dump_framed(tmp_path, capsys):
    desc = _dump_desc()
    (tmp_path / "d.json").write_text(json.dumps(desc))
    Rec = schema.load(desc)

    @dataclass
    class Foreign:
        n: u32

    m1 = encode_message(Rec(id=1, name="a", flags={}))
    other = encode_message(Foreign(5))
    bad = bytearray(m1)
    bad[-9] = 0xFF  # the name's only byte: not UTF-8
    data = m1 + other + bytes(bad) + m1 + m1[:10]
    (tmp_path / "f.bin").write_bytes(data)
    rc, lines, _ = _run_dump(["--schema", str(tmp_path / "d.json"), "--framed", str(tmp_path / "f.bin")], capsys)
    assert rc == 1
    name = str(tmp_path / "f.bin")
    assert lines[0] == {"file": name, "offset": 0, "value": {"id": 1, "name": "a", "flags": []}}
    assert lines[1]["skipped"] == "another type" and lines[1]["offset"] == len(m1)
    third = len(m1) + len(other)
    assert lines[2]["error"] == "invalid_utf8" and lines[2]["offset"] == third + len(m1) - 9
    assert lines[3] == {"file": name, "offset": third + len(m1), "value": {"id": 1, "name": "a", "flags": []}}
    assert lines[4]["error"] == "truncated" and lines[4]["offset"] == third + 2 * len(m1)
    assert len(lines) == 5
    # a bad magic: the framing is lost, the file stops there
    broken = bytearray(m1 + m1)
    broken[len(m1)] = ord("X")
    (tmp_path / "g.bin").write_bytes(bytes(broken))
    rc, lines, _ = _run_dump(["--schema", str(tmp_path / "d.json"), "--framed", str(tmp_path / "g.bin")], capsys)
    assert rc == 1 and lines[1]["error"] == "bad_header" and lines[1]["offset"] == len(m1)


def test_dump_stdin_and_errors(tmp_path, backend):
    if backend != "python":
        pytest.skip("runs once")
    desc = _dump_desc()
    (tmp_path / "d.json").write_text(json.dumps(desc))
    Rec = schema.load(desc)
    data = encode(Rec(id=7, name="z", flags={}))
    got = subprocess.run([sys.executable, "-m", "bin_serializer", "dump", "--schema", "d.json", "-"], input=data,
                         capture_output=True, cwd=tmp_path, timeout=60)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == {"file": "<stdin>", "offset": 0, "value": {"id": 7, "name": "z", "flags": []}}
    (tmp_path / "bad.json").write_text("{")
    got = subprocess.run([sys.executable, "-m", "bin_serializer", "dump", "--schema", "bad.json", "-"], input=data,
                         capture_output=True, cwd=tmp_path, timeout=60)
    assert got.returncode == 2 and b"Traceback" not in got.stderr


def test_dump_retired_and_unknown(tmp_path, capsys):
    old_d = DOC(EV("ns::P", [2], [F("id", U(4)), F("old", U(2), retired=True)], keeps_unknown=True))
    new_d = DOC(EV("ns::P", [2, 3], [F("id", U(4)), F("old", U(2)), F("x", U(1), 2)]))
    New = schema.load(new_d)
    (tmp_path / "old.json").write_text(json.dumps(old_d))
    (tmp_path / "m.bin").write_bytes(encode(New(id=1, old=2, x=3)))
    rc, lines, _ = _run_dump(["--schema", str(tmp_path / "old.json"), str(tmp_path / "m.bin")], capsys)
    assert rc == 0
    assert lines[0]["value"] == {"id": 1, "__unknown__": {"count": 1, "data": "03"}}
    # A description that does not say keeps_unknown: dump keeps them all the same (a reader with
    # no code of its own shows what it has no names for), while schema.load drops them by default.
    plain_d = DOC(EV("ns::P", [2], [F("id", U(4)), F("old", U(2), retired=True)]))
    (tmp_path / "plain.json").write_text(json.dumps(plain_d))
    rc, lines, _ = _run_dump(["--schema", str(tmp_path / "plain.json"), str(tmp_path / "m.bin")], capsys)
    assert rc == 0 and lines[0]["value"] == {"id": 1, "__unknown__": {"count": 1, "data": "03"}}
    from bin_serializer.types import unknown_fields
    assert unknown_fields(decode(schema.load(plain_d), encode(New(id=1, old=2, x=3)))).count == 0
    assert unknown_fields(decode(schema.load(plain_d, keep_unknown=True), encode(New(id=1, old=2, x=3)))).count == 1


# ---- both codecs agree (the compiled one models retired and kept fields too) -------------------


def test_compiled_codec_models_evolution(backend):
    from bin_serializer import _accel, api
    if not _accel.available():
        pytest.skip("the extension is not built")
    import random
    rng = random.Random(30)
    for fmt in FORMATS:
        for hint, values in ((CfgV2, [CfgV1(1, 2, "ab"), CfgV1(0, 65535, "")]),
                             (AllRetired, [AllRetired(keep=3)]),
                             (ProfOld, [ProfNew(1, "x", -5, [1, 2, 3]), ProfOld(2, "y"), ProfNew(3, "", 0, [])]),
                             (Holder, [HolderNew(1, ProfNew(2, "x", 5, [1]), 3), Holder(1, ProfOld(2, "q"), 4)])):
            py, c = codecs(hint, fmt)
            for value in values:
                data = encode(value, fmt)
                inputs = [data, data[:-1], data[:5], data + b"\x00"]
                for _ in range(40):
                    b = bytearray(data)
                    b[rng.randrange(len(b))] = rng.randrange(256)
                    inputs.append(bytes(b))
                for raw in inputs:
                    outs = []
                    for codec in (py, c):
                        try:
                            v = codec.whole(raw)
                        except DecodeError as e:
                            outs.append(("error", e.kind, e.offset, e.path))
                        else:
                            outs.append(("value", repr(v), unknown_fields(v), codec.encode(v)))
                    assert outs[0] == outs[1], (hint, fmt, raw.hex())


def test_check_golden_profile_versions(backend):
    """ProfileV3's golden description against its own earlier versions (cut from it)."""
    if backend != "python":
        pytest.skip("no codec involved: runs once")
    from pathlib import Path
    golden = Path(__file__).resolve().parents[2] / "tests" / "frame" / "golden"
    for fmt in FORMATS:
        text = (golden / f"profile_v3.{fmt}.json").read_text(encoding="utf-8")
        cur = json.loads(text)
        for k in (1, 2):
            old = copy.deepcopy(cur)
            old["type"]["versions"] = cur["type"]["versions"][:k]
            old["type"]["fields"] = cur["type"]["fields"][:cur["type"]["versions"][k - 1]]
            assert schema.breaking_changes(old, text) == [], (fmt, k)
            assert schema.breaking_changes(text, old) == [
                f"ProfileV3.{f['name']}: removed (retire it instead of removing it)"
                for f in cur["type"]["fields"][old["type"]["versions"][-1]:]], (fmt, k)
        new = copy.deepcopy(cur)
        new["type"]["fields"][4]["type"]["fields"][0]["type"] = S(2, "zigzag" if fmt == "compact" else "fixed")
        assert schema.breaking_changes(text, new) == ["ProfileV3.limits.max_users: retyped (uint 2 -> sint 2)"]
        new = copy.deepcopy(cur)
        new["type"]["fields"][1]["retired"] = True  # retiring `id` keeps the slot: safe
        new["type"]["keeps_unknown"] = True
        assert schema.breaking_changes(text, new) == []


def test_dump_deep_values_are_an_error_line(tmp_path, capsys):
    d = DOC({"kind": "struct", "name": "L", "fields": [
        {"name": "v", "type": U(1)},
        {"name": "next", "type": {"kind": "optional", "value": {"kind": "ref", "name": "L", "depth": 1}}}]})
    (tmp_path / "l.json").write_text(json.dumps(d))
    # a list 5000 deep: the decoder's recursion limit; 990 deep: decoded, too deep to print
    for n in (5000, 990):
        data = b"\x01\x01" * (n - 1) + b"\x01\x00"
        (tmp_path / "l.bin").write_bytes(data)
        rc, lines, err = _run_dump(["--schema", str(tmp_path / "l.json"), str(tmp_path / "l.bin")], capsys)
        assert rc == 1 and lines[0]["error"] == "limit_exceeded" and lines[0]["offset"] == 0, (n, lines)
        assert "Traceback" not in err


# ---- a newer nested evolvable struct of numbers, read by an older reader -------------------------
# (The C++ decoder failed this until it stopped reading such structs through a window of their own
# version's largest encoding: tests/core/test_evolution.cpp, NewerNestedEvolvableOfNumbersInARunOrAVector.)


def _holder(lim: type) -> type:
    from bin_serializer.types import Array
    from typing import Optional
    return dataclasses.make_dataclass(f"Holder{lim.__name__}", [
        ("a", u32, dataclasses.field(default=1)),
        ("one", lim, dataclasses.field(default_factory=lim)),
        ("opt", Optional[lim], dataclasses.field(default_factory=lim)),
        ("arr", Array[lim, 2], dataclasses.field(default_factory=lambda: [lim(), lim()])),
        ("many", list[lim], dataclasses.field(default_factory=lambda: [lim(1), lim(2)])),
        ("b", u8, dataclasses.field(default=2)),
    ])


@pytest.mark.parametrize("fmt", FORMATS)
def test_newer_nested_evolvable_of_numbers_read_both_ways(fmt, backend):
    New, Old = _holder(LimitsV2), _holder(LimitsV1)
    assert schema_hash(New, fmt) == schema_hash(Old, fmt)
    got = decode(Old, encode(New(), fmt), fmt)
    assert (got.a, got.one, got.opt, got.arr, got.many, got.b) == (
        1, LimitsV1(), LimitsV1(), [LimitsV1(), LimitsV1()], [LimitsV1(1), LimitsV1(2)], 2)
    back = decode(New, encode(got, fmt), fmt)
    assert back == New()
