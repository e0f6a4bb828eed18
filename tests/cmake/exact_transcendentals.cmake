# tests/unit/exact_transcendentals_test.cpp measures against MPFR (tests/support/mpfr_reference.hpp).
target_link_libraries(exact_transcendentals_test PRIVATE mpfr gmp)
