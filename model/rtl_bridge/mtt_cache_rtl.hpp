#pragma once
// The MTT cache the translation unit uses (mtt/page_cache.hpp), by its
// `mtt.mtt_cache_impl`: the model's, or the verilated rtl/mtt_cache clocked
// operation by operation.
//
// The RTL cache runs one cycle per operation the unit makes: a lookup,
// insert (the RTL's fill) or invalidate is offered alone and taken at the
// cycle's edge; a lookup's response, and its miss toward the walker, are
// read the cycle after, and both ports always take them, so nothing stalls.
// The unit's own walker answers the misses (the RTL's miss stream is checked
// to carry the looked-up index, then dropped). A peek reads the RTL's probe
// port, which neither counts nor touches the LRU order. The cycles are
// counted (PageCache::rtl_cycles), not charged: the model's cache takes no
// simulated time (MemoryTranslation charges the hit latency), so neither
// does its twin. A response the RTL does not give when the timing in
// rtl/mtt_cache/README.md says it must is a logic_error naming the operation.
//
// Only the geometries in kVerilatedPageCacheGeometries, with LRU
// replacement, have a twin; any other throws std::invalid_argument (the
// config rule in mtt/mtt_config.cpp refuses them first).
//
// Free of SystemC on purpose (icrc_rtl.hpp says why).
#include "common/block_impl.hpp"
#include "mtt/page_cache.hpp"

namespace rnicsim::rtl_bridge {

PageCacheMaker make_page_cache_maker(BlockImpl impl);

}  // namespace rnicsim::rtl_bridge
