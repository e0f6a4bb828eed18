# tools/ulp_table/main.cpp: measures the exact transcendentals (reference/math/) against MPFR and
# writes docs/transcendentals-ulp.md. A measurement program, not a test: run it by hand in Release.
add_executable(ulp_table ${CMAKE_SOURCE_DIR}/tools/ulp_table/main.cpp)
target_include_directories(ulp_table PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(ulp_table PRIVATE onemodel mpfr gmp)
