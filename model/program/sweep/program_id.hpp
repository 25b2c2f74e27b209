#pragma once
// Which build of rnicsim runs the points: a point's record names it, so a
// rebuilt model (whatever its version string) runs every point again.
#include <string>

namespace rnicsim::sweep {

// The running executable's GNU build ID in hex (the linker's hash of the
// program), or, where it has none, a hash of the executable file.
std::string program_id();

}  // namespace rnicsim::sweep
