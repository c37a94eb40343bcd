"""Conan 2 recipe for bin_serializer.

    conan create . -s compiler.cppstd=23

packages the headers, the small compiled part (Buffer's growth, MappedFile)
and the CMake package files the project installs (bin_serializerConfig.cmake,
bin_serializer::bin_serializer). Consumers use those files directly:
find_package(bin_serializer CONFIG) works without CMakeDeps generating its own.
The version is read from include/bin_serializer/version.hpp.
test_package/ builds and runs a consumer against the created package;
scripts/test.sh runs both (the "conan" stage) with a private CONAN_HOME.
"""

import os
import re

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeToolchain, cmake_layout
from conan.tools.files import load


class BinSerializerConan(ConanFile):
    name = "bin_serializer"
    description = "C++23 binary serialization library for hot paths"
    topics = ("serialization", "binary", "header-only")
    package_type = "library"
    settings = "os", "arch", "compiler", "build_type"
    options = {"shared": [True, False], "fPIC": [True, False]}
    default_options = {"shared": False, "fPIC": True}
    exports_sources = "CMakeLists.txt", "cmake/*", "include/*", "src/*"

    def set_version(self):
        header = load(self, os.path.join(self.recipe_folder, "include", "bin_serializer", "version.hpp"))
        parts = [re.search(rf"#define BIN_SERIALIZER_VERSION_{p}\s+(\d+)", header).group(1)
                 for p in ("MAJOR", "MINOR", "PATCH")]
        self.version = ".".join(parts)

    def config_options(self):
        if self.settings.os == "Windows":
            del self.options.fPIC

    def configure(self):
        if self.options.shared:
            self.options.rm_safe("fPIC")

    def validate(self):
        check_min_cppstd(self, 23)

    def layout(self):
        cmake_layout(self)

    def generate(self):
        tc = CMakeToolchain(self)
        # The library and its install rules only: no tests, examples,
        # benchmarks or warnings-as-errors in a consumer's build.
        for opt in ("BUILD_TESTS", "BUILD_EXAMPLES", "BUILD_BENCHMARKS", "BUILD_FUZZERS",
                    "WARNINGS_AS_ERRORS", "TRANSPORTS"):
            tc.cache_variables[f"BIN_SERIALIZER_{opt}"] = False
        tc.cache_variables["BIN_SERIALIZER_INSTALL"] = True
        tc.generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def package(self):
        cmake = CMake(self)
        cmake.install()

    def package_info(self):
        # The package's own CMake config files are the interface.
        self.cpp_info.set_property("cmake_find_mode", "none")
        self.cpp_info.builddirs.append(os.path.join("lib", "cmake", "bin_serializer"))
        # For other generators (PkgConfigDeps, ...). The second include
        # directory holds the include paths of release 0.1 (CMakeLists.txt).
        self.cpp_info.libs = ["bin_serializer"]
        self.cpp_info.includedirs = ["include", os.path.join("include", "bin_serializer_compat")]
        self.cpp_info.set_property("pkg_config_name", "bin_serializer")
