# tests/unit/exact_trig64_test.cpp measures the exact binary64 sin, cos, tan, atan, asin, acos
# against MPFR (tests/support/mpfr_trig64.hpp).
target_link_libraries(exact_trig64_test PRIVATE mpfr gmp)
# tools/trig64_ulp/main.cpp: measures them against MPFR and writes its section of
# docs/transcendentals-ulp.md (before f64_ulp's, which stays last). A measurement program, not a
# test: run it by hand in Release.
add_executable(trig64_ulp ${CMAKE_SOURCE_DIR}/tools/trig64_ulp/main.cpp)
target_include_directories(trig64_ulp PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(trig64_ulp PRIVATE onemodel mpfr gmp)
