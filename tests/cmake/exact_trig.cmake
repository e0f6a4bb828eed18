# tests/unit/exact_trig_test.cpp measures against MPFR (tests/support/mpfr_trig.hpp).
target_link_libraries(exact_trig_test PRIVATE mpfr gmp)
# tools/trig_ulp/main.cpp: measures them against MPFR and writes the last section of
# docs/transcendentals-ulp.md. A measurement program, not a test: run it by hand in Release.
add_executable(trig_ulp ${CMAKE_SOURCE_DIR}/tools/trig_ulp/main.cpp)
target_include_directories(trig_ulp PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(trig_ulp PRIVATE onemodel mpfr gmp)
