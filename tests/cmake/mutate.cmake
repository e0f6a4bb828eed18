# Mutation-testing smoke (issue 10, tools/mutate/): three transpose mutants (an off-by-one in the
# scalar tile, a short last piece of a long row, a block kernel overrunning its tail) applied one at a time to a
# private copy of this checkout, each rebuilt and run against transpose_test; the test fails unless
# every one is killed, the copy is restored and the checkout was never written. The copy and its
# build live in <build>/mutate-smoke (build type MutateSmoke: no optimisation flags, so the kernels
# library compiles quickly; the Checked tree itself is not touched). Label `mutate-smoke`.
find_program(ONEMODEL_PYTHON3 python3)
if(ONEMODEL_PYTHON3)
  add_test(NAME mutate_smoke
           COMMAND ${ONEMODEL_PYTHON3} ${CMAKE_SOURCE_DIR}/tools/mutate/run.py --src ${CMAKE_SOURCE_DIR}
                   --work ${CMAKE_BINARY_DIR}/mutate-smoke --build-type MutateSmoke
                   --only tr-03,tr-04,tr-10 --expect-killed)
  set_tests_properties(mutate_smoke PROPERTIES LABELS mutate-smoke TIMEOUT 900)
else()
  # Never silently absent: without python3 the test is registered and fails.
  add_test(NAME mutate_smoke COMMAND ${CMAKE_COMMAND} -E false)
  set_tests_properties(mutate_smoke PROPERTIES LABELS mutate-smoke)
endif()
