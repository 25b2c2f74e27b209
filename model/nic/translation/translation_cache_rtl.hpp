#pragma once
// The translation unit's caches (nic/translation/entry_cache.hpp), by `translation.mpt_cache_impl`
// and `translation.mtt_cache_impl`: the model's, or the verilated rtl/translation_cache
// clocked operation by operation.
//
// The RTL cache runs one cycle per operation the unit makes: a lookup,
// insert (the RTL's fill) or invalidate is offered alone and taken at the
// cycle's edge; a lookup's response, and its miss toward the walker, are
// read the cycle after, and both ports always take them, so nothing stalls.
// The unit's own walker answers the misses (the RTL's miss stream is checked
// to carry the looked-up index, then dropped). A peek reads the RTL's probe
// port, which neither counts nor touches the LRU order. The cycles are
// counted (EntryCache::rtl_cycles), not charged: the model's caches take no
// simulated time (MemoryTranslation charges the hit latency), so neither
// do their twins. A response the RTL does not give when the timing in
// rtl/translation_cache/README.md says it must is a logic_error naming the operation.
//
// The MTT cache's values are page addresses (VALUE_BITS 64); the MPT cache's
// are the first 36 bytes of the MPT entry's table format (mpt_format.hpp;
// the rest is reserved), VALUE_BITS 288. Only the geometries in
// kVerilatedMptCacheGeometries and kVerilatedTranslationCacheGeometries, with LRU
// replacement, have a twin; any other throws std::invalid_argument (the
// config rule in nic/translation/translation_config.cpp refuses them first).
//
// Free of SystemC on purpose (icrc_rtl.hpp says why).
#include "common/block_impl.hpp"
#include "nic/translation/entry_cache.hpp"

namespace rnicsim::rtl_bridge {

EntryCacheMaker<MptEntry> make_mpt_cache_maker(BlockImpl impl);
EntryCacheMaker<std::uint64_t> make_mtt_cache_maker(BlockImpl impl);
EntryCacheMakers make_entry_cache_makers(BlockImpl mpt_cache, BlockImpl mtt_cache);

}  // namespace rnicsim::rtl_bridge
