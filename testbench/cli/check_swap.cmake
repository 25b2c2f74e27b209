# Swap-in check (ctest label "swap"): runs one `rnicsim perf` test with the
# model blocks and again with RTL twins in their place, and fails unless the
# two runs print the same results and put the same frames on the wire, byte
# for byte and at the same times (the pcap files are compared whole).
# -DRNICSIM=<binary> -DWORK=<folder> -DARGS=<perf arguments, '|'-separated>
# -DSWAP=<the --set arguments that swap RTL in, '|'-separated>
string(REPLACE "|" ";" args "${ARGS}")
string(REPLACE "|" ";" swap "${SWAP}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
foreach(side model rtl)
  set(extra "")
  if(side STREQUAL "rtl")
    set(extra ${swap})
  endif()
  # Each run its own --out: the default (rnicsim-out/perf_<test>) is shared by
  # every swap test of the same perftest test, which ctest runs in parallel.
  execute_process(COMMAND ${RNICSIM} perf ${args} ${extra} --pcap ${WORK}/${side}.pcap
                          --out ${WORK}/${side}
                  RESULT_VARIABLE exit OUTPUT_VARIABLE ${side}_out ERROR_VARIABLE err)
  if(NOT exit EQUAL 0)
    message(FATAL_ERROR "the ${side} run failed (exit ${exit}): ${err}")
  endif()
endforeach()
if(NOT model_out STREQUAL rtl_out)
  message(FATAL_ERROR "the runs print different results\n--- model:\n${model_out}\n--- rtl:\n${rtl_out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/model.pcap ${WORK}/rtl.pcap
                RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "the wires carried different frames or times (${WORK}/model.pcap, ${WORK}/rtl.pcap)")
endif()
file(SIZE ${WORK}/model.pcap size)
message(STATUS "same results and the same ${size}-byte capture with the RTL in place")
