"""C++ type descriptions (docs/schema.md) -> Python: bin_serializer.schema.load
and `python -m bin_serializer generate`.

For every golden description of tests/frame/golden/: the loaded type's
fingerprint is the C++ one, a value round-trips (plain and framed), and where
spec/vectors/ holds C++ bytes of that type, the loaded type reads them and
writes the same bytes. The generated modules give the same fingerprints and
pass mypy --strict. Hostile descriptions raise DescriptionError."""

from __future__ import annotations

import dataclasses
import enum
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bin_serializer import DecodeError, EncodeError, decode, encode
from bin_serializer._schema import (ArrayN, BitsetN, BoolN, BytesN, EnumN, ListN, MapN, MonostateN, OptionalN, ScalarN,
                                    SetN, StrN, StructN, TupleN, VariantN, build_node)
from bin_serializer.errors import DescriptionError, SchemaError
from bin_serializer.message import decode_message, encode_message, message_id, schema_hash
from bin_serializer.schema import MAX_DEPTH, generate, load
from typing import Annotated, Optional

from bin_serializer.types import (Array, Bitset, Custom, Duration, EnumOf, EnumRange, Monostate, TaggedUnion, Text,
                                  TimePoint, Variant, char, char16, char32, f32, f64, i8, i16, i32, i64, u8, u16,
                                  u32, u64)
from bin_serializer.vectors import hint_from_descriptor

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "frame" / "golden"
VECTORS = REPO / "spec" / "vectors"
GOLDENS = sorted(GOLDEN.glob("*.json"))
CUSTOMS = {"schema_json_test::Money": i64}  # its C++ codec writes the int64 cents
CUSTOM_ARGS = {"schema_json_test::Money": "bin_serializer.types:i64"}
# golden description -> C++ golden vector of the same type ("list": the vector holds a std::vector of it)
VECTOR_OF = {"person": ("person", False), "car": ("car", False), "tick": ("tick", False),
             "monster": ("monsters", True)}


def _desc(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _stem(path: Path) -> "tuple[str, str]":
    name, fmt = path.stem.rsplit(".", 1)
    return name, fmt


def test_every_golden_is_here():
    assert {_stem(p)[0] for p in GOLDENS} >= {"person", "car", "monster", "tick", "large_struct", "profile_v3",
                                               "order", "everything"}
    assert len(GOLDENS) == 24


def sample(node, depth: int = 0):
    """A value of every part of `node` (recursive structs end in empty lists)."""
    if isinstance(node, ScalarN):
        if node.enum not in (False, True):
            return node.enum[1]
        if node.spec.is_float:
            return 1.5
        if node.spec.is_char:
            return 0x41
        return -3 if node.spec.signed else 200
    if isinstance(node, EnumN):
        return max(node.members)
    if isinstance(node, BoolN):
        return True
    if isinstance(node, StrN):
        return "h\u00e9llo"
    if isinstance(node, BytesN):
        return b"\x01\x02"
    if isinstance(node, BitsetN):
        return 0b101 & ((1 << node.n) - 1)
    if isinstance(node, MonostateN):
        return Monostate()
    if isinstance(node, ListN):
        if node.text:
            return [0x48, 0x20AC]
        items = [] if depth > 3 else [sample(node.elem, depth + 1) for _ in range(2)]
        if isinstance(node.elem, (BoolN, ScalarN)) and items:
            items = items[:1] + [type(items[0])(0)]
        return tuple(items) if node.container == "tuple" else items
    if isinstance(node, ArrayN):
        items = [sample(node.elem, depth + 1) for _ in range(node.n)]
        return tuple(items) if node.container == "tuple" else items
    if isinstance(node, OptionalN):
        return sample(node.inner, depth + 1)
    if isinstance(node, VariantN):
        return Variant(len(node.alts) - 1, sample(node.alts[-1], depth + 1))
    if isinstance(node, TupleN):
        return tuple(sample(e, depth + 1) for e in node.elems)
    if isinstance(node, MapN):
        return {sample(node.key, depth + 1): sample(node.value, depth + 1)}
    if isinstance(node, SetN):
        return (frozenset if node.frozen else set)([sample(node.elem, depth + 1)])
    if isinstance(node, StructN):
        return node.cls(**{name: sample(f, depth + 1) for name, f in node.fields})
    raise AssertionError(f"no sample for {node.describe()}")


@pytest.mark.parametrize("path", GOLDENS, ids=lambda p: p.stem)
def test_golden_loads_with_the_cpp_fingerprint(path):
    desc = _desc(path)
    fmt = desc["format"]
    T = load(path.read_text(encoding="utf-8"), customs=CUSTOMS)
    assert dataclasses.is_dataclass(T)
    assert schema_hash(T, fmt) == int(desc["fingerprint"], 16)
    assert message_id(T) == desc["message_id"]
    # the dict form and bytes give the same type shape
    assert schema_hash(load(desc, customs=CUSTOMS), fmt) == int(desc["fingerprint"], 16)
    assert schema_hash(load(path.read_bytes(), customs=CUSTOMS), fmt) == int(desc["fingerprint"], 16)


@pytest.mark.parametrize("path", GOLDENS, ids=lambda p: p.stem)
def test_golden_value_round_trips(path):
    desc = _desc(path)
    fmt = desc["format"]
    T = load(desc, customs=CUSTOMS)
    value = sample(build_node(T))
    data = encode(value, fmt)
    assert decode(T, data, fmt) == value
    framed = encode_message(value, fmt)
    assert decode_message(T, framed, fmt) == value
    assert int.from_bytes(framed[8:16], "little") == int(desc["fingerprint"], 16)


def _plain(v):
    """A decoded value without its classes: dataclasses as dicts, enums as ints."""
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: _plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, enum.Enum):
        return int(v)
    if isinstance(v, (bytes, bytearray)):
        return list(v)  # a std::vector<uint8_t>: bytes in the vectors' schema, list[u8] from a description
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return [[_plain(k), _plain(x)] for k, x in v.items()]
    return v


