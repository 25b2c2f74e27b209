#include "program/experiments/plot.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <ostream>
#include <vector>

#include "common/simulation.hpp"

extern char** environ;

namespace rnicsim {

void draw_plot(const std::string& script, const std::filesystem::path& folder,
               std::ostream& report) {
  const std::string python = RNICSIM_PLOT_PYTHON;
  if (python.empty()) {
    report << "plot skipped: no python3 with matplotlib was found when rnicsim was built "
              "(scripts/setup installs python3-matplotlib)\n";
    return;
  }
  const std::string script_path = std::string(RNICSIM_SCRIPTS_DIR) + "/" + script;
  const std::string folder_text = folder.string();
  std::vector<char*> argv{const_cast<char*>(python.c_str()),
                          const_cast<char*>(script_path.c_str()),
                          const_cast<char*>(folder_text.c_str()), nullptr};
  pid_t pid = 0;
  int status = 0;
  if (posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    report << "plot failed: cannot start " << python << "\n";
    return;
  }
  // A stop request (SIGINT, SIGTERM) interrupts the wait: the plot is
  // stopped too, and reaped, before the run removes the folder it draws into.
  pid_t waited = 0;
  while ((waited = waitpid(pid, &status, 0)) == -1 && errno == EINTR) {
    if (stop_requested()) kill(pid, SIGTERM);
  }
  throw_if_stop_requested();
  if (waited != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    report << "plot failed: " << python << " " << script_path << " " << folder_text << "\n";
  }
}

}  // namespace rnicsim
