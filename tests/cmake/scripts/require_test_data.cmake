# Tests that need data or a Python outside the source tree (issue 10, "Gate holes"): the ONNX
# backend-test data (ONEMODEL_BACKEND_TEST_DIR), the Python of tools/setup.sh (ONEMODEL_PYTHON),
# the reference outputs in ~/onemodel. Such a test must never vanish silently.
#   ONEMODEL_REQUIRE_TEST_DATA ON  (CI: tools/test.sh sets it when CI=true, and it defaults to ON
#                                   when CI=true at configure time): a missing piece is a
#                                   configure error naming it (SEND_ERROR:
#                                   every missing piece is listed, nothing is generated).
#   ONEMODEL_REQUIRE_TEST_DATA OFF (a developer's checkout): the tests are not registered, and a
#                                   CMake warning says which and why.
# Included by the tests/cmake/*.cmake files that need it; not a test file itself (scripts/ is
# not globbed).
include_guard(GLOBAL)

if(NOT DEFINED ONEMODEL_REQUIRE_TEST_DATA)
  if("$ENV{CI}" STREQUAL "true")
    set(onemodel_require_default ON)
  else()
    set(onemodel_require_default OFF)
  endif()
  option(ONEMODEL_REQUIRE_TEST_DATA
         "Fail at configure time when test data or Python is missing instead of leaving tests out (CI)"
         ${onemodel_require_default})
endif()

# onemodel_test_data_present(<result-var> <tests> <path>...): sets <result-var> TRUE when every
# path exists. Otherwise: a configure error under ONEMODEL_REQUIRE_TEST_DATA, else a warning
# naming <tests> and the missing path, and FALSE.
function(onemodel_test_data_present result tests)
  foreach(path IN LISTS ARGN)
    if(NOT EXISTS "${path}")
      if(ONEMODEL_REQUIRE_TEST_DATA)
        message(SEND_ERROR "ONEMODEL_REQUIRE_TEST_DATA: ${tests} need ${path}, which does not exist "
                            "(run tools/setup.sh, or set ONEMODEL_BACKEND_TEST_DIR / ONEMODEL_PYTHON)")
        set(${result} FALSE PARENT_SCOPE)
        return()
      endif()
      message(WARNING "${tests} are not registered: ${path} does not exist "
                      "(run tools/setup.sh; with -DONEMODEL_REQUIRE_TEST_DATA=ON this is an error)")
      set(${result} FALSE PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${result} TRUE PARENT_SCOPE)
endfunction()
