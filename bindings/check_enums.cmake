# The bindings' enum tests: every enum value "GPUOPT_X = n" and every numeric macro
# "#define GPUOPT_X n" of gpuopt.h must appear in one of the SOURCE files as "GPUOPT_X ... = n"
# (Python "GPUOPT_X = n", Fortran "integer(c_int), parameter :: GPUOPT_X = n",
# Rust "GPUOPT_X: T = n").
#   cmake -DHEADER=include/gpuopt.h -DSOURCE="a;b" [-DWHAT=text] [-DRENAMES="OLD=NEW;..."]
#         -P check_enums.cmake
# RENAMES names the binding's spelling of a constant it must rename (Fortran cannot tell
# GPUOPT_GDN_FORWARD from the function gpuopt_gdn_forward).
file(READ "${HEADER}" header)
set(source "")
foreach(f IN LISTS SOURCE)
  file(READ "${f}" one)
  string(APPEND source "\n${one}")
endforeach()
if(NOT DEFINED WHAT)
  set(WHAT "${SOURCE}")
endif()
string(REGEX MATCHALL "[\n ]GPUOPT_[A-Z0-9_]+ =[ \n]*[0-9]+" values "${header}")
string(REGEX MATCHALL "#define GPUOPT_[A-Z0-9_]+ [0-9]+[\n ]" defines "${header}")
set(missing "")
set(count 0)
foreach(entry IN LISTS values defines)
  string(REGEX REPLACE "^.*(GPUOPT_[A-Z0-9_]+)[ =\n]+([0-9]+).*$" "\\1" name "${entry}")
  string(REGEX REPLACE "^.*(GPUOPT_[A-Z0-9_]+)[ =\n]+([0-9]+).*$" "\\2" value "${entry}")
  foreach(r IN LISTS RENAMES)
    if(r MATCHES "^${name}=(.+)$")
      set(name "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  math(EXPR count "${count} + 1")
  if(NOT source MATCHES "[^A-Za-z0-9_]${name}[^A-Za-z0-9_][^=\n]*= *${value}[^0-9]")
    list(APPEND missing "${name} = ${value}")
  endif()
endforeach()
if(count LESS 40)
  message(FATAL_ERROR "enums: found only ${count} values in ${HEADER}")
endif()
if(missing)
  list(JOIN missing "\n  " missing_lines)
  message(FATAL_ERROR "enums: ${WHAT} lacks or differs in these values of gpuopt.h:\n  "
                      "${missing_lines}")
endif()
message(STATUS "enums: ${WHAT} has all ${count} values of gpuopt.h")
