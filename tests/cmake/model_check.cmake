# The reference-model gate (issue 5): tools/oracles/check_models.sh runs `onemodel check` on
# batch 1 of every reference model (fast and exact, 1 and 2 threads, twice each) against ONNX
# Runtime's outputs in $ONEMODEL_HOME. Without reference data (tools/setup.sh --oracles) the test
# is reported as skipped (exit 77), never as passed.
if(TARGET onemodel_cli)
  add_test(NAME model_check
           COMMAND bash ${CMAKE_SOURCE_DIR}/tools/oracles/check_models.sh $<TARGET_FILE:onemodel_cli>)
  set_tests_properties(model_check PROPERTIES LABELS models TIMEOUT 2400 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
endif()
