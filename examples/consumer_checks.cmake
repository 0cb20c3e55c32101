# Helpers of the consumer checks run with `cmake -P` (examples/cmake-consumer/check_install.cmake,
# examples/fetchcontent-consumer/check_subproject.cmake, examples/rust-consumer/
# check_consumer.cmake). Set CHECK_NAME before including: it starts every message.
#
#   run_step(<what> <command...>)   runs the command, stops with its output on failure; the
#                                   output is left in step_output
#   run_program(<what> <exe> [SKIP_OK])  runs a built consumer: exit 0 passes (77 too with
#                                   SKIP_OK); never 127, which means a library was not found
#   check_loads(<what> <exe> <dir>|NONE)  the libgpuopt.so the program loads (ldd) lies in <dir>;
#                                   NONE: it loads none (a static link)
#   The output of run_program is left in program_output.

function(run_step what)
  message(STATUS "${CHECK_NAME}: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CHECK_NAME}: ${what} failed (${rc}):\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

function(run_program what exe)
  execute_process(COMMAND "${exe}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message(STATUS "${CHECK_NAME}: ${what} (exit ${rc}):\n${out}")
  if(rc EQUAL 77 AND "${ARGN}" STREQUAL "SKIP_OK")
    message(STATUS "${CHECK_NAME}: ${what} found no device; its no-device and error paths passed")
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CHECK_NAME}: ${what} failed (exit ${rc}; 127: a library not found)")
  endif()
  set(program_output "${out}" PARENT_SCOPE)
endfunction()

function(check_loads what exe dir)
  execute_process(COMMAND ldd "${exe}" OUTPUT_VARIABLE ldd_out ERROR_QUIET)
  string(REGEX MATCH "libgpuopt[^\n]*" ldd_line "${ldd_out}")
  message(STATUS "${CHECK_NAME}: ${what}: ${ldd_line}")
  if(dir STREQUAL "NONE")
    if(ldd_line)
      message(FATAL_ERROR "${CHECK_NAME}: ${what} is linked statically but loads ${ldd_line}")
    endif()
  else()
    string(FIND "${ldd_line}" "${dir}/" found)
    if(found EQUAL -1)
      message(FATAL_ERROR "${CHECK_NAME}: ${what} does not load ${dir}/libgpuopt.so")
    endif()
  endif()
endfunction()
