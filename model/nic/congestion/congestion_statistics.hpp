#pragma once
// The DCQCN counters' names, units and meanings (common/statistics.hpp), by
// mlx5's names where it has one: statistics.json's "notification_point" and
// "reaction_point" of each node, present when dcqcn.mode is not off.
#include "common/statistics.hpp"
#include "nic/congestion/notification_point.hpp"
#include "nic/congestion/rate_limiters.hpp"

namespace rnicsim {

const StatisticsTable<NotificationPointStats>& notification_point_statistics();
const StatisticsTable<ReactionPointStats>& reaction_point_statistics();

}  // namespace rnicsim
