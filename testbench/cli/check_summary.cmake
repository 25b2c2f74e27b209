# Runs rnicsim twice with the same config and seed and checks that the outputs
# are byte-identical, then checks a few figures of summary.json:
#   cmake -DRNICSIM=... -DARGS="run;cfg;--set;..." -DOUT=dir
#         -DEXPECT="paths.rdma.bottleneck=wire;..." -P check_summary.cmake
set(ENV{SYSTEMC_DISABLE_COPYRIGHT_MESSAGE} 1)
foreach(run IN ITEMS a b)
  execute_process(COMMAND ${RNICSIM} ${ARGS} --out "${OUT}/${run}"
                  RESULT_VARIABLE exit_code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT exit_code EQUAL 0)
    message(FATAL_ERROR "run ${run} failed (${exit_code}):\n${out}\n${err}")
  endif()
endforeach()
foreach(f IN ITEMS summary.json arrivals.csv trace.json stats.json effective_config.json)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUT}/a/${f}" "${OUT}/b/${f}"
                  RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "${f} differs between two runs with the same config and seed")
  endif()
endforeach()
file(READ "${OUT}/a/summary.json" summary)
foreach(check IN LISTS EXPECT)
  string(REPLACE "=" ";" parts "${check}")
  list(GET parts 0 json_path)
  list(GET parts 1 expected)
  string(REPLACE "." ";" members "${json_path}")
  string(JSON actual GET "${summary}" ${members})
  if(NOT actual STREQUAL expected)
    message(FATAL_ERROR "summary.json ${json_path} = ${actual}, expected ${expected}")
  endif()
endforeach()
