# tests/unit/half_conversion_test.cpp compares the binary16 and bfloat16 narrowing with MPFR's
# correctly rounded conversion (spec/half-precision.md section 7), so it links MPFR and GMP.
target_link_libraries(half_conversion_test PRIVATE mpfr gmp)
