#include "nic/congestion/rate_limiter_rtl.hpp"

#include "Vrate_limiter_nic.h"
#include "Vrate_limiter_nic___024root.h"

namespace rnicsim {

std::unique_ptr<RateLimiter> make_rtl_rate_limiter(const DcqcnParameters& parameters) {
  return std::make_unique<RtlRateLimiter<Vrate_limiter_nic, 10>>(parameters);
}

}  // namespace rnicsim
