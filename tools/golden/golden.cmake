# The golden-hash tool (tools/golden/README.md). Included from tests/cmake/golden.cmake in test
# builds and from the end of CMakeLists.txt when ONEMODEL_TESTS is OFF (the aarch64 and
# WebAssembly builds), so it needs nothing but the library.
if(NOT TARGET golden)
  file(GLOB ONEMODEL_GOLDEN_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/golden/*.cpp)
  add_executable(golden ${ONEMODEL_GOLDEN_SOURCES})
  target_include_directories(golden PRIVATE ${CMAKE_SOURCE_DIR})
  target_link_libraries(golden PRIVATE onemodel)
endif()
