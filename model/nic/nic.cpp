#include "nic/nic.hpp"

#include "dma/dma_config.hpp"
#include "mtt/mtt_config.hpp"

namespace rnicsim {

NicConfig nic_config(config::RunConfig& run, const std::string& node,
                     const pcie::PcieConfig& pcie, std::uint64_t icm_base,
                     std::optional<std::uint32_t> mtt_cache_entries) {
  NicConfig c;
  c.dma = dma_engine_config(run.node_section(node, "dma"));
  c.request_split = request_splitter_config(run.node_section(node, "request_split"), pcie);
  c.translation =
      memory_translation_config(run.node_section(node, "mtt"), icm_base, mtt_cache_entries);
  return c;
}

Nic::Nic(const sc_core::sc_module_name& name, const NicConfig& config)
    : sc_core::sc_module(name),
      dma_engine("dma_engine", config.dma),
      request_split("request_split", config.request_split),
      translation("translation", config.translation) {
  dma_engine.dma2split.bind(request_split.dma2split);
  translation.walker2dma.socket.bind(dma_engine.nic2dma);
}

}  // namespace rnicsim
