#pragma once
// MemoryTranslation: the NIC's memory protection and translation unit.
//
// A request (key, VA, length, access, PD, and the requester's tag) checks the
// key against its MPT entry and turns the virtually contiguous range into the
// physical segments of its scattered pages. Entries come from two
// set-associative caches (MPT, MTT); a miss sends the page-table walker to
// fetch the entry from the tables in host memory by DMA through `walker2dma`
// (bound to the DMA engine, so PCIe costs apply, or to host memory directly).
// An MTT miss fetches the missing entry plus `prefetch_entries` following ones
// of the same MR in one read.
//
// Requests come through the request port `nic2mtt`: the unit accepts one
// every initiation interval and looks it up `hit_cycles` later (the MPT and
// MTT lookups are pipelined), so hits overlap. A request that misses waits for
// its walk while later requests go on (hit under miss): responses may
// complete out of order, each carrying its requester's tag. The walker keeps
// at most `walker_outstanding` walks in flight; a miss on an entry whose walk
// is already pending joins it (like an MSHR), and every waiter gets the walk's
// result. One request's own walks are serial (the MTT walk needs the MPT entry
// first; pages in order), so a single caller sees hit latency plus its walks.
//
// Errors, checked in this order: key index beyond the MPT or entry not valid
// (invalid key), key variant differs (stale key), PD differs, access not
// granted, range outside the MR. A zero-length range needs no key (IB spec)
// and translates to no segments. Errors found without a walk complete at
// their lookup, in order with the hits around them.
//
// invalidate() drops cached entries. A walk already reading an invalidated
// entry completes for the requests waiting on it (they were looked up before
// the change) but installs nothing, and a later miss on that entry starts a
// walk of its own instead of joining it. A request that read its MPT entry
// before an invalidate completes with the tables as its walks read them, but
// installs none of its later walks either: the driver may reuse a freed page
// list without telling the unit, so nothing read on behalf of an old MPT entry
// may outlive the request. Requests looked up after an invalidate see only the
// tables as they are then.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "common/clock_domain.hpp"
#include "common/latency_histogram.hpp"
#include "common/memory_initiator.hpp"
#include "common/module_macros.hpp"
#include "common/ring_queue.hpp"
#include "common/statistics.hpp"
#include "interface/mpt_format.hpp"
#include "nic/protection/access_check.hpp"
#include "nic/translation/entry_cache.hpp"
#include "nic/translation/translation_cache.hpp"

namespace rnicsim {

std::string to_string(TranslationStatus status);

struct PhysicalSegment {
  std::uint64_t address = 0;
  std::uint64_t length = 0;
  bool operator==(const PhysicalSegment& o) const {
    return address == o.address && length == o.length;
  }
};

struct TranslationResult {
  TranslationStatus status = TranslationStatus::kOk;
  std::vector<PhysicalSegment> segments;  // physically contiguous pages merged
};

struct TranslationRequest {
  std::uint64_t tag = 0;  // the requester's own; comes back in the response
  std::uint32_t key = 0;
  std::uint64_t va = 0;
  std::uint64_t length = 0;
  std::uint32_t access = 0;  // IbvAccess flags the operation needs
  std::uint32_t pd = 0;
};

struct TranslationResponse {
  std::uint64_t tag = 0;
  TranslationResult result;
};

// A requester's side of the request port: where its responses arrive.
class TranslationRequester {
 public:
  // Called from one of the unit's processes at the response's time. The
  // response lives only during the call. It may call nb_submit, never wait.
  virtual void translation_done(const TranslationResponse& response) = 0;
  virtual ~TranslationRequester() = default;
};

// The request port. One request enters per initiation interval, whoever
// sends it, first come first served.
class TranslationRequestIf : public virtual sc_core::sc_interface {
 public:
  // Blocks the calling thread until the unit accepts the request.
  virtual void submit(TranslationRequester& from, const TranslationRequest& request) = 0;
  // Accepts the request now if the interval allows; otherwise returns false
  // and ready_event() fires when a request would be accepted.
  virtual bool nb_submit(TranslationRequester& from, const TranslationRequest& request) = 0;
  virtual const sc_core::sc_event& ready_event() const = 0;
};

struct MemoryTranslationConfig {
  IcmLayout icm;
  CacheGeometry mpt_cache;
  CacheGeometry mtt_cache;
  double clock_mhz = 0;
  std::uint32_t hit_cycles = 0;
  std::uint32_t initiation_interval_cycles = 1;
  std::uint32_t walker_outstanding = 1;  // walks in flight at once
  std::uint32_t prefetch_entries = 0;
  std::uint64_t seed = 0;  // random replacement
};

struct MemoryTranslationStats {
  std::uint64_t translations = 0;  // requests accepted
  std::uint64_t errors = 0;
  std::uint64_t mpt_walks = 0;
  std::uint64_t mtt_walks = 0;
  std::uint64_t mpt_merges = 0;   // MPT misses that joined a pending walk
  std::uint64_t mtt_merges = 0;   // MTT misses that joined a pending walk
  std::uint64_t stale_walks = 0;  // walks invalidated in flight (installed nothing)
  sc_core::sc_time walk_time;        // DMA time of every walk, summed
  sc_core::sc_time walk_queue_time;  // time walks waited for a free walker slot, summed
  std::uint64_t peak_walks_in_flight = 0;
  std::uint64_t peak_requests_in_flight = 0;  // accepted, not yet answered
};

// MemoryTranslationStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<MemoryTranslationStats>& translation_statistics();

class MemoryTranslation : public sc_core::sc_module, public TranslationRequestIf {
 public:
  sc_core::sc_export<TranslationRequestIf> nic2mtt;
  MemoryInitiator walker2dma;

