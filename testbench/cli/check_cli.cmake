# Runs rnicsim once and checks what a user would see. Invoked by ctest as
#   cmake -DRNICSIM=... -DARGS="a|b|c" -DEXPECT_EXIT=N [-DEXPECT_STDERR=regex]
#         [-DEXPECT_STDOUT=regex] [-DEXPECT_STDOUT_LINES=N] [-DEXPECT_NO_PATH=path]
#         [-DEXPECT_FILES="p1|p2"] [-DPREPARE_DIR=path] [-DFRESH_PATH=path] -P check_cli.cmake
# PREPARE_DIR is created empty with a marker file before the run (to check that
# a failed run leaves an existing output folder alone). FRESH_PATH is removed
# before the run, so that outputs found afterwards are this run's.
string(REPLACE "|" ";" ARGS "${ARGS}")
string(REPLACE "|" ";" EXPECT_FILES "${EXPECT_FILES}")
if(PREPARE_DIR)
  file(REMOVE_RECURSE "${PREPARE_DIR}")
  file(MAKE_DIRECTORY "${PREPARE_DIR}")
  file(WRITE "${PREPARE_DIR}/marker" "old results\n")
endif()
if(EXPECT_NO_PATH)
  file(REMOVE_RECURSE "${EXPECT_NO_PATH}")
endif()
if(FRESH_PATH)
  file(REMOVE_RECURSE "${FRESH_PATH}")
endif()

set(ENV{SYSTEMC_DISABLE_COPYRIGHT_MESSAGE} 1)
execute_process(COMMAND ${RNICSIM} ${ARGS}
                RESULT_VARIABLE exit_code OUTPUT_VARIABLE out ERROR_VARIABLE err)

set(problems "")
if(NOT exit_code STREQUAL EXPECT_EXIT)
  string(APPEND problems "exit code ${exit_code}, expected ${EXPECT_EXIT}\n")
endif()
if(DEFINED EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
  string(APPEND problems "stderr does not match: ${EXPECT_STDERR}\n")
endif()
if(DEFINED EXPECT_STDOUT AND NOT out MATCHES "${EXPECT_STDOUT}")
  string(APPEND problems "stdout does not match: ${EXPECT_STDOUT}\n")
endif()
if(DEFINED EXPECT_STDOUT_LINES)
  string(REGEX MATCHALL "\n" newlines "${out}")
  list(LENGTH newlines lines)
  if(NOT lines EQUAL EXPECT_STDOUT_LINES)
    string(APPEND problems "stdout has ${lines} lines, expected ${EXPECT_STDOUT_LINES}\n")
  endif()
endif()
if(EXPECT_NO_PATH AND EXISTS "${EXPECT_NO_PATH}")
  string(APPEND problems "${EXPECT_NO_PATH} exists after a failed run\n")
endif()
if(EXPECT_NO_PATH)
  # Only this run's staging folder: other tests may be writing theirs beside it.
  file(GLOB leftovers "${EXPECT_NO_PATH}.partial-*")
  if(leftovers)
    string(APPEND problems "staging folders left behind: ${leftovers}\n")
  endif()
endif()
if(PREPARE_DIR AND NOT EXISTS "${PREPARE_DIR}/marker")
  string(APPEND problems "a failed run touched the existing ${PREPARE_DIR}\n")
endif()
foreach(f IN LISTS EXPECT_FILES)
  if(NOT EXISTS "${f}")
    string(APPEND problems "missing output ${f}\n")
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "rnicsim ${ARGS}\n${problems}--- stdout ---\n${out}--- stderr ---\n${err}")
endif()
