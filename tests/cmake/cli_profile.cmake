# `onemodel profile` (docs/command-line.md, profile; issue 15): the tables and the trace checked
# against the model (profile_check.py), and the error paths with the CLI's usual report and status.
if(TARGET onemodel_cli)
  set(cli_expect ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/cli_expect.py)
  set(cli $<TARGET_FILE:onemodel_cli>)
  set(samples ${CMAKE_SOURCE_DIR}/models/samples)
  set(profile_tmp ${CMAKE_BINARY_DIR}/cli_profile_test_files)
  file(MAKE_DIRECTORY ${profile_tmp})

  function(onemodel_profile_test name)
    add_test(NAME cli_profile_${name} COMMAND ${cli_expect} ${ARGN})
    set_tests_properties(cli_profile_${name} PROPERTIES LABELS unit TIMEOUT 120)
  endfunction()

  # Both engines, one and two threads: every node once, calls == runs, shares sum to 100, type
  # rows sum the node rows, runs x nodes trace events, fused nodes labelled, run's hashes.
  add_test(NAME cli_profile_tables_and_trace
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/profile_check.py ${cli}
                   ${samples}/classifier.onnx x=${samples}/classifier_x.npy ${profile_tmp}/classifier)
  set_tests_properties(cli_profile_tables_and_trace PROPERTIES LABELS unit TIMEOUT 300)
  add_test(NAME cli_profile_tables_and_trace_scorer
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/profile_check.py ${cli}
                   ${samples}/scorer.onnx features=${samples}/scorer_features.npy bias=${samples}/scorer_bias.npy
                   ${profile_tmp}/scorer)
  set_tests_properties(cli_profile_tables_and_trace_scorer PROPERTIES LABELS unit TIMEOUT 300)

  onemodel_profile_test(help --status 0 --stdout "usage: onemodel profile MODEL" -- ${cli} help profile)
  onemodel_profile_test(in_overview --status 0 --stdout "  profile MODEL --input" -- ${cli} help)
  onemodel_profile_test(no_model --status 2 --stderr-line 0 "Usage: profile needs a model path" -- ${cli} profile)
  foreach(bad 0 -1 x 1.5 100001)
    onemodel_profile_test(bad_runs_${bad} --status 2 --stderr-line 0 "Usage: profile: --runs takes 1 to 100000, not "
                          -- ${cli} profile ${samples}/classifier.onnx --input x=${samples}/classifier_x.npy
                          --runs ${bad})
  endforeach()
  onemodel_profile_test(bad_warmup --status 2 --stderr-line 0 "Usage: profile: --warmup takes 0 to 100000, not 'two'"
                        -- ${cli} profile ${samples}/classifier.onnx --warmup two)
  onemodel_profile_test(runs_no_value --status 2 --stderr-line 0 "Usage: profile: --runs needs a value"
                        -- ${cli} profile ${samples}/classifier.onnx --runs)
  onemodel_profile_test(bad_input_arg --status 2 --stderr-line 0 "Usage: profile: --input takes NAME=FILE.npy"
                        -- ${cli} profile ${samples}/classifier.onnx --input x)
  onemodel_profile_test(bad_mode --status 2 --stderr-line 0 "Usage: profile: --mode takes fast or exact"
                        -- ${cli} profile ${samples}/classifier.onnx --mode slow)
  onemodel_profile_test(unknown_option --status 2 --stderr-line 0 "Usage: profile: unknown option '--output-dir'"
                        -- ${cli} profile ${samples}/classifier.onnx --output-dir ${profile_tmp})
  # Inputs: none given, a name the model does not have, a missing .npy file.
  onemodel_profile_test(missing_input --status 5 --stderr-line 0 "InvalidInput: .*'x'"
                        -- ${cli} profile ${samples}/classifier.onnx)
  onemodel_profile_test(unknown_input --status 5 --stderr-line 0 "InvalidInput: .*'y'"
                        -- ${cli} profile ${samples}/classifier.onnx --input x=${samples}/classifier_x.npy
                        --input y=${samples}/classifier_x.npy)
  onemodel_profile_test(missing_npy --status 5 --stderr-line 0 "InvalidInput: .*no-such.npy: cannot open"
                        -- ${cli} profile ${samples}/classifier.onnx --input x=${profile_tmp}/no-such.npy)
  # The model file: missing, and not a model (the .npy file).
  onemodel_profile_test(missing_model --status 3 --stderr-line 0 "Io: " -- ${cli} profile ${profile_tmp}/no-such.onnx)
  onemodel_profile_test(bad_model --status 3 --stderr-line 0 "Malformed: "
                        -- ${cli} profile ${samples}/classifier_x.npy --input x=${samples}/classifier_x.npy)
  # A trace path that cannot be written: refused before any run, Io with the path, status 3.
  onemodel_profile_test(unwritable_trace --status 3 --stderr-line 0 "Io: cannot write the trace file"
                        --stderr-line 1 "  in .*no-such-dir/trace.json"
                        -- ${cli} profile ${samples}/classifier.onnx --input x=${samples}/classifier_x.npy
                        --trace ${profile_tmp}/no-such-dir/trace.json)
endif()
