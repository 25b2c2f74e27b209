#include "nic/packet/icrc_blocks.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/clock_domain.hpp"
#include "formats/frame.hpp"
#include "formats/icrc.hpp"
#include "nic/packet/rtl_stream_timing.hpp"

namespace rnicsim::packet {

IcrcVerdict model_icrc_verdict(const std::uint8_t* frame, std::size_t length) {
  const std::optional<IcrcLocation> at = locate_icrc(frame, length);
  if (!at) return {};
  const std::uint32_t icrc = compute_icrc(frame + at->ip_offset, at->icrc_offset - at->ip_offset);
  return {true, icrc, icrc == load_icrc(frame + at->icrc_offset)};
}

namespace {

class ModelIcrcEngine final : public IcrcEngine {
 public:
  IcrcVerdict examine(const std::uint8_t* frame, std::size_t length) override {
    return model_icrc_verdict(frame, length);
  }
  const char* name() const override { return "model"; }
};

}  // namespace

std::unique_ptr<IcrcEngine> make_model_icrc_engine() { return std::make_unique<ModelIcrcEngine>(); }

IcrcInserter::IcrcInserter(const sc_core::sc_module_name& name, const StageTiming& timing,
                           std::unique_ptr<IcrcEngine> engine)
    : Stage<OutgoingFrame, Transfer>(name, timing, Occupancy::kInput, StageProcess::kMethod),
      engine_(std::move(engine)) {}

void IcrcInserter::serve(OutgoingFrame& frame, Emitter& emitter) {
  Bytes& bytes = *frame.bytes;
  // The engine says what the ICRC is; where it goes is the model's to find
  // (the builder made the frame, so both must see RoCEv2).
  const std::optional<IcrcLocation> at = locate_icrc(bytes.data(), bytes.size());
  const IcrcVerdict verdict = engine_->examine(bytes.data(), bytes.size());
  if (!at || !verdict.roce) {
    throw std::logic_error(std::string(name()) + ": frame " + std::to_string(frame.index) +
                           " is not a RoCEv2 frame" + (at ? " to the ICRC engine" : ""));
  }
  store_icrc(verdict.icrc, bytes.data() + at->icrc_offset);
  const std::uint64_t bits = frame.size_bits();
  Transfer transfer(frame.index, bits, frame.started, std::move(frame.bytes));
  for (const StageSpan& span : frame.spans) transfer.record_span(span.stage, span.start, span.end);
  emitter.emit(std::move(transfer));
}

IcrcChecker::IcrcChecker(const sc_core::sc_module_name& name, const StageTiming& timing,
                         std::unique_ptr<IcrcEngine> engine)
    : Stage<Transfer, Transfer>(name, timing, Occupancy::kInput, StageProcess::kMethod),
      engine_(std::move(engine)) {}

void IcrcChecker::serve(Transfer& frame, Emitter& emitter) {
  const Bytes& bytes = *frame.bytes();
  const IcrcVerdict verdict = engine_->examine(bytes.data(), bytes.size());
  if (!verdict.roce) {
    ++check_stats_.unchecked;
    emitter.emit(std::move(frame));
    return;
  }
  if (!verdict.match) {
    ++check_stats_.bad;
    return;
  }
  ++check_stats_.good;
  emitter.emit(std::move(frame));
}

void declare_icrc_keys(config::Schema& schema) {
  using config::integer_key;
  schema.add(config::string_key("icrc.impl", "model",
                                "implementation of the ICRC insert and check blocks: model (C++) "
                                "or rtl (the verilated rtl/icrc)")
                 .one_of({"model", "rtl"}));
  schema.add(config::number_key("icrc.clock_mhz", 250, "MHz", "clock of the ICRC blocks")
                 .at_least(1)
                 .at_most(100000));
  schema.add(integer_key("icrc.bytes_per_cycle", 64, "bytes", "ICRC datapath width, each direction")
                 .at_least(1)
                 .at_most(4096));
  schema.add(integer_key("icrc.latency_cycles", 2, "cycles",
                         "ICRC pipeline latency after a frame's last beat (final CRC reduction)")
                 .at_least(0)
                 .at_most(1000000));
  add_rtl_stream_timing_check(
      schema, {"icrc.impl", "icrc.bytes_per_cycle", "icrc.latency_cycles", "rtl/icrc"});
}

IcrcBlockConfig icrc_block_config(const config::Section& icrc) {
  const ClockDomain clock(icrc.number("clock_mhz"));
  IcrcBlockConfig c;
  c.impl = parse_block_impl(icrc.text("impl"));
  c.bytes_per_cycle = icrc.integer("bytes_per_cycle");
  c.timing = StageTiming::clocked(clock, icrc.integer("latency_cycles"), c.bytes_per_cycle, 1);
  return c;
}

const StatisticsTable<IcrcCheckStats>& icrc_check_statistics() {
  static const StatisticsTable<IcrcCheckStats> table(
      "icrc_rx",
      {
       {"good", "frames", &IcrcCheckStats::good,
        "ICRC checked and right: passed on"},
       {"bad", "frames", &IcrcCheckStats::bad,
        "ICRC checked and wrong: dropped"},
       {"unchecked", "frames", &IcrcCheckStats::unchecked,
        "no ICRC located: passed on to the parser"},
      });
  return table;
}

}  // namespace rnicsim::packet
