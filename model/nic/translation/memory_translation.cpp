#include "nic/translation/memory_translation.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "common/time_units.hpp"

namespace rnicsim {
namespace {

std::uint64_t mtt_frame(const std::uint8_t* data, std::uint64_t entry) {
  std::uint64_t frame = 0;
  for (std::uint32_t b = 0; b < kMttEntryBytes; ++b) {
    frame |= static_cast<std::uint64_t>(data[entry * kMttEntryBytes + b]) << (8 * b);
  }
  return frame;
}

}  // namespace

std::string to_string(TranslationStatus status) {
  switch (status) {
    case TranslationStatus::kOk: return "ok";
    case TranslationStatus::kInvalidKey: return "invalid key";
    case TranslationStatus::kStaleKey: return "stale key";
    case TranslationStatus::kPdMismatch: return "PD mismatch";
    case TranslationStatus::kAccessDenied: return "access denied";
    case TranslationStatus::kOutOfBounds: return "out of bounds";
  }
  return "unknown";
}

MemoryTranslation::MemoryTranslation(const sc_core::sc_module_name& name,
                                     const MemoryTranslationConfig& config,
                                     EntryCacheMakers makers)
    : sc_core::sc_module(name),
      nic2mtt("nic2mtt"),
      walker2dma("walker2dma"),
      config_(config),
      clock_(config.clock_mhz),
      hit_latency_(clock_.cycles(config.hit_cycles)),
      interval_(clock_.cycles(config.initiation_interval_cycles)),
      makers_(std::move(makers)),
      mpt_cache_(makers_.mpt(config.mpt_cache, config.seed)),
      mtt_cache_(makers_.mtt(config.mtt_cache, config.seed + 1)) {
  if (config.initiation_interval_cycles == 0 || config.walker_outstanding == 0) {
    throw std::invalid_argument(std::string(this->name()) +
                                ": initiation interval and walker slots must be at least 1");
  }
  nic2mtt.bind(*this);
  SC_METHOD(lookup_stage);
  sensitive << lookup_due_;
  dont_initialize();

  const std::size_t buffer_bytes =
      std::max<std::size_t>(kMptEntryBytes, (std::size_t{1} + config.prefetch_entries) * kMttEntryBytes);
  for (std::size_t s = 0; s < config.walker_outstanding; ++s) {
    slots_.push_back(std::make_unique<WalkerSlot>());
    slots_.back()->buffer.resize(buffer_bytes);
    sc_core::sc_spawn([this, s] { walker(s); }, ("walker" + std::to_string(s)).c_str());
  }
  // Idle slots are taken from the back: slot 0 first.
  for (std::size_t s = config.walker_outstanding; s > 0; --s) idle_slots_.push_back(s - 1);
}

void MemoryTranslation::wait_for_port() {
  const sc_core::sc_time now = sim_now();
  // Callers queue for the port in call order: each books the next free slot.
  const sc_core::sc_time at = std::max(now, next_accept_);
  next_accept_ = at + interval_;
  if (at > now) sc_core::wait(at - now);
}

void MemoryTranslation::submit(TranslationRequester& from, const TranslationRequest& request) {
  wait_for_port();
  accept(from, request, false);
}

bool MemoryTranslation::nb_submit(TranslationRequester& from, const TranslationRequest& request) {
  const sc_core::sc_time now = sim_now();
  if (next_accept_ > now) {
    ready_.notify(next_accept_ - now);
    return false;
  }
  next_accept_ = now + interval_;
  accept(from, request, false);
  return true;
}

void MemoryTranslation::accept(TranslationRequester& from, const TranslationRequest& request,
                               bool serves_itself) {
  ++stats_.translations;
  Pending* p = free_pending_;
  if (p != nullptr) {
    free_pending_ = p->next;
  } else {
    pending_pool_.push_back(std::make_unique<Pending>());
    p = pending_pool_.back().get();
  }
  p->from = &from;
  p->request = request;
  p->response.tag = request.tag;
  p->response.result.status = TranslationStatus::kOk;
  p->response.result.segments.clear();
  const sc_core::sc_time now = sim_now();
  p->lookup_at = now + hit_latency_;
  p->next = nullptr;
  ++requests_in_flight_;
  stats_.peak_requests_in_flight = std::max(stats_.peak_requests_in_flight,
                                            requests_in_flight_ + cached_answers_in_flight(now));
  // Every request has the same hit latency, so lookups are due in acceptance
  // order. Whoever serves the head wakes the stage for the next one.
  if (lookup_tail_ != nullptr) {
    lookup_tail_->next = p;
  } else {
    lookup_head_ = p;
    if (!serves_itself) lookup_due_.notify(hit_latency_);
  }
  lookup_tail_ = p;
}

void MemoryTranslation::lookup_stage() { serve_due_lookups(); }

void MemoryTranslation::serve_due_lookups() {
  const sc_core::sc_time now = sim_now();
  while (lookup_head_ != nullptr && lookup_head_->lookup_at <= now) {
    Pending& p = *lookup_head_;
    lookup_head_ = p.next;
    if (lookup_head_ == nullptr) lookup_tail_ = nullptr;
    p.next = nullptr;
    lookup(p);
  }
  if (lookup_head_ != nullptr) lookup_due_.notify(lookup_head_->lookup_at - now);
}

void MemoryTranslation::lookup(Pending& p) {
  const TranslationRequest& r = p.request;
  if (r.length == 0) return finish(p, TranslationStatus::kOk);
  const std::uint32_t index = key_index(r.key);
  if (index >= config_.icm.mpt_entries) return finish(p, TranslationStatus::kInvalidKey);
  if (const auto mpt = mpt_cache_->lookup(index)) return got_mpt(p, *mpt, invalidations_);
  miss(p, true, index);
}

void MemoryTranslation::got_mpt(Pending& p, const MptEntry& mpt, std::uint64_t generation) {
  const TranslationRequest& r = p.request;
  const TranslationStatus status = check_region_access(r.key, mpt, r.va, r.length, r.access, r.pd);
  if (status != TranslationStatus::kOk) return finish(p, status);
  p.mpt = mpt;
  p.mpt_generation = generation;
  p.at = r.va;
  p.left = r.length;
  translate_pages(p);
}

std::uint64_t MemoryTranslation::mtt_index(const MptEntry& mpt, std::uint64_t va) {
  const std::uint64_t page = 1ULL << mpt.page_shift;
  return mpt.first_mtt + (va / page - mpt.base_va / page);
}

void MemoryTranslation::translate_pages(Pending& p) {
  while (p.left > 0) {
    const std::uint64_t index = mtt_index(p.mpt, p.at);
    const auto frame = mtt_cache_->lookup(index);
    if (!frame) return miss(p, false, index);
    add_page(p, *frame);
  }
  finish(p, TranslationStatus::kOk);
}

void MemoryTranslation::add_page(Pending& p, std::uint64_t frame) {
  const std::uint64_t page = 1ULL << p.mpt.page_shift;
  const std::uint64_t n = std::min(p.left, page - p.at % page);
  const std::uint64_t physical = frame + p.at % page;
  std::vector<PhysicalSegment>& segments = p.response.result.segments;
  if (!segments.empty() && segments.back().address + segments.back().length == physical) {
    segments.back().length += n;
  } else {
    segments.push_back({physical, n});
  }
  p.at += n;
  p.left -= n;
}

void MemoryTranslation::finish(Pending& p, TranslationStatus status) {
  p.response.result.status = status;
  if (status != TranslationStatus::kOk) ++stats_.errors;
  --requests_in_flight_;
  p.from->translation_done(p.response);
  p.next = free_pending_;
  free_pending_ = &p;
}

void MemoryTranslation::miss(Pending& p, bool mpt, std::uint64_t index) {
  p.waiting_for = index;
  Walk* walk = nullptr;
  for (Walk* w : open_walks_) {
    // A stale walk may hold data from before the change: only its own waiters get it.
    if (w->mpt == mpt && !w->stale && index >= w->first && index - w->first < w->count) {
      walk = w;
      break;
    }
  }
  if (walk != nullptr) {
    ++(mpt ? stats_.mpt_merges : stats_.mtt_merges);
  } else {
    walk = free_walks_;
    if (walk != nullptr) {
      free_walks_ = walk->next;
    } else {
      walk_pool_.push_back(std::make_unique<Walk>());
      walk = walk_pool_.back().get();
    }
    *walk = Walk{};
    walk->mpt = mpt;
    walk->first = index;
    // An MTT walk brings the following entries of the same MR in the same read.
    walk->count = mpt ? 1
                      : std::min<std::uint64_t>(1 + config_.prefetch_entries,
                                                p.mpt.first_mtt + p.mpt.pages - index);
    walk->queued_at = sim_now();
    if (!mpt && p.mpt_generation != invalidations_) {
      walk->stale = true;
      ++stats_.stale_walks;
    }
    open_walks_.push_back(walk);
    dispatch(*walk);
  }
  p.next = nullptr;
  if (walk->last_waiter != nullptr) {
    walk->last_waiter->next = &p;
  } else {
    walk->waiters = &p;
  }
  walk->last_waiter = &p;
}

void MemoryTranslation::dispatch(Walk& walk) {
  if (!idle_slots_.empty()) {
    WalkerSlot& slot = *slots_[idle_slots_.back()];
    idle_slots_.pop_back();
    slot.walk = &walk;
    slot.start.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  walk.next = nullptr;
  if (queue_tail_ != nullptr) {
    queue_tail_->next = &walk;
  } else {
    queue_head_ = &walk;
  }
  queue_tail_ = &walk;
}

void MemoryTranslation::walker(std::size_t s) {
  WalkerSlot& slot = *slots_[s];
  for (;;) {
    while (slot.walk == nullptr) sc_core::wait(slot.start);
    Walk& walk = *slot.walk;
    walk.started = true;
    walk.generation = invalidations_;
    const sc_core::sc_time start = sim_now();
    stats_.walk_queue_time += start - walk.queued_at;
    stats_.peak_walks_in_flight = std::max(stats_.peak_walks_in_flight, ++walks_in_flight_);
    const std::uint64_t address =
        walk.mpt ? config_.icm.mpt_base + walk.first * kMptEntryBytes
                 : config_.icm.mtt_base + walk.first * kMttEntryBytes;
    const std::size_t bytes = walk.mpt ? kMptEntryBytes : walk.count * kMttEntryBytes;
    sc_core::wait(walker2dma.read(address, slot.buffer.data(), bytes));
    const sc_core::sc_time took = sim_now() - start;
    --walks_in_flight_;
    ++(walk.mpt ? stats_.mpt_walks : stats_.mtt_walks);
    stats_.walk_time += took;
    if (walk_observer_) walk_observer_(took);
    (walk.mpt ? mpt_miss_latency_ : mtt_miss_latency_).add(sim_now() - walk.queued_at);
    complete(walk, slot.buffer.data());

    slot.walk = queue_head_;
    if (queue_head_ != nullptr) {
      queue_head_ = queue_head_->next;
      if (queue_head_ == nullptr) queue_tail_ = nullptr;
    } else {
      idle_slots_.push_back(s);
    }
  }
}

void MemoryTranslation::complete(Walk& walk, const std::uint8_t* data) {
  // Closed before the waiters go on, so their next misses never join it.
  open_walks_.erase(std::find(open_walks_.begin(), open_walks_.end(), &walk));
  const bool mpt = walk.mpt;
  const std::uint64_t first = walk.first;
  const std::uint64_t generation = walk.stale ? walk.generation : invalidations_;
  MptEntry entry;
  if (mpt) entry = decode_mpt(data);
  if (!walk.stale) {
    if (mpt) {
      mpt_cache_->insert(first, entry);
    } else {
      for (std::uint64_t i = 0; i < walk.count; ++i) mtt_cache_->insert(first + i, mtt_frame(data, i));
    }
  }
  Pending* p = walk.waiters;
  walk.next = free_walks_;
  free_walks_ = &walk;
  while (p != nullptr) {
    Pending* next = p->next;
    p->next = nullptr;
    if (mpt) {
      got_mpt(*p, entry, generation);
    } else {
      add_page(*p, mtt_frame(data, p->waiting_for - first));
      translate_pages(*p);
    }
    p = next;
  }
}

TranslationResult MemoryTranslation::translate(std::uint32_t key, std::uint64_t va,
                                               std::uint64_t length, std::uint32_t access,
                                               std::uint32_t pd) {
  TranslationResult result;
  result.status = translate(key, va, length, access, pd, result.segments);
  return result;
}

void MemoryTranslation::BlockingCall::translation_done(const TranslationResponse& response) {
  status = response.result.status;
  if (status == TranslationStatus::kOk) {
    segments->insert(segments->end(), response.result.segments.begin(),
                     response.result.segments.end());
  }
  answered = true;
  done.notify();
}

TranslationStatus MemoryTranslation::translate(std::uint32_t key, std::uint64_t va,
                                               std::uint64_t length, std::uint32_t access,
                                               std::uint32_t pd,
                                               std::vector<PhysicalSegment>& segments) {
  BlockingCall& call = idle_call(segments);
  idle_calls_.pop_back();  // it waits: another call must not take it meanwhile
  wait_for_port();
  accept(call, TranslationRequest{0, key, va, length, access, pd}, true);
  // The caller looks its request up itself when the hit latency has passed,
  // with any due before it, in order: a hit then costs no other process a
  // wake-up. The lookup stage may have served it already (a request ahead
  // of it woke the stage for the same time); a miss answers later.
  sc_core::wait(hit_latency_);
  if (!call.answered) serve_due_lookups();
  while (!call.answered) sc_core::wait(call.done);
  idle_calls_.push_back(&call);
  return call.status;
}

bool MemoryTranslation::cached(const TranslationRequest& r) const {
  if (r.length == 0) return true;
  const std::uint32_t index = key_index(r.key);
  if (index >= config_.icm.mpt_entries) return true;  // an invalid key needs no entry
  const auto mpt = mpt_cache_->peek(index);
  if (!mpt) return false;
  if (check_region_access(r.key, *mpt, r.va, r.length, r.access, r.pd) != TranslationStatus::kOk)
    return true;
  const std::uint64_t last = mtt_index(*mpt, r.va + r.length - 1);
  for (std::uint64_t i = mtt_index(*mpt, r.va); i <= last; ++i) {
    if (!mtt_cache_->peek(i)) return false;
  }
  return true;
}

bool MemoryTranslation::translate_cached(std::uint32_t key, std::uint64_t va,
                                         std::uint64_t length, std::uint32_t access,
                                         std::uint32_t pd, std::vector<PhysicalSegment>& segments,
                                         TranslationStatus& status) {
  const TranslationRequest request{0, key, va, length, access, pd};
  if (next_accept_ > sim_now() || lookup_head_ != nullptr || !open_walks_.empty() ||
      !cached(request)) {
    return false;
  }
  // Answered before this returns, with no wait: the call stays idle.
  BlockingCall& call = idle_call(segments);
  wait_for_port();  // free now: books the port without waiting
  accept(call, request, true);
  // The only request queued: looked up now, as it would be when due.
  Pending& p = *lookup_head_;
  lookup_head_ = lookup_tail_ = nullptr;
  lookup(p);
  if (!call.answered) {  // cached() and lookup() disagree: a model bug
    throw std::logic_error(std::string(name()) + ": a cached lookup was not answered at once");
  }
  status = call.status;
  cached_answers_due_.push_back(sim_now() + hit_latency_);
  return true;
}

std::uint64_t MemoryTranslation::cached_answers_in_flight(const sc_core::sc_time& now) {
  while (!cached_answers_due_.empty() && cached_answers_due_.front() <= now) {
    cached_answers_due_.pop_front();
  }
  return cached_answers_due_.size();
}

MemoryTranslation::BlockingCall& MemoryTranslation::idle_call(
    std::vector<PhysicalSegment>& segments) {
  if (idle_calls_.empty()) {
    calls_.push_back(std::make_unique<BlockingCall>());
    idle_calls_.push_back(calls_.back().get());
  }
  BlockingCall& call = *idle_calls_.back();
  call.answered = false;
  call.segments = &segments;
  return call;
}

void MemoryTranslation::restart(const CacheGeometry& mtt_cache) {
  // With none in flight no walk is open either (a walk lives for its waiters).
  if (requests_in_flight_ + cached_answers_in_flight(sim_now()) != 0) {
    throw std::logic_error(std::string(name()) + ": restart with translations in flight");
  }
  // Both made before either is replaced: a maker that throws changes nothing.
  std::unique_ptr<MptCache> mpt = makers_.mpt(config_.mpt_cache, config_.seed);
  std::unique_ptr<PageCache> mtt = makers_.mtt(mtt_cache, config_.seed + 1);
  config_.mtt_cache = mtt_cache;
  mpt_cache_ = std::move(mpt);
  mtt_cache_ = std::move(mtt);
}

void MemoryTranslation::invalidate(std::uint32_t mpt_index, std::uint64_t first_mtt,
                                   std::uint32_t pages) {
  ++invalidations_;
  mpt_cache_->invalidate(mpt_index);
  for (std::uint64_t i = 0; i < pages; ++i) mtt_cache_->invalidate(first_mtt + i);
  // A walk not yet started reads the tables as they are now; one reading may not.
  for (Walk* w : open_walks_) {
    if (!w->started || w->stale) continue;
    const bool touched = w->mpt ? w->first == mpt_index
                                : w->first < first_mtt + pages && first_mtt < w->first + w->count;
    if (touched) {
      w->stale = true;
      ++stats_.stale_walks;
    }
  }
}

const StatisticsTable<MemoryTranslationStats>& translation_statistics() {
  static const StatisticsTable<MemoryTranslationStats> table(
      "translation",
      {
       {"translations", "requests", &MemoryTranslationStats::translations,
        "translation requests accepted"},
       {"errors", "requests", &MemoryTranslationStats::errors,
        "requests answered with a protection or range error"},
       {"mpt_walks", "walks", &MemoryTranslationStats::mpt_walks,
        "MPT entries read from host memory"},
       {"mtt_walks", "walks", &MemoryTranslationStats::mtt_walks,
        "MTT entries read from host memory"},
       {"mpt_merges", "misses", &MemoryTranslationStats::mpt_merges,
        "MPT misses that joined a pending walk"},
       {"mtt_merges", "misses", &MemoryTranslationStats::mtt_merges,
        "MTT misses that joined a pending walk"},
       {"stale_walks", "walks", &MemoryTranslationStats::stale_walks,
        "walks invalidated in flight (installed nothing)"},
       {"walk_ns", &MemoryTranslationStats::walk_time,
        "DMA time of every walk, summed"},
       {"walk_queue_ns", &MemoryTranslationStats::walk_queue_time,
        "time walks waited for a free walker slot, summed"},
       {"peak_walks_in_flight", "walks", &MemoryTranslationStats::peak_walks_in_flight,
        "most walks in flight at once"},
       {"peak_requests_in_flight", "requests", &MemoryTranslationStats::peak_requests_in_flight,
        "most requests accepted and not yet answered at once"},
      });
  return table;
}

}  // namespace rnicsim
