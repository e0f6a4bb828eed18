# `onemodel check` and bench_model_row on a tiny reference directory (tools/cli/cmd_check.cpp,
# bench/model_row/main.cpp; ../shared/spec-source/reference-models.md "Method", oracles.md
# "Reference outputs", bench-method.md). tests/data/refdata/ holds two tiny ONNX models and three
# reference directories whose outputs ONNX Runtime computed (tests/data/refdata/make.py): `good`
# must pass, `wrong` (one output element changed by 0.01) must fail, and `blocked` (an operator
# OneModel lacks) must be reported as blocked. The directories are assembled in the build tree
# at configure time, with the model's absolute path in index.json.
if(TARGET onemodel_cli)
  set(cli_expect ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/cli_expect.py)
  set(cli $<TARGET_FILE:onemodel_cli>)
  set(refdata_src ${CMAKE_SOURCE_DIR}/tests/data/refdata)
  set(refdata_dir ${CMAKE_BINARY_DIR}/check_command_test_files)
  foreach(which good wrong blocked)
    if(which STREQUAL "blocked")
      set(REFDATA_MODEL_FILE ${refdata_src}/blocked.onnx)
      set(files inputs/x.npy outputs/y.npy)
    else()
      set(REFDATA_MODEL_FILE ${refdata_src}/tiny.onnx)
      set(files inputs/x.npy outputs/y.npy outputs/cls.npy)
    endif()
    configure_file(${refdata_src}/${which}/index.json.in ${refdata_dir}/${which}/index.json @ONLY)
    foreach(file ${files})
      configure_file(${refdata_src}/${which}/${file} ${refdata_dir}/${which}/${file} COPYONLY)
    endforeach()
  endforeach()
  set(tiny_model ${refdata_src}/tiny.onnx)

  function(onemodel_check_test name)
    add_test(NAME check_command_${name} COMMAND ${cli_expect} ${ARGN})
    set_tests_properties(check_command_${name} PROPERTIES LABELS unit TIMEOUT 120)
  endfunction()

  # Both engines, both modes, 1 and 2 threads, 2 runs each: every row within the gate, the int64
  # output exact, every hash set equal.
  onemodel_check_test(pass --status 0 --stdout "\\ncheck: PASS\\n$"
                      --stdout "refdir\\tengine\\tmode\\tthreads\\toutput\\t"
                      --stdout "\\toptimized\\tfast\\t2\\ty\\tfloat32\\t\\[2, 3\\]\\t"
                      --stdout "\\treference\\texact\\t1\\tcls\\tint64\\t\\[2\\]\\t0.000e\\+00\\t"
                      --stdout "hashes\\t[^\\t]*\\toptimized\\texact\\ty\\tequal\\t1 distinct over 4 runs"
                      -- ${cli} check ${refdata_dir}/good --engine both)
  # The model given on the command line instead of the index's model_file.
  onemodel_check_test(model_option --status 0 --stdout "\\ncheck: PASS\\n$"
                      -- ${cli} check ${refdata_dir}/good --model ${tiny_model} --modes fast --threads 1)
  # One element of y off by 0.01: that output's rows fail, cls still passes, the exit status is 1.
  onemodel_check_test(wrong_output --status 1 --stdout "\\ncheck: FAIL \\(4 rows failed\\)\\n$"
                      --stdout "\\toptimized\\tfast\\t1\\ty\\t.*\\tFAIL \\(scaled error above 1.000e-04\\)"
                      --stdout "\\toptimized\\tfast\\t1\\tcls\\t.*\\tpass"
                      -- ${cli} check ${refdata_dir}/wrong)
  # A model using an operator OneModel does not serve (com.microsoft Inverse): blocked, named,
  # and a failure unless --allow-blocked.
  onemodel_check_test(blocked --status 1 --stdout "\\ncheck: FAIL \\(1 blocked\\)\\n$"
                      --stdout "^blocked\\t[^\\t]*\\toptimized\\tfast\\tUnsupportedOperator: com.microsoft.Inverse"
                      -- ${cli} check ${refdata_dir}/blocked --modes fast)
  onemodel_check_test(blocked_allowed --status 0 --stdout "\\ncheck: PASS \\(1 blocked, allowed by --allow-blocked\\)\\n$"
                      -- ${cli} check ${refdata_dir}/blocked --modes fast --allow-blocked)
  onemodel_check_test(no_dir --status 2 --stderr-line 0 "Usage: check needs at least one reference directory"
                      -- ${cli} check)
  onemodel_check_test(bad_modes --status 2 --stderr-line 0 "Usage: check: --modes takes"
                      -- ${cli} check ${refdata_dir}/good --modes fast,slow)
  onemodel_check_test(missing_dir --status 1 --stdout "\\ncheck: FAIL \\(1 errors\\)\\n$"
                      -- ${cli} check ${refdata_dir}/no-such-dir)

  # bench_model_row: one JSON line with the method's keys, within the gate.
  if(TARGET bench_model_row)
    onemodel_check_test(bench_row --status 0
                        --stdout "^\\{\"engine\":\"onemodel-optimized\",\"mode\":\"fast\",\"threads\":2,\"weights\":\"float32\",\"model\":\"tiny\",\"variant\":\"fp32\",\"batch\":2,\"load_ms\":"
                        --stdout "\"reps\":2,\"calls_per_rep\":[0-9]+,\"alloc_bytes_per_iter\":[0-9.e+-]+,\"allocs_per_iter\":[0-9.e+-]+,\"max_scaled_err\":[0-9.e+-]+,\"scaled_err\":\\{\"y\":[0-9.e+-]+,\"cls\":0\\},\"kernel_path\":\"[^\"]+\",\"version\":\"[0-9.]+\"\\}\\n$"
                        -- $<TARGET_FILE:bench_model_row> ${refdata_dir}/good --mode fast --threads 2 --reps 2
                           --target-seconds 0.02 --max-calls 50)
  endif()
endif()
