#pragma once
// Clocking a verilated model by hand (Verilator --cc): its clock input is
// `clk_i` and its synchronous reset `rst_ni`, active low, as every block in
// rtl/ has them.

namespace rnicsim::rtl_bridge {

// The rising edge that ends a cycle; the inputs set for the cycle and
// evaluated at clock low are what the edge takes.
template <typename Top>
void rise(Top& top) {
  top.clk_i = 1;
  top.eval();
}

// A whole cycle: inputs settle with the clock low, then the rising edge.
template <typename Top>
void clock_cycle(Top& top) {
  top.clk_i = 0;
  top.eval();
  rise(top);
}

// Holds reset for `cycles` cycles, with whatever inputs the caller set.
template <typename Top>
void reset(Top& top, int cycles) {
  top.rst_ni = 0;
  for (int i = 0; i < cycles; ++i) clock_cycle(top);
  top.rst_ni = 1;
}

}  // namespace rnicsim::rtl_bridge
