# tests/unit/pow_exact_test.cpp measures the exact Pow against MPFR and GMP (tests/support/mpfr_pow.hpp).
target_link_libraries(pow_exact_test PRIVATE mpfr gmp)
