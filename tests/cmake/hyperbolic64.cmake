# tests/unit/exact_hyperbolic64_test.cpp measures the exact binary64 hyperbolic functions and erf
# against MPFR (tests/support/mpfr_f64.hpp).
target_link_libraries(exact_hyperbolic64_test PRIVATE mpfr gmp)
