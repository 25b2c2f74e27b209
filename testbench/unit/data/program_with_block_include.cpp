// A program source that includes a block's header: the build's include check
// (cmake/check_program_includes.cmake) must refuse it.
#include "system/testbed.hpp"
#include "nic/dma/dma_engine.hpp"