  RNICSIM_PROCESS_MODULE(MemoryTranslation);
  // The caches come from `makers` (the model's unless a caller passes the
  // RTL's, nic/translation/translation_cache_rtl.hpp), made again by restart().
  MemoryTranslation(const sc_core::sc_module_name& name, const MemoryTranslationConfig& config,
                    EntryCacheMakers makers = {});

  void submit(TranslationRequester& from, const TranslationRequest& request) override;
  bool nb_submit(TranslationRequester& from, const TranslationRequest& request) override;
  const sc_core::sc_event& ready_event() const override { return ready_; }

  // Blocking convenience: submits, waits for the response and returns it.
  // Call from a thread.
  TranslationResult translate(std::uint32_t key, std::uint64_t va, std::uint64_t length,
                              std::uint32_t access, std::uint32_t pd);
  // The same, appending the segments to `segments` (kept as they were when
  // the status is not kOk): a caller that reuses its vector allocates nothing.
  TranslationStatus translate(std::uint32_t key, std::uint64_t va, std::uint64_t length,
                              std::uint32_t access, std::uint32_t pd,
                              std::vector<PhysicalSegment>& segments);

  // A blocking caller's shortcut for a lookup that cannot wait on anything:
  // when the port takes a request now, no lookup is queued or walk open, and
  // the cached entries decide the request (a hit, or an error its MPT entry
  // shows), the lookup is done now and true returned with `status` (and the
  // segments appended as translate() does). The caller then owes
  // hit_latency() before it acts on the answer. Otherwise nothing happens
  // and the caller uses translate(). No other lookup or walk can touch the
  // caches before the hit latency has passed, so the answer is the one
  // translate() gives then, with one exception: an invalidate() within that
  // latency is not seen by it (the lookup read the caches when it was
  // accepted, as hardware that looks up on acceptance would), only by later
  // requests. The request counts as in flight until its hit latency has
  // passed, as translate()'s would.
  bool translate_cached(std::uint32_t key, std::uint64_t va, std::uint64_t length,
                        std::uint32_t access, std::uint32_t pd,
                        std::vector<PhysicalSegment>& segments, TranslationStatus& status);
  const sc_core::sc_time& hit_latency() const { return hit_latency_; }

  // Sees the DMA time of every walk as it ends (for a distribution; the
  // stats keep only counts and the sum).
  using WalkObserver = std::function<void(const sc_core::sc_time& took)>;
  void set_walk_observer(WalkObserver observer) { walk_observer_ = std::move(observer); }

  // Starts a new design point of a sweep: both caches empty, as in a fresh
  // unit, the MTT cache with `mtt_cache`'s geometry. Call with no translation
  // in flight (std::logic_error otherwise); statistics keep counting. The
  // caches are new objects: references from mpt_cache() and mtt_cache() taken
  // before do not survive it. If the new MTT cache cannot be made (an RTL
  // cache at a geometry with no twin) it throws and the unit is unchanged.
  void restart(const CacheGeometry& mtt_cache);

  // Drops cached entries the driver has changed.
  void invalidate(std::uint32_t mpt_index, std::uint64_t first_mtt, std::uint32_t pages);
  // Where the tables are and how many entries each holds.
  const IcmLayout& icm() const { return config_.icm; }

  const MemoryTranslationStats& stats() const { return stats_; }
  const MptCache& mpt_cache() const { return *mpt_cache_; }
  // How long MPT (MTT) misses took, from the walk's queueing to its entry read.
  const LatencyHistogram& mpt_miss_latency() const { return mpt_miss_latency_; }
  const LatencyHistogram& mtt_miss_latency() const { return mtt_miss_latency_; }
  const PageCache& mtt_cache() const { return *mtt_cache_; }

 private:
  struct Walk;

  // A request from acceptance to response. Records are pooled: their number
  // is the most requests ever in flight at once, which the requesters bound.
  struct Pending {
    TranslationRequester* from = nullptr;
    TranslationRequest request;
    TranslationResponse response;  // its segments keep their capacity
    sc_core::sc_time lookup_at;
    MptEntry mpt;
    std::uint64_t mpt_generation = 0;  // invalidations_ when its MPT entry was read
    std::uint64_t at = 0;            // VA of the part still to translate
    std::uint64_t left = 0;          // its length
    std::uint64_t waiting_for = 0;   // the MTT entry it waits for
    Pending* next = nullptr;         // in the lookup queue, a walk's waiters or the free list
  };

