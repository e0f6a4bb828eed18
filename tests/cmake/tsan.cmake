# Concurrent runs of one session (tests/tsan/concurrency_test.cpp), label `tsan`. It runs in every
# test build (the Checked build gives it AddressSanitizer and UBSan); tools/test.sh also builds it
# alone with -DONEMODEL_SANITIZE=thread, which instruments the library and kernels too, and runs it
# under ThreadSanitizer. It needs only the library, diff/graph_builder.cpp and GoogleTest, so that
# build compiles nothing else.
add_executable(tsan_concurrency_test ${CMAKE_SOURCE_DIR}/tests/tsan/concurrency_test.cpp
                                     ${CMAKE_SOURCE_DIR}/diff/graph_builder.cpp)
target_include_directories(tsan_concurrency_test PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(tsan_concurrency_test PRIVATE onemodel GTest::gtest_main)
add_test(NAME tsan_concurrency COMMAND tsan_concurrency_test)
set_tests_properties(tsan_concurrency PROPERTIES LABELS tsan TIMEOUT 900)
