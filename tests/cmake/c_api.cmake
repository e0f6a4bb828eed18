# The C interface (include/onemodel/onemodel.h, issue 16) tested from C99 (tests/c/c_api_test.c):
# every entry point, every error path, concurrent runs. Compiled as C with the strict warnings; the
# C++ library is linked with the C++ driver.
enable_language(C)
add_executable(c_api_test ${CMAKE_SOURCE_DIR}/tests/c/c_api_test.c)
set_target_properties(c_api_test PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
                                            LINKER_LANGUAGE CXX)
target_compile_options(c_api_test PRIVATE -Wall -Wextra -Wpedantic)
find_package(Threads REQUIRED)
target_link_libraries(c_api_test PRIVATE onemodel Threads::Threads m)
add_test(NAME c_api_test COMMAND c_api_test ${CMAKE_SOURCE_DIR}/models/samples)
set_tests_properties(c_api_test PROPERTIES LABELS unit TIMEOUT 300)
