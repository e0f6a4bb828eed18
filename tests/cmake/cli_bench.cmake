# `onemodel bench` (docs/command-line.md, bench; issue 16): the JSON row's fields, the made inputs,
# the modes, and the error paths with the CLI's usual report and status.
if(TARGET onemodel_cli)
  set(cli_expect ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/support/cli_expect.py)
  set(cli $<TARGET_FILE:onemodel_cli>)
  set(samples ${CMAKE_SOURCE_DIR}/models/samples)
  set(bench_tmp ${CMAKE_BINARY_DIR}/cli_bench_test_files)
  file(MAKE_DIRECTORY ${bench_tmp})
  set(quick --reps 2 --warmup 1 --target-seconds 0.02 --max-calls 50)

  function(onemodel_bench_test name)
    add_test(NAME cli_bench_${name} COMMAND ${cli_expect} ${ARGN})
    set_tests_properties(cli_bench_${name} PROPERTIES LABELS unit TIMEOUT 120)
  endfunction()

  onemodel_bench_test(help --status 0 --stdout "usage: onemodel bench MODEL" -- ${cli} help bench)
  onemodel_bench_test(in_overview --status 0 --stdout "  bench MODEL .--input" -- ${cli} help)
  # The row: every field, the echo of mode and threads, at most --max-calls calls per repetition.
  onemodel_bench_test(json_row --status 0
                      --stdout "\"mode\":\"exact\",\"threads\":2,"
                      --stdout "\"reps\":2,\"calls_per_rep\":([1-9]|[1-4][0-9]|50),\"median_ms\":[0-9.e-]+,"
                      --stdout "\"call_median_ms\":[0-9.e-]+,\"call_p90_ms\":[0-9.e-]+,\"call_min_ms\":[0-9.e-]+,"
                      --stdout "\"allocs_per_iter\":[0-9.e-]+,\"alloc_bytes_per_iter\":[0-9.e-]+,\"peak_rss_mb\":[0-9.]+}"
                      --stdout "per call \\(bar: median of 2 repetitions\\) [0-9.]+ ms"
                      -- ${cli} bench ${samples}/classifier.onnx --input x=${samples}/classifier_x.npy --mode exact
                      --threads 2 ${quick} --json -)
  # A fixed-shape model runs without --input (made inputs); the reference engine too.
  onemodel_bench_test(made_inputs --status 0 --stdout "engine reference, mode fast, threads 1"
                      --stdout "single calls: median [0-9.]+ ms, p90 [0-9.]+ ms"
                      -- ${cli} bench ${samples}/wide.onnx --engine reference --threads 1 ${quick})
  onemodel_bench_test(symbolic_input --status 5
                      --stderr-line 0 "InvalidInput: bench: input 'x' has no fixed shape \\[batch, 4\\]: give --input x="
                      -- ${cli} bench ${samples}/classifier.onnx ${quick})
  onemodel_bench_test(unknown_input --status 5 --stderr-line 0 "InvalidInput: bench: the model has no input named 'y'"
                      -- ${cli} bench ${samples}/wide.onnx --input y=${samples}/classifier_x.npy ${quick})
  onemodel_bench_test(no_model --status 2 --stderr-line 0 "Usage: bench needs a model path" -- ${cli} bench)
  foreach(bad 0 x 1001)
    onemodel_bench_test(bad_reps_${bad} --status 2 --stderr-line 0 "Usage: bench: --reps takes 1 to 1000, not "
                        -- ${cli} bench ${samples}/wide.onnx --reps ${bad})
  endforeach()
  foreach(bad 0 -1 nan 4000 1s)
    onemodel_bench_test(bad_seconds_${bad} --status 2
                        --stderr-line 0 "Usage: bench: --target-seconds takes a number of seconds in .0, 3600."
                        -- ${cli} bench ${samples}/wide.onnx --target-seconds ${bad})
  endforeach()
  onemodel_bench_test(unknown_option --status 2 --stderr-line 0 "Usage: bench: unknown option '--runs'"
                      -- ${cli} bench ${samples}/wide.onnx --runs 3)
  onemodel_bench_test(missing_model --status 3 --stderr-line 0 "Io: " -- ${cli} bench ${bench_tmp}/no-such.onnx)
  onemodel_bench_test(unwritable_json --status 3 --stderr-line 0 "Io: cannot write the JSON file"
                      -- ${cli} bench ${samples}/wide.onnx --json ${bench_tmp}/no-such-dir/row.json ${quick})
endif()
