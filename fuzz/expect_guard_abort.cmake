# ctest helper: runs PROGRAM INPUT with BIN_SERIALIZER_FUZZ_GUARD_SELFTEST=1
# and passes only if the process failed AND printed the allocation guard's
# message (a crash for any other reason, or no crash, fails the test).
#   cmake -DPROGRAM=<fuzz binary> -DINPUT=<file> -P expect_guard_abort.cmake
set(ENV{BIN_SERIALIZER_FUZZ_GUARD_SELFTEST} 1)
execute_process(COMMAND "${PROGRAM}" "${INPUT}"
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(result EQUAL 0)
  message(FATAL_ERROR "the allocation guard did not fire:\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "fuzz allocation guard: a single allocation of [0-9]+ bytes exceeds")
  message(FATAL_ERROR "the process failed, but not with the guard's message (${result}):\n${out}${err}")
endif()
message(STATUS "allocation guard fired as expected (${result})")
