# tools/float4_sweep/main.cpp: every binary32 pattern converted to FLOAT4E2M1 and the 4- and 2-bit
# integer types, compared with independent computations. Not a CTest test (several minutes); run
# it by hand (build/<dir>/float4_sweep).
add_executable(float4_sweep ${CMAKE_SOURCE_DIR}/tools/float4_sweep/main.cpp)
target_include_directories(float4_sweep PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(float4_sweep PRIVATE onemodel)
