# Checks (or, with -DUPDATE=ON, rewrites) the default-suite table of bench/README.md: the lines
# between the two suites markers must be what `gpuopt-bench --list-suites` prints.
#   cmake -DBENCH=path/to/gpuopt-bench -DREADME=bench/README.md [-DUPDATE=ON] -P readme_suites.cmake
cmake_minimum_required(VERSION 3.25)

set(_begin "<!-- suites:begin (generated: gpuopt-bench --list-suites; do not edit) -->")
set(_end "<!-- suites:end -->")

execute_process(COMMAND "${BENCH}" --list-suites
  OUTPUT_VARIABLE _table RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${BENCH} --list-suites failed (${_rc}): ${_err}")
endif()

file(READ "${README}" _readme)
string(FIND "${_readme}" "${_begin}\n" _b)
string(FIND "${_readme}" "${_end}" _e)
if(_b EQUAL -1 OR _e EQUAL -1 OR _e LESS _b)
  message(FATAL_ERROR "${README}: the markers '${_begin}' and '${_end}' are missing")
endif()
string(LENGTH "${_begin}\n" _blen)
math(EXPR _start "${_b} + ${_blen}")
math(EXPR _len "${_e} - ${_start}")
string(SUBSTRING "${_readme}" ${_start} ${_len} _current)

if(_current STREQUAL _table)
  message(STATUS "${README}: the default-suite table matches gpuopt-bench --list-suites")
elseif(UPDATE)
  string(SUBSTRING "${_readme}" 0 ${_start} _head)
  string(SUBSTRING "${_readme}" ${_e} -1 _tail)
  file(WRITE "${README}" "${_head}${_table}${_tail}")
  message(STATUS "${README}: default-suite table rewritten")
else()
  message(FATAL_ERROR "${README}: the default-suite table differs from what "
    "`gpuopt-bench --list-suites` prints. Rewrite it with\n  cmake -DBENCH=${BENCH} "
    "-DREADME=${README} -DUPDATE=ON -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
