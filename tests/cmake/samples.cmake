# The sample models of the getting-started page: regenerated from tools/make_sample_models.py into
# the build folder, they must be byte-identical to the committed models/samples/*.onnx.
add_test(NAME samples_regenerate
         COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/make_sample_models.py
                 ${CMAKE_BINARY_DIR}/samples)
set_tests_properties(samples_regenerate PROPERTIES LABELS unit FIXTURES_SETUP sample_models)
foreach(sample classifier scorer wide)
  add_test(NAME samples_identical_${sample}
           COMMAND ${CMAKE_COMMAND} -E compare_files ${CMAKE_SOURCE_DIR}/models/samples/${sample}.onnx
                   ${CMAKE_BINARY_DIR}/samples/${sample}.onnx)
  set_tests_properties(samples_identical_${sample} PROPERTIES LABELS unit FIXTURES_REQUIRED sample_models)
endforeach()
