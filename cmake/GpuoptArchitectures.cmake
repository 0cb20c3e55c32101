# Turns GPUOPT_CUDA_ARCHITECTURES ("80;90a") into CMake's form: SASS for every entry plus PTX of
# the highest generic (non-"a") entry, so newer GPUs run through the driver's JIT. Arch-specific
# targets such as sm_90a are not forward-compatible and never get PTX.
set(_gpuopt_archs "")
set(_gpuopt_ptx "")
foreach(_a IN LISTS GPUOPT_CUDA_ARCHITECTURES)
  list(APPEND _gpuopt_archs "${_a}-real")
  string(REGEX REPLACE "[af]$" "" _generic "${_a}")
  if(_gpuopt_ptx STREQUAL "" OR _generic GREATER _gpuopt_ptx)
    set(_gpuopt_ptx "${_generic}")
  endif()
endforeach()
if(NOT _gpuopt_ptx STREQUAL "")
  list(APPEND _gpuopt_archs "${_gpuopt_ptx}-virtual")
endif()
set(GPUOPT_CMAKE_CUDA_ARCHITECTURES "${_gpuopt_archs}")
message(STATUS "gpuopt CUDA architectures: ${GPUOPT_CMAKE_CUDA_ARCHITECTURES}")

# The lowest compute capability the build runs on (its lowest SASS target: PTX is only added for
# the highest one), as major * 10 + minor, for the no-device message.
set(GPUOPT_MIN_CC "")
foreach(_a IN LISTS GPUOPT_CUDA_ARCHITECTURES)
  string(REGEX REPLACE "[af]$" "" _generic "${_a}")
  if(GPUOPT_MIN_CC STREQUAL "" OR _generic LESS GPUOPT_MIN_CC)
    set(GPUOPT_MIN_CC "${_generic}")
  endif()
endforeach()
