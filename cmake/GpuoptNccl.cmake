# GPUOPT_NCCL: multi-GPU communication through NCCL (docs/multi-gpu.md).
#   AUTO (default): NCCL support is built; nccl.h, where found (the CUDA toolkit's copy or a
#                   system one), checks gpuopt's declarations of NCCL's ABI at compile time.
#   ON:             the same, but nccl.h must be found.
#   OFF:            no NCCL support; every comm call answers GPUOPT_ERROR_UNSUPPORTED.
# libgpuopt never links NCCL: it opens libnccl.so.2 (or $GPUOPT_NCCL_LIBRARY) at first use, so
# the library builds, loads and runs where NCCL is absent.
set(GPUOPT_NCCL AUTO CACHE STRING "Multi-GPU support through NCCL: AUTO, ON or OFF")
set_property(CACHE GPUOPT_NCCL PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${GPUOPT_NCCL}" _gpuopt_nccl)
if(NOT _gpuopt_nccl MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "GPUOPT_NCCL is '${GPUOPT_NCCL}'; expected AUTO, ON or OFF")
endif()
set(GPUOPT_NCCL_ENABLED OFF)
set(GPUOPT_NCCL_INCLUDE_DIR "")
if(NOT _gpuopt_nccl STREQUAL "OFF")
  set(GPUOPT_NCCL_ENABLED ON)
  find_path(GPUOPT_NCCL_HEADER_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS}
            PATHS /usr/include /usr/local/include)
  if(GPUOPT_NCCL_HEADER_DIR)
    set(GPUOPT_NCCL_INCLUDE_DIR "${GPUOPT_NCCL_HEADER_DIR}")
    message(STATUS "gpuopt: NCCL support on (nccl.h in ${GPUOPT_NCCL_HEADER_DIR}; libnccl.so.2 loaded at first use)")
  elseif(_gpuopt_nccl STREQUAL "ON")
    message(FATAL_ERROR "GPUOPT_NCCL=ON but nccl.h was not found: install NCCL's headers "
                        "(libnccl-dev) or set GPUOPT_NCCL_HEADER_DIR")
  else()
    message(STATUS "gpuopt: NCCL support on, without nccl.h (NCCL's ABI as gpuopt declares it)")
  endif()
else()
  message(STATUS "gpuopt: NCCL support off (GPUOPT_NCCL=OFF)")
endif()
