# tests/unit/exact_f64_transcendentals_test.cpp measures the exact binary64 exp and log against
# MPFR (tests/support/mpfr_f64.hpp).
target_link_libraries(exact_f64_transcendentals_test PRIVATE mpfr gmp)
# tools/f64_ulp/main.cpp: measures them against MPFR and writes the last section of
# docs/transcendentals-ulp.md. A measurement program, not a test: run it by hand in Release.
add_executable(f64_ulp ${CMAKE_SOURCE_DIR}/tools/f64_ulp/main.cpp)
target_include_directories(f64_ulp PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(f64_ulp PRIVATE onemodel mpfr gmp)
