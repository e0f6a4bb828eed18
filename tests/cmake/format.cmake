# spec/format.md section 6: tools/format_check.py converts backend models with the command line
# and compares every initializer of the converted file, read by tools/format_read.py (written
# from the format text alone), with the ONNX tensors as the `onnx` package reads them.
if(TARGET onemodel_cli)
  set(ONEMODEL_FORMAT_CHECK_MODELS
      ${ONEMODEL_BACKEND_TEST_DIR}/pytorch-converted/test_BatchNorm2d_eval/model.onnx
      ${ONEMODEL_BACKEND_TEST_DIR}/pytorch-converted/test_Conv2d/model.onnx
      ${ONEMODEL_BACKEND_TEST_DIR}/pytorch-converted/test_Embedding/model.onnx
      ${ONEMODEL_BACKEND_TEST_DIR}/light/light_bvlc_alexnet.onnx
      ${ONEMODEL_BACKEND_TEST_DIR}/light/light_squeezenet.onnx)
  add_test(NAME format_check_backend_models
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/format_check.py
                   --cli $<TARGET_FILE:onemodel_cli> ${ONEMODEL_FORMAT_CHECK_MODELS})
  set_tests_properties(format_check_backend_models PROPERTIES LABELS unit TIMEOUT 600)
endif()
