#!/usr/bin/env python3
"""The connection's MTU is the smaller of the two ports' active MTUs.

usage: check_perf_mtu.py RNICSIM WORK_DIR

write_bw of 5 messages of 8 KiB with each node's own Ethernet MTU: 4200 on one
node and 1500 on the other (both ways round) must run at PMTU 1024 (the banner
says so, and node a sends 5 x 8 request packets), both at 4200 at 4096 (5 x 2).
"""
import json
import re
import subprocess
import sys
from pathlib import Path

CASES = [  # (node a's Ethernet MTU, node b's, expected PMTU)
    (4200, 1500, 1024),
    (1500, 4200, 1024),
    (4200, 4200, 4096),
    (1500, 1500, 1024),
]


def main():
    rnicsim, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    problems = []
    for mtu_a, mtu_b, pmtu in CASES:
        out = work / f"a{mtu_a}_b{mtu_b}"
        run = subprocess.run([rnicsim, "perf", "write_bw", "-s", "8192", "-n", "5", "--out", str(out),
                              "--set", f"nodes.a.nic.ethernet_mtu_bytes={mtu_a}",
                              "--set", f"nodes.b.nic.ethernet_mtu_bytes={mtu_b}"],
                             capture_output=True, text=True)
        name = f"a at {mtu_a}, b at {mtu_b}"
        if run.returncode != 0:
            problems.append(f"{name}: exit {run.returncode}: {run.stderr.strip()}")
            continue
        banner = re.search(r"^ Mtu +: (\d+)\[B\]$", run.stdout, re.M)
        packets = json.loads((out / "perf.json").read_text())["counters"]["a"]["request_packets"]
        shown = int(banner.group(1)) if banner else None
        print(f"{name}: banner Mtu {shown}, {packets} request packets")
        if shown != pmtu:
            problems.append(f"{name}: banner Mtu {shown}, expected {pmtu}")
        if packets != 5 * 8192 // pmtu:
            problems.append(f"{name}: {packets} request packets, expected {5 * 8192 // pmtu}")
    for p in problems:
        print("FAIL:", p)
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