def _vector_cases():
    out = []
    for path in GOLDENS:
        name, fmt = _stem(path)
        if name in VECTOR_OF:
            vec, as_list = VECTOR_OF[name]
            out.append(pytest.param(path, VECTORS / fmt / f"{vec}.bin", as_list, id=f"{fmt}/{name}"))
    return out


@pytest.mark.parametrize("path,binary,as_list", _vector_cases())
def test_golden_type_reads_and_writes_the_cpp_bytes(path, binary, as_list):
    if not binary.exists():
        pytest.skip(f"no vector {binary}")
    fmt = _desc(path)["format"]
    if fmt == "native" and sys.byteorder != "little":
        pytest.skip("native vectors are little-endian")
    T = load(path.read_text(encoding="utf-8"))
    hint = list[T] if as_list else T
    data = binary.read_bytes()
    value = decode(hint, data, fmt)
    assert encode(value, fmt, schema=hint) == data
    # the same value as the vectors' own schema (a hand-written mirror of the C++ type) reads
    vec = json.loads(binary.with_suffix(".json").read_text(encoding="utf-8"))
    assert _plain(value) == _plain(decode(hint_from_descriptor(vec["schema"]), data, fmt))


@pytest.mark.parametrize("fmt", ["portable", "compact", "native"])
def test_golden_person_reads_the_cpp_framed_message(fmt):
    binary = VECTORS / "framed" / fmt / "message_person.bin"
    if not binary.exists():
        pytest.skip(f"no vector {binary}")
    if fmt == "native" and sys.byteorder != "little":
        pytest.skip("native vectors are little-endian")
    desc = _desc(GOLDEN / f"person.{fmt}.json")
    vec = json.loads(binary.with_suffix(".json").read_text(encoding="utf-8"))
    if int(vec["schema_hash"], 16) != int(desc["fingerprint"], 16):
        pytest.skip("the framed vector's Person is not the golden's Person")
    T = load(desc)
    data = binary.read_bytes()
    value = decode_message(T, data, fmt)
    assert encode_message(value, fmt) == data


# ---------------------------------------------------------------------------
# generated modules


