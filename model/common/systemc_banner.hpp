#pragma once
// libsystemc prints its copyright banner from main(), before sc_main, unless
// SYSTEMC_DISABLE_COPYRIGHT_MESSAGE is set. Every program's sc_main file
// includes this header: the static initializer below runs before main(), so
// output (reports, test listings, benchmark tables) starts with our own words.
// A value already in the environment is kept.
#include <cstdlib>

namespace rnicsim {

inline const bool kSystemcBannerOff = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

}  // namespace rnicsim
