# Turns GPUOPT_CUDA_ARCHITECTURES into CMake's form.
#
# - A list such as "80;90a" (the portable default): SASS for every entry plus, with
#   GPUOPT_CUDA_PTX=ON (the default), PTX of the highest generic (non-"a") entry so newer GPUs
#   run through the driver's JIT. Arch-specific targets such as sm_90a are not forward-compatible
#   and never get PTX.
# - "native": SASS for the GPUs of this machine only (nvidia-smi's compute capabilities; 9.0
#   becomes 90a so the wgmma/TMA rungs are built), no PTX. One compile pass per file instead of
#   three: what the bench preset uses on the GPU machine. Without a GPU it falls back to the
#   portable default, with a message.
set(_gpuopt_requested "${GPUOPT_CUDA_ARCHITECTURES}")
set(_gpuopt_ptx_wanted ${GPUOPT_CUDA_PTX})
if(_gpuopt_requested STREQUAL "native")
  set(_gpuopt_native "")
  find_program(GPUOPT_NVIDIA_SMI nvidia-smi)
  if(GPUOPT_NVIDIA_SMI)
    execute_process(COMMAND ${GPUOPT_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE _gpuopt_caps RESULT_VARIABLE _gpuopt_rc ERROR_QUIET
      OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_gpuopt_rc EQUAL 0)
      string(REPLACE "\n" ";" _gpuopt_caps "${_gpuopt_caps}")
      foreach(_cap IN LISTS _gpuopt_caps)
        string(STRIP "${_cap}" _cap)
        string(REPLACE "." "" _cap "${_cap}")
        if(_cap MATCHES "^[0-9]+$")
          if(_cap STREQUAL "90")
            set(_cap "90a")  # the wgmma / setmaxnreg rungs need the arch-specific target
          endif()
          list(APPEND _gpuopt_native "${_cap}")
        endif()
      endforeach()
      list(REMOVE_DUPLICATES _gpuopt_native)
    endif()
  endif()
  if(_gpuopt_native)
    message(STATUS "gpuopt CUDA architectures: native = ${_gpuopt_native} (no PTX)")
    set(_gpuopt_requested "${_gpuopt_native}")
    set(_gpuopt_ptx_wanted OFF)
  else()
    set(_gpuopt_requested "80;90a")
    message(STATUS "gpuopt CUDA architectures: native asked, but nvidia-smi found no GPU; "
                   "building the portable set ${_gpuopt_requested}")
  endif()
endif()

set(_gpuopt_archs "")
set(_gpuopt_ptx "")
foreach(_a IN LISTS _gpuopt_requested)
  list(APPEND _gpuopt_archs "${_a}-real")
  string(REGEX REPLACE "[af]$" "" _generic "${_a}")
  if(_gpuopt_ptx STREQUAL "" OR _generic GREATER _gpuopt_ptx)
    set(_gpuopt_ptx "${_generic}")
  endif()
endforeach()
if(_gpuopt_ptx_wanted AND NOT _gpuopt_ptx STREQUAL "")
  list(APPEND _gpuopt_archs "${_gpuopt_ptx}-virtual")
endif()
set(GPUOPT_CMAKE_CUDA_ARCHITECTURES "${_gpuopt_archs}")
message(STATUS "gpuopt CUDA architectures: ${GPUOPT_CMAKE_CUDA_ARCHITECTURES}")

# The lowest compute capability the build runs on (its lowest SASS target; no PTX is older),
# as major * 10 + minor, for the no-device message.
set(GPUOPT_MIN_CC "")
foreach(_a IN LISTS _gpuopt_requested)
  string(REGEX REPLACE "[af]$" "" _generic "${_a}")
  if(GPUOPT_MIN_CC STREQUAL "" OR _generic LESS GPUOPT_MIN_CC)
    set(GPUOPT_MIN_CC "${_generic}")
  endif()
endforeach()

# Per-group lists (src/CMakeLists.txt compiles each group as its own object library):
# - GPUOPT_CUDA_ARCHS_GENERIC: kernels with no sm_90-only code path (most of them, CUB
#   included). SASS for every entry, and the PTX of the lowest entry, which comes out of the
#   same front-end pass as its SASS (compute_80 -> sm_80 + PTX): one compiler pass per
#   architecture instead of one more for a separate PTX target. Such kernels compile to the same
#   code from compute_80 as from compute_90, so newer GPUs lose nothing by JIT-compiling it.
# - GPUOPT_CUDA_ARCHS_SM90: files with a code path for __CUDA_ARCH__ >= 900 that is not
#   arch-specific (thread-block clusters, the f64 mma.sync pipeline's sm_90 branch): SASS for
#   every entry and PTX of the highest generic entry, as before.
# - GPUOPT_CUDA_ARCHS_SM90A: files whose every kernel body is compiled only under
#   __CUDA_ARCH_FEAT_SM90_ALL (wgmma, TMA rungs dispatched on exactly sm_90a): the sm_90a SASS
#   alone, since every other target would hold empty kernels that dispatch never launches.
#   When the list names no 90a, the group takes the generic list (the kernels compile empty).
# - GPUOPT_CUDA_ARCHS_TOOLS: tests, bench and examples: SASS only (they never ship).
set(_gpuopt_sass "")
set(_gpuopt_sm90a "")
set(_gpuopt_low "")
foreach(_a IN LISTS _gpuopt_requested)
  list(APPEND _gpuopt_sass "${_a}-real")
  if(_a STREQUAL "90a")
    list(APPEND _gpuopt_sm90a "90a-real")
  endif()
  if(NOT _a MATCHES "[af]$")
    if(_gpuopt_low STREQUAL "" OR _a LESS _gpuopt_low)
      set(_gpuopt_low "${_a}")
    endif()
  endif()
endforeach()
set(GPUOPT_CUDA_ARCHS_GENERIC "${_gpuopt_sass}")
if(_gpuopt_ptx_wanted AND NOT _gpuopt_low STREQUAL "")
  list(REMOVE_ITEM GPUOPT_CUDA_ARCHS_GENERIC "${_gpuopt_low}-real")
  list(APPEND GPUOPT_CUDA_ARCHS_GENERIC "${_gpuopt_low}")  # SASS + PTX in one pass
endif()
set(GPUOPT_CUDA_ARCHS_SM90 "${GPUOPT_CMAKE_CUDA_ARCHITECTURES}")
if(_gpuopt_sm90a)
  set(GPUOPT_CUDA_ARCHS_SM90A "${_gpuopt_sm90a}")
else()
  set(GPUOPT_CUDA_ARCHS_SM90A "${GPUOPT_CUDA_ARCHS_GENERIC}")
endif()
set(GPUOPT_CUDA_ARCHS_TOOLS "${_gpuopt_sass}")
message(STATUS "gpuopt CUDA architectures by group: generic ${GPUOPT_CUDA_ARCHS_GENERIC}; "
               "sm90 ${GPUOPT_CUDA_ARCHS_SM90}; sm90a ${GPUOPT_CUDA_ARCHS_SM90A}; "
               "tools ${GPUOPT_CUDA_ARCHS_TOOLS}")
