#include "packet/icrc_blocks.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "common/clock_domain.hpp"
#include "packet/frame.hpp"
#include "packet/icrc.hpp"

namespace rnicsim::packet {

IcrcInserter::IcrcInserter(const sc_core::sc_module_name& name, const StageTiming& timing)
    : Stage<OutgoingFrame, Transfer>(name, timing, Occupancy::kInput, StageProcess::kMethod) {}

void IcrcInserter::serve(OutgoingFrame& frame, Emitter& emitter) {
  Bytes& bytes = *frame.bytes;
  const std::optional<IcrcLocation> at = locate_icrc(bytes.data(), bytes.size());
  if (!at) {
    throw std::logic_error(std::string(name()) + ": frame " + std::to_string(frame.index) +
                           " is not a RoCEv2 frame");
  }
  store_icrc(compute_icrc(bytes.data() + at->ip_offset, at->icrc_offset - at->ip_offset),
             bytes.data() + at->icrc_offset);
  const std::uint64_t bits = frame.size_bits();
  Transfer transfer(frame.index, bits, frame.started, std::move(frame.bytes));
  for (const StageSpan& span : frame.spans) transfer.record_span(span.stage, span.start, span.end);
  emitter.emit(std::move(transfer));
}

IcrcChecker::IcrcChecker(const sc_core::sc_module_name& name, const StageTiming& timing)
    : Stage<Transfer, Transfer>(name, timing, Occupancy::kInput, StageProcess::kMethod) {}

void IcrcChecker::serve(Transfer& frame, Emitter& emitter) {
  const Bytes& bytes = *frame.bytes();
  const std::optional<IcrcLocation> at = locate_icrc(bytes.data(), bytes.size());
  if (!at) {
    ++check_stats_.unchecked;
    emitter.emit(std::move(frame));
    return;
  }
  const std::uint32_t computed =
      compute_icrc(bytes.data() + at->ip_offset, at->icrc_offset - at->ip_offset);
  if (computed != load_icrc(bytes.data() + at->icrc_offset)) {
    ++check_stats_.bad;
    return;
  }
  ++check_stats_.good;
  emitter.emit(std::move(frame));
}

void declare_icrc_keys(config::Schema& schema) {
  using config::integer_key;
  schema.add(config::string_key("icrc.impl", "model",
                                "implementation of the ICRC insert and check blocks: model (C++)")
                 .one_of({"model"}));
  schema.add(config::number_key("icrc.clock_mhz", 250, "MHz", "clock of the ICRC blocks")
                 .at_least(1)
                 .at_most(100000));
  schema.add(integer_key("icrc.bytes_per_cycle", 64, "bytes",
                         "ICRC datapath width, each direction")
                 .at_least(1)
                 .at_most(4096));
  schema.add(integer_key("icrc.latency_cycles", 2, "cycles",
                         "ICRC pipeline latency after a frame's last beat (final CRC reduction)")
                 .at_least(0)
                 .at_most(1000000));
}

IcrcBlockConfig icrc_block_config(const config::Section& icrc) {
  const ClockDomain clock(icrc.number("clock_mhz"));
  IcrcBlockConfig c;
  c.impl = parse_block_impl(icrc.text("impl"));
  c.timing = StageTiming::clocked(clock, icrc.integer("latency_cycles"),
                                  icrc.integer("bytes_per_cycle"), 1);
  return c;
}

}  // namespace rnicsim::packet
