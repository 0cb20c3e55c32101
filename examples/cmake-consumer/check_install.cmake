# The install check (ctest "install_consumer"): installs a built gpuopt into a fresh prefix and
# builds consumers against that prefix only, running each without LD_LIBRARY_PATH:
#   1. examples/cmake-consumer with find_package(gpuopt) and gpuopt::gpuopt, then runs it;
#   2. the same C-only project with gpuopt::gpuopt_static (GPUOPT_CONSUMER_STATIC=ON): the static
#      target must bring its C++/CUDA runtime dependencies to a project without C++ or CUDA;
#   3. tests/c/abi_c99.c with plain `cc -std=c99 -pedantic -Wall -Wextra -Werror` and the flags
#      of `pkg-config --cflags --libs gpuopt`, then runs it (exit 77, no device, counts as pass);
#   4. the README's `cc main.c $(pkg-config --cflags --libs gpuopt)` (the .pc's rpath: it runs,
#      never exit 127), and `pkg-config --static --cflags --libs gpuopt_static` (no libgpuopt.so);
#   5. the bindings where installed (Python package, Fortran module).
#
# cmake -DGPUOPT_BUILD_DIR=<build> -DGPUOPT_SOURCE_DIR=<source> -DWORK_DIR=<scratch>
#       [-DGENERATOR=Ninja] [-DMAKE_PROGRAM=...] [-DC_COMPILER=cc] [-DCUDA_ROOT=...]
#       -P check_install.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var GPUOPT_BUILD_DIR GPUOPT_SOURCE_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "check_install.cmake: -D${var}=... is required")
  endif()
endforeach()

set(CHECK_NAME "install check")
include("${CMAKE_CURRENT_LIST_DIR}/../consumer_checks.cmake")

unset(ENV{LD_LIBRARY_PATH})  # every consumer must find the installed library by itself
set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/consumer-build")
set(abi_build "${WORK_DIR}/abi-build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}" "${abi_build}")

# 1. Install into a fresh prefix.
run_step("cmake --install into ${prefix}"
  "${CMAKE_COMMAND}" --install "${GPUOPT_BUILD_DIR}" --prefix "${prefix}")
foreach(f include/gpuopt.h)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install check: ${prefix}/${f} was not installed")
  endif()
endforeach()
file(GLOB_RECURSE config_file "${prefix}/*/gpuoptConfig.cmake")
file(GLOB_RECURSE pc_file "${prefix}/*/pkgconfig/gpuopt.pc")
file(GLOB_RECURSE shared_lib "${prefix}/*/libgpuopt.so")
foreach(var config_file pc_file shared_lib)
  list(LENGTH ${var} n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "install check: expected one ${var} under ${prefix}, found '${${var}}'")
  endif()
endforeach()
get_filename_component(libdir "${shared_lib}" DIRECTORY)
get_filename_component(pc_dir "${pc_file}" DIRECTORY)
message(STATUS "install check: installed ${shared_lib}")

# 2. The CMake consumer.
set(generator_args "")
if(GENERATOR)
  list(APPEND generator_args -G "${GENERATOR}")
