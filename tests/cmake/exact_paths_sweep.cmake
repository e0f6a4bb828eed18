# tools/exact_paths_sweep/main.cpp: every binary32 pattern through the exact exponential-based
# element-wise functions on every path this machine runs, against the SSE path (the AVX-512
# exponential's one-step scaling, lane_math.hpp). A long sweep, not a test: run it by hand
# (build/<dir>/exact_paths_sweep [threads]).
add_executable(exact_paths_sweep ${CMAKE_SOURCE_DIR}/tools/exact_paths_sweep/main.cpp)
target_include_directories(exact_paths_sweep PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(exact_paths_sweep PRIVATE onemodel Threads::Threads)
