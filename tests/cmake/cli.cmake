# The `onemodel` command line: exit statuses and the `<Kind>: <message>` line (spec/errors.md
# section 4), and what `info` prints for the sample models (getting-started page).
if(TARGET onemodel_cli)
  set(cli_expect ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/cli_expect.py)
  set(cli $<TARGET_FILE:onemodel_cli>)
  set(samples ${CMAKE_SOURCE_DIR}/models/samples)
  set(cli_tmp ${CMAKE_BINARY_DIR}/cli_test_files)
  file(MAKE_DIRECTORY ${cli_tmp})

  function(onemodel_cli_test name)
    add_test(NAME cli_${name} COMMAND ${cli_expect} ${ARGN})
    set_tests_properties(cli_${name} PROPERTIES LABELS unit TIMEOUT 120)
  endfunction()

  # Model-file errors: status 3, the kind first, then where.
  onemodel_cli_test(missing_file --status 3 --stderr-line 0 "Io: " --stderr-line 1 "  .*in ${cli_tmp}/no-such-model.onnx$"
                    -- ${cli} info ${cli_tmp}/no-such-model.onnx)
  onemodel_cli_test(missing_file_dump --status 3 --stderr-line 0 "Io: "
                    -- ${cli} dump ${cli_tmp}/no-such-model.onnx)
  onemodel_cli_test(truncated_onnx --truncated ${samples}/classifier.onnx 100 ${cli_tmp}/truncated.onnx
                    --status 3 --stderr-line 0 "Malformed: " --stderr-line 1 "  at .*offset [0-9]+.*truncated.onnx$"
                    -- ${cli} info ${cli_tmp}/truncated.onnx)
  # The cookbook's broken file: a converted model cut at 4000 bytes.
  onemodel_cli_test(truncated_onemodel --converted ${cli} ${samples}/wide.onnx ${cli_tmp}/wide.onemodel
                    --truncated ${cli_tmp}/wide.onemodel 4000 ${cli_tmp}/broken.onemodel
                    --status 3 --stderr-line 0 "Malformed: " -- ${cli} dump ${cli_tmp}/broken.onemodel)
  onemodel_cli_test(empty_file --truncated ${samples}/classifier.onnx 0 ${cli_tmp}/empty.onnx
                    --status 3 --stderr-line 0 "(Malformed|InvalidModel): " -- ${cli} info ${cli_tmp}/empty.onnx)

  # Usage errors: status 2.
  onemodel_cli_test(bad_command --status 2 --stderr-line 0 "Usage: unknown command 'frobnicate'"
                    -- ${cli} frobnicate)
  onemodel_cli_test(no_command --status 2 --stderr-line 0 "Usage: " -- ${cli})
  onemodel_cli_test(bad_option --status 2 --stderr-line 0 "Usage: " -- ${cli} dump --frob ${samples}/scorer.onnx)
  onemodel_cli_test(convert_one_argument --status 2 --stderr-line 0 "Usage: " -- ${cli} convert ${samples}/scorer.onnx)
  onemodel_cli_test(info_two_models --status 2 --stderr-line 0 "Usage: "
                    -- ${cli} info ${samples}/scorer.onnx ${samples}/wide.onnx)
  onemodel_cli_test(each_without_dir --status 2 --stderr-line 0 "Usage: " -- ${cli} dump --each list.txt)
  onemodel_cli_test(help_unknown --status 2 --stderr-line 0 "Usage: " -- ${cli} help frobnicate)

  # Help and version.
  onemodel_cli_test(help --status 0 --stdout "^usage: onemodel <command>" -- ${cli} --help)
  onemodel_cli_test(help_word --status 0 --stdout "^usage: onemodel <command>" -- ${cli} help)
  onemodel_cli_test(help_dump --status 0 --stdout "^usage: onemodel dump MODEL" -- ${cli} help dump)
  onemodel_cli_test(version --status 0 --stdout "^onemodel ${PROJECT_VERSION}$" -- ${cli} --version)

  # info: the names, element types and dimensions the getting-started page gives the samples.
  onemodel_cli_test(info_classifier --status 0 --stdout "^format: ONNX$" --stdout "^opsets: ai.onnx=17$"
                    --stdout "^  x: float \\[batch, 4\\]$" --stdout "^  probs: float \\[batch, 3\\]$"
                    --stdout "^  Gemm: 2$" --stdout "^  Relu: 1$" --stdout "^  Softmax: 1$"
                    --stdout "^operators: 4 nodes$" -- ${cli} info ${samples}/classifier.onnx)
  onemodel_cli_test(info_scorer --status 0 --stdout "^  features: float \\[batch, 3\\]$"
                    --stdout "^  bias: float \\[1, 2\\]$" --stdout "^  score: float \\[batch, 2\\]$"
                    --stdout "^  best: float \\[batch\\]$" --stdout "^opsets: ai.onnx=13$"
                    -- ${cli} info ${samples}/scorer.onnx)
  onemodel_cli_test(info_converted --converted ${cli} ${samples}/classifier.onnx ${cli_tmp}/classifier.onemodel
                    --status 0 --stdout "^format: OneModel$" --stdout "^  x: float \\[batch, 4\\]$"
                    -- ${cli} info ${cli_tmp}/classifier.onemodel)
  # Several models in one dump: each after its `==> path <==` line.
  onemodel_cli_test(dump_several --status 0 --stdout "^==> ${samples}/scorer.onnx <==\nonemodel-dump 1$"
                    --stdout "^==> ${samples}/classifier.onnx <==\nonemodel-dump 1$"
                    -- ${cli} dump ${samples}/scorer.onnx ${samples}/classifier.onnx)
endif()
