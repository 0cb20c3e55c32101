# install: headers, libraries, the exported gpuopt::gpuopt target (find_package(gpuopt)) and
# a pkg-config file.
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
