# tools/halfconv_sweep/main.cpp: every binary32 pattern narrowed by each path's bulk conversion
# against the scalar rules (spec/half-precision.md sections 2 and 4). A long sweep, not a test: run
# it by hand (build/<dir>/halfconv_sweep).
add_executable(halfconv_sweep ${CMAKE_SOURCE_DIR}/tools/halfconv_sweep/main.cpp)
target_include_directories(halfconv_sweep PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(halfconv_sweep PRIVATE onemodel)
