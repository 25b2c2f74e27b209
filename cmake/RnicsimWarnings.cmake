# Strict warnings for project code only; verilated sources and system headers
# are compiled without them.
function(rnicsim_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                           -Wnon-virtual-dtor -Wold-style-cast)
endfunction()
