# Compile-fail test driver. Run in script mode:
#
#   cmake -DCOMPILER=<c++ compiler> -DSOURCE=<file.cpp> -DINCLUDE_DIR=<repo>/include
#         [-DMODE=fail|control] [-DCXX_STANDARD=23]
#         [-DSYSTEM_INCLUDE_DIRS=<dir>|<dir>...] [-DIMPLICIT_INCLUDE_DIRS=<dir>|...]
#         -P CompileFail.cmake
#
# SYSTEM_INCLUDE_DIRS ('|'-separated) are passed as -isystem: the include
# directories of a third-party library a test uses (gRPC, ZeroMQ; see
# tests/io/transports/CMakeLists.txt), except those in IMPLICIT_INCLUDE_DIRS (the
# compiler's own, CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES: naming /usr/include
# again would break libstdc++'s #include_next).
#
# MODE=fail (default)
#   Runs `<compiler> -std=c++23 -fsyntax-only -I<include> <file>`. The test
#   passes only if the compilation FAILS and the compiler output matches every
#   regular expression given in the source file on lines of the form
#
#       // EXPECT-ERROR: <regex>
#
#   (CMake regex syntax, see `cmake --help-command string`; at least one such
#   line is required), and only if the diagnostic is short: at most one
#   "error:" and 24 lines, unless the file states a larger limit and why:
#
#       // MAX-ERRORS: <n> <reason>
#       // MAX-LINES: <n> <reason>
#
#   Diagnostics are produced with LC_ALL=C and colours off,
#   so quotes are plain ASCII ' characters.
#
# MODE=control
#   Same command plus -DBIN_SERIALIZER_CF_CONTROL. The test passes only if the
#   compilation SUCCEEDS, which proves that the failure in MODE=fail comes from
#   the intended construct and not from a broken include or a typo.
#
# On any mismatch the full compiler output is printed.
cmake_minimum_required(VERSION 3.25)

foreach(_required IN ITEMS COMPILER SOURCE INCLUDE_DIR)
  if(NOT DEFINED ${_required} OR "${${_required}}" STREQUAL "")
    message(FATAL_ERROR "CompileFail.cmake: -D${_required}=... is required")
  endif()
endforeach()
if(NOT DEFINED MODE OR MODE STREQUAL "")
  set(MODE fail)
endif()
if(NOT MODE MATCHES "^(fail|control)$")
  message(FATAL_ERROR "CompileFail.cmake: MODE must be 'fail' or 'control', got '${MODE}'")
endif()
if(NOT DEFINED CXX_STANDARD OR CXX_STANDARD STREQUAL "")
  set(CXX_STANDARD 23)
endif()
if(NOT EXISTS "${SOURCE}")
  message(FATAL_ERROR "CompileFail.cmake: source file '${SOURCE}' does not exist")
endif()

# Stable, ASCII-only diagnostics.
set(ENV{LC_ALL} C)
set(ENV{LANG} C)
set(ENV{LANGUAGE} C)

set(_cmd
  "${COMPILER}"
  "-std=c++${CXX_STANDARD}"
  -fsyntax-only
  -fdiagnostics-color=never
  "-I${INCLUDE_DIR}")
if(DEFINED SYSTEM_INCLUDE_DIRS AND NOT SYSTEM_INCLUDE_DIRS STREQUAL "")
  string(REPLACE "|" ";" _system_dirs "${SYSTEM_INCLUDE_DIRS}")
  list(REMOVE_DUPLICATES _system_dirs)
  set(_implicit_dirs "")
  if(DEFINED IMPLICIT_INCLUDE_DIRS)
    string(REPLACE "|" ";" _implicit_dirs "${IMPLICIT_INCLUDE_DIRS}")
  endif()
  foreach(_dir IN LISTS _system_dirs)
    if(NOT _dir STREQUAL "" AND NOT _dir IN_LIST _implicit_dirs)
      list(APPEND _cmd -isystem "${_dir}")
    endif()
  endforeach()
endif()
if(MODE STREQUAL "control")
  list(APPEND _cmd -DBIN_SERIALIZER_CF_CONTROL)
endif()
list(APPEND _cmd "${SOURCE}")

list(JOIN _cmd " " _cmd_str)
message(STATUS "[${MODE}] ${_cmd_str}")

execute_process(
  COMMAND ${_cmd}
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _output
  ERROR_VARIABLE _output)

