#pragma once
// Which side a co-simulation test runs, from RNICSIM_COSIM_MODE:
// - "cross" (default): the RTL and the model, every answer compared;
// - "model": the model alone: the stimulus and its coverage counts, without
//   verilated code in the loop (a quick check of a new stimulus);
// - "rtl": the RTL alone: coverage counted from the RTL's answers, cycle
//   timing checked, nothing compared (a waveform without the model).
// Tests that need both sides (a fault that must be caught) or the RTL (its
// timing) skip themselves when their side is off.
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace rnicsim::cosim {

enum class CosimMode { kCrossCheck, kModelOnly, kRtlOnly };

inline CosimMode cosim_mode() {
  const char* text = std::getenv("RNICSIM_COSIM_MODE");
  if (text == nullptr || std::string(text) == "cross") return CosimMode::kCrossCheck;
  if (std::string(text) == "model") return CosimMode::kModelOnly;
  if (std::string(text) == "rtl") return CosimMode::kRtlOnly;
  throw std::invalid_argument(std::string("RNICSIM_COSIM_MODE: '") + text +
                              "' is not cross, model or rtl");
}

inline bool runs_rtl(CosimMode mode) { return mode != CosimMode::kModelOnly; }
inline bool runs_model(CosimMode mode) { return mode != CosimMode::kRtlOnly; }

}  // namespace rnicsim::cosim
