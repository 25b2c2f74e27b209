// libFuzzer entry point: the body is fuzz_targets.cpp's, shared with the
// regression test of the main build.
#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_request_checks_one(data, size);
  return 0;
}
