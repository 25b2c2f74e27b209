# Debian's python3-* packages (matplotlib for the plots, scapy for the ICRC
# check) install into Debian's own interpreter; a pyenv or venv python3 earlier
# on PATH does not see them. Pick the first interpreter that imports `module`;
# "" (with a note) if none does, and the caller decides what that costs.
function(rnicsim_find_python_importing module out_var)
  set(candidates /usr/bin/python3)
  find_program(_path_python3 python3)
  if(_path_python3)
    list(APPEND candidates ${_path_python3})
  endif()
  foreach(candidate IN LISTS candidates)
    if(EXISTS ${candidate})
      execute_process(COMMAND ${candidate} -c "import ${module}"
                      RESULT_VARIABLE result OUTPUT_QUIET ERROR_QUIET)
      if(result EQUAL 0)
        message(STATUS "python3 that imports ${module}: ${candidate}")
        # Cached so that scripts can read the choice from CMakeCache.txt.
        set(${out_var} ${candidate} CACHE INTERNAL "python3 that imports ${module}")
        return()
      endif()
    endif()
  endforeach()
  message(STATUS "No python3 imports ${module}")
  set(${out_var} "" CACHE INTERNAL "python3 that imports ${module}")
endfunction()
