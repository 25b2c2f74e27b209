#!/usr/bin/env python3
"""The kernel TCP path's frames as Wireshark reads them.

Runs `rnicsim perf tcp_bw` with --pcap, then asks tshark, with IPv4 and TCP
checksum validation on: every frame is TCP/IPv4, every checksum is good,
tshark's TCP analysis flags nothing (no lost, retransmitted, out-of-order or
zero-window segment), and the payload node a sent is exactly the iterations
times the message size. Prints a summary line ctest matches.

usage: check_tcp_pcap.py RNICSIM WORK_DIR SIZE ITERATIONS
"""
import os
import shutil
import subprocess
import sys


def tshark_fields(pcap, fields, display_filter=None):
    command = ["tshark", "-r", pcap, "-o", "ip.check_checksum:TRUE",
               "-o", "tcp.check_checksum:TRUE", "-T", "fields"]
    for field in fields:
        command += ["-e", field]
    if display_filter:
        command += ["-Y", display_filter]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def main():
    rnicsim, work, size, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    pcap = os.path.join(work, "tcp.pcap")
    subprocess.run([rnicsim, "perf", "tcp_bw", "-s", str(size), "-n", str(iterations),
                    "--pcap", pcap, "--out", os.path.join(work, "out")],
                   check=True, stdout=subprocess.DEVNULL)
    frames = tshark_fields(pcap, ["ip.src", "ip.checksum.status", "tcp.checksum.status",
                                  "tcp.len"])
    if not frames:
        sys.exit("no frames in the capture")
    problems = []
    sent_by_a = 0
    for number, (source, ip_status, tcp_status, length) in enumerate(frames, 1):
        if ip_status != "1" or tcp_status != "1":
            problems.append(f"frame {number}: checksum status ip {ip_status} tcp {tcp_status}")
        if source == "192.168.0.1":
            sent_by_a += int(length)
    # Window updates are notes, not problems: the receiver opens its window as it reads.
    flagged = tshark_fields(pcap, ["frame.number"],
                            "tcp.analysis.flags && !tcp.analysis.window_update")
    if flagged:
        problems.append(f"tshark's TCP analysis flags frames {[f[0] for f in flagged][:10]}")
    if sent_by_a != size * iterations:
        problems.append(f"node a sent {sent_by_a} payload bytes, not {size * iterations}")
    if problems:
        sys.exit("\n".join(problems))
    from_a = sum(1 for f in frames if f[0] == "192.168.0.1")
    print(f"{len(frames)} frames ({from_a} from a, {len(frames) - from_a} from b): "
          f"TCP for tshark, checksums good, {sent_by_a} bytes in order")


if __name__ == "__main__":
    main()
