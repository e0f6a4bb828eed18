# Runs the exact-mode twin conformance run (tests/cmake/conformance.cmake) under the ONEMODEL_ISA
# cap the test sets, unless that cap names a path this CPU lacks (avx512 without AVX-512): the
# golden tool answers that question (exit 77, tools/golden/isa_env.hpp), and this script then
# prints a marker that the test's SKIP_REGULAR_EXPRESSION reports as skipped, never as a pass
# (cmake -P cannot choose its exit status before CMake 3.29).
# Variables: GOLDEN, CLI, DIR.
execute_process(COMMAND ${GOLDEN} --engine optimized --list OUTPUT_QUIET RESULT_VARIABLE probe)
if(probe EQUAL 77)
  message("ONEMODEL-PATH-NOT-AVAILABLE: kernel path $ENV{ONEMODEL_ISA} is not available on this CPU: not run")
  return()
endif()
execute_process(COMMAND ${CLI} conformance ${DIR} --engine reference --mode exact --twin-threads 1,2
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "onemodel conformance --twin-threads 1,2 under ONEMODEL_ISA=$ENV{ONEMODEL_ISA} "
                      "exited with ${status}")
endif()
