#include "wire/pfc_unit_rtl.hpp"

#include "Vpfc_unit_w8.h"
#include "Vpfc_unit_w8___024root.h"

namespace rnicsim {

std::unique_ptr<PfcUnit> make_rtl_pfc_unit(const PfcConfig& config, double gbps,
                                           const packet::MacAddress& source) {
  const std::optional<std::uint64_t> quantum = whole_quantum_ps(gbps);
  if (!quantum) {
    throw std::invalid_argument("pfc.impl rtl counts whole picoseconds: a pause quantum at " +
                                std::to_string(gbps) + " Gbit/s is not one");
  }
  return std::make_unique<RtlPfcUnit<Vpfc_unit_w8, 8>>(config, *quantum, source);
}

}  // namespace rnicsim
