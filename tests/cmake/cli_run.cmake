# `onemodel run` and `onemodel conformance` on the command line (docs/command-line.md, run and
# conformance; spec/errors.md section 4): usage errors, the session and input exit statuses, an
# end-to-end run of a backend-test case checked with NumPy and hashlib, and a one-case sweep.
if(TARGET onemodel_cli)
  set(cli_expect ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/cli_expect.py)
  set(cli $<TARGET_FILE:onemodel_cli>)
  set(samples ${CMAKE_SOURCE_DIR}/models/samples)
  set(run_tmp ${CMAKE_BINARY_DIR}/cli_run_test_files)
  file(MAKE_DIRECTORY ${run_tmp})

  function(onemodel_run_test name)
    add_test(NAME cli_run_${name} COMMAND ${cli_expect} ${ARGN})
    set_tests_properties(cli_run_${name} PROPERTIES LABELS unit TIMEOUT 120)
  endfunction()

  onemodel_run_test(no_model --status 2 --stderr-line 0 "Usage: run needs a model path" -- ${cli} run)
  onemodel_run_test(bad_input_arg --status 2 --stderr-line 0 "Usage: run: --input takes NAME=FILE.npy"
                    -- ${cli} run ${samples}/classifier.onnx --input x)
  onemodel_run_test(bad_mode --status 2 --stderr-line 0 "Usage: run: --mode takes fast or exact"
                    -- ${cli} run ${samples}/classifier.onnx --mode slow)
  onemodel_run_test(bad_threads --status 2 --stderr-line 0 "Usage: run: --threads takes 0 to 256"
                    -- ${cli} run ${samples}/classifier.onnx --threads 999)
  # The memory limit (spec/session.md section 7): a malformed value is a usage error; a limit the
  # run passes stops it with ResourceExhausted, status 6, in both engines; a generous one runs.
  onemodel_run_test(bad_memory_limit --status 2 --stderr-line 0 "Usage: run: --memory-limit takes a byte count"
                    -- ${cli} run ${samples}/classifier.onnx --memory-limit 12X)
  onemodel_run_test(zero_memory_limit --status 2 --stderr-line 0 "Usage: run: --memory-limit takes a byte count"
                    -- ${cli} run ${samples}/classifier.onnx --memory-limit 0)
  foreach(engine optimized reference)
    onemodel_run_test(memory_limit_${engine} --status 6 --stderr-line 0 "ResourceExhausted: "
                      -- ${cli} run ${samples}/classifier.onnx --input x=${samples}/classifier_x.npy
                      --engine ${engine} --memory-limit 1)
    onemodel_run_test(memory_limit_generous_${engine} --status 0 --stdout " sha256=[0-9a-f]{64}$"
                      -- ${cli} run ${samples}/classifier.onnx --input x=${samples}/classifier_x.npy
                      --engine ${engine} --memory-limit 1G)
  endforeach()
  # The deadline (spec/session.md section 8): malformed values are usage errors; a deadline of 0
  # has passed when the run starts, so it stops with Cancelled, status 7, in both engines; a
  # generous one runs.
  foreach(bad 12X 1.5ms 1.2345 -3 ms)
    onemodel_run_test(bad_deadline_${bad} --status 2 --stderr-line 0 "Usage: run: --deadline takes seconds"
                      -- ${cli} run ${samples}/classifier.onnx --deadline ${bad})
  endforeach()
  foreach(engine optimized reference)
    onemodel_run_test(deadline_passed_${engine} --status 7 --stderr-line 0 "Cancelled: the run passed its deadline"
                      -- ${cli} run ${samples}/classifier.onnx --input x=${samples}/classifier_x.npy
                      --engine ${engine} --deadline 0)
    onemodel_run_test(deadline_generous_${engine} --status 0 --stdout " sha256=[0-9a-f]{64}$"
                      -- ${cli} run ${samples}/classifier.onnx --input x=${samples}/classifier_x.npy
                      --engine ${engine} --deadline 600)
  endforeach()
  # A missing .npy file and a file that is not .npy: input errors, status 5.
  onemodel_run_test(missing_npy --status 5 --stderr-line 0 "InvalidInput: .*no-such.npy: cannot open"
                    -- ${cli} run ${samples}/classifier.onnx --input x=${run_tmp}/no-such.npy)
  onemodel_run_test(not_npy --status 5 --stderr-line 0 "InvalidInput: .*classifier.onnx: not a .npy file"
                    -- ${cli} run ${samples}/classifier.onnx --input x=${samples}/classifier.onnx)
  onemodel_run_test(missing_model --status 3 --stderr-line 0 "Io: " -- ${cli} run ${run_tmp}/no-such-model.onnx)
  # Output names that would forge lines are printed escaped; a FIFO or a directory as the model or
  # an input is refused at once (the script limits each run to 20 s).
  add_test(NAME cli_run_names_and_file_types
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/run_names_check.py ${cli} ${run_tmp}/names)
  set_tests_properties(cli_run_names_and_file_types PROPERTIES LABELS unit TIMEOUT 120)
  # Compact weights (spec/session.md section 9): run --weights against a model rounded beforehand
  # by NumPy, convert --weights (half the size, compact marks, the same hashes), usage errors.
  add_test(NAME cli_run_compact_weights
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/compact_weights_check.py ${cli}
                   ${samples}/wide.onnx ${run_tmp}/compact)
  set_tests_properties(cli_run_compact_weights PROPERTIES LABELS unit TIMEOUT 300)
  onemodel_run_test(conformance_no_dir --status 2 --stderr-line 0 "Usage: conformance needs" -- ${cli} conformance)

  # Missing data: a warning here, a configure error under ONEMODEL_REQUIRE_TEST_DATA (CI).
  include(${CMAKE_SOURCE_DIR}/tests/cmake/scripts/require_test_data.cmake)
  onemodel_test_data_present(cli_run_identity_present "cli_run_identity_case and conformance_one_case"
                             ${ONEMODEL_BACKEND_TEST_DIR}/node/test_identity ${ONEMODEL_PYTHON})
  if(cli_run_identity_present)
    add_test(NAME cli_run_identity_case
             COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/run_check.py ${cli}
                     ${ONEMODEL_BACKEND_TEST_DIR}/node/test_identity ${run_tmp}/identity)
    set_tests_properties(cli_run_identity_case PROPERTIES LABELS unit TIMEOUT 120)
    onemodel_run_test(conformance_one_case --status 0
                      --stdout "^cases 1 pass 1 fail 0 unsupported-op 0 unsupported-type 0 not-exact 0 known-diff 0$"
                      -- ${cli} conformance ${ONEMODEL_BACKEND_TEST_DIR}/node/test_identity --engine reference --mode exact)
  endif()
