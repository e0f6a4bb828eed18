# tools/float8_sweep/main.cpp: every binary32 pattern narrowed to each 8-bit float format (saturate
# on and off, every E8M0 rounding) against the independent statement of
# tests/support/float8_reference.hpp (spec/tensors.md section 2.1). A long sweep, not a test: run
# it by hand (build/<dir>/float8_sweep [threads]).
add_executable(float8_sweep ${CMAKE_SOURCE_DIR}/tools/float8_sweep/main.cpp)
target_include_directories(float8_sweep PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(float8_sweep PRIVATE onemodel Threads::Threads)
