#include "host/driver/verbs_config.hpp"

#include "common/time_units.hpp"

namespace rnicsim {

void declare_verbs_keys(config::Schema& schema) {
  const auto ns_key = [&schema](const char* path, double value, const char* what) {
    schema.add(config::number_key(path, value, "ns", what).at_least(0).at_most(1e9));
  };
  ns_key("verbs.post_send_ns", 60, "CPU time of ibv_post_send per work request: build the WQE");
  ns_key("verbs.post_recv_ns", 30, "CPU time of ibv_post_recv per work request");
  ns_key("verbs.poll_cq_ns", 40, "CPU time of one ibv_poll_cq call");
  ns_key("verbs.mmio_write_ns", 50,
         "CPU time to issue one MMIO write (doorbell, BlueFlame) before it enters PCIe");
  ns_key("verbs.notice_ns", 60,
         "time a spinning CPU takes to see a cache line the NIC wrote (a cache miss)");
  ns_key("verbs.command_ns", 1000,
         "driver CPU time per NIC command (create, modify, destroy, deregister)");
  schema.add(config::integer_key("verbs.blueflame_bytes", 256, "bytes",
                                 "a WQE up to this size is written with its doorbell (BlueFlame), "
                                 "so the NIC does not fetch it; 0 disables")
                 .at_least(0)
                 .at_most(448));
}

VerbsConfig verbs_config(const config::Section& verbs) {
  VerbsConfig c;
  c.post_send = nanoseconds(verbs.number("post_send_ns"));
  c.post_recv = nanoseconds(verbs.number("post_recv_ns"));
  c.poll_cq = nanoseconds(verbs.number("poll_cq_ns"));
  c.mmio_write = nanoseconds(verbs.number("mmio_write_ns"));
  c.notice = nanoseconds(verbs.number("notice_ns"));
  c.command = nanoseconds(verbs.number("command_ns"));
  c.blueflame_bytes = static_cast<std::uint32_t>(verbs.integer("blueflame_bytes"));
  return c;
}

}  // namespace rnicsim
