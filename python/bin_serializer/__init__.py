"""bin_serializer: read and write the bin_serializer C++ library's wire formats.

    from dataclasses import dataclass
    from bin_serializer import encode, decode
    from bin_serializer.types import i32, f32

    @dataclass
    class Person:
        name: str
        id: i32
        email: str
        scores: list[f32]

    data = encode(Person("John Doe", 25, "john.doe@example.com", [2.1, 3.2, 4.5]))
    person = decode(Person, data)

The default format is ``"portable"`` (little-endian, fixed widths, no padding);
``"native"`` reproduces the library's default format as written on a
little-endian 64-bit host (trivially copyable structs with their padding);
``"compact"`` is portable with LEB128 varints for 16/32/64-bit integers and
length/count prefixes (zigzag for signed integers).
"""

from . import types
from .api import (Codec, backend, compile_codec, decode, decode_from, encode, iter_decode, records_dtype,
                  set_backend)
from .errors import (BinSerializerError, DecodeError, DescriptionError, EncodeError, ErrorKind, LogCorruptError,
                     LogHeaderError, LogRecordError, SchemaError)
from .types import RETIRED, Retire, Retired, UnknownFields, Variant, clear_unknown_fields, retired, unknown_fields

from .jsonform import from_json, to_json  # noqa: E402 - values as JSON data and back
from . import log  # noqa: E402 - record logs (bin_serializer.log)

__version__ = "0.1.0"

__all__ = [
    "encode", "decode", "decode_from", "iter_decode", "compile_codec", "Codec", "backend", "set_backend",
    "records_dtype",
    "DecodeError", "EncodeError", "SchemaError", "DescriptionError", "BinSerializerError", "ErrorKind",
    "Variant", "types", "__version__",
    "Retired", "Retire", "RETIRED", "retired", "UnknownFields", "unknown_fields", "clear_unknown_fields",
    "log", "LogCorruptError", "LogHeaderError", "LogRecordError",
    "to_json", "from_json",
]
