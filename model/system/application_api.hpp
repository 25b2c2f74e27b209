#pragma once
// What an application running on a testbed node may use, and so what the
// program's experiments include instead of the blocks' headers: the node's
// software (the verbs driver, its address space and page allocator, CPU core
// accounting, the kernel TCP stack), as perftest and iperf use libibverbs and
// sockets. The nodes and wires themselves are reached through testbed.hpp.
// An application outside the simulation (rnicsim exec) is served by its
// node's AppSession, its real sockets followed by SocketStreams, its
// rdma_cm connections kept by the ConnectionManager.
#include "host/app_bridge/app_session.hpp"
#include "host/app_bridge/connection_manager.hpp"
#include "host/app_bridge/socket_io.hpp"
#include "host/app_bridge/socket_streams.hpp"
#include "host/cpu/cpu_core.hpp"
#include "host/driver/address_space.hpp"
#include "host/driver/verbs.hpp"
#include "host/kernel/kernel_stack.hpp"
#include "host/memory/page_allocator.hpp"
