#pragma once
// The one place SC_HAS_PROCESS is used: modules that register processes in their
// constructor say RNICSIM_PROCESS_MODULE(ClassName) in the class body.
#include <systemc>

#define RNICSIM_PROCESS_MODULE(Class) SC_HAS_PROCESS(Class)
