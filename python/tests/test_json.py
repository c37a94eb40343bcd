"""JSON values and back (bin_serializer.jsonform) and ``python -m bin_serializer pack``.

Every golden vector of every format, decoded, printed as dump prints it and
read back by from_json, encodes to its own bytes; so do values of every
family (untagged unions, evolvable structs with retired and kept unknown
fields, numpy arrays). Each refusal names the path of the value. pack
writes back what dump and cat print: the same bytes for messages, plain and
framed, and the same log, byte for byte; a line it cannot write leaves its
output file as it was."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional, Union

import pytest

from bin_serializer import Variant, decode, encode, unknown_fields
from bin_serializer.jsonform import from_json, to_json
from bin_serializer.log import LogReader, LogWriter
from bin_serializer.message import encode_message
from bin_serializer.types import (Array, Bitset, Monostate, TaggedUnion, f32, f64, i32, u8, u16, u32)
from bin_serializer.vectors import hint_from_descriptor, load_vectors
from schemas import Car, Color, Everything, Node, Person, Tick, make_car, make_everything, make_person, make_tick
from test_evolution import AllRetired, CfgV2, ProfNew, ProfOld

REPO = Path(__file__).resolve().parents[2]
FORMATS = ("portable", "native", "compact")


def through_json(v):
    """v as dump prints it, read as JSON text again."""
    return json.loads(json.dumps(to_json(v), allow_nan=False))


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_golden_vector_reads_back_from_the_json_dump_prints(fmt):
    if fmt == "native" and sys.byteorder != "little":
        pytest.skip("native vectors are little-endian")
    vectors = list(load_vectors(REPO / "spec" / "vectors" / fmt))
    assert len(vectors) >= 100
    for vec in vectors:
        hint = hint_from_descriptor(vec.schema)
        back = from_json(hint, through_json(decode(hint, vec.data, fmt)), fmt)
        assert encode(back, fmt, schema=hint) == vec.data, vec.name


@pytest.mark.parametrize("fmt", FORMATS)
def test_values_of_every_family_read_back(fmt, backend):
    for v in (make_everything(), make_car(), make_person(), Node(1, [Node(2, []), Node(3, [Node(4, [])])])):
        data = encode(v, fmt)
        got = decode(type(v), data, fmt)
        back = from_json(type(v), through_json(got), fmt)
        assert back == got
        assert encode(back, fmt) == data


def test_an_untagged_union_reads_as_the_alternative_it_was_written_from():
    hint = Union[f64, u32, str]
    assert from_json(hint, 3) == 3 and isinstance(from_json(hint, 3), int)
    assert encode(from_json(hint, 3), schema=hint) == encode(3, schema=hint)
    assert isinstance(from_json(hint, 3.0), float) and from_json(hint, "x") == "x"
    assert math.isnan(from_json(hint, "NaN"))  # the float's spelling, before the string alternative
    hint = Union[u32, str, Tick]  # Everything.union_'s kind: each alternative comes back as itself
    for v in (7, "s", make_tick(3)):
        assert from_json(hint, through_json(v)) == v


def test_evolvable_structs_keep_their_unknown_fields_and_leave_retired_ones_out(backend):
    new = ProfNew(7, "ann", -3, [1, 2])
    data = encode(new)
    old = decode(ProfOld, data)  # keeps score and tags as unknown fields
    j = through_json(old)
    assert j == {"id": 7, "name": "ann", "__unknown__": {"count": 2, "data": unknown_fields(old).data.hex()}}
    back = from_json(ProfOld, j)
    assert unknown_fields(back) == unknown_fields(old)
    assert encode(back) == data
    with pytest.raises(ValueError, match=r"ProfNew has no field '__unknown__'"):
        from_json(ProfNew, j)  # a class that keeps none
    with pytest.raises(ValueError, match=r"ProfOld.__unknown__: expected"):
        from_json(ProfOld, {"id": 1, "name": "", "__unknown__": {"count": 0, "data": ""}})
    cfg = CfgV2(5, name="x")
    assert through_json(cfg) == {"id": 5, "name": "x"}
    assert encode(from_json(CfgV2, {"id": 5, "name": "x"})) == encode(cfg)
    with pytest.raises(ValueError, match=r"CfgV2 has no field 'old' \(its fields: id, name\)"):
        from_json(CfgV2, {"id": 5, "old": 1, "name": "x"})
    assert encode(from_json(AllRetired, {"keep": 3})) == encode(AllRetired(keep=3))


def test_what_a_person_writes_by_hand():
    # a field with a default left out; a map with string keys as an object; an integer for a float
    assert from_json(ProfNew, {"id": 1, "name": "a"}) == ProfNew(1, "a", 0, [])

    @dataclass
    class Prices:
        by_name: dict[str, f64]
        fallback: f32 = 0.0

    got = from_json(Prices, {"by_name": {"a": 1, "b": 2.5}})
    assert got == Prices({"a": 1.0, "b": 2.5}) and isinstance(got.by_name["a"], float)
    assert from_json(Prices, {"by_name": [["a", 1]], "fallback": "-Infinity"}).fallback == -math.inf


@dataclass
class Doc:
    id: u16
    tags: Array[u8, 3]
    color: Color
    bits: Bitset(12)
    raw: bytes
    ids: set[i32]
    names: dict[u32, str]
    pick: TaggedUnion[i32, str, Monostate]
    legs: list[Tick]
    maybe: Optional[u8] = None


GOOD = {"id": 1, "tags": [1, 2, 3], "color": 2, "bits": 4095, "raw": "00ff", "ids": [3, 1], "names": [[1, "a"]],
        "pick": {"index": 2, "value": None}, "legs": [to_json(make_tick(0))]}


@pytest.mark.parametrize("change, message", [
    ({"id": 65536}, r"^Doc.id: 65536 is out of range for u16 \(0 .. 65535\)$"),
    ({"id": "1"}, r"^Doc.id: expected an integer \(u16\), got the string '1'$"),
    ({"id": True}, r"^Doc.id: expected an integer \(u16\), got true$"),
    ({"tags": [1, 2]}, r"^Doc.tags: expected a list of 3, got a list of 2$"),
    ({"tags": [1, 2, 256]}, r"^Doc.tags\[2\]: 256 is out of range for u8"),
    ({"color": 9}, r"^Doc.color: 9 is not a value of Color$"),
    ({"bits": 4096}, r"^Doc.bits: expected an integer of 12 bits"),
    ({"raw": "0g"}, r"^Doc.raw: expected bytes as a hex string"),
    ({"ids": [1, 1]}, r"^Doc.ids\[1\]: the number 1 is in the set twice$"),
    ({"names": [[1, "a"], [1, "b"]]}, r"^Doc.names\[1\]: the key the number 1 is in the map twice$"),
    ({"names": {"1": "a"}}, r"^Doc.names: expected a list of \[key, value\] pairs, got an object$"),
    ({"names": [[1]]}, r"^Doc.names\[0\]: expected a \[key, value\] pair"),
    ({"pick": {"index": 3, "value": 1}}, r"^Doc.pick.index: expected 0 .. 2, got the number 3$"),
    ({"pick": {"index": 0, "value": "x"}}, r"^Doc.pick.value: expected an integer \(i32\)"),
    ({"pick": 5}, r'^Doc.pick: expected an object \{"index", "value"\}'),
    ({"legs": [{"timestamp_ns": 1}]}, r"^Doc.legs\[0\]: field 'symbol_id' of Tick is missing$"),
    ({"legs": [dict(to_json(make_tick(0)), side=-1)]}, r"^Doc.legs\[0\].side: -1 is out of range for u8"),
    ({"maybe": 1.5}, r"^Doc.maybe: expected an integer \(u8\), got the number 1.5$"),
    ({"extra": 1}, r"^Doc: Doc has no field 'extra'"),
])
def test_each_refusal_names_the_path_of_the_value(change, message):
    assert encode(from_json(Doc, GOOD))  # the unchanged value is taken
    with pytest.raises(ValueError, match=message):
        from_json(Doc, dict(GOOD, **change))


def test_refusals_of_the_whole_value():
    with pytest.raises(ValueError, match=r"^Doc: expected an object \(Doc\), got a list of 0$"):
        from_json(Doc, [])
    with pytest.raises(ValueError, match=r"expected true or false, got the number 1"):
        from_json(bool, 1)
    with pytest.raises(ValueError, match=r"expected a number \(f64"):
        from_json(f64, "nan")  # only the spellings to_json writes
    deep: dict = {"value": 0, "children": []}
    for _ in range(1100):
        deep = {"value": 0, "children": [deep]}
    with pytest.raises(ValueError, match="nested (deeper than 1000|too deeply)"):
        from_json(Node, deep)


def test_numpy_arrays_and_records():
    np = pytest.importorskip("numpy")
    from numpy.typing import NDArray

    from bin_serializer.types import Records

    @dataclass
    class P:
        a: u32
        b: f64

    hint = NDArray[np.float32]
    data = encode(np.array([1.5, -2.0], dtype=np.float32), schema=hint)
    assert encode(from_json(hint, through_json(decode(hint, data, arrays=True))), schema=hint) == data
    rec = np.array([(1, 2.5), (3, -1.0)], dtype=__import__("bin_serializer").records_dtype(P))
    for fmt in ("portable", "native"):
        data = encode(rec, fmt, schema=Records[P])
        j = through_json(decode(Records[P], data, fmt))
        assert j == [[1, 2.5], [3, -1.0]]
        assert encode(from_json(Records[P], j, fmt), fmt, schema=Records[P]) == data
        by_name = [{"a": 1, "b": 2.5}, {"b": -1, "a": 3}]
        assert encode(from_json(Records[P], by_name, fmt), fmt, schema=Records[P]) == data
    with pytest.raises(ValueError, match=r"\[0\]: a P record has the fields"):
        from_json(Records[P], [{"a": 1}])


# ---- python -m bin_serializer pack ------------------------------------------------------------------


def run(cwd, *argv, stdin=None):
    return subprocess.run([sys.executable, "-m", "bin_serializer", *argv], capture_output=True, text=True,
                          cwd=cwd, input=stdin, timeout=120)


def test_pack_writes_back_what_dump_prints(tmp_path, backend):
    if backend != "python":
        pytest.skip("runs once")
    from bin_serializer._describe import describe
    for fmt in FORMATS:
        (tmp_path / "car.json").write_text(describe(Car, fmt))
        cars = [make_car(), dataclasses.replace(make_car(), model_year=1999)]
        for framed in (False, True):
            data = b"".join((encode_message if framed else encode)(c, fmt) for c in cars)
            (tmp_path / "m.bin").write_bytes(data)
            opts = ["--framed"] if framed else []
            dumped = run(tmp_path, "dump", "--schema", "car.json", *opts, "m.bin")
            assert dumped.returncode == 0, dumped.stderr
            got = run(tmp_path, "pack", "--schema", "car.json", *opts, "-o", "back.bin", stdin=dumped.stdout)
            assert got.returncode == 0, got.stderr
            assert (tmp_path / "back.bin").read_bytes() == data, (fmt, framed)
    # values alone (--bare), from a file, to standard output
    (tmp_path / "car.json").write_text(describe(Car))
    (tmp_path / "cars.jsonl").write_text("\n".join(json.dumps(to_json(c)) for c in cars) + "\n\n")
    got = subprocess.run([sys.executable, "-m", "bin_serializer", "pack", "--schema", "car.json", "--bare",
                          "cars.jsonl"], capture_output=True, cwd=tmp_path, timeout=120)
    assert got.returncode == 0 and got.stdout == b"".join(encode(c) for c in cars)


def test_pack_writes_back_the_log_cat_prints(tmp_path, backend):
    if backend != "python":
        pytest.skip("runs once")
    records = [make_tick(i) if i % 3 else make_person() for i in range(500)] + [make_car()]
    with LogWriter(tmp_path / "a.bsl", [Tick, Person, Car], block_bytes=512) as w:
        for r in records:
            w.write(r)
    shown = run(tmp_path, "cat", "a.bsl")
    assert shown.returncode == 0, shown.stderr
    got = run(tmp_path, "pack", "--log", "a.bsl", "-o", "b.bsl", "--block-bytes", "512", stdin=shown.stdout)
    assert got.returncode == 0, got.stderr
    assert (tmp_path / "b.bsl").read_bytes() == (tmp_path / "a.bsl").read_bytes()
    # filtered, edited, by type name: a log of the same header with those records
    lines = [json.loads(x) for x in shown.stdout.splitlines()]
    ticks = [dict(x, value=dict(x["value"], side=1)) for x in lines if x["name"] == "Tick"]
    by_name = [{"name": "Person", "value": to_json(make_person())}]
    text = "".join(json.dumps(x) + "\n" for x in ticks + by_name)
    got = run(tmp_path, "pack", "--log", "a.bsl", "-o", "c.bsl", stdin=text)
    assert got.returncode == 0, got.stderr
    person = decode(Person, encode(make_person()))  # its f32 scores as f32 holds them
    want = [dataclasses.replace(r, side=1) for r in records if isinstance(r, Tick)] + [person]
    assert list(LogReader(tmp_path / "c.bsl", [Tick, Person, Car])) == want
    assert (tmp_path / "c.bsl").read_bytes()[:100] == (tmp_path / "a.bsl").read_bytes()[:100]


def test_a_line_pack_cannot_write_leaves_the_output_as_it_was(tmp_path, backend):
    if backend != "python":
        pytest.skip("runs once")
    from bin_serializer._describe import describe
    (tmp_path / "t.json").write_text(describe(Tick))
    (tmp_path / "out.bin").write_bytes(b"before")
    good = json.dumps({"value": to_json(make_tick(1))})
    cases = [
        (good + "\n{not json\n", "<stdin>:2: not a JSON value"),
        (good + "\n" + json.dumps({"value": dict(to_json(make_tick(1)), side=300)}) + "\n",
         "<stdin>:2: Tick.side: 300 is out of range for u8"),
        (json.dumps({"file": "m", "offset": 0, "error": "truncated"}) + "\n", "<stdin>:1: a line dump printed"),
        (json.dumps(to_json(make_tick(1))) + "\n", '<stdin>:1: expected a line as dump prints it'),
    ]
    for text, message in cases:
        got = run(tmp_path, "pack", "--schema", "t.json", "-o", "out.bin", stdin=text)
        assert got.returncode == 1 and message in got.stderr and "Traceback" not in got.stderr, got.stderr
        assert (tmp_path / "out.bin").read_bytes() == b"before"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin", "t.json"]  # no temporary file left
    with LogWriter(tmp_path / "a.bsl", [Tick, Person]) as w:
        w.write(make_tick(0))
    for text, message in [
        (json.dumps({"type": 2, "value": {}}) + "\n", '<stdin>:1: "type" is a type index of the log, 0 .. 1'),
        (json.dumps({"type": 0, "name": "Person", "value": {}}) + "\n", "type 0 of the log is 'Tick', not 'Person'"),
        (json.dumps({"name": "Quote", "value": {}}) + "\n", "the log has no type named 'Quote'"),
        (json.dumps({"type": 1, "value": {"name": "x"}}) + "\n", "<stdin>:1: Person: field 'id' of Person is missing"),
    ]:
        got = run(tmp_path, "pack", "--log", "a.bsl", "-o", "out.bin", stdin=text)
        assert got.returncode == 1 and message in got.stderr and "Traceback" not in got.stderr, got.stderr
        assert (tmp_path / "out.bin").read_bytes() == b"before"
    for argv in (["pack"], ["pack", "--schema", "t.json", "--log", "a.bsl", "-o", "x"], ["pack", "--log", "a.bsl"],
                 ["pack", "--log", "a.bsl", "--framed", "-o", "x"], ["pack", "--log", "-", "-o", "x"],
                 ["pack", "--schema", "missing.json"]):
        got = run(tmp_path, *argv, stdin="")
        assert got.returncode == 2 and "Traceback" not in got.stderr, (argv, got.stderr)
    got = subprocess.run([sys.executable, "-m", "bin_serializer", "pack", "--schema", "t.json", "-o", "out.bin"],
                         input=b'{"value": "\xff"}\n', capture_output=True, cwd=tmp_path, timeout=120)
    assert got.returncode == 1 and b"<stdin>:1: not UTF-8 text" in got.stderr, got.stderr
    assert (tmp_path / "out.bin").read_bytes() == b"before"


def test_any_json_is_taken_or_refused_with_a_value_error(backend):
    """Random JSON put anywhere in good values (seeded): from_json returns
    a value or raises ValueError, never another exception; what it returns,
    encode takes or refuses with EncodeError (a ValueError)."""
    import random
    rng = random.Random(20261202)

    def anything(depth: int) -> object:
        pick = rng.randrange(9 if depth < 3 else 6)
        return [lambda: None, lambda: rng.random() < 0.5, lambda: rng.randrange(-2**70, 2**70),
                lambda: rng.random() * 1e10, lambda: rng.choice(["NaN", "-Infinity", "nan"]),
                lambda: rng.choice(["", "x", "00ff", "0g"]),
                lambda: [anything(depth + 1) for _ in range(rng.randrange(4))],
                lambda: {"index": rng.randrange(-1, 4), "value": anything(depth + 1)},
                lambda: {rng.choice(["id", "value", "__unknown__", "count", "data", "timestamp_ns"]):
                         anything(depth + 1) for _ in range(rng.randrange(3))}][pick]()

    def mutate(v: object) -> object:
        if isinstance(v, dict) and v and rng.random() < 0.75:
            k = rng.choice(list(v))
            return dict(v, **{k: mutate(v[k])})
        if isinstance(v, list) and v and rng.random() < 0.75:
            i = rng.randrange(len(v))
            return v[:i] + [mutate(v[i])] + v[i + 1:]
        return anything(0)

    taken = refused = 0
    for hint, good in ((Doc, GOOD), (Everything, to_json(make_everything())), (Car, to_json(make_car()))):
        for _ in range(1500):
            try:
                v = from_json(hint, mutate(good))
            except ValueError:
                refused += 1
                continue
            taken += 1
            try:
                encode(v)
            except ValueError:
                pass
    assert taken > 100 and refused > 1000
