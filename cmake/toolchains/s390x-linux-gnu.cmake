# Cross toolchain: Linux on IBM Z (s390x, 64-bit big-endian), Debian's
# g++-s390x-linux-gnu; tests run under qemu user-mode emulation (qemu-user).
#
#   cmake --preset s390x        (CMakePresets.json)
#
# CMAKE_CROSSCOMPILING_EMULATOR makes ctest (add_test with a target, and
# gtest_discover_tests in PRE_TEST mode) run the s390x binaries through
# qemu-s390x, with the cross sysroot as the dynamic loader's root.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)

set(_s390x_triple s390x-linux-gnu)
set(_s390x_sysroot /usr/${_s390x_triple})

set(CMAKE_C_COMPILER ${_s390x_triple}-gcc)
set(CMAKE_CXX_COMPILER ${_s390x_triple}-g++)

set(CMAKE_FIND_ROOT_PATH ${_s390x_sysroot})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)  # host tools (ninja, python, qemu)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)   # never the host's GTest package

find_program(BIN_SERIALIZER_QEMU_S390X NAMES qemu-s390x qemu-s390x-static)
if(NOT BIN_SERIALIZER_QEMU_S390X)
  message(FATAL_ERROR "qemu-s390x not found (Debian: apt-get install qemu-user)")
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${BIN_SERIALIZER_QEMU_S390X};-L;${_s390x_sysroot}")
