# The kernel tests for a cross target (aarch64 under qemu, WebAssembly under node), included by
# the cross kernel-test block at the end of CMakeLists.txt when ONEMODEL_TESTS is OFF.
# Neither target has a GoogleTest package here, so GoogleTest is compiled from Debian's sources
# (libgtest-dev's /usr/src/googletest) with this target's compiler; rapidcheck has no sources
# here, so ONEMODEL_HAVE_RAPIDCHECK stays undefined and the property tests are left out.
# tools/cross/aarch64.sh and tools/cross/wasm.sh build the target cross_kernel_tests and run
# each executable.
set(ONEMODEL_GTEST_SOURCE_DIR "/usr/src/googletest/googletest" CACHE PATH
    "GoogleTest sources (gtest-all.cc and gtest_main.cc) compiled for the cross kernel tests")
if(NOT EXISTS "${ONEMODEL_GTEST_SOURCE_DIR}/src/gtest-all.cc")
  message(FATAL_ERROR "ONEMODEL_CROSS_KERNEL_TESTS needs GoogleTest sources in ${ONEMODEL_GTEST_SOURCE_DIR} "
                      "(Debian package libgtest-dev)")
endif()

# gtest-all.cc includes every other source of the library, so one file builds it. Built directly
# rather than with add_subdirectory so that its install rules and its own warning flags stay out
# of this build. Its warnings are not ours to fix: -w for these two files only.
add_library(onemodel_cross_gtest STATIC
            ${ONEMODEL_GTEST_SOURCE_DIR}/src/gtest-all.cc ${ONEMODEL_GTEST_SOURCE_DIR}/src/gtest_main.cc)
target_include_directories(onemodel_cross_gtest SYSTEM PUBLIC ${ONEMODEL_GTEST_SOURCE_DIR}/include
                           PRIVATE ${ONEMODEL_GTEST_SOURCE_DIR})
target_compile_options(onemodel_cross_gtest PRIVATE -w)
if(EMSCRIPTEN)
  # The WebAssembly build has no threads (ONEMODEL_NO_THREADS) and no file descriptors to
  # redirect; the settings are PUBLIC because gtest's headers must see the values its sources saw.
  target_compile_definitions(onemodel_cross_gtest PUBLIC GTEST_HAS_PTHREAD=0 GTEST_HAS_STREAM_REDIRECTION=0)
else()
  target_link_libraries(onemodel_cross_gtest PUBLIC Threads::Threads)
endif()

# One executable per tests/kernels/<topic>_test.cpp, as in the native build but without rapidcheck.
add_custom_target(cross_kernel_tests)
file(GLOB ONEMODEL_CROSS_KERNEL_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/kernels/*_test.cpp)
foreach(test_source ${ONEMODEL_CROSS_KERNEL_TEST_SOURCES})
  get_filename_component(test_name ${test_source} NAME_WE)
  add_executable(${test_name} ${test_source})
  target_include_directories(${test_name} PRIVATE ${CMAKE_SOURCE_DIR})
  target_link_libraries(${test_name} PRIVATE onemodel_kernels onemodel_cross_gtest)
  if(EMSCRIPTEN)
    # emscripten's libc++ has no std::bit_cast; the shim says why.
    target_compile_options(${test_name} PRIVATE -include ${CMAKE_SOURCE_DIR}/tools/cross/std_bit_cast_shim.hpp)
  endif()
  add_dependencies(cross_kernel_tests ${test_name})
endforeach()
