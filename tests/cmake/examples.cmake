# The examples (issue 16): built and run on a sample, their output checked. examples/ocr/ocr_read
# reads the bundled strip examples/ocr/strip.ppm ("OneModel 2026" rendered by
# tools/oracles/make_ocr_strip.py, which also printed what ONNX Runtime reads from it) with the
# PP-OCRv4 recogniser of tools/models.json: greedy and beam CTC decoding, fast and exact mode.
include(${CMAKE_SOURCE_DIR}/tests/cmake/scripts/require_test_data.cmake)
add_executable(ocr_read ${CMAKE_SOURCE_DIR}/examples/ocr/ocr_read.cpp)
target_link_libraries(ocr_read PRIVATE onemodel)

if(DEFINED ENV{ONEMODEL_HOME} AND NOT "$ENV{ONEMODEL_HOME}" STREQUAL "")
  set(examples_home "$ENV{ONEMODEL_HOME}")
else()
  set(examples_home "$ENV{HOME}/onemodel")
endif()
set(examples_ocr_model "${examples_home}/models/ppocrv4_rec.onnx")
onemodel_test_data_present(examples_ocr_present "example_ocr_read_* (tests/cmake/examples.cmake)"
                           ${examples_ocr_model})
if(examples_ocr_present)
  foreach(variant "greedy_fast;" "greedy_exact;--mode;exact" "beam_fast;--beam;8")
    list(GET variant 0 variant_name)
    list(SUBLIST variant 1 -1 variant_args)
    add_test(NAME example_ocr_read_${variant_name}
             COMMAND ocr_read ${examples_ocr_model} ${CMAKE_SOURCE_DIR}/examples/ocr/strip.ppm ${variant_args})
    set_tests_properties(example_ocr_read_${variant_name} PROPERTIES LABELS examples TIMEOUT 300
                         PASS_REGULAR_EXPRESSION "text: OneModel 2026\n")
  endforeach()
endif()
