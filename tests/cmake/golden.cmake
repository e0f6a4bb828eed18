# Golden hashes (spec-source golden-hashes.md, exact-mode.md): the golden tool runs the committed
# graphs of tools/golden/ in exact mode and compares every output's SHA-256 with
# tests/golden/golden-exact.txt, which the reference engine produced. Exact mode promises the same
# bits on every instruction-set path and thread count, so the optimized engine runs under each
# ONEMODEL_ISA cap at 1 and 2 threads, and the reference engine checks that the file still holds
# its own results. Label `golden`. The aarch64 and WebAssembly rows: tools/cross/.
include(${CMAKE_SOURCE_DIR}/tools/golden/golden.cmake)

set(ONEMODEL_GOLDEN_EXPECT ${CMAKE_SOURCE_DIR}/tests/golden/golden-exact.txt)

add_test(NAME golden_reference
         COMMAND golden --engine reference --expect ${ONEMODEL_GOLDEN_EXPECT})
set_tests_properties(golden_reference PROPERTIES LABELS golden TIMEOUT 1800)

# A path this CPU lacks (avx512 without AVX-512) is not run: golden exits 77 and CTest reports the
# row as skipped, never as a pass (tools/golden/isa_env.hpp).
foreach(isa scalar sse avx2 avx512)
  foreach(threads 1 2)
    set(test_name golden_optimized_${isa}_t${threads})
    add_test(NAME ${test_name}
             COMMAND golden --engine optimized --threads ${threads} --expect ${ONEMODEL_GOLDEN_EXPECT})
    set_tests_properties(${test_name} PROPERTIES LABELS golden TIMEOUT 1800
                         ENVIRONMENT ONEMODEL_ISA=${isa} SKIP_RETURN_CODE 77)
  endforeach()
endforeach()

# The CTC decoder rows (tools/golden/ctc_rows.cpp, spec/ctc.md): the same file is compared under
# qemu-aarch64 and node by tools/cross/*.sh.
add_test(NAME golden_ctc COMMAND golden --ctc --expect ${CMAKE_SOURCE_DIR}/tests/golden/golden-ctc.txt)
set_tests_properties(golden_ctc PROPERTIES LABELS golden TIMEOUT 60)

# The expected file checked by a second implementation (Python and numpy, no library code) for a
# few matrix products: generator, exact-mode.md order and hash definition all confirmed. Without
# the Python it is left out with a warning, a configure error under ONEMODEL_REQUIRE_TEST_DATA.
include(${CMAKE_SOURCE_DIR}/tests/cmake/scripts/require_test_data.cmake)
onemodel_test_data_present(golden_python_present "golden_independent_matmul (tests/cmake/golden.cmake)"
                           ${ONEMODEL_PYTHON})
if(golden_python_present)
  add_test(NAME golden_independent_matmul
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/golden/independent_matmul_check.py
                   ${ONEMODEL_GOLDEN_EXPECT})
  set_tests_properties(golden_independent_matmul PROPERTIES LABELS golden TIMEOUT 300)
  # The random operators' draws (spec/ops/random.md) recomputed in Python from the spec.
  add_test(NAME golden_independent_random
           COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/golden/independent_random_check.py
                   ${ONEMODEL_GOLDEN_EXPECT})
  set_tests_properties(golden_independent_random PROPERTIES LABELS golden TIMEOUT 300)
endif()

# ---- golden node set (owner: tsan-golden; tools/golden/README.md, "Node cases") ----
# Every ONNX backend node case in exact mode against tests/golden/node-cases-exact.txt (written by
# the reference engine): the reference engine, then the optimized engine on every kernel path at 1
# and 2 threads. The data folder is not optional: without it the tool fails, so a CI run without
# the data fails instead of skipping these.
set(ONEMODEL_NODE_CASES_EXPECT ${CMAKE_SOURCE_DIR}/tests/golden/node-cases-exact.txt)
set(ONEMODEL_NODE_CASES_DIR ${ONEMODEL_BACKEND_TEST_DIR}/node)
add_test(NAME golden_node_cases_reference
         COMMAND golden --engine reference --node-cases ${ONEMODEL_NODE_CASES_DIR} --check ${ONEMODEL_NODE_CASES_EXPECT})
set_tests_properties(golden_node_cases_reference PROPERTIES LABELS golden TIMEOUT 1800)
foreach(isa scalar sse avx2 avx512)
  foreach(threads 1 2)
    set(test_name golden_node_cases_${isa}_t${threads})
    add_test(NAME ${test_name}
             COMMAND golden --engine optimized --threads ${threads} --node-cases ${ONEMODEL_NODE_CASES_DIR}
                     --check ${ONEMODEL_NODE_CASES_EXPECT})
    set_tests_properties(${test_name} PROPERTIES LABELS golden TIMEOUT 1800
                         ENVIRONMENT ONEMODEL_ISA=${isa} SKIP_RETURN_CODE 77)
  endforeach()
endforeach()
# The file checked without the library: its aggregate, and its hashes against ONNX's expected
# outputs wherever the two agree bit for bit (the hash definition confirmed by a second program).
add_test(NAME golden_node_cases_independent
         COMMAND ${ONEMODEL_PYTHON} ${CMAKE_SOURCE_DIR}/tests/golden/independent_node_case_check.py
                 ${ONEMODEL_NODE_CASES_EXPECT} ${ONEMODEL_NODE_CASES_DIR})
set_tests_properties(golden_node_cases_independent PROPERTIES LABELS golden TIMEOUT 600)
# ---- end of golden node set ----