endif()
if(MAKE_PROGRAM)
  list(APPEND generator_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(C_COMPILER)
  list(APPEND generator_args "-DCMAKE_C_COMPILER=${C_COMPILER}")
endif()
if(CUDA_ROOT)
  list(APPEND generator_args "-DCUDAToolkit_ROOT=${CUDA_ROOT}")
endif()
run_step("configure examples/cmake-consumer with find_package(gpuopt)"
  "${CMAKE_COMMAND}" -S "${GPUOPT_SOURCE_DIR}/examples/cmake-consumer" -B "${consumer_build}"
  ${generator_args} "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
file(STRINGS "${consumer_build}/CMakeCache.txt" found_dir REGEX "^gpuopt_DIR:")
string(FIND "${found_dir}" "${prefix}/" found)
if(found EQUAL -1)
  message(FATAL_ERROR "install check: find_package(gpuopt) did not take the fresh prefix: ${found_dir}")
endif()
message(STATUS "install check: ${found_dir}")
run_step("build examples/cmake-consumer" "${CMAKE_COMMAND}" --build "${consumer_build}")
find_program(consumer_exe gpuopt_consumer PATHS "${consumer_build}" NO_DEFAULT_PATH)
if(NOT consumer_exe)
  message(FATAL_ERROR "install check: gpuopt_consumer was not built in ${consumer_build}")
endif()
run_program(gpuopt_consumer "${consumer_exe}")
check_loads(gpuopt_consumer "${consumer_exe}" "${libdir}")

# 2. The same C-only project, static.
file(GLOB_RECURSE static_lib "${prefix}/*/libgpuopt_static.a")
if(static_lib)
  set(static_build "${WORK_DIR}/consumer-static-build")
  run_step("configure examples/cmake-consumer (C only) with gpuopt::gpuopt_static"
    "${CMAKE_COMMAND}" -S "${GPUOPT_SOURCE_DIR}/examples/cmake-consumer" -B "${static_build}"
    ${generator_args} "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
    -DGPUOPT_CONSUMER_STATIC=ON)
  run_step("build examples/cmake-consumer with gpuopt::gpuopt_static"
    "${CMAKE_COMMAND}" --build "${static_build}")
  run_program("gpuopt_consumer (static)" "${static_build}/gpuopt_consumer")
  check_loads("gpuopt_consumer (static)" "${static_build}/gpuopt_consumer" NONE)
else()
  message(STATUS "install check: no libgpuopt_static.a installed (GPUOPT_BUILD_STATIC=OFF): "
                 "the static consumers are not checked")
endif()

# 3. The C99 ABI test with plain cc and pkg-config.
find_program(cc_exe NAMES cc gcc clang)
if(NOT cc_exe)
  set(cc_exe "${C_COMPILER}")
endif()
find_program(pkg_config_exe NAMES pkg-config pkgconf)
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
if(pkg_config_exe)
  # The .pc file must work from where it was installed: check that its prefix is this one,
  # else override it (and say so: a relocated install then needs --define-variable).
  execute_process(COMMAND "${pkg_config_exe}" --variable=prefix gpuopt
    OUTPUT_VARIABLE pc_prefix OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install check: pkg-config cannot read ${pc_file}")
  endif()
  set(define_prefix "")
  get_filename_component(real_pc_prefix "${pc_prefix}" REALPATH)
  get_filename_component(real_prefix "${prefix}" REALPATH)
  if(NOT real_pc_prefix STREQUAL real_prefix)
    message(STATUS "install check: NOTE: gpuopt.pc says prefix=${pc_prefix}, not where it was "
                   "installed (${prefix}); overriding it with --define-variable=prefix=...")
    set(define_prefix "--define-variable=prefix=${prefix}")
  endif()
  execute_process(COMMAND "${pkg_config_exe}" ${define_prefix} --cflags --libs gpuopt
    OUTPUT_VARIABLE pc_flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install check: pkg-config --cflags --libs gpuopt failed")
  endif()
  message(STATUS "install check: pkg-config --cflags --libs gpuopt: ${pc_flags}")
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
else()
  message(WARNING "install check: pkg-config not found (apt-get install pkg-config); "
                  "building abi_c99 with explicit flags instead")
  set(pc_flags "-I${prefix}/include" "-L${libdir}" -lgpuopt)
endif()
run_step("cc -std=c99 -pedantic tests/c/abi_c99.c against the installed gpuopt"
  "${cc_exe}" -std=c99 -pedantic -Wall -Wextra -Werror
  "${GPUOPT_SOURCE_DIR}/tests/c/abi_c99.c" ${pc_flags} -lm -o "${abi_build}/abi_c99")
run_program("abi_c99 (cc + pkg-config gpuopt)" "${abi_build}/abi_c99" SKIP_OK)
check_loads(abi_c99 "${abi_build}/abi_c99" "${libdir}")

# 4. The README's commands, exactly: `cc main.c $(pkg-config --cflags --libs gpuopt)` and its
#    static form with gpuopt_static.pc.
if(pkg_config_exe)
  set(main_c "${GPUOPT_SOURCE_DIR}/examples/cmake-consumer/main.c")
  run_step("sh -c 'cc main.c $(pkg-config --cflags --libs gpuopt)'" sh -c
    "\"${cc_exe}\" \"${main_c}\" $(\"${pkg_config_exe}\" ${define_prefix} --cflags --libs gpuopt) -o \"${abi_build}/readme_main\"")
  run_program("readme_main (cc + pkg-config, no LD_LIBRARY_PATH)" "${abi_build}/readme_main")
  check_loads(readme_main "${abi_build}/readme_main" "${libdir}")
  if(static_lib)
    file(GLOB_RECURSE static_pc "${prefix}/*/pkgconfig/gpuopt_static.pc")
    if(NOT static_pc)
      message(FATAL_ERROR "install check: libgpuopt_static.a is installed without gpuopt_static.pc")
    endif()
    execute_process(COMMAND "${pkg_config_exe}" ${define_prefix} --static --cflags --libs
      gpuopt_static OUTPUT_VARIABLE static_flags OUTPUT_STRIP_TRAILING_WHITESPACE)
    message(STATUS "install check: pkg-config --static --cflags --libs gpuopt_static: "
                   "${static_flags}")
    run_step("sh -c 'cc main.c $(pkg-config --static --cflags --libs gpuopt_static)'" sh -c
      "\"${cc_exe}\" \"${main_c}\" $(\"${pkg_config_exe}\" ${define_prefix} --static --cflags --libs gpuopt_static) -o \"${abi_build}/readme_main_static\"")
    run_program("readme_main_static (cc + pkg-config --static)" "${abi_build}/readme_main_static")
    check_loads(readme_main_static "${abi_build}/readme_main_static" NONE)
  endif()
endif()
message(STATUS "install check: passed")

# 5. The bindings, where installed: the Python package must load the installed library by itself
#    (no GPUOPT_LIBRARY), and a Fortran program must build against the installed module.
set(py_pkg "${prefix}/share/gpuopt/python")
find_program(python_exe NAMES python3)
if(EXISTS "${py_pkg}/gpuopt/__init__.py" AND python_exe)
  set(ENV{PYTHONPATH} "${py_pkg}")
  set(ENV{PYTHONDONTWRITEBYTECODE} 1)
  unset(ENV{GPUOPT_LIBRARY})
  execute_process(COMMAND "${python_exe}" -c
    "import gpuopt; print(gpuopt.library_path); print(gpuopt.version_string())"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "install check: python gpuopt (exit ${rc}): ${out}${err}")
  string(FIND "${out}" "${prefix}/" found)
  if(NOT rc EQUAL 0 OR found EQUAL -1)
    message(FATAL_ERROR "install check: the installed Python package does not load ${libdir}")
  endif()
endif()
file(GLOB fortran_mod "${prefix}/include/gpuopt/fortran/gpuopt.mod")
find_program(fortran_exe NAMES gfortran)
if(fortran_mod AND fortran_exe)
  file(WRITE "${abi_build}/consumer.f90" "program consumer
  use, intrinsic :: iso_c_binding
  use gpuopt
  implicit none
  type(c_ptr) :: ctx
  integer(c_int) :: st
  st = gpuopt_context_create(0_c_int, ctx)
  if (st == GPUOPT_ERROR_NO_DEVICE) stop 77
  if (st /= GPUOPT_SUCCESS) error stop 1
  if (gpuopt_context_destroy(ctx) /= GPUOPT_SUCCESS) error stop 1
end program consumer
")
  run_step("gfortran against the installed gpuopt module"
    "${fortran_exe}" -Wall -Werror "-I${prefix}/include/gpuopt/fortran" "${abi_build}/consumer.f90"
    "-L${libdir}" "-Wl,-rpath,${libdir}" -lgpuopt_fortran -lgpuopt -o "${abi_build}/fortran_consumer")
  execute_process(COMMAND "${abi_build}/fortran_consumer" RESULT_VARIABLE rc
    OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message(STATUS "install check: fortran_consumer (exit ${rc})")
  if(NOT rc EQUAL 0 AND NOT rc EQUAL 77)
    message(FATAL_ERROR "install check: fortran_consumer failed:\n${out}")
  endif()
endif()
message(STATUS "install check: bindings passed")
