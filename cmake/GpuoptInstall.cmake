# install: headers, libraries, the exported gpuopt::gpuopt and gpuopt::gpuopt_static targets
# (find_package(gpuopt)) and pkg-config files (gpuopt.pc, gpuopt_static.pc).
install(TARGETS ${GPUOPT_INSTALL_TARGETS} EXPORT gpuoptTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/gpuopt.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT gpuoptTargets NAMESPACE gpuopt::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuopt)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpuoptConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gpuoptConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuopt)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpuoptConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gpuoptConfig.cmake ${PROJECT_BINARY_DIR}/gpuoptConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuopt)
# The .pc file locates the prefix from its own directory, so an install moved with
# `cmake --install --prefix` (or copied elsewhere) still resolves.
file(RELATIVE_PATH GPUOPT_PC_PREFIX_REL "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig"
  "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" GPUOPT_PC_PREFIX_REL "${GPUOPT_PC_PREFIX_REL}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/gpuopt.pc.in ${PROJECT_BINARY_DIR}/gpuopt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gpuopt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(GPUOPT_BUILD_STATIC)
  # gpuopt_static.pc: what the static library needs besides itself (src/CMakeLists.txt,
  # GPUOPT_STATIC_LINK_LIBS), as linker flags: cuBLAS and cuBLASLt (shared, found at run time
  # through the rpath), the static CUDA runtime and its system libraries, dlopen, the C++ runtime.
  set(GPUOPT_PC_CUDA_LIBDIR "${CUDAToolkit_LIBRARY_DIR}")
  set(_gpuopt_pc_libs cublas cublasLt cudart_static ${CMAKE_DL_LIBS} ${GPUOPT_CXX_RUNTIME_LIBS} rt pthread)
  list(REMOVE_DUPLICATES _gpuopt_pc_libs)
  list(TRANSFORM _gpuopt_pc_libs PREPEND "-l")
  list(JOIN _gpuopt_pc_libs " " _gpuopt_pc_libs)
  set(GPUOPT_PC_STATIC_LIBS "-L\${cudalibdir} -Wl,-rpath,\${cudalibdir} ${_gpuopt_pc_libs}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/gpuopt_static.pc.in
    ${PROJECT_BINARY_DIR}/gpuopt_static.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/gpuopt_static.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
