# effective_config.json holds the values a run used: run again from it, the
# results are the same. Invoked as
#   cmake -DRNICSIM=... -DARGS="run|config|--set|k=v" -DOUT=dir -P check_rerun_effective.cmake
string(REPLACE "|" ";" ARGS "${ARGS}")
set(ENV{SYSTEMC_DISABLE_COPYRIGHT_MESSAGE} 1)
file(REMOVE_RECURSE "${OUT}/first" "${OUT}/again")
execute_process(COMMAND ${RNICSIM} ${ARGS} --out ${OUT}/first RESULT_VARIABLE first_exit
                OUTPUT_QUIET ERROR_VARIABLE first_err)
if(NOT first_exit EQUAL 0)
  message(FATAL_ERROR "first run failed (${first_exit}): ${first_err}")
endif()
execute_process(COMMAND ${RNICSIM} run ${OUT}/first/effective_config.json --out ${OUT}/again
                RESULT_VARIABLE again_exit OUTPUT_QUIET ERROR_VARIABLE again_err)
if(NOT again_exit EQUAL 0)
  message(FATAL_ERROR "run of effective_config.json failed (${again_exit}): ${again_err}")
endif()
foreach(file summary.json effective_config.json)
  file(READ "${OUT}/first/${file}" first)
  file(READ "${OUT}/again/${file}" again)
  if(NOT first STREQUAL again)
    message(FATAL_ERROR "${file} differs between the run and its rerun from effective_config.json")
  endif()
endforeach()
