# Profile-guided optimization (GCC), for the simulator-speed builds:
#   RNICSIM_PGO=generate  instruments every target; running it writes
#                         execution counts into RNICSIM_PGO_DIR.
#   RNICSIM_PGO=use       compiles with those counts: GCC lays out hot paths,
#                         inlines and unrolls where the runs spent their time.
# scripts/build_pgo runs the three steps (instrumented build, training runs,
# optimized build). The simulated results do not change, only the speed
# (results/bench/README.md). -fprofile-prefix-path drops the build folder from
# the profile file names, so a profile made in one build folder is found by
# the compilation in another.
set(RNICSIM_PGO "" CACHE STRING "Profile-guided optimization: empty (off), generate or use")
set(RNICSIM_PGO_DIR "" CACHE PATH "Folder of the profile (RNICSIM_PGO generate or use)")
if(NOT RNICSIM_PGO MATCHES "^(generate|use)?$")
  message(FATAL_ERROR "RNICSIM_PGO: '${RNICSIM_PGO}' is none of generate, use or empty")
endif()
if(NOT RNICSIM_PGO STREQUAL "")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "RNICSIM_PGO: only GCC's profile format is supported")
  endif()
  if(RNICSIM_PGO_DIR STREQUAL "")
    message(FATAL_ERROR "RNICSIM_PGO=${RNICSIM_PGO} needs RNICSIM_PGO_DIR, the profile's folder")
  endif()
  set(pgo_common -fprofile-prefix-path=${CMAKE_BINARY_DIR})
  if(RNICSIM_PGO STREQUAL "generate")
    # One simulation thread: counters need no atomic updates.
    add_compile_options(-fprofile-generate=${RNICSIM_PGO_DIR} -fprofile-update=single
                        ${pgo_common})
    add_link_options(-fprofile-generate=${RNICSIM_PGO_DIR})
  else()  # use
    if(NOT IS_DIRECTORY ${RNICSIM_PGO_DIR})
      message(FATAL_ERROR "RNICSIM_PGO_DIR ${RNICSIM_PGO_DIR}: no such folder (run "
                          "scripts/build_pgo, or configure with -DRNICSIM_PGO= for no profile)")
    endif()
    # Code the training never ran (tests, other experiments) is compiled as
    # without a profile, not as if it never runs; files without a profile
    # are expected, hence no missing-profile warning. A file edited since the
    # training has a stale profile: GCC warns and ignores it for the changed
    # functions instead of failing the build (scripts/build_pgo retrains).
    add_compile_options(-fprofile-use=${RNICSIM_PGO_DIR} -fprofile-partial-training
                        -Wno-missing-profile -Wno-error=coverage-mismatch ${pgo_common})
    add_link_options(-fprofile-use=${RNICSIM_PGO_DIR})
  endif()
endif()
