#pragma once
// Where one message's time goes: blocks mark named points as a message
// reaches them (the CPU posts, the doorbell arrives, the WQE is fetched,
// the payload is read, the frame leaves, ...), and the breakdown keeps, per
// message, the first time each point is reached between begin() and end().
// It serves latency tests, where one message is in flight at a time, so
// every mark belongs to it. Off unless enabled: a mark then costs a branch.
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include <nlohmann/json.hpp>

namespace rnicsim {

class MessageBreakdown {
 public:
  // The process's breakdown (a process runs one simulation).
  static MessageBreakdown& instance();

  void enable() { enabled_ = true; }
  bool enabled() const { return enabled_; }

  // A message starts (the client posts it) / ends (it is where it goes).
  void begin(const std::string& cpu);
  void end(const std::string& block, const char* point);
  // The same, with the time the data the CPU noticed landed in memory.
  void end(const std::string& block, const char* point, const sc_core::sc_time& landed,
           const char* landed_point);
  // `block` reached `point` now; only the first time per message counts.
  void mark(const std::string& block, const char* point) {
    if (enabled_ && open_) record(block, point);
  }
  // The same for a block named by its object: the name is only built when
  // the mark counts (per packet, a string would be the costliest part).
  void mark(const sc_core::sc_object& block, const char* point);
  // The same at time `at`, which may be ahead of the kernel's (a stage
  // serving an item taken early): marks are kept in time order.
  void mark(const sc_core::sc_object& block, const char* point, const sc_core::sc_time& at);

  // The messages since the last take(): each point's mean time after the
  // post, in order, as the stages between consecutive points.
  struct Stage {
    std::string point;  // the point that ends the stage
    std::string block;  // where it is reached
    double mean_ns = 0;        // mean time from the previous point
    double mean_end_ns = 0;    // mean time from the post
  };
  struct Summary {
    std::uint64_t messages = 0;
    std::vector<Stage> stages;
    // The first message's marks, for a trace: (block, point, ns after the post).
    std::vector<Stage> first;
  };
  Summary take();

 private:
  struct Mark {
    std::string block;
    std::string point;
    sc_core::sc_time at;
  };
  void record(const std::string& block, const char* point);
  void record(const std::string& block, const char* point, const sc_core::sc_time& at);

  bool enabled_ = false;
  bool open_ = false;
  sc_core::sc_time started_;
  std::vector<Mark> current_;
  std::vector<std::vector<Mark>> messages_;
};

// Acknowledgements (opcode 0x11) are not on a message's path: the ACK of
// the previous message overlaps the next one in a ping-pong.
constexpr bool is_acknowledge(std::uint8_t opcode) { return opcode == 0x11; }

// An object's name without the testbed's: "a.nic.requester".
std::string block_name(const sc_core::sc_object& object);

// breakdown.json's entry for one size, and Chrome/Perfetto trace events of
// its first message (one track per block), starting at `offset_us`.
nlohmann::json breakdown_json(std::uint64_t bytes, const MessageBreakdown::Summary& summary);
void add_trace_events(nlohmann::json& events, std::uint64_t bytes,
                      const MessageBreakdown::Summary& summary, double offset_us);

}  // namespace rnicsim
