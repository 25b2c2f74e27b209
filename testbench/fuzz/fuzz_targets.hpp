#pragma once
// The bodies of the fuzz targets (testbench/fuzz/README.md): one input in,
// every property checked, abort() with what failed on the first violation.
// The libFuzzer entry points (fuzz_parse_frame.cpp, fuzz_request_checks.cpp)
// call them in the clang fuzz build; fuzz_regression_test.cpp calls them on
// the committed corpus and the regression inputs in the main g++ build.
// Kernel-free: no SystemC, no simulation.
#include <cstddef>
#include <cstdint>

// Aborts, naming the condition, the line and the current input (when the
// caller gave one), when `cond` is false. Not compiled out: the checks are
// the point.
#define FUZZ_CHECK(cond)                                           \
  do {                                                             \
    if (!(cond)) ::rnicsim::fuzz::fail(#cond, __FILE__, __LINE__); \
  } while (false)

namespace rnicsim::fuzz {

[[noreturn]] void fail(const char* condition, const char* file, int line);

// The name FUZZ_CHECK prints with a failure (a corpus file's path); nullptr
// for none. The pointer is kept, not the string.
void set_input_name(const char* name);

// Bytes of the request_checks header in front of the frame, all fields
// little-endian (scripts/fuzz_seed_corpus.py writes the same layout):
//   0       view: bit 0 ready, bit 1 in_message, bit 2 message_is_send;
//           bits 3, 4: is_send and last for the stand-alone
//           check_message_length on the length below
//   1..3    view.expected_psn (24 bits)
//   4       view.pmtu = 256 << (byte % 5)
//   5       the QP's access flags (IBV_ACCESS_REMOTE_*)
//   6..13   bytes of the message so far (MIDDLE / LAST only)
//   14..21  the message's target length (a SEND's receive buffer; a WRITE's
//           RETH length for MIDDLE / LAST)
//   22..57  an MPT entry's first 36 bytes (interface/mpt_format.hpp layout)
//   58..61  key   62..69 va   70..77 length   78..81 access   82..85 pd
// A shorter input is zero-extended; the frame is what follows byte 85.
constexpr std::size_t kRequestChecksHeaderBytes = 86;

}  // namespace rnicsim::fuzz

// parse_frame with the ICRC computed and skipped, locate_icrc, and the
// build_frame round trip of a frame that parses.
void fuzz_parse_frame_one(const std::uint8_t* data, std::size_t size);

// The responder's decisions on one request: the header above, then a frame.
void fuzz_request_checks_one(const std::uint8_t* data, std::size_t size);
