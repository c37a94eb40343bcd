"""Optional numpy support (skipped when numpy is not installed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import pytest

np = pytest.importorskip("numpy")

from bin_serializer import EncodeError, decode, encode, iter_decode  # noqa: E402
from bin_serializer.types import NDArray, f32, i16, u8  # noqa: E402
from schemas import Person, make_person  # noqa: E402


@dataclass
class Samples:
    name: str
    values: NDArray[f32]
    levels: NDArray[i16]


def test_ndarray_fields_round_trip():
    s = Samples("s", np.array([1.5, 2.5], dtype=np.float32), np.array([-1, 300], dtype=np.int16))
    data = encode(s)
    assert data == (b"\x01" + b"\x00" * 7 + b"s"
                    + b"\x02" + b"\x00" * 7 + np.array([1.5, 2.5], "<f4").tobytes()
                    + b"\x02" + b"\x00" * 7 + np.array([-1, 300], "<i2").tobytes())
    back = decode(Samples, data)
    assert isinstance(back.values, np.ndarray) and back.values.dtype == np.float32
    assert back.values.tolist() == [1.5, 2.5] and back.levels.tolist() == [-1, 300]
    assert back.values.flags.writeable  # a copy, not a view of the input


def test_numpy_typing_hint():
    import numpy.typing as npt
    hint = npt.NDArray[np.float64]
    data = encode(np.array([1.0, 2.0]), schema=hint)
    assert decode(hint, data).tolist() == [1.0, 2.0]


def test_arrays_option_for_plain_lists():
    data = encode(make_person())
    p = decode(Person, data, arrays=True)
    assert isinstance(p.scores, np.ndarray)
    assert encode(p) == data  # ndarray accepted where a list[f32] is expected
    assert isinstance(decode(Person, data).scores, list)
    stream = data * 3
    assert all(isinstance(x.scores, np.ndarray) for x in iter_decode(Person, stream, arrays=True))


def test_ndarray_range_checked_on_encode():
    with pytest.raises(EncodeError):
        encode(np.array([1, 300]), schema=NDArray[u8])


def test_records_decode_to_one_structured_array(backend):
    from bin_serializer import records_dtype
    from bin_serializer.types import Records
    from schemas import Tick, make_tick
    ticks = [make_tick(i) for i in range(300)]
    for fmt in ("portable", "native"):
        data = encode(ticks, fmt, schema=list[Tick])
        arr = decode(Records[Tick], data, fmt)
        assert isinstance(arr, np.ndarray) and arr.dtype == records_dtype(Tick, fmt)
        assert arr.dtype.itemsize == (25 if fmt == "portable" else 32)
        assert [int(x) for x in arr["quantity"]] == [t.quantity for t in ticks]
        assert [float(x) for x in arr["price"]] == [t.price for t in ticks]
        assert int(arr["timestamp_ns"][299]) == ticks[299].timestamp_ns
        assert encode(arr, fmt, schema=Records[Tick]) == data  # and back, byte for byte
    assert len(decode(Records[Tick], encode([], schema=list[Tick]))) == 0


def test_records_errors(backend):
    from bin_serializer import DecodeError, SchemaError
    from bin_serializer.types import Records
    from schemas import Person, Tick, make_tick
    data = encode([make_tick(1), make_tick(2)], schema=list[Tick])
    with pytest.raises(DecodeError) as e:
        decode(Records[Tick], data[:-1])
    assert (e.value.kind, e.value.offset) == ("length_exceeds_input", 0)
    with pytest.raises(DecodeError) as e:  # a hostile count is refused before any allocation
        decode(Records[Tick], b"\xff" * 8 + data[8:])
    assert e.value.kind == "length_exceeds_input"
    with pytest.raises(SchemaError):
        decode(Records[Person], data)
    with pytest.raises(EncodeError):
        encode([make_tick(1)], schema=Records[Tick])  # a list, not an array
