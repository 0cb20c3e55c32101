# ctest "rust_consumer": builds examples/rust-consumer (a crate outside the workspace with a path
# dependency on bindings/rust) offline, dynamic and, where libgpuopt_static.a was built, with
# `--features static`, and runs each binary without LD_LIBRARY_PATH: exit 0 (a context, or
# NO_DEVICE), the log closure's line printed, the right library loaded.
#
# cmake -DCARGO=<cargo> -DSOURCE_DIR=<repo> -DLIB_DIR=<dir of libgpuopt.so> -DTARGET_DIR=<dir>
#       [-DWERROR=ON] -P check_consumer.cmake
cmake_minimum_required(VERSION 3.25)
foreach(var CARGO SOURCE_DIR LIB_DIR TARGET_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "check_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()

set(CHECK_NAME "rust consumer")
include("${CMAKE_CURRENT_LIST_DIR}/../consumer_checks.cmake")

unset(ENV{LD_LIBRARY_PATH})
set(ENV{CARGO_TARGET_DIR} "${TARGET_DIR}")
set(ENV{GPUOPT_LIB_DIR} "${LIB_DIR}")
if(WERROR)
  set(ENV{RUSTFLAGS} "-Dwarnings")
endif()
set(manifest "${SOURCE_DIR}/examples/rust-consumer/Cargo.toml")
set(exe "${TARGET_DIR}/debug/gpuopt-rust-consumer")

set(variants dynamic)
if(EXISTS "${LIB_DIR}/libgpuopt_static.a")
  list(APPEND variants static)
else()
  message(STATUS "rust consumer: no ${LIB_DIR}/libgpuopt_static.a; the static feature is not checked")
endif()
foreach(variant IN LISTS variants)
  set(features "")
  set(loads "${LIB_DIR}")  # where the libgpuopt.so it loads lies; NONE when linked statically
  if(variant STREQUAL "static")
    set(features --features static)
    set(loads NONE)
  endif()
  string(REPLACE ";" " " shown "${features}")
  run_step("cargo build --offline ${shown}" "${CARGO}" build --offline --locked --quiet
    --manifest-path "${manifest}" ${features})
  run_program("gpuopt-rust-consumer (${variant})" "${exe}")
  if(NOT program_output MATCHES "log Info: [^\n]*context")
    message(FATAL_ERROR "rust consumer (${variant}): the log closure saw no context line")
  endif()
  check_loads("gpuopt-rust-consumer (${variant})" "${exe}" "${loads}")
endforeach()
message(STATUS "rust consumer: passed")
