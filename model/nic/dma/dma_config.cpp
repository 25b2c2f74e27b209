#include "nic/dma/dma_config.hpp"

#include "common/time_units.hpp"

namespace rnicsim {

void declare_dma_keys(config::Schema& schema) {
  schema.add(config::integer_key("dma.read_tags", 64, "requests",
                                 "read requests (PCIe tags) the DMA engine keeps in flight")
                 .at_least(1)
                 .at_most(1024));
  schema.add(config::integer_key("dma.write_window_tlps", 16, "TLPs",
                                 "posted write TLPs the DMA engine books on the link at once (a "
                                 "write window, shared by the requesters with writes to make)")
                 .at_least(1)
                 .at_most(4096));
  schema.add(config::integer_key("dma.read_window_tlps", 8, "TLPs",
                                 "a read request with at most this many MRds left is booked in "
                                 "one window, on the tags whose reads leave next where the ready "
                                 "ones are too few (0: a window takes ready tags only)")
                 .at_least(0)
                 .at_most(4096));
  schema.add(config::string_key("request_splitter.impl", "model",
                                "implementation of the request splitter between the DMA engine "
                                "and the PCIe link: model (C++) or rtl (the verilated "
                                "rtl/request_splitter)")
                 .one_of({"model", "rtl"}));
  schema.add_rename("request_split", "request_splitter");  // the block's one name
}

DmaEngineConfig dma_engine_config(const config::Section& dma) {
  return DmaEngineConfig{static_cast<std::uint32_t>(dma.integer("read_tags")),
                         static_cast<std::uint32_t>(dma.integer("write_window_tlps")),
                         static_cast<std::uint32_t>(dma.integer("read_window_tlps"))};
}

RequestSplitterConfig request_splitter_config(const config::Section& request_splitter,
                                              const pcie::PcieConfig& pcie) {
  return RequestSplitterConfig{parse_block_impl(request_splitter.text("impl")), pcie.mrrs_bytes,
                               pcie.mps_bytes};
}

}  // namespace rnicsim