  // One DMA read of the walker; also the miss-status entry that later
  // misses on the same entry join.
  struct Walk {
    bool mpt = false;          // an MPT entry, or `count` MTT entries
    std::uint64_t first = 0;   // entry index
    std::uint64_t count = 0;
    bool started = false;
    std::uint64_t generation = 0;  // invalidations_ when it started reading
    bool stale = false;  // its data may predate an invalidate: installs nothing, joins nobody
    sc_core::sc_time queued_at;
    Pending* waiters = nullptr;  // in the order they missed
    Pending* last_waiter = nullptr;
    Walk* next = nullptr;        // in the walk queue or the free list
  };

  // A thread blocked in translate(). Pooled, so that its event (whose list
  // of waiting threads SystemC grows on first use) is made once.
  struct BlockingCall final : TranslationRequester {
    void translation_done(const TranslationResponse& response) override;
    sc_core::sc_event done;
    bool answered = false;
    TranslationStatus status = TranslationStatus::kOk;
    std::vector<PhysicalSegment>* segments = nullptr;
  };

  struct WalkerSlot {
    Walk* walk = nullptr;
    sc_core::sc_event start;
    std::vector<std::uint8_t> buffer;
  };

  // Takes the request into the lookup pipeline now; its slot was booked.
  // Waits until the port takes a request (callers queue in call order).
  void wait_for_port();
  // `serves_itself`: the caller is a blocking translate() that looks its
  // request up itself, so the lookup stage is not woken for it.
  void accept(TranslationRequester& from, const TranslationRequest& request, bool serves_itself);
  void lookup_stage();  // SC_METHOD: looks requests up when their hit latency has passed
  // Looks up every request whose hit latency has passed, in order, and wakes
  // the lookup stage for the next one.
  void serve_due_lookups();
  void lookup(Pending& p);
  // Whether the caches hold every entry lookup(request) needs, so that it
  // answers without a walk (looks, does not touch the caches).
  bool cached(const TranslationRequest& request) const;
  void got_mpt(Pending& p, const MptEntry& mpt, std::uint64_t generation);
  void translate_pages(Pending& p);  // as far as the MTT cache allows
  void add_page(Pending& p, std::uint64_t frame);
  void finish(Pending& p, TranslationStatus status);
  void miss(Pending& p, bool mpt, std::uint64_t index);
  void dispatch(Walk& walk);
  void walker(std::size_t slot);  // one thread per walk slot
  void complete(Walk& walk, const std::uint8_t* data);
  // The MTT entry that maps `va` in the MR that `mpt` describes.
  static std::uint64_t mtt_index(const MptEntry& mpt, std::uint64_t va);

  MemoryTranslationConfig config_;
  ClockDomain clock_;
  sc_core::sc_time hit_latency_;
  sc_core::sc_time interval_;
  EntryCacheMakers makers_;
  std::unique_ptr<MptCache> mpt_cache_;
  std::unique_ptr<PageCache> mtt_cache_;
  MemoryTranslationStats stats_;
  WalkObserver walk_observer_;
  LatencyHistogram mpt_miss_latency_;
  LatencyHistogram mtt_miss_latency_;

  std::uint64_t invalidations_ = 0;
  sc_core::sc_time next_accept_;  // earliest time the port takes the next request
  sc_core::sc_event ready_;
  Pending* lookup_head_ = nullptr;  // accepted, in lookup order (lookup_at rises)
  Pending* lookup_tail_ = nullptr;
  sc_core::sc_event lookup_due_;
  std::vector<std::unique_ptr<Pending>> pending_pool_;
  Pending* free_pending_ = nullptr;
  std::uint64_t requests_in_flight_ = 0;
  // When the answers translate_cached() gave are due: in flight until then.
  RingQueue<sc_core::sc_time> cached_answers_due_;
  std::uint64_t cached_answers_in_flight(const sc_core::sc_time& now);

  std::vector<std::unique_ptr<Walk>> walk_pool_;
  Walk* free_walks_ = nullptr;
  std::vector<Walk*> open_walks_;  // queued or in flight: what a miss may join
  Walk* queue_head_ = nullptr;     // waiting for a slot, oldest first
  Walk* queue_tail_ = nullptr;
  // The last idle call, readied to append to `segments` (left in the pool).
  BlockingCall& idle_call(std::vector<PhysicalSegment>& segments);
  std::vector<std::unique_ptr<BlockingCall>> calls_;
  std::vector<BlockingCall*> idle_calls_;
  std::vector<std::unique_ptr<WalkerSlot>> slots_;
  std::vector<std::size_t> idle_slots_;
  std::uint64_t walks_in_flight_ = 0;
};

}  // namespace rnicsim
