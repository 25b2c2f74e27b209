# Fails the build when a program source (model/program/**) includes a block's
# header directly. Invoked by the build as
#   cmake -DROOT=<folder names are relative to> -DMODEL=<model dir>
#         -DFILES="a.cpp;b.hpp;..." -DKNOWN=<list> -DSTAMP=<file> -P this
# The program may include the testbed's public API: program/, system/,
# config/, common/, formats/, interface/, stage_view/ (the seed figure's own
# stages), and system headers. An include in angle brackets whose first folder
# is one of model/'s is the project's, held to the same rule; no include may
# climb with "..", which would reach a block by another spelling. KNOWN lists
# the block includes still left, one "<file> <header>" per line (# starts a
# comment); a listed include that is gone is an error too, so the list only
# shrinks.
cmake_minimum_required(VERSION 3.22)
set(allowed program/ system/ config/ common/ formats/ interface/ stage_view/)
set(known "")
file(STRINGS "${KNOWN}" known_lines)
foreach(line IN LISTS known_lines)
  string(REGEX REPLACE "#.*" "" line "${line}")
  string(STRIP "${line}" line)
  if(line)
    list(APPEND known "${line}")
  endif()
endforeach()
set(problems "")
set(seen "")
foreach(file IN LISTS FILES)
  file(RELATIVE_PATH relative "${ROOT}" "${file}")
  file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  foreach(include IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^\">]+)[\">].*" "\\1" header
           "${include}")
    if(include MATCHES "^[ \t]*#[ \t]*include[ \t]*<")
      set(shown "<${header}>")
      string(REGEX REPLACE "/.*" "" first_folder "${header}")
      if(header STREQUAL first_folder OR NOT IS_DIRECTORY "${MODEL}/${first_folder}")
        continue()  # a system or library header
      endif()
    else()
      set(shown "\"${header}\"")
    endif()
    if(header MATCHES "(^|/)\\.\\.(/|$)")
      string(APPEND problems
             "  ${relative} includes ${shown}, which climbs with \"..\": name the header "
             "from model/ (system/...)\n")
      continue()
    endif()
    set(ok FALSE)
    foreach(prefix IN LISTS allowed)
      string(FIND "${header}" "${prefix}" at)
      if(at EQUAL 0)
        set(ok TRUE)
      endif()
    endforeach()
    if(NOT ok)
      if("${relative} ${header}" IN_LIST known)
        list(APPEND seen "${relative} ${header}")
      else()
        string(APPEND problems
               "  ${relative} includes ${shown}, a block's header: reach the block through "
               "the testbed's public API (system/)\n")
      endif()
    endif()
  endforeach()
endforeach()
foreach(entry IN LISTS known)
  if(NOT entry IN_LIST seen)
    string(APPEND problems "  ${KNOWN}: \"${entry}\" is no longer included: remove the line\n")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "The program includes block headers:\n${problems}")
endif()
file(WRITE "${STAMP}" "checked\n")
