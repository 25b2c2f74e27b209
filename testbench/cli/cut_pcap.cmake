# Writes OUT: the little-endian pcap IN cut after its first WHOLE records and
# EXTRA bytes of the next one, as a capture ends when the program writing it
# dies mid-record. Invoked by ctest as
#   cmake -DIN=file.pcap -DOUT=cut.pcap -DWHOLE=N -DEXTRA=M -P cut_pcap.cmake
file(READ "${IN}" magic LIMIT 4 HEX)
if(NOT magic MATCHES "^(d4c3b2a1|4d3cb2a1)$")
  message(FATAL_ERROR "${IN}: not a little-endian pcap file (magic ${magic})")
endif()
file(SIZE "${IN}" size)
set(offset 24)  # the global header
foreach(record RANGE 1 ${WHOLE})
  # Bytes 8-11 of a record header: the captured length, least significant first.
  file(READ "${IN}" header OFFSET ${offset} LIMIT 16 HEX)
  string(SUBSTRING "${header}" 16 8 length)
  string(REGEX REPLACE "^(..)(..)(..)(..)$" "\\4\\3\\2\\1" length "${length}")
  math(EXPR offset "${offset} + 16 + 0x${length}")
endforeach()
math(EXPR keep "${offset} + ${EXTRA}")
if(keep GREATER_EQUAL size)
  message(FATAL_ERROR "${IN} has only ${size} bytes; cannot keep ${keep} and cut the rest")
endif()
get_filename_component(out_dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${out_dir}")
execute_process(COMMAND head -c ${keep} "${IN}" OUTPUT_FILE "${OUT}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "head -c ${keep} ${IN} failed: ${result}")
endif()
