// A program source that includes a block's header three ways: the build's
// include check (cmake/check_program_includes.cmake) must refuse each of them,
// and pass the testbed's own header and the library ones.
#include <vector>
#include <nlohmann/json.hpp>
#include "system/testbed.hpp"
#include "nic/dma/dma_engine.hpp"
#include <nic/nic.hpp>
#include "../nic/nic.hpp"
