#include "program/experiments/dma/dma_outputs.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "common/time_units.hpp"
#include "program/experiments/output_files.hpp"

namespace rnicsim {
namespace {

using Json = nlohmann::json;

Json summary_json(const DmaTestConfig& config, const DmaTestResult& result) {
  Json latency = Json::object();
  Json read_bw = Json::object();
  Json write_bw = Json::object();
  for (const DmaSizeResult& r : result.sizes) {
    const std::string size = std::to_string(r.size_bytes);
    latency[size] = r.read_latency_ns;
    read_bw[size] = r.read_bw_gbps;
    write_bw[size] = r.write_bw_gbps;
  }
  const pcie::PcieConfig& p = config.testbed.nodes[0].host.pcie;
  return {{"schema", "rnicsim.dma.summary/1"},
          {"experiment", "dma"},
          {"pcie",
           {{"generation", p.generation},
            {"lanes", p.lanes},
            {"link_gbps", result.link_gbps},
            {"mps_bytes", p.mps_bytes},
            {"mrrs_bytes", p.mrrs_bytes},
            {"completion_bytes", p.completion_bytes},
            {"read_tags", config.testbed.nodes[0].nic.dma.read_tags},
            {"read_line_ns", to_ns(p.read_line_interval)},
            {"iommu", p.iommu},
            {"memory_remote", p.memory_remote}}},
          {"read_latency_ns", latency},
          {"read_bw_gbps", read_bw},
          {"write_bw_gbps", write_bw}};
}

std::string dma_csv(const DmaTestResult& result) {
  std::string csv =
      "size_bytes,read_latency_ns,read_latency_min_ns,read_latency_max_ns,read_bw_gbps,"
      "write_bw_gbps\n";
  for (const DmaSizeResult& r : result.sizes) {
    csv += std::to_string(r.size_bytes) + "," + number_text(r.read_latency_ns) + "," +
           number_text(r.read_latency_min_ns) + "," + number_text(r.read_latency_max_ns) + "," +
           number_text(r.read_bw_gbps) + "," + number_text(r.write_bw_gbps) + "\n";
  }
  return csv;
}

Json direction_json(const pcie::LinkDirectionStats& s) {
  return {{"tlps", s.tlps}, {"tlp_bytes", s.tlp_bytes}, {"dllps", s.dllps}, {"busy_ns", to_ns(s.busy)}};
}

Json stats_json(const DmaTestResult& result) {
  return {{"units",
           {{"tlps", "count"},
            {"tlp_bytes", "bytes on the wire, framing included"},
            {"dllps", "count"},
            {"busy_ns", "ns the direction carried something"},
            {"read_requests", "count"},
            {"completions", "count"},
            {"write_requests", "count"},
            {"mmio_writes", "count"},
            {"unsupported_requests", "count"},
            {"hits", "count"},
            {"misses", "count"},
            {"requests", "count"}}},
          {"blocks",
           {{"pcie.upstream", direction_json(result.upstream)},
            {"pcie.downstream", direction_json(result.downstream)},
            {"pcie.root_complex",
             {{"read_requests", result.link.read_requests},
              {"completions", result.link.completions},
              {"write_requests", result.link.write_requests},
              {"mmio_writes", result.link.mmio_writes},
              {"unsupported_requests", result.link.unsupported_requests}}},
            {"pcie.iotlb", {{"hits", result.iotlb_hits}, {"misses", result.iotlb_misses}}},
            {"dma_engine", {{"requests", result.dma_requests}}}}}};
}

}  // namespace

void write_dma_outputs(const DmaTestConfig& config, const DmaTestResult& result,
                       const std::filesystem::path& folder) {
  write_text(folder / "summary.json", summary_json(config, result).dump(2) + "\n");
  write_text(folder / "dma.csv", dma_csv(result));
  write_text(folder / "stats.json", stats_json(result).dump(2) + "\n");
  write_text(folder / "statistics.json", result.statistics.dump(2) + "\n");
}

}  // namespace rnicsim
