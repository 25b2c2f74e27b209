#!/usr/bin/env python3
"""Every perftest test's banner names the buffers its requests access.

usage: check_perf_banner.py RNICSIM WORK_DIR

Runs each test with --pcap (bandwidth tests on 2 QPs) and checks, QP by QP,
that the remote address line's RKey and VAddr are those of the first request
the client sent to that QP (its RETH, or its AtomicETH), and, where the server
sends requests too (write_lat), that the local line's are those of the first
request the server sent. SEND and atomic tests must print no RKey and VAddr:
perftest's address line adds them for WRITE and READ only (its verb switch
in ctx_print_pingpong_data).
Exits 1 listing every problem.
"""
import subprocess
import sys
from pathlib import Path

import perf_capture

CLIENT_MAC = "02:00:00:00:00:01"  # node a (system/testbed.cpp)
TESTS = {
    "write_lat": ["-n", "5", "-s", "4096"],
    "write_bw": ["-n", "5", "-s", "4096", "-q", "2"],
    "read_lat": ["-n", "5", "-s", "4096"],
    "read_bw": ["-n", "5", "-s", "4096", "-q", "2"],
    "atomic_lat": ["-n", "5"],
    "atomic_bw": ["-n", "5", "-q", "2"],
    "send_lat": ["-n", "5", "-s", "64"],
    "send_bw": ["-n", "5", "-s", "64", "-q", "2"],
}


def first_requests(pcap, from_client):
    """The first (VA, rkey) sent to each destination QP by one side."""
    first = {}
    for _, frame in perf_capture.frames(pcap):
        parsed = perf_capture.bth_of(frame)
        buffer = perf_capture.remote_buffer(frame)
        if parsed is None or buffer is None or (parsed[0] == CLIENT_MAC) != from_client:
            continue
        first.setdefault(parsed[2], buffer)
    return first


def check(rnicsim, work, test, args, problems):
    pcap = work / f"{test}.pcap"
    run = subprocess.run([rnicsim, "perf", test, *args, "--pcap", str(pcap),
                          "--out", str(work / test)], capture_output=True, text=True)
    if run.returncode != 0:
        problems.append(f"{test}: exit {run.returncode}: {run.stderr.strip()}")
        return
    addresses = perf_capture.banner_addresses(run.stdout)
    if not addresses:
        problems.append(f"{test}: no address lines in the banner")
        return
    if test.startswith("send") or test.startswith("atomic"):
        for side, qpn, rkey, _ in addresses:
            if rkey is not None:
                problems.append(f"{test}: {side} QPN {qpn:#x} prints an RKey (perftest's does not)")
        print(f"{test}: {len(addresses)} address lines, no RKey, as perftest prints them")
        return
    sides = [("remote", True)] + ([("local", False)] if test == "write_lat" else [])
    for side, from_client in sides:
        sent = first_requests(pcap, from_client)
        for line_side, qpn, rkey, vaddr in addresses:
            if line_side != side:
                continue
            if qpn not in sent:
                problems.append(f"{test}: no request to {side} QPN {qpn:#x} in the capture")
            elif sent[qpn] != (vaddr, rkey):
                va, key = sent[qpn]
                problems.append(f"{test}: {side} QPN {qpn:#x}: banner RKey {rkey:#x} VAddr {vaddr:#x}, "
                                f"the first request carries rkey {key:#x} VA {va:#x}")
            else:
                print(f"{test}: {side} QPN {qpn:#x}: RKey {rkey:#x} VAddr {vaddr:#x} as requested")


def main():
    rnicsim, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    problems = []
    for test, args in TESTS.items():
        check(rnicsim, work, test, args, problems)
    for p in problems:
        print("FAIL:", p)
    if problems:
        sys.exit(1)
    print(f"banners of {len(TESTS)} tests match their requests")


if __name__ == "__main__":
    main()
