# Included before project(): with the Ninja generators (the presets use Ninja), find the ninja
# program now and, when it is missing, say what to install, instead of CMake's generic
# "CMake was unable to find a build program corresponding to Ninja" that project() would raise.
if(CMAKE_GENERATOR MATCHES "Ninja" AND NOT CMAKE_MAKE_PROGRAM)
  find_program(CMAKE_MAKE_PROGRAM NAMES ninja-build ninja samu
    DOC "Program used to build from build.ninja files.")
  if(NOT CMAKE_MAKE_PROGRAM)
    message(FATAL_ERROR
      "gpuopt: the ${CMAKE_GENERATOR} generator was chosen (the CMake presets use it) but no "
      "ninja program is on PATH. Install it: `apt-get install ninja-build` (Debian/Ubuntu), "
      "`dnf install ninja-build` (Fedora/RHEL), or `pip install ninja`; or pass "
      "-DCMAKE_MAKE_PROGRAM=/path/to/ninja; or configure without the presets using "
      "-G \"Unix Makefiles\". Remove ${CMAKE_BINARY_DIR}/CMakeCache.txt before retrying.")
  endif()
endif()
