# Swap-in check (ctest label "swap"): runs one experiment with the model
# blocks and again with RTL twins in their place, and fails unless the two
# runs give the same results and put the same frames on the wire, byte for
# byte and at the same times (the pcap files are compared whole).
# -DRNICSIM=<binary> -DWORK=<folder> -DSWAP=<the --set arguments that swap RTL
# in, '|'-separated>, and either
#   -DARGS=<`rnicsim perf` arguments, '|'-separated>: a perf test, whose
#     printed results must match; or
#   -DCONFIG=<config> -DARGS=<--set arguments both runs take>: a fabric run,
#     whose results files and capture.pcap must match.
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
  if(DEFINED CONFIG)
    set(command run ${CONFIG} ${args} ${extra} --out ${WORK}/${side})
  else()
    set(command perf ${args} ${extra} --pcap ${WORK}/${side}.pcap --out ${WORK}/${side})
  endif()
  execute_process(COMMAND ${RNICSIM} ${command}
                  RESULT_VARIABLE exit OUTPUT_VARIABLE ${side}_out ERROR_VARIABLE err)
  if(NOT exit EQUAL 0)
    message(FATAL_ERROR "the ${side} run failed (exit ${exit}): ${err}")
  endif()
endforeach()
if(DEFINED CONFIG)
  # Everything the run measures; not effective_config.json (the impl keys
  # differ), statistics.json (it counts the RTL's cycles) or speed.json (wall time).
  set(compared capture.pcap summary.json flows.csv ports.csv queues.csv rates.csv throughput.csv)
  set(prefix ${WORK}/model/ ${WORK}/rtl/)
else()
  if(NOT model_out STREQUAL rtl_out)
    message(FATAL_ERROR "the runs print different results\n--- model:\n${model_out}\n--- rtl:\n${rtl_out}")
  endif()
  set(compared .pcap)
  set(prefix ${WORK}/model ${WORK}/rtl)
endif()
list(GET prefix 0 model_prefix)
list(GET prefix 1 rtl_prefix)
foreach(file ${compared})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${model_prefix}${file}
                          ${rtl_prefix}${file} RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "the runs differ in ${model_prefix}${file} and ${rtl_prefix}${file}")
  endif()
endforeach()
list(GET compared 0 capture)
file(SIZE ${model_prefix}${capture} size)
message(STATUS "same results and the same ${size}-byte capture with the RTL in place")
