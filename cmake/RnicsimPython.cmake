# Debian's python3-matplotlib installs into Debian's own interpreter; a pyenv or
# venv python3 earlier on PATH does not see it. Pick the first interpreter that
# imports matplotlib; the plotting step is skipped (with a note) if none does.
function(rnicsim_find_plot_python out_var)
  set(candidates /usr/bin/python3)
  find_program(_path_python3 python3)
  if(_path_python3)
    list(APPEND candidates ${_path_python3})
  endif()
  foreach(candidate IN LISTS candidates)
    if(EXISTS ${candidate})
      execute_process(COMMAND ${candidate} -c "import matplotlib"
                      RESULT_VARIABLE result OUTPUT_QUIET ERROR_QUIET)
      if(result EQUAL 0)
        message(STATUS "Plotting with ${candidate}")
        # Cached so that scripts can read the choice from CMakeCache.txt.
        set(${out_var} ${candidate} CACHE INTERNAL "python3 that imports matplotlib")
        return()
      endif()
    endif()
  endforeach()
  message(STATUS "No python3 with matplotlib found: plots will be skipped")
  set(${out_var} "" CACHE INTERNAL "python3 that imports matplotlib")
endfunction()
