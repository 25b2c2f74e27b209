#include "nic/congestion/notification_point.hpp"

#include "common/time_units.hpp"
#include "formats/ip_fields.hpp"

namespace rnicsim {
namespace {

constexpr std::uint8_t kCnpOpcode = 0x81;
constexpr std::uint16_t kCnpPkey = 0xFFFF;  // as the ConnectX-4 Lx capture (REFERENCE section 5)

// Whether `frame` is a RoCEv2 CNP (IPv4, as the NIC's frames are).
bool is_cnp(const Bytes& frame) {
  const auto ip = packet::ipv4_offset(frame.data(), frame.size());
  if (!ip) return false;
  const std::size_t udp = *ip + 4u * (frame[*ip] & 0x0F);
  if (frame.size() < udp + 9) return false;
  return packet::load_be16(frame.data() + udp + 2) == packet::kRoceV2UdpPort &&
         frame[udp + 8] == kCnpOpcode;
}

}  // namespace

NotificationPoint::NotificationPoint(const sc_core::sc_module_name& name, TransportShared& shared)
    : sc_core::sc_module(name), out("out"), shared_(shared) {
  SC_METHOD(run);
  sensitive << retry_;
  dont_initialize();
}

void NotificationPoint::marked(std::uint32_t qpn) {
  ++stats_.np_ecn_marked_roce_packets;
  const QpContext* qp = shared_.contexts().qp(qpn);
  if (qp == nullptr || qp->destroyed || !qp->responder_ready()) return;
  QpState& state = qps_[qpn];
  const std::uint64_t now = to_ps(sim_now());
  if (state.on_its_way ||
      (state.sent_before && now < state.last_sent_ps + shared_.config().dcqcn.cnp_interval_ps)) {
    return;
  }
  state.on_its_way = true;
  on_their_way_.push_back(qpn);
  packet::TransmitRequest cnp;
  cnp.single_packet = true;
  cnp.transport = packet::Transport::kCnp;
  cnp.source_qpn = qpn;
  packet::RocePacket& h = cnp.header_template;
  h = shared_.header_template(*qp);  // addresses and the peer's QP
  h.bth.opcode = kCnpOpcode;
  h.bth.becn = true;
  h.bth.pkey = kCnpPkey;
  h.bth.psn = 0;
  h.bth.ack_req = false;
  h.bth.solicited_event = false;
  if (auto* ipv4 = std::get_if<packet::Ipv4Header>(&h.ip)) {
    ipv4->tos = static_cast<std::uint8_t>(shared_.config().dcqcn.cnp_dscp << 2 | (ipv4->tos & 3));
  }
  waiting_.push_back(std::move(cnp));
  push_waiting();
}

void NotificationPoint::push_waiting() {
  while (!waiting_.empty() && out->can_push()) {
    out->nb_push(std::move(waiting_.front()), shared_.cycles(shared_.config().packet_cycles));
    waiting_.pop_front();
  }
  if (!waiting_.empty()) retry_.notify(sc_core::SC_ZERO_TIME);
}

void NotificationPoint::run() {
  push_waiting();
  if (!waiting_.empty()) sc_core::next_trigger(out->space_event());
}

void NotificationPoint::frame_sent(const Transfer& frame, const sc_core::sc_time& first_bit) {
  if (on_their_way_.empty() || !is_cnp(*frame.bytes())) return;
  // CNPs share one priority's queue, so they leave in the order made.
  QpState& state = qps_[on_their_way_.front()];
  on_their_way_.pop_front();
  state.on_its_way = false;
  state.sent_before = true;
  state.last_sent_ps = to_ps(first_bit);
  ++stats_.np_cnp_sent;
}

}  // namespace rnicsim
