# Determinism under faults: runs one `rnicsim perf` test twice with the same
# config and seed, and fails unless both print the same results, write the
# same perf.json (counters included) and put the same frames on the wire at
# the same times; then once with another seed, which must put different
# frames on the wire (else the check could not tell a seed from none).
# -DRNICSIM=<binary> -DWORK=<folder> -DARGS=<perf arguments, '|'-separated>
string(REPLACE "|" ";" args "${ARGS}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
foreach(run first second other)
  set(extra "")
  if(run STREQUAL "other")
    set(extra --set seed=2)
  endif()
  execute_process(COMMAND ${RNICSIM} perf ${args} ${extra} --pcap ${WORK}/${run}.pcap
                          --json ${WORK}/${run}.json
                  RESULT_VARIABLE exit OUTPUT_VARIABLE ${run}_out ERROR_VARIABLE err)
  if(NOT exit EQUAL 0)
    message(FATAL_ERROR "the ${run} run failed (exit ${exit}): ${err}")
  endif()
endforeach()
if(NOT first_out STREQUAL second_out)
  message(FATAL_ERROR "the same seed printed different results\n--- first:\n${first_out}\n--- second:\n${second_out}")
endif()
foreach(file pcap json)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/first.${file}
                          ${WORK}/second.${file} RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "the same seed wrote different ${file} files (${WORK}/first.${file}, ${WORK}/second.${file})")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/first.pcap ${WORK}/other.pcap
                RESULT_VARIABLE differ)
if(differ EQUAL 0)
  message(FATAL_ERROR "seed 2 put the same frames on the wire as seed 1: the faults ignore the seed")
endif()
file(SIZE ${WORK}/first.pcap size)
message(STATUS "the same results, perf.json and ${size}-byte capture from the same seed")
