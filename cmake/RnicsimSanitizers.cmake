# RNICSIM_SANITIZE=ON instruments every project target with ASan and UBSan.
# UBSan findings abort so that ctest reports them as failures.
if(RNICSIM_SANITIZE)
  # -O1, as the sanitizers' own documentation advises: the Debug build's -O0
  # made the sanitizer pass of the tests several times slower.
  # -g1 (line tables): a report still names file and line, and the build
  # compiles a fifth to a third faster than with the Debug build's full -g.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer -O1 -g1)
  add_link_options(-fsanitize=address,undefined)
endif()
