# The structural dump of every backend-test model, C++ importer against the onnx package
# (spec/dump.md, tools/compare_onnx_dump.py), and a check that the comparison can fail.
if(TARGET onemodel_cli)
  add_test(NAME dump_compare_onnx
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/compare_onnx_dump.py
                   --onemodel $<TARGET_FILE:onemodel_cli> --backend-dir ${ONEMODEL_BACKEND_TEST_DIR})
  set_tests_properties(dump_compare_onnx PROPERTIES LABELS unit TIMEOUT 600)

  # The same models after `onemodel convert`: the OneModel format keeps everything the dump shows.
  add_test(NAME dump_compare_onnx_converted
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/compare_onnx_dump.py --convert
                   --onemodel $<TARGET_FILE:onemodel_cli> --backend-dir ${ONEMODEL_BACKEND_TEST_DIR})
  set_tests_properties(dump_compare_onnx_converted PROPERTIES LABELS unit TIMEOUT 600)

  # One dump is changed after the C++ side wrote it: the comparison must report that model.
  add_test(NAME dump_compare_detects_difference
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/compare_onnx_dump.py
                   --onemodel ${CMAKE_SOURCE_DIR}/tests/support/tampering_onemodel.sh
                   --backend-dir ${ONEMODEL_BACKEND_TEST_DIR})
  set_tests_properties(dump_compare_detects_difference PROPERTIES LABELS unit TIMEOUT 600
      ENVIRONMENT "ONEMODEL_REAL=$<TARGET_FILE:onemodel_cli>"
      PASS_REGULAR_EXPRESSION "MISMATCH .*[0-9]+ models, [0-9]+ identical")
endif()

# Models the backend data rarely holds (every element type through typed fields and raw_data,
# strings, external data, sparse initializers, doc strings, metadata, functions), made by
# tests/support/make_dump_extra_models.py, compared as ONNX and after conversion.
add_test(NAME dump_extra_models_make
         COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/make_dump_extra_models.py
                 ${CMAKE_BINARY_DIR}/dump_extra_models)
set_tests_properties(dump_extra_models_make PROPERTIES LABELS unit FIXTURES_SETUP dump_extra_models)
if(TARGET onemodel_cli)
  add_test(NAME dump_compare_extra_models
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/compare_onnx_dump.py
                   --onemodel $<TARGET_FILE:onemodel_cli> --models-dir ${CMAKE_BINARY_DIR}/dump_extra_models)
  add_test(NAME dump_compare_extra_models_converted
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/compare_onnx_dump.py --convert
                   --onemodel $<TARGET_FILE:onemodel_cli> --models-dir ${CMAKE_BINARY_DIR}/dump_extra_models)
  set_tests_properties(dump_compare_extra_models dump_compare_extra_models_converted PROPERTIES
      LABELS unit TIMEOUT 300 FIXTURES_REQUIRED dump_extra_models)
endif()
