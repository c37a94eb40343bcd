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

from bin_serializer import DecodeError, decode
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
