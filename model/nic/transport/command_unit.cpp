// CommandUnit: the NIC's registers. Doorbells and BlueFlame writes update a
// QP's producer index and wake the requester or responder at once (they
// arrive from the root complex's process and may not wait); commands are
// queued for the firmware thread, which reads the mailbox by DMA, executes
// the command (QP and CQ contexts; a deregistration drops the translation
// unit's cached entries of the MR) and writes its status back by DMA.
#include <cstring>

#include "common/little_endian.hpp"
#include "common/message_breakdown.hpp"
#include "nic/transport/command_unit.hpp"

namespace rnicsim {
namespace {


RingLayout ring(const std::vector<std::uint64_t>& pages, std::uint32_t page_bytes,
                std::uint32_t entry_bytes, std::uint32_t entries) {
  RingLayout r;
  r.pages = pages;
  r.page_bytes = page_bytes;
  r.entry_bytes = entry_bytes;
  r.entries = entries;
  return r;
}

bool ring_fits(const std::vector<std::uint64_t>& pages, std::uint32_t page_bytes,
               std::uint32_t entry_bytes, std::uint32_t entries) {
  const bool power_of_two = entries != 0 && (entries & (entries - 1)) == 0;
  return power_of_two && page_bytes >= entry_bytes && page_bytes % entry_bytes == 0 &&
         std::uint64_t{pages.size()} * page_bytes >= std::uint64_t{entries} * entry_bytes;
}

}  // namespace

CommandUnit::CommandUnit(const sc_core::sc_module_name& name, TransportShared& shared,
                         DmaPort& port, MemoryTranslation& translation)
    : sc_core::sc_module(name),
      pcie2nic("pcie2nic"),
      shared_(shared),
      dma_(port),
      translation_(translation) {
  pcie2nic.register_b_transport(this, &CommandUnit::b_transport);
  SC_THREAD(run_commands);
}

void CommandUnit::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  const std::optional<BarWrite> target = decode_bar_offset(payload.get_address());
  const std::uint8_t* data = payload.get_data_ptr();
  const std::uint32_t length = payload.get_data_length();
  if (!target || length < 4) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  RcContexts& contexts = shared_.contexts();
  if (target->kind == BarWriteKind::kCommand) {
    ++shared_.stats().commands;
    mailboxes_.push_back(load_little_endian(data, std::min<std::uint32_t>(length, 8)));
    command_rung_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  QpContext* qp = contexts.qp(target->qpn);
  if (qp == nullptr) return;  // a doorbell for no QP: hardware ignores it
  MessageBreakdown::instance().mark(*this, "doorbell");
  const auto producer = static_cast<std::uint32_t>(load_little_endian(data, 4));
  switch (target->kind) {
    case BarWriteKind::kSendDoorbell:
      ++shared_.stats().doorbells;
      qp->send_producer = producer;
      contexts.wake_sender(*qp);
      break;
    case BarWriteKind::kBlueFlame: {
      ++shared_.stats().blueflame_writes;
      const std::uint32_t blocks = (length - 8) / kSendBlockBytes;
      if (blocks > 0 && length > 8) {
        BlueFlameWqe& wqe = qp->blueflame.push_back_slot();
        wqe.first_block = producer - blocks;
        wqe.bytes.assign(data + 8, data + length);
      }
      qp->send_producer = producer;
      contexts.wake_sender(*qp);
      break;
    }
    case BarWriteKind::kRecvDoorbell:
      ++shared_.stats().doorbells;
      qp->recv_producer = producer;
      // Only a QP in ERR has receives to flush; the responder fetches the
      // others' when a SEND needs them.
      if (qp->state == IBV_QPS_ERR) contexts.wake_receive_flush(*qp);
      break;
    case BarWriteKind::kCommand:
      break;
  }
}

void CommandUnit::run_commands() {
  for (;;) {
    while (mailboxes_.empty()) sc_core::wait(command_rung_);
    const std::uint64_t mailbox = mailboxes_.front();
    mailboxes_.pop_front();
    std::vector<std::uint8_t> bytes(kCommandHeaderBytes);
    CommandStatus status = CommandStatus::kBadParameter;
    if (dma_.read(mailbox, bytes.data(), kCommandHeaderBytes)) {
      const std::uint32_t body = command_body_bytes(bytes.data());
      bytes.resize(kCommandHeaderBytes + std::min<std::uint32_t>(body, kMaxCommandBodyBytes));
      if (body <= kMaxCommandBodyBytes &&
          (body == 0 ||
           dma_.read(mailbox + kCommandHeaderBytes, bytes.data() + kCommandHeaderBytes, body))) {
        sc_core::wait(shared_.cycles(shared_.config().command_cycles));
        if (std::optional<Command> command = decode_command(bytes.data(), bytes.size(), nullptr)) {
          status = execute(*command);
        }
      }
    }
    auto word = std::make_shared<Bytes>(4);
    const auto value = static_cast<std::uint32_t>(status);
    store_little_endian(value, word->data(), 4);
    dma_.write(mailbox + kCommandStatusOffset, std::move(word));
  }
}

CommandStatus CommandUnit::execute(const Command& command) {
  RcContexts& contexts = shared_.contexts();
  switch (command.op) {
    case CommandOp::kCreateCq: {
      const CreateCqCommand& c = command.create_cq;
      if (contexts.cq(c.cqn) || !ring_fits(c.pages, c.page_bytes, kCqeBytes, c.depth))
        return CommandStatus::kBadParameter;
      CqContext& cq = contexts.add_cq(c.cqn);
      cq.context_address = c.context_address;
      cq.ring = ring(c.pages, c.page_bytes, kCqeBytes, c.depth);
      return CommandStatus::kOk;
    }
    case CommandOp::kCreateQp: {
      const CreateQpCommand& c = command.create_qp;
      if (contexts.qp(c.qpn) || c.qpn >= kMaxQps || !contexts.cq(c.send_cqn) ||
          !contexts.cq(c.recv_cqn) ||
          !ring_fits(c.send_pages, c.page_bytes, kSendBlockBytes, c.send_blocks) ||
          !ring_fits(c.recv_pages, c.page_bytes, kRecvWqeBytes, c.recv_depth))
        return CommandStatus::kBadParameter;
      QpContext& qp = contexts.add_qp(c.qpn);
      qp.pd = c.pd;
      qp.context_address = c.context_address;
      qp.send_cqn = c.send_cqn;
      qp.recv_cqn = c.recv_cqn;
      qp.send_ring = ring(c.send_pages, c.page_bytes, kSendBlockBytes, c.send_blocks);
      qp.recv_ring = ring(c.recv_pages, c.page_bytes, kRecvWqeBytes, c.recv_depth);
      return CommandStatus::kOk;
    }
    case CommandOp::kModifyQp: {
      const ModifyQpCommand& c = command.modify_qp;
      QpContext* qp = contexts.qp(c.qpn);
      if (qp == nullptr) return CommandStatus::kBadParameter;
      if (check_modify(qp->state, c.attr.qp_state, c.attr_mask) != 0)
        return CommandStatus::kBadState;
      const ibv_qp_attr& a = c.attr;
      const std::uint32_t m = c.attr_mask;
      if (m & IBV_QP_ACCESS_FLAGS) qp->access = a.qp_access_flags;
      if (m & IBV_QP_PATH_MTU) qp->pmtu = ibv_mtu_to_bytes(a.path_mtu);
      if (m & IBV_QP_AV) qp->ah = a.ah_attr;
      if (m & IBV_QP_DEST_QPN) qp->dest_qpn = a.dest_qp_num;
      if (m & IBV_QP_RQ_PSN) qp->expected_psn = a.rq_psn & kPsnMask;
      if (m & IBV_QP_SQ_PSN)
        qp->next_psn = qp->acked_psn = qp->sent_psn_end = a.sq_psn & kPsnMask;
      if (m & IBV_QP_MIN_RNR_TIMER) qp->min_rnr_timer = a.min_rnr_timer;
      if (m & IBV_QP_TIMEOUT) qp->timeout = a.timeout;
      if (m & IBV_QP_RETRY_CNT) qp->retry_cnt = a.retry_cnt, qp->retries_left = a.retry_cnt;
      if (m & IBV_QP_RNR_RETRY) qp->rnr_retry = a.rnr_retry, qp->rnr_retries_left = a.rnr_retry;
      if (m & IBV_QP_MAX_QP_RD_ATOMIC) qp->max_rd_atomic = std::max<std::uint8_t>(1, a.max_rd_atomic);
      if (m & IBV_QP_MAX_DEST_RD_ATOMIC)
        qp->max_dest_rd_atomic = std::max<std::uint8_t>(1, a.max_dest_rd_atomic);
      if (qp->pmtu == 0) return CommandStatus::kBadParameter;
      if (a.qp_state == IBV_QPS_ERR) {
        shared_.set_error(*qp);
      } else if (a.qp_state == IBV_QPS_RESET) {
        const std::uint32_t qpn = qp->qpn;
        const std::uint64_t address = qp->context_address;
        const RingLayout send_ring = qp->send_ring, recv_ring = qp->recv_ring;
        const std::uint32_t send_cqn = qp->send_cqn, recv_cqn = qp->recv_cqn, pd = qp->pd;
        const std::uint32_t resets = qp->resets + 1;
        *qp = QpContext{};
        qp->qpn = qpn, qp->context_address = address, qp->pd = pd, qp->resets = resets;
        qp->send_ring = send_ring, qp->recv_ring = recv_ring;
        qp->send_cqn = send_cqn, qp->recv_cqn = recv_cqn;
      } else {
        qp->state = a.qp_state;
        shared_.contexts().wake_sender(*qp);
      }
      return CommandStatus::kOk;
    }
    case CommandOp::kDestroyQp: {
      // The context stays (a unit may hold it across a wait) but serves no
      // packet again; the driver never reuses a QP number.
      QpContext* qp = contexts.qp(command.destroy_qp.qpn);
      if (qp == nullptr) return CommandStatus::kBadParameter;
      qp->state = IBV_QPS_RESET;
      qp->destroyed = true;
      return CommandStatus::kOk;
    }
    case CommandOp::kDeregMr: {
      // The driver has already cleared the MPT entry in host memory; a
      // translation after this status sees only that.
      const DeregMrCommand& c = command.dereg_mr;
      const IcmLayout& icm = translation_.icm();
      if (c.mpt_index >= icm.mpt_entries || c.first_mtt > icm.mtt_entries ||
          c.pages > icm.mtt_entries - c.first_mtt)
        return CommandStatus::kBadParameter;
      translation_.invalidate(c.mpt_index, c.first_mtt, c.pages);
      return CommandStatus::kOk;
    }
  }
  return CommandStatus::kBadParameter;
}

}  // namespace rnicsim
