# The installed package as a user meets it (issue 16): install, then build examples/cpp (shared
# and static), examples/c and a pkg-config C build against the installed tree only, run each on
# the sample classifier, check the SONAME and the exported symbols (tools/ci/check_install.sh).
# Needs the shared library (ONEMODEL_SHARED, on in Release builds).
if(ONEMODEL_SHARED)
  add_test(NAME install_package COMMAND bash ${CMAKE_SOURCE_DIR}/tools/ci/check_install.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(install_package PROPERTIES LABELS examples TIMEOUT 600)
endif()
