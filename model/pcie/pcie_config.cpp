#include "pcie/pcie_config.hpp"

#include <optional>
#include <string>

#include "common/time_units.hpp"

namespace rnicsim::pcie {
namespace {

// SKP ordered sets for clock compensation: 4 symbols every 1538 (as in
// pcie-bench's model, github.com/pcie-bench/pcie-model model/pcie.py).
constexpr double kSkipSymbols = 4;
constexpr double kSkipInterval = 1538;

// Completions are cut at the RCB and carry at most MPS bytes.
std::optional<config::Violation> completion_violation(const config::Json& doc) {
  const std::uint64_t completion = config::integer_at(doc, "pcie.completion_bytes");
  const std::uint64_t rcb = config::integer_at(doc, "pcie.rcb_bytes");
  const std::uint64_t mps = config::integer_at(doc, "pcie.mps_bytes");
  if (completion % rcb != 0) {
    return config::Violation{"pcie.completion_bytes",
                             "must be a multiple of pcie.rcb_bytes (got " +
                                 std::to_string(completion) + ", pcie.rcb_bytes is " +
                                 std::to_string(rcb) + ")"};
  }
  if (completion > mps) {
    return config::Violation{"pcie.completion_bytes",
                             "must not exceed pcie.mps_bytes (got " + std::to_string(completion) +
                                 ", pcie.mps_bytes is " + std::to_string(mps) + ")"};
  }
  return std::nullopt;
}

}  // namespace

double PcieConfig::gigatransfers_per_lane() const {
  static constexpr double kGts[] = {2.5, 5.0, 8.0, 16.0, 32.0};  // gen1..gen5
  return kGts[generation - 1];
}

double PcieConfig::encoding_efficiency() const {
  return generation <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
}

double PcieConfig::link_gbps() const {
  if (ideal) return ideal_gbps;
  return lanes * gigatransfers_per_lane() * encoding_efficiency() *
         (1.0 - kSkipSymbols / kSkipInterval);
}

void declare_pcie_keys(config::Schema& schema) {
  using config::boolean_key;
  using config::integer_key;
  using config::number_key;
  schema.add(integer_key("pcie.generation", 3, "", "PCIe generation: 1-2 use 8b/10b, 3-5 128b/130b")
                 .at_least(1)
                 .at_most(5));
  schema.add(integer_key("pcie.lanes", 8, "lanes", "link width")
                 .one_of_integers({1, 2, 4, 8, 16, 32}));
  schema.add(integer_key("pcie.mps_bytes", 256, "bytes",
                         "max payload size of a write or completion TLP")
                 .at_least(128)
                 .at_most(4096)
                 .power_of_two());
  schema.add(integer_key("pcie.mrrs_bytes", 512, "bytes", "max read request size")
                 .at_least(128)
                 .at_most(4096)
                 .power_of_two());
  schema.add(integer_key("pcie.rcb_bytes", 64, "bytes", "read completion boundary")
                 .one_of_integers({64, 128}));
  schema.add(integer_key("pcie.completion_bytes", 128, "bytes",
                         "payload of each completion the root complex returns (a multiple of "
                         "pcie.rcb_bytes, at most pcie.mps_bytes; Intel Xeons combine 128 B)")
                 .at_least(64)
                 .at_most(4096)
                 .power_of_two());
  schema.add(number_key("pcie.link_latency_ns", 20, "ns",
                        "one direction's fixed latency: PHY and data-link pipelines and trace")
                 .at_least(0)
                 .at_most(1e9));  // 1 s
  schema.add(number_key("pcie.root_complex_latency_ns", 500, "ns",
                        "from a read request's arrival to its data leaving the root complex, "
                        "local DRAM")
                 .at_least(0)
                 .at_most(1e9));  // 1 s
  schema.add(number_key("pcie.read_line_ns", 0, "ns",
                        "one DMA read's 64 B lines come one after another, this far apart, and "
                        "a completion leaves once its lines are in (pcie-bench's NFP6000: 18.5 "
                        "on every Xeon E5 it was measured in); 0: the link alone paces them")
                 .at_least(0)
                 .at_most(1e6));  // 1 ms
  schema.add(boolean_key("pcie.memory_remote", false,
                         "the DMA buffers sit on the other socket's memory"));
  schema.add(number_key("pcie.remote_socket_extra_ns", 100, "ns",
                        "added to the root complex latency for remote-socket memory")
                 .at_least(0)
                 .at_most(1e9));  // 1 s
  schema.add(integer_key("pcie.ack_every_bytes", 203, "bytes",
                         "the receiver returns one 8 B ACK DLLP per this many bytes of TLPs "
                         "(PCIe Ack latency limit, symbol times)")
                 .at_least(1)
                 .at_most(65536));
  schema.add(integer_key("pcie.fc_update_every_bytes", 203, "bytes",
                         "the receiver returns one 8 B UpdateFC DLLP per this many bytes of TLPs")
                 .at_least(1)
                 .at_most(65536));
  schema.add(boolean_key("pcie.iommu", false, "translate DMA addresses through an IOMMU"));
  schema.add(integer_key("pcie.iotlb_entries", 64, "entries",
                         "IOTLB size (fully associative, LRU)")
                 .at_least(1)
                 .at_most(1 << 20));
  schema.add(number_key("pcie.iotlb_miss_ns", 220, "ns",
                        "page-table walk added to a TLP whose page misses the IOTLB")
                 .at_least(0)
                 .at_most(1e9));  // 1 s
  schema.add(integer_key("pcie.iommu_page_bytes", 4096, "bytes", "IOMMU page size")
                 .at_least(4096)
                 .at_most(1 << 30)
                 .power_of_two());
  schema.add(boolean_key("pcie.ideal", false,
                         "the seed figure's ideal link: TLPs carry their payload alone (no "
                         "header, framing or DLLPs) at pcie.ideal_gbps, and sizes count in bits; "
                         "generation and lanes are then unused"));
  schema.add(number_key("pcie.ideal_gbps", 100, "Gbit/s",
                        "one direction's rate of the ideal link (pcie.ideal)")
                 .at_least(0.001)  // 1 Mbit/s: a 100-bit Data in 100 ns
                 .at_most(1e6));
  schema.add_check({"pcie.completion_bytes", "pcie.rcb_bytes", "pcie.mps_bytes"},
                   [](const config::Json& doc) { return completion_violation(doc); });
}

PcieConfig pcie_config(const config::Section& pcie) {
  const auto integer = [&pcie](const char* key) {
    return static_cast<std::uint32_t>(pcie.integer(key));
  };
  const auto ns = [&pcie](const char* key) { return nanoseconds(pcie.number(key)); };
  PcieConfig c;
  c.generation = integer("generation");
  c.lanes = integer("lanes");
  c.mps_bytes = integer("mps_bytes");
  c.mrrs_bytes = integer("mrrs_bytes");
  c.rcb_bytes = integer("rcb_bytes");
  c.completion_bytes = integer("completion_bytes");
  c.link_latency = ns("link_latency_ns");
  c.root_complex_latency = ns("root_complex_latency_ns");
  c.read_line_interval = ns("read_line_ns");
  c.memory_remote = pcie.boolean("memory_remote");
  c.remote_socket_extra = ns("remote_socket_extra_ns");
  c.ack_every_bytes = integer("ack_every_bytes");
  c.fc_update_every_bytes = integer("fc_update_every_bytes");
  c.iommu = pcie.boolean("iommu");
  c.iotlb_entries = integer("iotlb_entries");
  c.iotlb_miss = ns("iotlb_miss_ns");
  c.iommu_page_bytes = integer("iommu_page_bytes");
  c.ideal = pcie.boolean("ideal");
  c.ideal_gbps = pcie.number("ideal_gbps");
  return c;
}

}  // namespace rnicsim::pcie
