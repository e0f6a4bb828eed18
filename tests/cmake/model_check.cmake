# The reference-model gate (issue 5): tools/oracles/check_models.sh runs `onemodel check` on
# batch 1 of every reference model (fast and exact, 1 and 2 threads, twice each) against ONNX
# Runtime's outputs in $ONEMODEL_HOME. Without reference data (tools/setup.sh --oracles) the
# script exits 77: outside CI that is reported as skipped, never as passed, and a CMake warning at
# configure time says so; under ONEMODEL_REQUIRE_TEST_DATA (CI) a missing directory is a
# configure error, and exit 77 at test time is a failure (no SKIP_RETURN_CODE), its output naming
# the directory (scripts/require_test_data.cmake, issue 10).
include(${CMAKE_SOURCE_DIR}/tests/cmake/scripts/require_test_data.cmake)
if(TARGET onemodel_cli)
  # The directory the script reads (same rule: $ONEMODEL_HOME or ~/onemodel, then <os>-<arch>).
  if(DEFINED ENV{ONEMODEL_HOME} AND NOT "$ENV{ONEMODEL_HOME}" STREQUAL "")
    set(model_check_home "$ENV{ONEMODEL_HOME}")
  else()
    set(model_check_home "$ENV{HOME}/onemodel")
  endif()
  string(TOLOWER "${CMAKE_HOST_SYSTEM_NAME}" model_check_os)
  set(model_check_refroot "${model_check_home}/reference/${model_check_os}-${CMAKE_HOST_SYSTEM_PROCESSOR}")
  if(NOT EXISTS "${model_check_refroot}")
    if(ONEMODEL_REQUIRE_TEST_DATA)
      message(SEND_ERROR "ONEMODEL_REQUIRE_TEST_DATA: model_check needs ${model_check_refroot}, which does not "
                          "exist (run tools/setup.sh --oracles, or set ONEMODEL_HOME)")
    else()
      message(WARNING "model_check will be reported as skipped: ${model_check_refroot} does not exist "
                      "(run tools/setup.sh --oracles; with -DONEMODEL_REQUIRE_TEST_DATA=ON this is an error)")
    endif()
  endif()
  # Whisper-small's encoder (1500 frames, 12 layers) and decoder (a 51865-word head over cross-
  # attention to those frames) took about four fifths of this gate's time under AddressSanitizer
  # (session 35, Zen 3, Checked build, load 8-10: encoder 1333 s, decoder 269 s, the other six
  # 182 s together). They run as a test of their own with --repeat 1: each mode at 1 and 2 threads
  # once, so the hashes are still compared across thread counts; a second call on one session is
  # what the other models (and the session tests) keep checking.
  set(model_check_whisper whisper-enc,whisper-dec)
  add_test(NAME model_check
           COMMAND bash ${CMAKE_SOURCE_DIR}/tools/oracles/check_models.sh $<TARGET_FILE:onemodel_cli>
                   --except ${model_check_whisper})
  add_test(NAME model_check_whisper
           COMMAND bash ${CMAKE_SOURCE_DIR}/tools/oracles/check_models.sh $<TARGET_FILE:onemodel_cli>
                   --models ${model_check_whisper} --repeat 1)
  # The longest tests of the Checked tree: a high COST makes ctest start them first, so the rest of
  # the suite runs beside them on the other core instead of after them (model_check was RUN_SERIAL
  # once, which left one core idle for those minutes).
  set_tests_properties(model_check_whisper PROPERTIES LABELS models TIMEOUT 2400 COST 20000)
  set_tests_properties(model_check PROPERTIES LABELS models TIMEOUT 2400 COST 10000)
  if(NOT ONEMODEL_REQUIRE_TEST_DATA)
    set_tests_properties(model_check model_check_whisper PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endif()

# The float16 gate (issue 12, spec-source fp16.md "Accuracy against ONNX Runtime";
# tools/oracles/check_fp16.py) on MiniLM-L6, the float16 file both engines pass (docs/reference-models.md,
# "Gate results"): scaled error against ONNX Runtime's output on the same file at most 4e-3, against
# the float32 model at most 1.5 times ONNX Runtime's own, hashes equal over threads and runs; both
# engines and modes, 1 and 2 threads. The other float16 files are checked by hand (their gate results
# are recorded, some fail for reasons the page gives). Exit 77 without float16 reference data, as
# model_check.
if(TARGET onemodel_cli)
  add_test(NAME fp16_gate_minilm
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/oracles/check_fp16.py $<TARGET_FILE:onemodel_cli>
                   --models minilm-l6)
  set_tests_properties(fp16_gate_minilm PROPERTIES LABELS models TIMEOUT 1200 COST 5000)
  if(NOT ONEMODEL_REQUIRE_TEST_DATA)
    set_tests_properties(fp16_gate_minilm PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endif()

# The control-flow models (issue 13; tools/oracles/check_control_flow.sh): both engines, both
# modes, 1 and 2 threads against ONNX Runtime. Exit 77 without their reference data, as
# model_check.
if(TARGET onemodel_cli)
  add_test(NAME model_check_control_flow
           COMMAND bash ${CMAKE_SOURCE_DIR}/tools/oracles/check_control_flow.sh $<TARGET_FILE:onemodel_cli>)
  set_tests_properties(model_check_control_flow PROPERTIES LABELS models TIMEOUT 900 COST 3000)
  if(NOT ONEMODEL_REQUIRE_TEST_DATA)
    set_tests_properties(model_check_control_flow PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endif()

# The model zoo (issue 15; tools/oracles/check_zoo.sh): its CI subset, batch 1 of four cheap zoo
# models (GRU, bidirectional LSTM, the GPT-2 step on a key/value cache, SqueezeNet), optimized
# engine, fast and exact, 1 and 2 threads against ONNX Runtime. The whole zoo (--all, --full) is
# run by hand (docs/reference-models.md, "Model zoo (issue 15)"). Exit 77 without the zoo's
# reference data, as model_check.
if(TARGET onemodel_cli)
  add_test(NAME model_check_zoo
           COMMAND bash ${CMAKE_SOURCE_DIR}/tools/oracles/check_zoo.sh $<TARGET_FILE:onemodel_cli>)
  set_tests_properties(model_check_zoo PROPERTIES LABELS models TIMEOUT 600 COST 2000)
  if(NOT ONEMODEL_REQUIRE_TEST_DATA)
    set_tests_properties(model_check_zoo PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endif()

# The int8 gate (issue 14; tools/oracles/check_int8.sh, spec-source oracles.md "The int8 metric"):
# the CI subset of the quantized reference models (MiniLM-L6 and the Whisper decoder dynamic,
# MobileNetV3 static QDQ, batch 1), optimized engine, fast and exact, 1 and 2 threads, against ONNX
# Runtime's noise floor cached in each reference directory (floor.json, made by
# tools/oracles/setup.sh --models). The full table is run by hand with --full
# (docs/reference-models.md, "int8 variants"). Exit 77 without int8 reference data, as model_check.
if(TARGET onemodel_cli)
  add_test(NAME model_check_int8
           COMMAND ${CMAKE_COMMAND} -E env ONEMODEL_PYTHON=${ONEMODEL_PYTHON}
                   bash ${CMAKE_SOURCE_DIR}/tools/oracles/check_int8.sh $<TARGET_FILE:onemodel_cli>)
  set_tests_properties(model_check_int8 PROPERTIES LABELS models TIMEOUT 900 COST 3000)
  if(NOT ONEMODEL_REQUIRE_TEST_DATA)
    set_tests_properties(model_check_int8 PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endif()

# The int8 metric and floor tools themselves (tools/oracles/testing/test_int8_metric.py): hand-worked
# statistics and verdicts, and the floor's three sets on a tiny dynamically quantized graph (seconds;
# needs onnx and onnxruntime from build/venv).
add_test(NAME int8_metric_tools
         COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/oracles/testing/test_int8_metric.py)
set_tests_properties(int8_metric_tools PROPERTIES LABELS models TIMEOUT 120)

# The int8 gate's oracle where ONNX Runtime saturates u8 x s8 products (tools/oracles/int8_unsaturated.py;
# tools/oracles/testing/test_int8_unsaturated.py): the uint8-shifted model's results against int64 and
# numpy, and the saturation probe against the machine's own product (seconds; build/venv).
add_test(NAME int8_unsaturated_tools
         COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/oracles/testing/test_int8_unsaturated.py)
set_tests_properties(int8_unsaturated_tools PROPERTIES LABELS models TIMEOUT 120)

# The zoo's reference inputs (tools/oracles/testing/test_zoo_inputs.py): for every zoo model, batch 1
# is sample 0 of batch N, and shapes, dtypes, padding and the decoder's cache mask are the documented
# ones (seconds; needs numpy and onnxruntime from build/venv).
add_test(NAME zoo_inputs_tools
         COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tools/oracles/testing/test_zoo_inputs.py)
set_tests_properties(zoo_inputs_tools PROPERTIES LABELS models TIMEOUT 120)
