# Driver for the consumer (packaging) tests, run by ctest in script mode:
#
#   cmake -DMODE=<install|find_package|add_subdirectory|fetchcontent>
#         -DREPO_DIR=<repo> -DMAIN_BINARY_DIR=<build dir of the main project>
#         -DPREFIX=<scratch install prefix> -DWORK_DIR=<scratch dir>
#         -DCONSUMER_ROOT=<repo>/tests/consumer
#         -DCXX_COMPILER=... [-DCXX_FLAGS=...] [-DEXE_LINKER_FLAGS=...]
#         -DGENERATOR=... -DBUILD_TYPE=...
#         [-DTOOLCHAIN_FILE=...] [-DEMULATOR=a|b|c]
#         -P run_consumer.cmake
#
# MODE=install        `cmake --install` the main build tree into PREFIX and check
#                     the expected files are there (ctest fixture setup).
# MODE=find_package   configure/build/run tests/consumer/find_package against PREFIX
# MODE=add_subdirectory, MODE=fetchcontent
#                     configure/build/run the consumer with the repo as a subproject
# MODE=examples       configure/build/ctest the repository's examples/ directory as a
#                     standalone project against PREFIX (every example, installed package)
# MODE=pkgconfig      compile find_package/main.cpp by hand with the flags from
#                     `pkg-config --cflags --libs bin_serializer` (needs -DPKG_CONFIG=...)
cmake_minimum_required(VERSION 3.25)

foreach(_required IN ITEMS MODE REPO_DIR MAIN_BINARY_DIR PREFIX WORK_DIR CONSUMER_ROOT
                           CXX_COMPILER GENERATOR BUILD_TYPE)
  if(NOT DEFINED ${_required} OR "${${_required}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: -D${_required}=... is required")
  endif()
endforeach()

# run(<description> <command>...): run a command, echo it, fail loudly.
function(run description)
  list(JOIN ARGN " " _pretty)
  message(STATUS "${description}: ${_pretty}")
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE _rc
    OUTPUT_VARIABLE _out
    ERROR_VARIABLE _out)
  message("${_out}")
  if(NOT _rc STREQUAL "0")
    message(FATAL_ERROR "${description} failed (exit status: ${_rc})")
  endif()
endfunction()

