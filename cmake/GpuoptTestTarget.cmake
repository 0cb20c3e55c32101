# gpuopt_test_target(target): build settings shared by every GoogleTest executable.
#
# Test code is compiled at -O1 (except in Debug builds): what a test times is the library's own
# code, built with the library's flags, and the test sources themselves (GoogleTest's macro
# expansions) spend most of their compile time in -O3's optimizer: -O1 takes a test file from
# 2.1-3.4 s to 1.5-2.0 s on the CI machine. Without a compiler launcher (ccache, which cannot
# cache a build that reads a precompiled header unless told to be sloppy about it) each target
# also precompiles <gtest/gtest.h>, another 0.35-0.4 s per file. Together they cut about a
# third of the test workflow's test-code compile time (docs/design.md, "Build time").
function(gpuopt_test_target target)
  target_compile_options(${target} PRIVATE
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<CONFIG:Debug>>>:-O1>)
  if(NOT CMAKE_CXX_COMPILER_LAUNCHER)
    target_precompile_headers(${target} PRIVATE <gtest/gtest.h>)
  endif()
endfunction()