def _generate_all(tmp_path: Path) -> "list[tuple[Path, dict]]":
    out = []
    for path in GOLDENS:
        module = tmp_path / ("golden_" + path.stem.replace(".", "_") + ".py")
        module.write_text(generate(path.read_text(encoding="utf-8"), CUSTOM_ARGS), encoding="utf-8")
        out.append((module, _desc(path)))
    return out


def _import(module: Path):
    spec = importlib.util.spec_from_file_location(module.stem, module)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module.stem] = mod  # dataclasses look their module up
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[module.stem]
        raise
    return mod


def test_generated_modules_have_the_cpp_fingerprints(tmp_path):
    for module, desc in _generate_all(tmp_path):
        mod = _import(module)
        try:
            assert mod.FORMAT == desc["format"]
            assert mod.FINGERPRINT == int(desc["fingerprint"], 16)
            assert mod.MESSAGE_ID == desc["message_id"]
            assert schema_hash(mod.ROOT, mod.FORMAT) == mod.FINGERPRINT, module.name
            assert message_id(mod.ROOT) == mod.MESSAGE_ID
            value = sample(build_node(mod.ROOT))
            assert decode(mod.ROOT, encode(value, mod.FORMAT), mod.FORMAT) == value
        finally:
            del sys.modules[module.stem]


