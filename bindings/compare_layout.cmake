# fortran_binding_layout: the "<struct> sizeof <n>" lines of the binding's program (TEST) must
# equal those of the C compiler's layout_dump (REFERENCE), one for every struct of gpuopt.h.
#   cmake -DREFERENCE=layout_dump -DTEST=layout_sizes -P compare_layout.cmake
foreach(what REFERENCE TEST)
  execute_process(COMMAND "${${what}}" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "layout: ${${what}} failed (${rc})")
  endif()
  string(REGEX MATCHALL "[a-z_0-9]+ sizeof [0-9]+" lines_${what} "${out}")
  list(SORT lines_${what})
endforeach()
if(NOT lines_REFERENCE STREQUAL lines_TEST)
  message(FATAL_ERROR "layout: struct sizes differ\n  C:       ${lines_REFERENCE}\n"
                      "  binding: ${lines_TEST}")
endif()
list(LENGTH lines_TEST n)
message(STATUS "layout: all ${n} struct sizes agree with the C compiler")
