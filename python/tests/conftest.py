"""Every test runs once per codec: "python" (generated Python, the oracle)
and "c" (the compiled extension, when it was built).

BIN_SERIALIZER_REQUIRE_EXTENSION=1 (set by scripts/test.sh) turns a missing
extension into an error instead of running the Python codec alone."""

from __future__ import annotations

import os

import pytest

from bin_serializer import _accel, api

BACKENDS = ["python"] + (["c"] if _accel.available() else [])

if os.environ.get("BIN_SERIALIZER_REQUIRE_EXTENSION", "") not in ("", "0") and not _accel.available():
    raise pytest.UsageError(f"BIN_SERIALIZER_REQUIRE_EXTENSION is set but bin_serializer._cext did not import: "
                            f"{_accel.IMPORT_ERROR}")


@pytest.fixture(params=BACKENDS, autouse=True)
def backend(request):
    """The codec this test runs against (all codecs are rebuilt for it)."""
    previous = api.set_backend(request.param)
    yield request.param
    api.set_backend(previous)