# ---------------------------------------------------------------------------
if(MODE STREQUAL "control")
  if(NOT _rc STREQUAL "0")
    # Plain message(): printed verbatim (FATAL_ERROR would re-wrap the text).
    message("----- compiler output -----\n${_output}\n---------------------------")
    message(FATAL_ERROR
      "CONTROL compilation of ${SOURCE} failed (exit status: ${_rc}), but it must "
      "succeed with -DBIN_SERIALIZER_CF_CONTROL (compiler output above).")
  endif()
  message(STATUS "PASS: control compilation succeeded")
  return()
endif()

# ---------------------------------------------------------------------------
# MODE=fail: scan the source for EXPECT-ERROR lines. The file is walked with
# string(FIND) instead of being turned into a CMake list, so regexes may
# contain ';', '[' and ']' without being mangled.
file(READ "${SOURCE}" _content)
string(REPLACE "\r\n" "\n" _content "${_content}")
string(APPEND _content "\n")

set(_n_expect 0)
set(_problems "")
set(_report "")
# The diagnostic's size: one error in fewer than 25 lines by default (what
# README.md and docs/api.md promise), with both compilers. A file may allow
# more with "// MAX-ERRORS: <n> <reason>" or "// MAX-LINES: <n> <reason>".
set(_max_errors 1)
set(_max_lines 24)
while(NOT _content STREQUAL "")
  string(FIND "${_content}" "\n" _nl)
  string(SUBSTRING "${_content}" 0 ${_nl} _line)
  math(EXPR _next "${_nl} + 1")
  string(SUBSTRING "${_content}" ${_next} -1 _content)

  if(_line MATCHES "^[ \t]*//[ \t]*MAX-ERRORS:[ \t]*([0-9]+)[ \t]+[^ \t]")
    set(_max_errors "${CMAKE_MATCH_1}")
  elseif(_line MATCHES "^[ \t]*//[ \t]*MAX-LINES:[ \t]*([0-9]+)[ \t]+[^ \t]")
    set(_max_lines "${CMAKE_MATCH_1}")
  endif()
  if(_line MATCHES "^[ \t]*//[ \t]*EXPECT-ERROR:[ \t]*(.*)$")
    set(_regex "${CMAKE_MATCH_1}")
    string(REGEX REPLACE "[ \t]+$" "" _regex "${_regex}")
    math(EXPR _n_expect "${_n_expect} + 1")
    if(_regex STREQUAL "")
      string(APPEND _problems "  - EXPECT-ERROR line #${_n_expect} has an empty regex\n")
      continue()
    endif()
    string(REGEX MATCH "${_regex}" _m "${_output}")
    if(_m STREQUAL "")
      string(APPEND _problems "  - no match for EXPECT-ERROR regex: ${_regex}\n")
      string(APPEND _report "  [MISSING] ${_regex}\n")
    else()
      string(APPEND _report "  [matched] ${_regex}\n")
    endif()
  endif()
endwhile()

if(_n_expect EQUAL 0)
  string(APPEND _problems
    "  - the file contains no '// EXPECT-ERROR: <regex>' line; every compile-fail test must state what error it expects\n")
endif()
if(_rc STREQUAL "0")
  string(APPEND _problems "  - the compilation SUCCEEDED, but it is expected to fail\n")
endif()

# Count the diagnostic: its lines, and its "error:" lines (a compiler's
# "N errors generated." summary has no colon after "error").
string(REGEX MATCHALL "error: " _errors "${_output}")
list(LENGTH _errors _n_errors)
string(REGEX MATCHALL "\n" _newlines "${_output}")
list(LENGTH _newlines _n_lines)
string(APPEND _report "  [size] ${_n_errors} error(s), ${_n_lines} lines (at most ${_max_errors}, ${_max_lines})\n")
if(_n_errors GREATER _max_errors)
  string(APPEND _problems
    "  - ${_n_errors} errors: the diagnostic must be one error (at most ${_max_errors})\n")
endif()
if(_n_lines GREATER _max_lines)
  string(APPEND _problems
    "  - ${_n_lines} lines of diagnostics: at most ${_max_lines}\n")
endif()

if(NOT _problems STREQUAL "")
  # Plain message(): printed verbatim (FATAL_ERROR would re-wrap the text).
  message(
    "----- compiler output -----\n${_output}\n---------------------------\n"
    "Compile-fail test ${SOURCE} FAILED (compiler exit status: ${_rc}):\n"
    "${_problems}"
    "Expectations:\n${_report}")
  message(FATAL_ERROR "compile-fail expectations not met (details above)")
endif()

message(STATUS "PASS: compilation failed as expected (exit status ${_rc})\n${_report}")
