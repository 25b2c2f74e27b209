#pragma once
// The one way the simulator's libibverbs says a verb is not supported: one
// line on standard error naming the verb, and errno = EOPNOTSUPP. The
// exported stubs (unsupported_verbs.cpp) and the verbs_context's extended
// ops (verbs_library.cpp) both use it.

namespace rnicsim::app {

void report_unsupported(const char* verb);

}  // namespace rnicsim::app