# ---------------------------------------------------------------------------
if(MODE STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")
  run("install" "${CMAKE_COMMAND}" --install "${MAIN_BINARY_DIR}"
      --prefix "${PREFIX}" --config "${BUILD_TYPE}")

  set(_missing "")
  foreach(_pattern IN ITEMS
      "include/bin_serializer/bin_serializer.hpp"
      "include/bin_serializer/version.hpp"
      "include/bin_serializer_compat/bin_serializer/buffer.hpp"
      "lib*/cmake/bin_serializer/bin_serializerConfig.cmake"
      "lib*/cmake/bin_serializer/bin_serializerConfigVersion.cmake"
      "lib*/cmake/bin_serializer/bin_serializerTargets.cmake"
      "lib*/pkgconfig/bin_serializer.pc")
    file(GLOB_RECURSE _found "${PREFIX}/${_pattern}")
    if(NOT _found)
      file(GLOB _found "${PREFIX}/${_pattern}")
    endif()
    if(NOT _found)
      string(APPEND _missing "  ${_pattern}\n")
    endif()
  endforeach()
  file(GLOB_RECURSE _libs "${PREFIX}/*bin_serializer.a" "${PREFIX}/*bin_serializer.so"
                          "${PREFIX}/*bin_serializer.lib" "${PREFIX}/*bin_serializer.dylib")
  if(NOT _libs)
    string(APPEND _missing "  the bin_serializer library itself\n")
  endif()
  if(NOT _missing STREQUAL "")
    file(GLOB_RECURSE _all RELATIVE "${PREFIX}" "${PREFIX}/*")
    list(JOIN _all "\n  " _all)
    message(FATAL_ERROR "Installed tree ${PREFIX} lacks:\n${_missing}It contains:\n  ${_all}")
  endif()
  message(STATUS "install OK: ${PREFIX}")
  return()
endif()

# ---------------------------------------------------------------------------
if(MODE STREQUAL "pkgconfig")
  if(NOT PKG_CONFIG)
    message(FATAL_ERROR "MODE=pkgconfig needs -DPKG_CONFIG=<pkg-config executable>")
  endif()
  file(GLOB _pc_dirs LIST_DIRECTORIES true "${PREFIX}/lib*/pkgconfig" "${PREFIX}/lib/*/pkgconfig")
  list(JOIN _pc_dirs ":" _pc_path)
  set(ENV{PKG_CONFIG_PATH} "${_pc_path}")
  set(ENV{PKG_CONFIG_LIBDIR} "${_pc_path}")
  execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs bin_serializer
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _pc_flags ERROR_VARIABLE _pc_err
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc STREQUAL "0")
    message(FATAL_ERROR "pkg-config failed (PKG_CONFIG_PATH=${_pc_path}):\n${_pc_err}")
  endif()
  message(STATUS "pkg-config --cflags --libs bin_serializer: ${_pc_flags}")
  separate_arguments(_pc_flags UNIX_COMMAND "${_pc_flags}")
  separate_arguments(_cxx_flags UNIX_COMMAND "${CXX_FLAGS}")
  separate_arguments(_ld_flags UNIX_COMMAND "${EXE_LINKER_FLAGS}")

  set(_bin "${WORK_DIR}/pkgconfig")
  file(REMOVE_RECURSE "${_bin}")
  file(MAKE_DIRECTORY "${_bin}")
  run("build pkgconfig consumer" "${CXX_COMPILER}" -std=c++23 ${_cxx_flags}
      "-DCONSUMER_KIND=\"pkgconfig\""
      "${CONSUMER_ROOT}/find_package/main.cpp" ${_pc_flags} ${_ld_flags}
      -o "${_bin}/consumer")
  # In case the library was built shared.
  execute_process(COMMAND "${PKG_CONFIG}" --variable=libdir bin_serializer
    OUTPUT_VARIABLE _pc_libdir OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(DEFINED ENV{LD_LIBRARY_PATH} AND NOT "$ENV{LD_LIBRARY_PATH}" STREQUAL "")
    set(ENV{LD_LIBRARY_PATH} "${_pc_libdir}:$ENV{LD_LIBRARY_PATH}")
  else()
    set(ENV{LD_LIBRARY_PATH} "${_pc_libdir}")
  endif()
  string(REPLACE "|" ";" _emulator "${EMULATOR}")
  run("run pkgconfig consumer" ${_emulator} "${_bin}/consumer")
  message(STATUS "pkgconfig consumer OK")
  return()
endif()

# ---------------------------------------------------------------------------
if(NOT MODE MATCHES "^(find_package|add_subdirectory|fetchcontent|examples)$")
  message(FATAL_ERROR "run_consumer.cmake: unknown MODE '${MODE}'")
endif()

set(_src "${CONSUMER_ROOT}/${MODE}")
if(MODE STREQUAL "examples")
  set(_src "${REPO_DIR}/examples")
endif()
set(_bin "${WORK_DIR}/${MODE}")
file(REMOVE_RECURSE "${_bin}")

set(_configure
  "${CMAKE_COMMAND}" -S "${_src}" -B "${_bin}"
  -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}")
if(DEFINED TOOLCHAIN_FILE AND NOT TOOLCHAIN_FILE STREQUAL "")
  list(APPEND _configure "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_FILE}")
endif()
if(DEFINED EMULATOR AND NOT EMULATOR STREQUAL "")
  # The emulator may be a list (program + arguments): hand it over through an
  # initial-cache script so its ';' survive.
  string(REPLACE "|" ";" _emulator "${EMULATOR}")
  file(MAKE_DIRECTORY "${WORK_DIR}")
  file(WRITE "${WORK_DIR}/${MODE}-init.cmake"
    "set(CMAKE_CROSSCOMPILING_EMULATOR [==[${_emulator}]==] CACHE STRING \"\")\n")
  list(APPEND _configure -C "${WORK_DIR}/${MODE}-init.cmake")
endif()

if(MODE MATCHES "^(find_package|examples)$")
  list(APPEND _configure
    "-DCMAKE_PREFIX_PATH=${PREFIX}"
    "-DBIN_SERIALIZER_EXPECTED_PREFIX=${PREFIX}"
    # Never pick up a copy registered in ~/.cmake/packages or elsewhere.
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
else()
  list(APPEND _configure "-DBIN_SERIALIZER_SOURCE_DIR=${REPO_DIR}")
endif()

if(NOT CMAKE_CTEST_COMMAND)
  get_filename_component(_cmake_bin_dir "${CMAKE_COMMAND}" DIRECTORY)
  set(CMAKE_CTEST_COMMAND "${_cmake_bin_dir}/ctest")
endif()

run("configure ${MODE} consumer" ${_configure})
if(MODE STREQUAL "examples")
  # The examples must use the package under test, not a source tree or a
  # copy installed elsewhere on the system.
  file(STRINGS "${_bin}/CMakeCache.txt" _dir_line REGEX "^bin_serializer_DIR:")
  string(REGEX REPLACE "^[^=]*=" "" _found_dir "${_dir_line}")
  file(REAL_PATH "${PREFIX}" _expected)
  file(REAL_PATH "${_found_dir}" _found)
  string(FIND "${_found}/" "${_expected}/" _pos)
  if(NOT _pos EQUAL 0)
    message(FATAL_ERROR "examples found bin_serializer in '${_found}', expected it under ${_expected}")
  endif()
  file(GLOB _example_sources "${_src}/*.cpp")
  list(LENGTH _example_sources _example_count)
  message(STATUS "examples: ${_example_count} sources, package from ${_found}")
endif()
run("build ${MODE} consumer" "${CMAKE_COMMAND}" --build "${_bin}" --config "${BUILD_TYPE}")
# The consumer projects register their executable with add_test(), so ctest
# takes care of the build configuration and of a cross-compiling emulator.
run("run ${MODE} consumer" "${CMAKE_CTEST_COMMAND}" --test-dir "${_bin}"
    -C "${BUILD_TYPE}" --output-on-failure --no-tests=error)
message(STATUS "${MODE} consumer OK")
