# tools/pow_ulp/main.cpp: measures the exact Pow (reference/math/exact_pow.*) against MPFR and writes
# the pow section of docs/transcendentals-ulp.md. A measurement program, not a test: run it by hand.
add_executable(pow_ulp ${CMAKE_SOURCE_DIR}/tools/pow_ulp/main.cpp)
target_include_directories(pow_ulp PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(pow_ulp PRIVATE onemodel mpfr gmp)
