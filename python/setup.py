"""Build script of the compiled codec (bin_serializer._cext); metadata is in pyproject.toml.

The extension is optional: without a C compiler (or with
BIN_SERIALIZER_NO_EXTENSION=1) the package installs as pure Python and uses
its generated-Python codec. Build products (build/, *.egg-info) go to a
temporary directory, never into the source tree.
"""

import atexit
import os
import shutil
import tempfile

from setuptools import Extension, setup

_scratch = tempfile.mkdtemp(prefix="bin_serializer-build-")
atexit.register(shutil.rmtree, _scratch, True)

ext_modules = []
if os.environ.get("BIN_SERIALIZER_NO_EXTENSION", "") in ("", "0"):
    ext_modules.append(Extension(
        "bin_serializer._cext",
        sources=["bin_serializer/_cext.c"],
        optional=True,  # a failed compile leaves the pure-Python package working
        extra_compile_args=os.environ.get("BIN_SERIALIZER_CFLAGS", "-O2").split(),
    ))

setup(
    ext_modules=ext_modules,
    options={"build": {"build_base": os.path.join(_scratch, "build")},
             "egg_info": {"egg_base": _scratch}},
)