def test_generated_modules_pass_mypy_strict(tmp_path, backend):
    if backend != "python":
        pytest.skip("static check: runs once")
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    files = [str(m) for m, _ in _generate_all(tmp_path)]
    raw = tmp_path / "golden_everything_raw.py"
    raw.write_text(generate((GOLDEN / "everything.native.json").read_text(encoding="utf-8"), CUSTOM_ARGS,
                            raw_strings=True), encoding="utf-8")
    files.append(str(raw))
    cmd = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache")]
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    got = subprocess.run(cmd + files, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert got.returncode == 0, got.stdout + got.stderr


def test_generate_command(tmp_path, backend):
    if backend != "python":
        pytest.skip("runs once")
    out = tmp_path / "tick_types.py"
    cmd = [sys.executable, "-m", "bin_serializer", "generate", str(GOLDEN / "tick.portable.json"), "-o", str(out)]
    got = subprocess.run(cmd, capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    assert "class Tick:" in out.read_text(encoding="utf-8")
    # to standard output
    got = subprocess.run(cmd[:-2], capture_output=True, text=True)
    assert got.returncode == 0 and got.stdout == out.read_text(encoding="utf-8")
    # errors: exit 2 and a message, no traceback
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    for args in ([str(bad)], [str(tmp_path / "missing.json")], [str(GOLDEN / "everything.portable.json")],
                 [str(GOLDEN / "tick.portable.json"), "--custom", "nonsense"]):
        got = subprocess.run([sys.executable, "-m", "bin_serializer", "generate", *args],
                             capture_output=True, text=True)
        assert got.returncode == 2, (args, got.stderr)
        assert "Traceback" not in got.stderr and got.stderr.startswith("bin_serializer generate")


def test_custom_needs_its_hint():
    with pytest.raises(DescriptionError, match="customs="):
        load((GOLDEN / "everything.portable.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------
# hostile descriptions


def _doc(type_node, fmt="portable", fingerprint="0x0000000000000000"):
    return {"bin_serializer_schema": 1, "format": fmt, "fingerprint": fingerprint, "message_id": 0,
            "type": type_node}


U8 = {"kind": "uint", "size": 1, "encoding": "fixed"}


def _nested_sequences(n: int) -> dict:
    node: dict = U8
    for _ in range(n):
        node = {"kind": "sequence", "element": node}
    return node


def _nested_maps(n: int) -> dict:
    node: dict = U8
    for _ in range(n):
        node = {"kind": "map", "key": U8, "value": node}
    return node


HOSTILE = {
    "not json": "{",
    "empty": "",
    "json array": "[]",
    "json null": "null",
    "json number": "1e999",
    "not utf-8": b"\xff\xfe{",
    "deep json arrays": "[" * 100_000 + "]" * 100_000,
    "deep json objects": '{"a":' * 100_000 + "1" + "}" * 100_000,
    "huge integer": '{"bin_serializer_schema": ' + "9" * 5000 + "}",
    "missing keys": {},
    "schema version 2": {**_doc(U8), "bin_serializer_schema": 2},
    "format": {**_doc(U8), "format": "xml"},
    "fingerprint not hex": {**_doc(U8), "fingerprint": "0xZZ"},
    "message id too big": {**_doc(U8), "message_id": 2**32},
    "message id bool": {**_doc(U8), "message_id": True},
    "type not object": _doc([1, 2]),
    "unknown kind": _doc({"kind": "quaternion"}),
    "kind not string": _doc({"kind": 7}),
    "size string": _doc({"kind": "uint", "size": "4", "encoding": "fixed"}),
    "size bool": _doc({"kind": "uint", "size": True, "encoding": "fixed"}),
    "size 3": _doc({"kind": "sint", "size": 3, "encoding": "fixed"}),
    "wrong encoding": _doc({"kind": "uint", "size": 4, "encoding": "varint"}),
    "deep nesting": _doc(_nested_sequences(100_000)),
    "nesting past the limit": _doc(_nested_sequences(MAX_DEPTH + 1)),
    "17 nested sequences": _doc(_nested_sequences(17)),
    "17 nested maps": _doc(_nested_maps(17)),
    "array 2**62": _doc({"kind": "array", "count": 2**62, "element": U8}),
    "array float count": _doc({"kind": "array", "count": 1e18, "element": U8}),
    "nested arrays 2**30": _doc({"kind": "array", "count": 1024, "element": {
        "kind": "array", "count": 1024, "element": {"kind": "array", "count": 1024, "element": U8}}}),
    "bitset 2**62": _doc({"kind": "bitset", "bits": 2**62}),
    "negative count": _doc({"kind": "array", "count": -1, "element": U8}),
    "string char size 3": _doc({"kind": "string", "char_size": 3}),
    "ref outside any struct": _doc({"kind": "ref", "name": "A", "depth": 1}),
    "ref too deep": _doc({"kind": "struct", "name": "A", "fields": [
        {"name": "a", "type": {"kind": "ref", "name": "B", "depth": 5}}]}),
    "ref depth 0": _doc({"kind": "struct", "name": "A", "fields": [
        {"name": "a", "type": {"kind": "sequence", "element": {"kind": "ref", "name": "A", "depth": 0}}}]}),
    "field not object": _doc({"kind": "struct", "name": "A", "fields": [7]}),
    "fields not list": _doc({"kind": "struct", "name": "A", "fields": {"a": U8}}),
    "evolvable versions": _doc({"kind": "evolvable", "name": "A", "versions": [2, 1], "fields": []}),
    "evolvable since": _doc({"kind": "evolvable", "name": "A", "versions": [1, 2], "fields": [
        {"name": "a", "since": 2, "type": U8}, {"name": "b", "since": 2, "type": U8}]}),
    "bulk outside native": _doc({"kind": "struct", "name": "A", "bulk": 1, "fields": [
        {"name": "a", "type": U8}]}),
    "enum range outside underlying": _doc({"kind": "enum", "name": "E", "min": 0, "max": 300,
                                           "underlying": U8}),
    "enum over float": _doc({"kind": "enum", "name": "E", "underlying": {
        "kind": "float", "size": 4, "encoding": "fixed"}}),
    "duration period 0": _doc({"kind": "duration", "unit": None, "num": 0, "den": 1, "rep": U8}),
    "variant without alternatives": _doc({"kind": "variant", "alternatives": []}),
    "optional of optional": _doc({"kind": "optional", "value": {"kind": "optional", "value": U8}}),
    "opaque": _doc({"kind": "opaque", "name": "X", "size": 4}, fmt="native"),
    "unknown token": _doc({"kind": "unknown", "token": 99}),
    "custom id": _doc({"kind": "custom", "name": "M", "id": "0x1"}),
    "fingerprint disagrees": _doc({"kind": "struct", "name": "A", "fields": [{"name": "a", "type": U8}]}),
    "unterminated escapes": '{"a": ' + '"\\' * 1_000_000,
    "many large arrays": _doc({"kind": "struct", "name": "A", "fields": [
        {"name": f"f{i}", "type": {"kind": "array", "count": 65536, "element": U8}} for i in range(64)]}),
    "long name": _doc({"kind": "struct", "name": "A" * 100_000, "fields": []}),
    "enum char32 negative range": _doc({"kind": "enum", "name": "E", "min": -1, "max": 2,
                                        "underlying": {"kind": "char", "size": 4, "encoding": "fixed"}}),
    "set of lists of structs": _doc({"kind": "set", "key": {"kind": "struct", "name": "S", "fields": []}}),
    "many nodes": _doc({"kind": "tuple", "elements": [{"kind": "tuple", "elements": [U8] * 1000}] * 1000}),
}


@pytest.mark.parametrize("case", list(HOSTILE), ids=list(HOSTILE))
def test_hostile_description_is_a_clean_error(case, backend):
    if backend != "python":
        pytest.skip("no codec involved: runs once")
    text = HOSTILE[case]
    with pytest.raises(DescriptionError):
        load(text)
    with pytest.raises(DescriptionError):
        generate(text)
    assert issubclass(DescriptionError, SchemaError) and issubclass(DescriptionError, ValueError)


def test_awkward_names_become_identifiers():
    node = {"kind": "struct", "name": "ns::tmpl<int, 3>", "fields": [
        {"name": "class", "type": U8}, {"name": "1st", "type": U8}, {"name": "a-b", "type": U8},
        {"name": "x", "type": U8}, {"name": "x", "type": U8}, {"name": 'q"""\\', "type": U8},
        {"name": "ROOT", "type": U8}]}
    desc = _doc(node)
    fp = schema_hash(_shape_hash(desc), "portable")
    T = load({**desc, "fingerprint": f"{fp:#018x}"})
    names = [f.name for f in dataclasses.fields(T)]
    assert len(set(names)) == 7 and all(n.isidentifier() for n in names)
    assert decode(T, bytes(range(7))) == T(*range(7))


def test_field_names_never_shadow_module_names(tmp_path, backend):
    """A field named like a marker or a struct (u8, Named) would make mypy read the
    annotations after it as that attribute: such fields are renamed."""
    if backend != "python":
        pytest.skip("runs once")
    named = {"kind": "struct", "name": "ns::Named", "fields": [{"name": "x", "type": U8}]}
    node = {"kind": "struct", "name": "Outer", "fields": [
        {"name": "u8", "type": U8}, {"name": "Named", "type": named}, {"name": "Inner", "type": U8},
        {"name": "later", "type": {"kind": "struct", "name": "Inner", "fields": [{"name": "y", "type": U8}]}},
        {"name": "y", "type": U8}, {"name": "n", "type": named}]}
    desc = _doc(node)
    desc["fingerprint"] = f"{schema_hash(_shape_hash(desc), 'portable'):#018x}"
    T = load(desc)
    data = bytes(range(6))
    assert encode(decode(T, data)) == data
    names = [f.name for f in dataclasses.fields(T)]
    assert len(set(names)) == 6 and "u8" not in names  # a struct meeting a field name is renamed instead
    module = tmp_path / "shadow.py"
    module.write_text(generate(desc), encoding="utf-8")
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    cmd = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache")]
    got = subprocess.run(cmd + [str(module)], capture_output=True, text=True, cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr + module.read_text(encoding="utf-8")


def _shape_hash(desc: dict) -> type:
    """The type of a description whatever its fingerprint says (for building test documents)."""
    return load(desc, check_fingerprint=False)


def test_recursive_struct_round_trips():
    tree = {"kind": "struct", "name": "Tree", "fields": [
        {"name": "label", "type": {"kind": "string", "char_size": 1}},
        {"name": "kids", "type": {"kind": "sequence", "element": {"kind": "ref", "name": "Tree", "depth": 1}}}]}
    desc = _doc(tree)
    fp = schema_hash(_shape_hash(desc), "portable")
    T = load({**desc, "fingerprint": f"{fp:#018x}"})
    v = T("a", [T("b", []), T("c", [T("d", [])])])
    assert decode(T, encode(v)) == v
    with pytest.raises(DecodeError):
        decode(T, encode(v)[:-1])


# ---------------------------------------------------------------------------
# the markers a description maps to, written by hand


class Level(enum.IntEnum):
    LOW = -2
    MID = 0
    HIGH = 3


@dataclasses.dataclass
class Named:
    x: i32
    label: str


@dataclasses.dataclass
class Tree:
    name: str
    children: list[Tree]


@dataclasses.dataclass
class Limits:
    max_users: u16
    max_rooms: u16
    __bin_serializer_versions__ = (1, 2)


@dataclasses.dataclass
class Everything:  # C++ schema_json_test::Everything (tests/frame/test_schema_json.cpp), by hand
    flag: bool
    c: char
    wc: char16
    big: u64
    small: i16
    real: f64
    level: Annotated[Level, i8, EnumRange(-2, 3)]
    flags: Annotated[int, EnumOf(u16)]
    raw: Array[u8, 3]
    pair_of_names: Array[str, 2]
    wide: Annotated[list[int], Text(2)]
    bits: list[bool]
    keys: set[i32]
    table: dict[str, Optional[i32]]
    choice: TaggedUnion[Monostate, i32, str]
    tup: tuple[i8, f32]
    mask: Bitset(12)
    timeout: Duration[i64, "ms"]
    frames: Duration[i32, (1, 30)]
    when: TimePoint[i64, "us"]
    named: Named
    unnamed: Named
    traited: Named
    tree: Tree
    money: Annotated[i64, Custom(0x4D6F6E6579000001)]
    cents: i64
    limits: Limits


@pytest.mark.parametrize("fmt", ["portable", "compact", "native"])
def test_hand_written_markers_have_the_cpp_fingerprint(fmt):
    desc = _desc(GOLDEN / f"everything.{fmt}.json")
    assert schema_hash(Everything, fmt) == int(desc["fingerprint"], 16)
    value = Everything(True, ord("a"), 0x20AC, 2**64 - 1, -5, 0.25, Level.LOW, 7, [1, 2, 3], ["a", "b"],
                       [0x48, 0x20AC], [True], {1, 2}, {"k": None}, Variant(2, "s"), (-1, 0.5), 0xFFF,
                       1500, -3, 1_700_000_000_000_000, Named(1, "n"), Named(2, "u"), Named(3, "t"),
                       Tree("r", [Tree("c", [])]), 1234, 5, Limits(1, 2))
    data = encode(value, fmt)
    assert decode(Everything, data, fmt) == value
    T = load(desc, customs=CUSTOMS)
    assert encode(decode(T, data, fmt), fmt) == data  # the loaded type reads and writes the same bytes


def test_char_is_fixed_in_compact_and_hashes_as_a_char():
    @dataclasses.dataclass
    class C:
        a: char
        w: char16
        d: char32

    @dataclasses.dataclass
    class I:
        a: i8
        w: u16
        d: u32

    assert encode(C(65, 0x20AC, 0x1F600), "compact") == bytes([65]) + (0x20AC).to_bytes(2, "little") + \
        (0x1F600).to_bytes(4, "little")
    assert encode(C(65, 0x20AC, 0x1F600), "portable") == encode(I(65, 0x20AC, 0x1F600), "portable")
    assert schema_hash(C) != schema_hash(I)


def test_duration_without_a_period_has_no_fingerprint():
    @dataclasses.dataclass
    class D:
        d: Duration[i64]

    @dataclasses.dataclass
    class P:
        d: Duration[i64, "ns"]

    with pytest.raises(SchemaError, match="period"):
        schema_hash(D)
    assert decode_message(P, encode_message(P(5))) == P(5)
    assert encode(D(5)) == encode(P(5))
    with pytest.raises(ValueError):
        Duration[i64, "fortnight"]


@pytest.mark.parametrize("fmt", ["portable", "compact", "native"])
def test_golden_order_reads_the_cpp_framed_message_with_its_id(fmt):
    # spec/vectors' framed Quote {u64 ts; f64 px;} with message id 42 has Order's shape and id
    binary = VECTORS / "framed" / fmt / "message_quote_id.bin"
    if not binary.exists():
        pytest.skip(f"no vector {binary}")
    if fmt == "native" and sys.byteorder != "little":
        pytest.skip("native vectors are little-endian")
    desc = _desc(GOLDEN / f"order.{fmt}.json")
    vec = json.loads(binary.with_suffix(".json").read_text(encoding="utf-8"))
    assert int(vec["schema_hash"], 16) == int(desc["fingerprint"], 16) and vec["type_id"] == desc["message_id"]
    T = load(desc)
    data = binary.read_bytes()
    value = decode_message(T, data, fmt)
    assert encode_message(value, fmt) == data
    assert (value.id, value.price) == tuple(vec["value"].values())


@pytest.mark.parametrize("fmt", ["portable", "compact", "native"])
def test_golden_profile_v3_reads_every_cpp_version(fmt):
    # spec/vectors' evolvable_v1..v3 are values of ProfileV1..V3 (the versions ProfileV3 declares)
    if fmt == "native" and sys.byteorder != "little":
        pytest.skip("native vectors are little-endian")
    T = load(_desc(GOLDEN / f"profile_v3.{fmt}.json"))
    for n in (1, 2, 3):
        binary = VECTORS / "framed" / fmt / f"evolvable_v{n}.bin"
        if not binary.exists():
            pytest.skip(f"no vector {binary}")
        vec = json.loads(binary.with_suffix(".json").read_text(encoding="utf-8"))
        data = binary.read_bytes()
        value = decode(T, data, fmt)
        theirs = _plain(decode(hint_from_descriptor(vec["schema"]), data, fmt))
        mine = _plain(value)
        assert {k: mine[k] for k in theirs} == theirs
        if n == 3:
            assert encode(value, fmt) == data


def test_enum_range_is_checked_like_cpp():
    desc = _desc(GOLDEN / "everything.portable.json")
    T = load(desc, customs=CUSTOMS)
    value = sample(build_node(T))
    value.level = 3
    data = encode(value)
    at = 1 + 1 + 2 + 8 + 2 + 8  # flag, c, wc, big, small, real
    assert data[at] == 3
    bad = data[:at] + bytes([4]) + data[at + 1:]
    with pytest.raises(DecodeError) as e:
        decode(T, bad)
    assert e.value.errc == "invalid_value" and e.value.offset == at
    value.level = -3
    with pytest.raises(EncodeError):
        encode(value)
    value.level = -2
    assert decode(T, encode(value)).level == -2


def test_mutated_goldens_load_or_raise_description_error(backend):
    """Random edits of the goldens (keys dropped, values replaced by other kinds,
    numbers, strings, containers): load and generate succeed or raise
    DescriptionError, nothing else."""
    if backend != "python":
        pytest.skip("runs once")
    import copy
    import random
    rng = random.Random(30)
    goldens = [_desc(p) for p in GOLDENS]
    values = [None, True, False, 0, -1, 1, 2, 3, 8, 2**62, -2**63, 2**64, 1.5, "", "x", "char", "sint", "uint",
              "struct", "ref", "evolvable", "fixed", "varint", "zigzag", [], {}, [1],
              {"kind": "bool", "encoding": "fixed"}]

    def containers(o, out):
        if isinstance(o, (dict, list)):
            out.append(o)
            for v in (o.values() if isinstance(o, dict) else o):
                containers(v, out)
        return out

    for _ in range(1000):
        d = copy.deepcopy(rng.choice(goldens))
        for _ in range(rng.randint(1, 3)):
            c = rng.choice(containers(d, []))
            if not c:
                continue
            k = rng.choice(list(c)) if isinstance(c, dict) else rng.randrange(len(c))
            if rng.random() < 0.2:
                del c[k]
            else:
                c[k] = copy.deepcopy(rng.choice(values))
        for call in (lambda: load(d, customs=CUSTOMS), lambda: load(d, customs=CUSTOMS, check_fingerprint=False),
                     lambda: generate(d, CUSTOM_ARGS)):
            try:
                call()
            except DescriptionError:
                pass


@pytest.mark.parametrize("path", GOLDENS, ids=lambda p: p.stem)
def test_raw_strings_keep_the_fingerprint_and_the_bytes(path):
    desc = _desc(path)
    fmt = desc["format"]
    T = load(desc, customs=CUSTOMS)
    R = load(desc, customs=CUSTOMS, raw_strings=True)
    assert schema_hash(R, fmt) == schema_hash(T, fmt)
    data = encode(sample(build_node(T)), fmt)
    assert encode(decode(R, data, fmt), fmt) == data
    assert "Annotated[bytes, Text(1)]" in generate(desc, CUSTOM_ARGS, raw_strings=True) or \
        '"char_size": 1' not in path.read_text(encoding="utf-8")


def test_raw_string_reads_what_str_refuses():
    desc = _doc({"kind": "struct", "name": "S", "fields": [{"name": "s", "type": {"kind": "string", "char_size": 1}}]})
    T = load(desc, check_fingerprint=False)
    fp = schema_hash(T)
    desc["fingerprint"] = f"{fp:#018x}"
    R = load(desc, raw_strings=True)
    data = (2).to_bytes(8, "little") + b"\xff\xfe"
    with pytest.raises(DecodeError):
        decode(T, data)
    assert decode(R, data).s == b"\xff\xfe" and encode(decode(R, data)) == data


def test_native_offsets_are_checked():
    desc = _desc(GOLDEN / "order.native.json")
    assert load(desc)  # offsets 0 and 8, 16 bytes: as Python lays it out
    wrong = json.loads(json.dumps(desc))
    wrong["type"]["fields"][1]["offset"] = 4
    with pytest.raises(DescriptionError, match="offset"):
        load(wrong)
    missing = json.loads(json.dumps(desc))
    del missing["type"]["fields"][1]["offset"]
    with pytest.raises(DescriptionError):
        load(missing)


@pytest.mark.parametrize("fmt", ["portable", "compact", "native"])
def test_version_fingerprints_are_the_cpp_ones(fmt):
    from bin_serializer.message import version_fingerprints
    desc = _desc(GOLDEN / f"profile_v3.{fmt}.json")
    T = load(desc)
    assert [f"{h:#018x}" for h in version_fingerprints(T, fmt)] == desc["version_fingerprints"]
    assert version_fingerprints(T, fmt)[0] == schema_hash(T, fmt)
    wrong = json.loads(json.dumps(desc))
    wrong["version_fingerprints"][2] = "0x" + "0" * 16
    with pytest.raises(DescriptionError, match="version fingerprints"):
        load(wrong)
    wrong["version_fingerprints"] = wrong["version_fingerprints"][:2]
    with pytest.raises(DescriptionError):
        load(wrong)
    with pytest.raises(SchemaError):
        version_fingerprints(load(_desc(GOLDEN / f"tick.{fmt}.json")), fmt)


@pytest.mark.parametrize("make", [_nested_sequences, _nested_maps])
def test_deepest_container_nesting_loads_and_round_trips(make):
    """MAX_CONTAINER_NESTING containers nested load, and both codecs compile them;
    a struct between them starts the count again."""
    from bin_serializer.schema import MAX_CONTAINER_NESTING
    desc = _doc(make(MAX_CONTAINER_NESTING))
    T = load(desc, check_fingerprint=False)
    value = sample(build_node(T))
    for fmt in ("portable", "compact"):
        assert decode(T, encode(value, fmt, schema=T), fmt, ) == value
    inner = {"kind": "struct", "name": "Box", "fields": [{"name": "v", "type": make(MAX_CONTAINER_NESTING)}]}
    outer = make(MAX_CONTAINER_NESTING)
    node = outer
    while node["kind"] in ("sequence", "map"):
        child_key = "element" if node["kind"] == "sequence" else "value"
        if node[child_key] is U8:
            node[child_key] = inner
            break
        node = node[child_key]
    T2 = load(_doc(outer), check_fingerprint=False)
    value2 = sample(build_node(T2))
    assert decode(T2, encode(value2, schema=T2)) == value2
