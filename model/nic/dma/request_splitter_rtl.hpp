#pragma once
// The split engine the RequestSplitter uses (nic/dma/split_engine.hpp), by its
// `request_splitter.impl`: the model's, or the verilated rtl/request_splitter
// clocked request by request.
//
// The RTL engine runs the verilated model only while it has a request, with
// its TLP output never stalled (the link books whatever list it is given):
// the cycle that takes the request, then one TLP per cycle until the one
// marked last. A request taking any other number of cycles (1 + its TLPs) is
// a logic_error naming it. The cycles are counted (RequestSplitterStats::
// rtl_cycles), not charged: the model's splitter takes no simulated time, so
// neither does its twin, and the NIC's timing stays the model's.
//
// Free of SystemC on purpose (icrc_rtl.hpp says why).
#include <memory>

#include "common/block_impl.hpp"
#include "nic/dma/split_engine.hpp"

namespace rnicsim::rtl_bridge {

std::unique_ptr<SplitEngine> make_split_engine(BlockImpl impl, const TlpSizes& sizes);

}  // namespace rnicsim::rtl_bridge
