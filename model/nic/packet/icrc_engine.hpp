#pragma once
// What computes the ICRC inside the ICRC blocks: the model's functions or the
// verilated RTL twin (rtl/icrc, through model/nic/rtl_bridge). Both answer the
// same question per frame, in the shape of the RTL's result port.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace rnicsim::packet {

struct IcrcVerdict {
  bool roce = false;       // a RoCEv2 frame by its headers (locate_icrc)
  std::uint32_t icrc = 0;  // its ICRC; meaningful when roce
  bool match = false;      // the frame's ICRC field holds that value; when roce
};

class IcrcEngine {
 public:
  virtual ~IcrcEngine() = default;
  // `frame`: the Ethernet header first, no FCS.
  virtual IcrcVerdict examine(const std::uint8_t* frame, std::size_t length) = 0;
  // "model", or the RTL block's folder ("rtl/icrc"): which one a block runs.
  virtual const char* name() const = 0;
};

// The model: locate_icrc and compute_icrc.
IcrcVerdict model_icrc_verdict(const std::uint8_t* frame, std::size_t length);
std::unique_ptr<IcrcEngine> make_model_icrc_engine();

}  // namespace rnicsim::packet
