#include "host/kernel/kernel_config.hpp"

#include "common/time_units.hpp"

namespace rnicsim {
namespace {

config::KeySpec cost_key(const char* key, double default_ns, const char* meaning) {
  return config::number_key(key, default_ns, "ns", meaning).at_least(0).at_most(1e9);
}

}  // namespace

void declare_kernel_keys(config::Schema& schema) {
  schema.add(cost_key("kernel.syscall_ns", 200,
                      "CPU time of a send() or recv() system call's entry and exit"));
  schema.add(config::number_key("kernel.copy_gbps", 80, "Gbit/s",
                                "copy_from_user / copy_to_user bandwidth of one core")
                 .at_least(0.001)
                 .at_most(1e6));
  schema.add(cost_key("kernel.copy_call_ns", 50, "fixed CPU time of each user-kernel copy"));
  schema.add(cost_key("kernel.tx_segment_ns", 1000,
                      "CPU time of TCP/IP output and the driver's transmit, per frame handed "
                      "to the NIC (a TSO frame counts once)"));
  schema.add(cost_key("kernel.rx_segment_ns", 1000,
                      "CPU time of the driver's receive, IP and TCP input, per frame"));
  schema.add(cost_key("kernel.pure_ack_ns", 500, "CPU time to build and send an ACK without data"));
  schema.add(cost_key("kernel.interrupt_ns", 1000,
                      "CPU time of a hard interrupt, the softirq entry and NAPI scheduling"));
  schema.add(cost_key("kernel.wakeup_ns", 2000,
                      "from the wake-up of a thread blocked in recv() until it runs "
                      "(scheduler and context switch), CPU time of the receiving core"));
  schema.add(config::boolean_key("kernel.busy_poll", false,
                                 "recv() polls the receive ring on its own core instead of "
                                 "sleeping until an interrupt (net.core.busy_poll); the spinning "
                                 "is reported apart from work"));
  schema.add(config::integer_key("kernel.napi_budget", 64, "frames", "frames per NAPI poll")
                 .at_least(1)
                 .at_most(4096));
  schema.add(config::boolean_key("kernel.tso", true, "TCP segmentation offload"));
  schema.add(config::integer_key("kernel.tso_max_bytes", 65536, "bytes",
                                 "TCP payload per TSO frame (Linux's GSO maximum is 64 KiB)")
                 .at_least(1)
                 .at_most(65536));
  schema.add(config::boolean_key("kernel.checksum_offload", true,
                                 "the NIC computes transmit TCP checksums"));
  schema.add(config::integer_key("kernel.ring_entries", 256, "descriptors",
                                 "entries of the driver's transmit and receive rings")
                 .one_of_integers({64, 128, 256, 512, 1024}));
  schema.add(config::integer_key("kernel.tcp_send_buffer_bytes", 1 << 20, "bytes",
                                 "socket send buffer (payload bytes; stands for Linux's "
                                 "autotuned size in steady state, which is not modelled)")
                 .at_least(4096)
                 .at_most(8 << 20));
  schema.add(config::integer_key("kernel.tcp_receive_buffer_bytes", 262144, "bytes",
                                 "socket receive buffer (payload bytes), the most the window "
                                 "offers; at most ring_entries full segments, as the kernel "
                                 "path has no loss recovery yet")
                 .at_least(4096)
                 .at_most(4 << 20));
  schema.add(cost_key("kernel.tcp_delayed_ack_ns", 40e6,
                      "delayed-ACK timeout (Linux's TCP_DELACK_MIN, 40 ms)"));
  schema.add(config::boolean_key("kernel.tcp_timestamps", true,
                                 "RFC 7323 timestamp option on every segment (12 header bytes)"));
  schema.add(config::boolean_key("kernel.tcp_nodelay", true,
                                 "TCP_NODELAY (Nagle off), as netperf's tests set it"));
}

KernelConfig kernel_config(const config::Section& kernel, std::uint32_t mtu) {
  KernelConfig c;
  c.syscall = nanoseconds(kernel.number("syscall_ns"));
  c.copy_gbps = kernel.number("copy_gbps");
  c.copy_call = nanoseconds(kernel.number("copy_call_ns"));
  c.tx_segment = nanoseconds(kernel.number("tx_segment_ns"));
  c.rx_segment = nanoseconds(kernel.number("rx_segment_ns"));
  c.pure_ack = nanoseconds(kernel.number("pure_ack_ns"));
  c.interrupt = nanoseconds(kernel.number("interrupt_ns"));
  c.wakeup = nanoseconds(kernel.number("wakeup_ns"));
  c.busy_poll = kernel.boolean("busy_poll");
  c.napi_budget = static_cast<std::uint32_t>(kernel.integer("napi_budget"));
  c.tso = kernel.boolean("tso");
  c.tso_max_bytes = static_cast<std::uint32_t>(kernel.integer("tso_max_bytes"));
  c.checksum_offload = kernel.boolean("checksum_offload");
  c.ring_entries = static_cast<std::uint32_t>(kernel.integer("ring_entries"));
  c.tcp.timestamps = kernel.boolean("tcp_timestamps");
  c.tcp.mss = kernel::tcp_mss_for_mtu(mtu, c.tcp.timestamps);
  c.tcp.send_buffer_bytes = static_cast<std::uint32_t>(kernel.integer("tcp_send_buffer_bytes"));
  c.tcp.receive_buffer_bytes =
      static_cast<std::uint32_t>(kernel.integer("tcp_receive_buffer_bytes"));
  c.tcp.delayed_ack_ns = kernel.number("tcp_delayed_ack_ns");
  c.tcp.nagle = !kernel.boolean("tcp_nodelay");
  return c;
}

sc_core::sc_time KernelConfig::copy_time(std::uint64_t bytes) const {
  return copy_call + nanoseconds(static_cast<double>(bytes) * 8.0 / copy_gbps);
}

}  // namespace rnicsim
