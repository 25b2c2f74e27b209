#pragma once
// For tests of configuration errors: the messages a CLI user reads.
#include <string>

#include "config/config.hpp"

namespace rnicsim::config {

// Runs `action` and returns the ConfigError's what(); any other exception
// escapes and fails the test on its own.
template <typename Action>
std::string config_error_of(Action&& action) {
  try {
    action();
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no ConfigError thrown";
}

}  // namespace rnicsim::config
