// libsystemc owns main() and calls sc_main; test programs run GoogleTest here.
#include <gtest/gtest.h>

#include <systemc>

#include "common/systemc_banner.hpp"

int sc_main(int argc, char* argv[]) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
