# The installed package (issue 16, docs/api.md "Installing"): `cmake --install` puts the public
# headers (include/onemodel), the static libraries (libonemodel.a and the kernels it needs,
# libonemodel_kernels.a), the shared library (libonemodel.so.<major>.<minor>, SONAME with the
# version) exporting the public API only, onemodelConfig.cmake with its version file, and
# onemodel.pc. An outside project then writes
#   find_package(onemodel 0.2 CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE onemodel::onemodel)
# (the shared library; -DONEMODEL_USE_STATIC_LIBS=ON before find_package links the static ones).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Symbols: everything is compiled hidden and the public headers push default visibility around
# what they declare, so the shared library exports that and nothing else.
# The Checked tree's shared test objects (ONEMODEL_SHARED_TEST_LIBS) keep default visibility: the
# tests call the kernels and the engines' internals.
if(NOT ONEMODEL_SHARED_TEST_LIBS)
  set_target_properties(onemodel onemodel_kernels PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endif()
set_target_properties(onemodel PROPERTIES EXPORT_NAME onemodel_static)

if(CMAKE_BUILD_TYPE STREQUAL "Release" AND NOT CMAKE_CROSSCOMPILING AND NOT EMSCRIPTEN)
  set(onemodel_shared_default ON)
else()
  set(onemodel_shared_default OFF)
endif()
option(ONEMODEL_SHARED "Build the shared library libonemodel.so (installed with the package)" ${onemodel_shared_default})

set(onemodel_install_targets onemodel onemodel_kernels)
if(ONEMODEL_SHARED)
  # Position-independent archives, only when they are linked into the shared library (the cross
  # builds, WebAssembly among them, keep their usual code).
  set_target_properties(onemodel onemodel_kernels PROPERTIES POSITION_INDEPENDENT_CODE ON)
  add_library(onemodel_shared SHARED ${CMAKE_SOURCE_DIR}/cmake/shared_library_anchor.cpp)
  target_link_libraries(onemodel_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,onemodel>"
                        PUBLIC Threads::Threads)
  target_include_directories(onemodel_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(onemodel_shared PROPERTIES OUTPUT_NAME onemodel EXPORT_NAME onemodel_shared
                        VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
                        CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  list(APPEND onemodel_install_targets onemodel_shared)
endif()

install(TARGETS ${onemodel_install_targets} EXPORT onemodelTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/onemodel DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT onemodelTargets NAMESPACE onemodel:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/onemodel)
set(ONEMODEL_HAS_SHARED ${ONEMODEL_SHARED})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/onemodelConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/onemodelConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/onemodel)
# 0.x: a minor version may change the interface, so 0.2 accepts 0.2.* only.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/onemodelConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/onemodelConfig.cmake ${CMAKE_BINARY_DIR}/package/onemodelConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/onemodel)
# How far up from <libdir>/pkgconfig the prefix is ("../.." for lib/pkgconfig).
file(RELATIVE_PATH ONEMODEL_PC_UP /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_SOURCE_DIR}/cmake/onemodel.pc.in ${CMAKE_BINARY_DIR}/package/onemodel.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/onemodel.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
