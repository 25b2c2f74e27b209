#pragma once
// Counts heap allocations by replacing the global operator new and delete.
// A replacement is defined once per program, so include this header in
// exactly one source file of a test program of its own (see
// testbench/CMakeLists.txt: the allocation tests). Under AddressSanitizer
// these replace ASan's own operator new and delete (and go through its
// malloc and free), so the count is the same there.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace rnicsim::testing {
// Calls of operator new since the program started.
inline std::atomic<std::uint64_t> allocations{0};
}  // namespace rnicsim::testing

void* operator new(std::size_t size) {
  ++rnicsim::testing::allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC's optimizer sees free() applied to memory from operator new once these
// replacements are inlined and warns; here the pairing is exactly what we want.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
