#pragma once
// AppSession: one application process attached to a node (rnicsim exec),
// seen from inside the simulation. The launcher (program/exec) hands it the
// application's verb requests (bridge_protocol.hpp); its thread serves each
// at the request's simulated time on the node's verbs driver, whose CPU
// costs are charged to the application's own core, and pauses the kernel
// when the reply is ready, so the launcher can pass it on.
//
// A poll that finds nothing spins for up to kEmptyPollSpin, or until a
// completion lands, before it answers (an application polls in a loop; the
// bound keeps one that polls two CQs in turn, or watches a clock, alive).
// The application's registered buffers are its own memory, shared page by
// page (kShareMemory, a memfd): the node's host memory is backed by those
// pages at the frames its address space gives them.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

#include "common/module_macros.hpp"
#include "host/app_bridge/bridge_protocol.hpp"
#include "host/cpu/cpu_core.hpp"
#include "host/host.hpp"

namespace rnicsim::bridge {

inline const sc_core::sc_time kEmptyPollSpin{1, sc_core::SC_US};

// What the application learns of its device (HelloReply) besides the driver's port.
struct DeviceIdentity {
  std::string device_name;  // "rnicsim_<node>"
  std::string node_name;
  std::uint64_t node_guid = 0;
  std::array<std::uint8_t, 16> gid{};
  std::uint32_t link_gbps = 0;
  std::uint32_t max_qp = 0;
  std::uint32_t max_mr = 0;
};

// A node's GID -> that node's Ethernet MAC, for an address vector the
// application gives by GID (RoCE resolves it by ARP).
using MacOfGid = std::function<std::optional<std::array<std::uint8_t, 6>>(
    const std::array<std::uint8_t, 16>& gid)>;

struct Reply {
  ReplyHeader header{};
  std::vector<std::uint8_t> body;
};

class AppSession : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(AppSession);
  AppSession(const sc_core::sc_module_name& name, Host& host, DeviceIdentity identity,
             MacOfGid mac_of_gid);
  ~AppSession() override;

  // Starts serving a request (`fd`: the memfd of kShareMemory, else -1; the
  // session owns it). Call while the kernel is paused, with no request being served.
  void start(const RequestHeader& header, std::vector<std::uint8_t> body, int fd);
  bool serving() const { return request_.has_value(); }
  // The reply of the request served last, once; then none until the next.
  std::optional<Reply> take_reply();
  const CpuCore& core() const { return core_; }

 private:
  struct Pending {
    RequestHeader header;
    std::vector<std::uint8_t> body;
    int fd;
  };
  void serve();
  Reply handle(const Pending& request);
  Reply hello() const;
  Reply share_memory(const ShareMemory& share, int fd);
  Reply reg_mr(const RegMr& request);
  Reply create_qp(const CreateQp& request);
  Reply modify_qp(const ModifyQp& request);
  Reply post_send(const std::vector<std::uint8_t>& body);
  Reply post_recv(const std::vector<std::uint8_t>& body);
  Reply poll_cq(const PollCq& request);
  Reply wait_cqs(const std::vector<std::uint8_t>& body);
  Reply wait_write(const WaitWrite& request);
  Reply qp_reply(const ibv_qp& qp) const;
  Reply failure(int error) const;

  Host& host_;
  VerbsDriver& driver_;
  DeviceIdentity identity_;
  MacOfGid mac_of_gid_;
  CpuCore core_;
  std::optional<Pending> request_;
  std::optional<Reply> reply_;
  sc_core::sc_event arrived_;
  std::map<std::uint32_t, ibv_pd*> pds_;
  std::map<std::uint32_t, ibv_cq*> cqs_;
  std::map<std::uint32_t, ibv_qp*> qps_;
  std::map<std::uint32_t, ibv_mr*> mrs_;  // by lkey
  struct Mapping {
    void* address;
    std::uint64_t length;
  };
  std::vector<Mapping> shared_;  // the application's pages, mapped here
};

}  // namespace rnicsim::bridge
