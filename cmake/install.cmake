# The CMake package: `cmake --install build --prefix P` installs the libraries
# users link (core, kernels, io, solvers; not bench or apps), their headers
# under P/include/perron, and perronConfig.cmake, so that another project does
#   find_package(perron CONFIG REQUIRED)          # or ... COMPONENTS cuda
#   target_link_libraries(app PRIVATE perron::perron)
# The component `cuda` is found only when this build has the CUDA backend.
# solvers/dist (mpirun, NCCL) is the apps' and is not installed. The installed
# headers include each other by paths from their own folder ("../core/x.hpp"),
# so that a project's own core/x.hpp on its -I path is never taken for perron's
# (tests/layers_test.cpp checks it).
include(CMakePackageConfigHelpers)

add_library(perron INTERFACE)
target_link_libraries(perron INTERFACE perron_solvers perron_io perron_kernels perron_core)
add_library(perron::perron ALIAS perron)

install(TARGETS perron perron_core perron_kernels perron_io perron_solvers EXPORT perronTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} ${CMAKE_INSTALL_INCLUDEDIR}/perron)
foreach(folder core kernels io solvers)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/perron/${folder}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "*.def" PATTERN "cuda" EXCLUDE PATTERN "cpu" EXCLUDE
          PATTERN "dist" EXCLUDE)
endforeach()
install(EXPORT perronTargets NAMESPACE perron:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/perron)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/perronConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/perronConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/perron)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/perronConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/perronConfig.cmake ${PROJECT_BINARY_DIR}/perronConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/perron)