endif()

# A sequence output (spec/values.md, docs/command-line.md "run"): SplitToSequence of a [3, 6]
# arange into pieces of 2 along axis 1; each element's hash is numpy's
# sha256(arange(18).reshape(3, 6)[:, 2k:2k+2].tobytes()), computed apart from the library.
if(TARGET onemodel_cli AND EXISTS ${ONEMODEL_BACKEND_TEST_DIR}/node/test_split_to_sequence_1/model.onnx)
  foreach(engine optimized reference)
    add_test(NAME cli_run_sequence_output_${engine}
             COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/cli_expect.py --status 0
                     --stdout "^seq sequence of 3 float$"
                     --stdout "^seq\\[0\\] float \\[3, 2\\] sha256=356746c98766446c5cb2eacd343fda2945621da25547cd80ff8f1cb9d0a7befb$"
                     --stdout "^seq\\[2\\] float \\[3, 2\\] sha256=7504c3a3702dd9f176e24c386e2dcb55b8e13413498b43779fd6a72a194f42a7$"
                     -- $<TARGET_FILE:onemodel_cli> run ${ONEMODEL_BACKEND_TEST_DIR}/node/test_split_to_sequence_1/model.onnx
                     --input data=${CMAKE_SOURCE_DIR}/tests/data/cli/seq_data_3x6.npy
                     --input split=${CMAKE_SOURCE_DIR}/tests/data/cli/seq_split_2.npy --engine ${engine})
    set_tests_properties(cli_run_sequence_output_${engine} PROPERTIES LABELS unit TIMEOUT 120)
  endforeach()
endif()
