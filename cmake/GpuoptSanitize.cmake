# Host sanitizers and the fuzz build (the "asan" preset turns both on; see docs/reliability.md).
#
# GPUOPT_SANITIZE=ON: AddressSanitizer + UndefinedBehaviorSanitizer on every host translation unit:
# C and C++ directly, the host side of .cu files through nvcc's -Xcompiler (device code is not
# instrumented: compute-sanitizer covers it on the GPU machine). The shared library is then linked
# without --no-undefined: clang leaves the sanitizer runtimes to the executable.
#
# GPUOPT_FUZZ=ON (clang only): the library's C++ code gets libFuzzer's coverage instrumentation
# (-fsanitize=fuzzer-no-link) and tests/fuzz builds gpuopt_fuzz, the libFuzzer harness that drives
# every entry point's validation in device-less mode.
option(GPUOPT_SANITIZE "Build host code with -fsanitize=address,undefined" OFF)
option(GPUOPT_FUZZ "Build the libFuzzer harness tests/fuzz (needs clang)" OFF)

if(GPUOPT_SANITIZE)
  # -fno-sanitize=enum: enums cross the C ABI as C enums, which may hold any int (a C caller's
  # value is validated and answered INVALID_ARGUMENT); C++'s narrower range for them is not used
  # by the compilers without -fstrict-enums, so UBSan's enum check would only report the inputs
  # validation exists for.
  set(_gpuopt_san -fsanitize=address,undefined -fno-sanitize=enum -fno-omit-frame-pointer
      -fno-sanitize-recover=undefined)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_gpuopt_san}>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fsanitize=address;-Xcompiler=-fsanitize=undefined;-Xcompiler=-fno-sanitize=enum;-Xcompiler=-fno-omit-frame-pointer>")
  add_link_options(-fsanitize=address -fsanitize=undefined)  # two flags: nvcc splits on commas
  # C programs (the C ABI test, the C example) link a C++ library: they need UBSan's C++ half.
  add_link_options("$<$<LINK_LANGUAGE:C>:-fsanitize-link-c++-runtime;-lstdc++>")
endif()

if(GPUOPT_FUZZ AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "GPUOPT_FUZZ needs clang (libFuzzer): configure with "
                      "-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CUDA_HOST_COMPILER=clang++")
endif()
