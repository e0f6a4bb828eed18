# Conformance over the ONNX backend-test data (spec/conformance.md section 7): both engines in
# fast and exact mode over node/, simple/, pytorch-converted/ and pytorch-operator/
# through the command line, then tools/conformance_check.py against
# tests/conformance/expected.tsv (fails on any `fail` and on any expected pass that no longer
# passes). Label `conformance`. The two runs can go in parallel; the check waits for both.
# Without the data or the Python the tests are left out with a warning, and under
# ONEMODEL_REQUIRE_TEST_DATA (CI) that is a configure error (scripts/require_test_data.cmake).
include(${CMAKE_SOURCE_DIR}/tests/cmake/scripts/require_test_data.cmake)
set(conformance_data_present FALSE)
if(TARGET onemodel_cli)
  set(conformance_groups)
  foreach(group node simple pytorch-converted pytorch-operator)
    list(APPEND conformance_groups ${ONEMODEL_BACKEND_TEST_DIR}/${group})
  endforeach()
  onemodel_test_data_present(conformance_data_present "the conformance tests (tests/cmake/conformance.cmake)"
                             ${conformance_groups})
  # The check needs only Python's standard library: the project's Python, else python3.
  if(EXISTS ${ONEMODEL_PYTHON})
    set(conformance_python ${ONEMODEL_PYTHON})
  else()
    find_program(conformance_python NAMES python3)
  endif()
  if(conformance_data_present AND NOT conformance_python)
    onemodel_test_data_present(conformance_data_present "the conformance tests (tests/cmake/conformance.cmake)"
                               ${ONEMODEL_PYTHON})
  endif()
endif()
if(conformance_data_present)
  set(conformance_out ${CMAKE_BINARY_DIR}/conformance)
  file(MAKE_DIRECTORY ${conformance_out})
  set(conformance_tsvs)
  foreach(engine reference optimized)
    foreach(mode fast exact)
      add_test(NAME conformance_${engine}_${mode}
               COMMAND $<TARGET_FILE:onemodel_cli> conformance ${ONEMODEL_BACKEND_TEST_DIR}
                       --engine ${engine} --mode ${mode} --tsv ${conformance_out}/${engine}-${mode}.tsv)
      set_tests_properties(conformance_${engine}_${mode} PROPERTIES
          LABELS conformance TIMEOUT 600 FIXTURES_SETUP conformance_reference_runs)
      list(APPEND conformance_tsvs --tsv ${engine}-${mode}=${conformance_out}/${engine}-${mode}.tsv)
    endforeach()
  endforeach()
  # Whole-graph differential gating (DESIGN.md section 1): every case, exact mode, the optimized
  # engine at 1 and 2 threads gives the reference engine's bits; any difference fails the case.
  # Once per kernel path: ONEMODEL_ISA caps the optimized engine's path. A path this CPU lacks
  # (avx512 without AVX-512) is reported as skipped, never run on a lower path and counted as a
  # pass (scripts/run_on_kernel_path.cmake asks the golden tool).
  include(${CMAKE_SOURCE_DIR}/tools/golden/golden.cmake)
  foreach(isa scalar sse avx2 avx512)
    add_test(NAME conformance_engines_same_bits_${isa}
             COMMAND ${CMAKE_COMMAND} -DGOLDEN=$<TARGET_FILE:golden> -DCLI=$<TARGET_FILE:onemodel_cli>
                     -DDIR=${ONEMODEL_BACKEND_TEST_DIR}
                     -P ${CMAKE_SOURCE_DIR}/tests/cmake/scripts/run_on_kernel_path.cmake)
    set_tests_properties(conformance_engines_same_bits_${isa} PROPERTIES
        LABELS conformance TIMEOUT 900 ENVIRONMENT ONEMODEL_ISA=${isa}
        SKIP_REGULAR_EXPRESSION "ONEMODEL-PATH-NOT-AVAILABLE")
  endforeach()
  add_test(NAME conformance_check
           COMMAND ${conformance_python} ${CMAKE_SOURCE_DIR}/tools/conformance_check.py
                   --expected ${CMAKE_SOURCE_DIR}/tests/conformance/expected.tsv ${conformance_tsvs})
  set_tests_properties(conformance_check PROPERTIES
      LABELS conformance TIMEOUT 120 FIXTURES_REQUIRED conformance_reference_runs)
endif()

# The per-operator attribution of the generated table (spec/conformance.md section 6): needs only
# Python's standard library, so it runs wherever python3 is, data or not.
find_program(conformance_table_python NAMES python3)
if(conformance_table_python)
  add_test(NAME conformance_table_attribution
           COMMAND ${conformance_table_python} ${CMAKE_SOURCE_DIR}/tests/tools/conformance_table_test.py)
  set_tests_properties(conformance_table_attribution PROPERTIES LABELS "unit;conformance" TIMEOUT 60)
endif()
