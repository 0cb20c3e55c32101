# Runs a program and checks its exit status and output (for the bindings' no-device tests,
# where exit 77 with the NO_DEVICE message is the pass):
#   cmake -DCMD="prog;args" -DEXPECT_RC=77 -DEXPECT_REGEX="..." [-DENV="K=V;..."]
#         -P run_expect.cmake
foreach(kv IN LISTS ENV)
  string(REGEX REPLACE "=.*$" "" k "${kv}")
  string(REGEX REPLACE "^[^=]*=" "" v "${kv}")
  set(ENV{${k}} "${v}")
endforeach()
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${rc}" STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "run_expect: ${CMD} exited ${rc}, expected ${EXPECT_RC}")
endif()
foreach(re IN LISTS EXPECT_REGEX)
  if(NOT "${out}${err}" MATCHES "${re}")
    message(FATAL_ERROR "run_expect: the output of ${CMD} does not match '${re}'")
  endif()
endforeach()
