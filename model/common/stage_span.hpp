#pragma once
#include <systemc>

namespace rnicsim {

// One stage's time with one item: from the start of service until the item
// is visible to the next stage.
struct StageSpan {
  const char* stage;  // the stage module's basename; lives as long as the module
  sc_core::sc_time start;
  sc_core::sc_time end;
};

}  // namespace rnicsim
