#pragma once
// Plots are drawn by Python scripts in scripts/ with Debian's matplotlib; the
// interpreter that imports it is found when the build is configured.
#include <filesystem>
#include <iosfwd>
#include <string>

namespace rnicsim {

// Runs scripts/<script> <folder>. A missing interpreter or a failing script is
// reported on `report` and does not fail the run: the data files stand alone.
// A stop request (SIGINT, SIGTERM) stops the script and throws Interrupted.
void draw_plot(const std::string& script, const std::filesystem::path& folder,
               std::ostream& report);

}  // namespace rnicsim
