#include "common/message_breakdown.hpp"

#include <algorithm>
#include <map>

#include "common/time_units.hpp"

namespace rnicsim {

MessageBreakdown& MessageBreakdown::instance() {
  static MessageBreakdown breakdown;
  return breakdown;
}

void MessageBreakdown::begin(const std::string& cpu) {
  if (!enabled_) return;
  open_ = true;
  started_ = sim_now();
  current_.clear();
  record(cpu, "post");
}

void MessageBreakdown::end(const std::string& block, const char* point) {
  if (!enabled_ || !open_) return;
  record(block, point);
  messages_.push_back(current_);
  open_ = false;
}

void MessageBreakdown::end(const std::string& block, const char* point,
                           const sc_core::sc_time& landed, const char* landed_point) {
  if (!enabled_ || !open_) return;
  if (landed >= started_) current_.push_back(Mark{block, landed_point, landed});
  end(block, point);
}

void MessageBreakdown::mark(const sc_core::sc_object& block, const char* point) {
  if (enabled_ && open_) record(block_name(block), point);
}

void MessageBreakdown::mark(const sc_core::sc_object& block, const char* point,
                            const sc_core::sc_time& at) {
  if (enabled_ && open_) record(block_name(block), point, at);
}

void MessageBreakdown::record(const std::string& block, const char* point) {
  record(block, point, sim_now());
}

void MessageBreakdown::record(const std::string& block, const char* point,
                              const sc_core::sc_time& at) {
  for (const Mark& m : current_) {
    if (m.point == point && m.block == block) return;
  }
  // After every mark at or before `at`: marks made now come last, as before.
  const auto later = std::upper_bound(current_.begin(), current_.end(), at,
                                      [](const sc_core::sc_time& t, const Mark& m) { return t < m.at; });
  current_.insert(later, Mark{block, point, at});
}

MessageBreakdown::Summary MessageBreakdown::take() {
  Summary summary;
  summary.messages = messages_.size();
  // Mean time after the post of every (block, point) seen, over the messages
  // that reached it; the stages follow in the order of those means.
  std::map<std::pair<std::string, std::string>, std::pair<double, std::uint64_t>> sums;
  for (const auto& message : messages_) {
    const sc_core::sc_time start = message.front().at;
    for (const Mark& m : message) {
      auto& [sum, count] = sums[{m.block, m.point}];
      sum += (m.at - start).to_seconds() * 1e9;
      ++count;
    }
  }
  for (const auto& [key, value] : sums) {
    Stage stage;
    stage.block = key.first;
    stage.point = key.second;
    stage.mean_end_ns = value.first / static_cast<double>(value.second);
    summary.stages.push_back(stage);
  }
  std::stable_sort(summary.stages.begin(), summary.stages.end(),
                   [](const Stage& a, const Stage& b) { return a.mean_end_ns < b.mean_end_ns; });
  double previous = 0;
  for (Stage& stage : summary.stages) {
    stage.mean_ns = stage.mean_end_ns - previous;
    previous = stage.mean_end_ns;
  }
  if (!messages_.empty()) {
    const auto& message = messages_.front();
    for (const Mark& m : message) {
      Stage s;
      s.block = m.block;
      s.point = m.point;
      s.mean_end_ns = (m.at - message.front().at).to_seconds() * 1e9;
      summary.first.push_back(s);
    }
  }
  messages_.clear();
  return summary;
}

std::string block_name(const sc_core::sc_object& object) {
  const std::string name = object.name();
  const auto dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

nlohmann::json breakdown_json(std::uint64_t bytes, const MessageBreakdown::Summary& summary) {
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& s : summary.stages) {
    stages.push_back({{"point", s.point},
                      {"block", s.block},
                      {"ns", s.mean_ns},
                      {"ns_after_post", s.mean_end_ns}});
  }
  return {{"bytes", bytes}, {"messages", summary.messages}, {"stages", stages}};
}

void add_trace_events(nlohmann::json& events, std::uint64_t bytes,
                      const MessageBreakdown::Summary& summary, double offset_us) {
  // One slice per stage of the first message, on the track of the block that
  // ends it, from the previous point to its own.
  double previous = 0;
  for (const auto& s : summary.first) {
    events.push_back({{"name", s.point},
                      {"cat", std::to_string(bytes) + " B"},
                      {"ph", "X"},
                      {"ts", offset_us + previous / 1000},
                      {"dur", (s.mean_end_ns - previous) / 1000},
                      {"pid", 1},
                      {"tid", std::hash<std::string>{}(s.block) % 100000}});
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", std::hash<std::string>{}(s.block) % 100000},
                      {"args", {{"name", s.block}}}});
    previous = s.mean_end_ns;
  }
}

}  // namespace rnicsim
