# SPDX-License-Identifier: MIT
# openpim_add_exit_test(NAME name EXIT status EXPECT regex [ENVIRONMENT var=value ...] COMMAND cmd [args ...])
# A test of a command line whose output and exit status both matter: a refused
# argument must print its reason and exit 2, a caught mismatch exit 1.  The
# command's stdout and stderr together must match EXPECT, followed by its exit
# status (ctest by itself checks either the output or the status, not both).
function(openpim_add_exit_test)
  cmake_parse_arguments(A "" "NAME;EXIT;EXPECT" "ENVIRONMENT;COMMAND" ${ARGN})
  add_test(NAME ${A_NAME} COMMAND sh -c "\"$0\" \"$@\" 2>&1; echo \"exit=$?\"" ${A_COMMAND})
  set_tests_properties(${A_NAME} PROPERTIES PASS_REGULAR_EXPRESSION "${A_EXPECT}.*exit=${A_EXIT}")
  if(A_ENVIRONMENT)
    set_tests_properties(${A_NAME} PROPERTIES ENVIRONMENT "${A_ENVIRONMENT}")
  endif()
endfunction()
