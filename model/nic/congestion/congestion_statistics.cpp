#include "nic/congestion/congestion_statistics.hpp"

namespace rnicsim {

const StatisticsTable<NotificationPointStats>& notification_point_statistics() {
  static const StatisticsTable<NotificationPointStats> table(
      "notification_point", {
                                {"np_ecn_marked_roce_packets", "packets",
                                 &NotificationPointStats::np_ecn_marked_roce_packets,
                                 "requests and READ responses received marked CE"},
                                {"np_cnp_sent", "packets", &NotificationPointStats::np_cnp_sent,
                                 "CNPs that began to leave the NIC's port"},
                            });
  return table;
}

const StatisticsTable<ReactionPointStats>& reaction_point_statistics() {
  static const StatisticsTable<ReactionPointStats> table(
      "reaction_point",
      {
          {"rp_cnp_handled", "packets", &ReactionPointStats::rp_cnp_handled,
           "CNPs received that cut their QP's rate"},
          {"rp_cnp_ignored", "packets", &ReactionPointStats::rp_cnp_ignored,
           "CNPs received that did not: within rate_reduce_monitor_period (firmware), DCQCN "
           "off, or no such QP"},
      });
  return table;
}

}  // namespace rnicsim
