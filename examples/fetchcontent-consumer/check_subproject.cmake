# ctest "subproject_consumer": gpuopt used from source by another project, the C-only
# examples/fetchcontent-consumer, configured twice, with FetchContent (SOURCE_DIR = this tree, no
# network) and with add_subdirectory. Each configure must succeed without GoogleTest or Doxygen
# (CMAKE_DISABLE_FIND_PACKAGE_*), leave tests, bench, examples, bindings and docs OFF, and give
# gpuopt::gpuopt and gpuopt::gpuopt_static.
#
# Linking without compiling the library a second time (minutes of nvcc in CI): the FetchContent
# build's own commands for the two consumers (`ninja -t commands`: the compile of main.c and the
# link line CMake generated from the targets' usage requirements) are run as they are, after the
# top-level build's libgpuopt.so and libgpuopt_static.a, built from the same sources, are put
# where the sub-build would write them. The programs must then run (exit 0: a context, or
# NO_DEVICE) without LD_LIBRARY_PATH, the static one loading no libgpuopt.so.
#
# cmake -DGPUOPT_SOURCE_DIR=<source> -DGPUOPT_BUILD_DIR=<top-level build> -DWORK_DIR=<scratch>
#       [-DGENERATOR=Ninja] [-DMAKE_PROGRAM=...] [-DC_COMPILER=...] [-DCXX_COMPILER=...]
#       [-DCUDA_COMPILER=...] [-DCUDA_HOST_COMPILER=...] -P check_subproject.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var GPUOPT_SOURCE_DIR GPUOPT_BUILD_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "check_subproject.cmake: -D${var}=... is required")
  endif()
endforeach()

set(CHECK_NAME "subproject check")
include("${CMAKE_CURRENT_LIST_DIR}/../consumer_checks.cmake")

file(REMOVE_RECURSE "${WORK_DIR}")
unset(ENV{LD_LIBRARY_PATH})
set(args -DCMAKE_BUILD_TYPE=Release -DGPUOPT_CUDA_ARCHITECTURES=80
  "-DGPUOPT_SOURCE_DIR=${GPUOPT_SOURCE_DIR}"
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_Doxygen=ON)
if(GENERATOR)
  list(APPEND args -G "${GENERATOR}")
endif()
foreach(pair MAKE_PROGRAM=CMAKE_MAKE_PROGRAM C_COMPILER=CMAKE_C_COMPILER
             CXX_COMPILER=CMAKE_CXX_COMPILER CUDA_COMPILER=CMAKE_CUDA_COMPILER
             CUDA_HOST_COMPILER=CMAKE_CUDA_HOST_COMPILER)
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 in)
  list(GET pair 1 out)
  if(${in})
    list(APPEND args "-D${out}=${${in}}")
  endif()
endforeach()

# 1. Configure both ways; check the options and targets.
foreach(how fetchcontent add_subdirectory)
  set(dir "${WORK_DIR}/${how}")
  run_step("configure examples/fetchcontent-consumer (${how})" "${CMAKE_COMMAND}"
    -S "${GPUOPT_SOURCE_DIR}/examples/fetchcontent-consumer" -B "${dir}" ${args}
    "-DGPUOPT_CONSUMER_HOW=${how}")
  file(STRINGS "${dir}/CMakeCache.txt" cache REGEX "^GPUOPT_BUILD_[A-Z]+:BOOL=")
  message(STATUS "subproject check: ${how}: ${cache}")
  foreach(opt TESTS BENCH EXAMPLES BINDINGS DOCS RUST)
    if(NOT "${cache}" MATCHES "GPUOPT_BUILD_${opt}:BOOL=OFF")
      message(FATAL_ERROR "subproject check: ${how}: GPUOPT_BUILD_${opt} is not OFF in a "
                          "sub-project (cache: ${cache})")
    endif()
  endforeach()
  if(NOT "${cache}" MATCHES "GPUOPT_BUILD_STATIC:BOOL=ON")
    message(FATAL_ERROR "subproject check: ${how}: GPUOPT_BUILD_STATIC should stay ON")
  endif()
  file(GLOB_RECURSE stray "${dir}/*/gpuopt_unit_tests*" "${dir}/*/Doxyfile")
  if(stray)
    message(FATAL_ERROR "subproject check: ${how}: test or docs targets were generated: ${stray}")
  endif()
endforeach()

# 2. Link the FetchContent build's consumers with the build's own commands.
if(NOT GENERATOR MATCHES "Ninja")
  message(STATUS "subproject check: configured both ways; the link check needs the Ninja "
                 "generator (ninja -t commands) and is skipped with '${GENERATOR}'")
  return()
endif()
set(dir "${WORK_DIR}/fetchcontent")
set(sub_src "${dir}/_deps/gpuopt-build/src")
file(GLOB built_libs "${GPUOPT_BUILD_DIR}/src/libgpuopt.so*" "${GPUOPT_BUILD_DIR}/src/libgpuopt_static.a")
list(LENGTH built_libs n)
if(n LESS 2)
  message(FATAL_ERROR "subproject check: no built libgpuopt in ${GPUOPT_BUILD_DIR}/src")
endif()
file(COPY ${built_libs} DESTINATION "${sub_src}")

if(NOT MAKE_PROGRAM)
  set(MAKE_PROGRAM ninja)
endif()
foreach(exe gpuopt_fetch_consumer gpuopt_fetch_consumer_static)
  run_step("${exe}: the build's commands" "${MAKE_PROGRAM}" -C "${dir}" -t commands "${exe}")
  string(REPLACE "\n" ";" commands "${step_output}")
  list(FILTER commands INCLUDE REGEX ".")
  list(FILTER commands INCLUDE REGEX "(cmake-consumer/main\\.c|-o ${exe}( |$))")
  list(LENGTH commands n)
  if(NOT n EQUAL 2)
    message(FATAL_ERROR "subproject check: expected a compile and a link command for ${exe}, "
                        "got:\n${step_output}")
  endif()
  foreach(cmd IN LISTS commands)
    message(STATUS "subproject check: ${cmd}")
    if(cmd MATCHES " -o ([^ ]+)")  # ninja makes output directories; here it is not run
      get_filename_component(out_dir "${dir}/${CMAKE_MATCH_1}" DIRECTORY)
      file(MAKE_DIRECTORY "${out_dir}")
    endif()
    run_step("${exe}: run the build's command" sh -c "cd '${dir}' && ${cmd}")
  endforeach()
  run_program("${exe}" "${dir}/${exe}")
  set(loads "${sub_src}")  # the sub-build's libgpuopt.so; none for gpuopt::gpuopt_static
  if(exe MATCHES "_static$")
    set(loads NONE)
  endif()
  check_loads("${exe}" "${dir}/${exe}" "${loads}")
endforeach()
message(STATUS "subproject check: passed")
