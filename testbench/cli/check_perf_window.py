#!/usr/bin/env python3
"""A small send window asks for its ACKs in time.

usage: check_perf_window.py RNICSIM WORK_DIR

write_bw of 64 KiB messages with transport.max_unacked_packets=8 must finish
with no transport timeout (the window's packets ask for an ACK before it
closes, twice per window) at PMTU 1024 and 4096, and at PMTU 4096 reach at
least half the bandwidth of the default window (1024 packets). A window
bounds bandwidth by its bytes per loop (an AckReq packet's ACK coming back,
then the next packet's payload read over PCIe before it leaves: about
2.3 us here): 8 packets of 4 KiB fill 100 Gbit/s at half or more, 8 of
1 KiB cannot (8 KiB per 2.3 us is about 3.5 GB/s), so there only the
timeouts are checked.
"""
import json
import subprocess
import sys
from pathlib import Path

PMTU_4096 = ["-m", "4096", "--set", "nic.ethernet_mtu_bytes=4200"]
WINDOW_8 = ["--set", "transport.max_unacked_packets=8"]


def run(rnicsim, out, extra):
    result = subprocess.run([rnicsim, "perf", "write_bw", "-s", "65536", "-n", "200",
                             "--out", str(out), *extra], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"FAIL: {' '.join(extra)}: exit {result.returncode}: {result.stderr.strip()}")
    document = json.loads((out / "perf.json").read_text())
    return document["results"][0]["bw_avg_gbps"], document["counters"]["a"]["local_ack_timeout_err"]


def main():
    rnicsim, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    problems = []
    small_1024, timeouts_1024 = run(rnicsim, work / "window8_pmtu1024", WINDOW_8)
    default, _ = run(rnicsim, work / "default_pmtu4096", PMTU_4096)
    small, timeouts = run(rnicsim, work / "window8_pmtu4096", PMTU_4096 + WINDOW_8)
    print(f"PMTU 1024, 8-packet window: {small_1024:.2f} Gbit/s, {timeouts_1024} ACK timeouts")
    print(f"PMTU 4096: default window {default:.2f} Gbit/s, 8-packet window {small:.2f} Gbit/s "
          f"({small / default:.2f} of it), {timeouts} ACK timeouts")
    for pmtu, count in ((1024, timeouts_1024), (4096, timeouts)):
        if count != 0:
            problems.append(f"{count} ACK timeouts with an 8-packet window at PMTU {pmtu}")
    if small < 0.5 * default:
        problems.append(f"the 8-packet window gives {small:.2f} Gbit/s, under half the "
                        f"default window's {default:.2f}")
    for p in problems:
        print("FAIL:", p)
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
