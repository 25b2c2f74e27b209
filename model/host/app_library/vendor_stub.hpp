#pragma once
// What the stub vendor libraries (libmlx5.so.1, libefa.so.1) answer for
// every entry point: the device is not theirs, as the real libraries
// answer for a device of another vendor. One line on standard error names
// the library and the function, errno = EOPNOTSUPP.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rnicsim::app {

inline void report_not_this_vendor(const char* library, const char* function) {
  char line[256];
  const int n = std::snprintf(line, sizeof line,
                              "rnicsim %s: %s is not supported: the simulated NIC has no "
                              "vendor extensions (model/host/app_library/README.md)\n",
                              library, function);
  if (n > 0) {
    const ssize_t written = write(STDERR_FILENO, line, std::strlen(line));
    (void)written;  // nothing to do if stderr is closed
  }
  errno = EOPNOTSUPP;
}

// One vendor library's refusals.
struct VendorRefusal {
  const char* library;
  // A pointer-returning entry point's: nullptr, errno set.
  template <class T>
  T* pointer(const char* function) const {
    report_not_this_vendor(library, function);
    return nullptr;
  }
  // An int-returning entry point's: the errno value.
  int status(const char* function) const {
    report_not_this_vendor(library, function);
    return EOPNOTSUPP;
  }
};

}  // namespace rnicsim::app
