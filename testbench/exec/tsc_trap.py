"""What rnicsim exec says on a machine that does not trap RDTSC, read the same way
by every check that runs Debian's perftest under it (check_perftest.py,
check_exec.py, testbench/cli/check_perf_pcap.py).

On such a machine prctl(PR_SET_TSC, PR_TSC_SIGSEGV) is accepted but RDTSC never
faults, so perftest's get_cycles reads wall-clock cycles: exec warns once on
standard error and carries on (model/program/exec/README.md). perftest's result
lines are then not simulated, and its calibration of the TSC against the
simulated gettimeofday may fail, which ends a bandwidth run with an error. A
check skips (exit SKIP) only in those two cases; any other failure still fails.
"""

SKIP = 77  # ctest's SKIP_RETURN_CODE (testbench/exec/CMakeLists.txt)
# rnicsim exec's warning when the TSC trap does not work here (model/program/exec).
NO_TSC_TRAP = "does not trap RDTSC"
# perftest's calibration of its TSC against gettimeofday failing (get_clock.c).
CALIBRATION_FAILED = "Correlation coefficient r^2"


def untrapped_warning(stderr):
    """exec's warning line, or None when it gave none; ValueError when it gave it
    more than once (it warns once a run)."""
    said = [line for line in stderr.splitlines() if NO_TSC_TRAP in line]
    if len(said) > 1:
        raise ValueError(f"rnicsim exec said {len(said)} times that this machine does not "
                         "trap RDTSC")
    return said[0] if said else None


def calibration_failed(stderr):
    """Whether perftest said its TSC calibration failed."""
    return CALIBRATION_FAILED in stderr
