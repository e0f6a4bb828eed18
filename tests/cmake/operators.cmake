# spec/operators.tsv is generated from the operator table (`onemodel operators`); this test fails
# when the committed file and the table differ. Regenerate with tools/update_operators_tsv.sh.
if(TARGET onemodel_cli)
  add_test(NAME operators_tsv_matches_table
           COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:onemodel_cli>
                   -DEXPECTED=${CMAKE_SOURCE_DIR}/spec/operators.tsv
                   -DACTUAL=${CMAKE_BINARY_DIR}/operators.tsv
                   -P ${CMAKE_SOURCE_DIR}/tests/cmake/scripts/compare_operators.cmake)
  set_tests_properties(operators_tsv_matches_table PROPERTIES LABELS unit)
endif()
