# The sweep's case order, shards and merge (tools/sweep/, docs/sweeps.md): standard-library Python
# unit tests, no Ray needed. The sharded Ray sweep itself is checked against one process by
# tools/sweep/ci_check.sh, a step of tools/test.sh.
find_program(sweep_python NAMES python3)
if(sweep_python)
  add_test(NAME sweep_merge_unit COMMAND ${sweep_python} ${CMAKE_SOURCE_DIR}/tools/sweep/sweep_merge_test.py)
  set_tests_properties(sweep_merge_unit PROPERTIES LABELS unit TIMEOUT 60)
endif()
