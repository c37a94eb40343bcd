"""Golden vectors written by the C++ generator: spec/vectors/<format>/<NAME>.bin + .json.

For each vector: decode the .bin per its schema, compare with the JSON value,
re-encode and require identical bytes, encode the JSON value itself, and check
that every truncation raises DecodeError. Set BIN_SERIALIZER_VECTORS to read
another directory (with portable/, native/ and compact/ below it; a format
whose directory does not exist is skipped)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from bin_serializer import DecodeError, ErrorKind, decode, decode_from, encode
from bin_serializer.vectors import check_vector, hint_from_descriptor, load_vectors

REPO = Path(__file__).resolve().parents[2]
ROOT = Path(os.environ.get("BIN_SERIALIZER_VECTORS", REPO / "spec" / "vectors"))
FORMATS = ("portable", "native", "compact")


def _collect():
    params = []
    if not ROOT.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"no golden vectors: {ROOT} does not exist (the C++ generator writes spec/vectors/)"))]
    for fmt in FORMATS:
        d = ROOT / fmt
        if not d.is_dir():
            continue
        skip = None
        if fmt == "native" and sys.byteorder != "little":
            skip = pytest.mark.skip(reason="native vectors are little-endian; this host is big-endian")
        for vec in load_vectors(d):
            marks = [skip] if skip else []
            params.append(pytest.param(vec, id=f"{fmt}/{vec.name}", marks=marks))
    if not params:
        params.append(pytest.param(None, marks=pytest.mark.skip(reason=f"{ROOT} holds no vectors")))
    return params


VECTORS = _collect()


@pytest.mark.parametrize("vec", VECTORS)
def test_vector_round_trip(vec):
    assert vec.format in FORMATS
    check_vector(vec)


@pytest.mark.parametrize("vec", VECTORS)
def test_vector_every_truncation_fails(vec):
    hint = hint_from_descriptor(vec.schema)
    for cut in range(len(vec.data)):
        with pytest.raises(DecodeError):
            decode(hint, vec.data[:cut], vec.format)


# C++ and Python on damaged vectors: tests/format/vector_verdicts.cpp
# (BIN_SERIALIZER_VECTOR_VERDICTS_EXE, built by scripts/test.sh) decodes every
# vector with each byte inverted, its lowest bit flipped and cut at each byte,
# with every value checked (bs::untrusted's check_trivial_members, as this
# package always checks), and prints what it got.
VERDICTS_EXE = os.environ.get("BIN_SERIALIZER_VECTOR_VERDICTS_EXE", "")


def _mine(hint, data: bytes, fmt: str):
    """(verdict in vector_verdicts.cpp's words, decoded value or None, DecodeError or None)."""
    try:
        value, end = decode_from(hint, data, 0, fmt)
    except DecodeError as e:
        return f"err {ErrorKind.ERRC[e.kind]} {e.offset}", None, e
    return f"ok {end} {encode(value, fmt, schema=hint).hex()}", value, None


@pytest.mark.parametrize("fmt", FORMATS)
def test_damage_decoded_alike_by_cpp_and_python(fmt):
    """The same value (as its re-encoding) and bytes consumed, or the same
    error (the C++ errc of ErrorKind.ERRC) at the same offset, for every
    damaged vector. Two differences are the design's: a str must be UTF-8
    where a std::string holds any bytes (invalid_utf8 where C++ decodes, or
    fails further on), and a value C++ re-encodes differently must decode
    here to the same value (a std::map sorts what a dict keeps in wire order;
    a float32 NaN goes through a Python float, which quiets a signalling one)."""
    if not VERDICTS_EXE:
        pytest.skip("BIN_SERIALIZER_VECTOR_VERDICTS_EXE not set (path of vector_verdicts, built with the tests)")
    if fmt == "native" and sys.byteorder != "little":
        pytest.skip("native vectors are little-endian; this host is big-endian")
    import subprocess

    vectors = load_vectors(ROOT / fmt)
    got = subprocess.run([VERDICTS_EXE, fmt, *[v.name for v in vectors]], check=True, capture_output=True,
                         text=True, timeout=600)
    lines = iter(got.stdout.splitlines())
    compared = 0
    for vec in vectors:
        hint = hint_from_descriptor(vec.schema)
        data = vec.data
        for k in range(len(data)):
            for what, bad in (("x", data[:k] + bytes([data[k] ^ 0xFF]) + data[k + 1:]),
                              ("b", data[:k] + bytes([data[k] ^ 1]) + data[k + 1:]), ("c", data[:k])):
                head = f"{fmt} {vec.name} {what} {k} "
                line = next(lines)
                assert line.startswith(head), (line, head)
                theirs = line[len(head):]
                assert "| stream" not in theirs, ("C++: a stream read differs from the read from memory", line)
                mine, value, err = _mine(hint, bad, fmt)
                compared += 1
                if mine == theirs:
                    continue
                where = (vec.name, what, k, theirs[:60], mine[:60])
                if err is not None and err.kind == ErrorKind.INVALID_UTF8:
                    assert theirs.startswith("ok") or int(theirs.split()[2]) >= err.offset, where
                    continue
                assert value is not None and theirs.startswith("ok"), where
                _, end, hexdata = theirs.split()
                assert int(end) == int(mine.split()[1]), where
                again = decode(hint, bytes.fromhex(hexdata), fmt)
                assert again == value or encode(again, fmt, schema=hint) == encode(value, fmt, schema=hint), where
    assert next(lines, None) is None
    assert compared > 4000
