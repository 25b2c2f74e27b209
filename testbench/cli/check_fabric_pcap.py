#!/usr/bin/env python3
"""Runs `rnicsim perf` across a star with ECN marking and checks the capture outside rnicsim.

usage: check_fabric_pcap.py RNICSIM VECTORS_JSON WORK_DIR

The run: write_bw between h1 and h2 on one switch, the NICs sending ECT(0), the switch's RED
profile at Pmax 50% from an empty queue (Kmin = Kmax = 0), PFC on. Then:
1. Every RoCEv2 frame in the capture (each one as its sender and the switch send it) has a good
   ICRC, recomputed by scapy and by the spec's masks over zlib's CRC-32 (check_perf_pcap.py's
   checkers, first proven on Linux rxe's frames): the CE-marked ones included.
2. Frames the switch forwarded have TTL one less and a good IPv4 header checksum (tshark).
3. Some frames are marked CE, and exactly as many reach h2 marked as h2's fabric port counts
   (statistics.json nodes.h2.fabric_port.ce_marked); no frame the NICs send is marked.
Exits 1 listing every problem, 0 with a summary line.
"""
import json
import subprocess
import sys
from pathlib import Path

from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_perf_pcap import check_icrc, check_the_checkers, headers, read_pcap  # noqa: E402

H2_MAC = "02:00:00:00:00:02"  # node 1's MAC (system/testbed.cpp)
SWITCH_MAC_PREFIX = "02:5e:"  # a switch port's source MAC (switch/switch.hpp)
ARGS = ["write_bw", "-s", "8192", "-n", "50", "-q", "2",
        "--set", "topology.preset=star", "--set", "topology.hosts=2",
        "--set", "roles.client=h1", "--set", "roles.server=h2",
        "--set", "pfc.enabled=true", "--set", "qos.ecn=ect0",
        "--set", "switch.ecn_kmin_bytes=0", "--set", "switch.ecn_kmax_bytes=0",
        "--set", "switch.ecn_pmax=0.5"]


def main(argv):
    rnicsim, vectors_json, work = argv[0], argv[1], Path(argv[2])
    work.mkdir(parents=True, exist_ok=True)
    problems = []
    vectors = check_the_checkers(vectors_json, problems)
    pcap, out = work / "fabric.pcap", work / "fabric"
    command = [rnicsim, "perf", *ARGS, "--pcap", str(pcap), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)}: exit {done.returncode}\n{done.stderr}")
    records = read_pcap(pcap, problems)
    marked_to_h2 = marked = roce = 0
    for number, (_, frame) in enumerate(records, 1):
        if headers(frame)[0] is None:
            continue
        roce += 1
        check_icrc(f"frame {number}", frame, problems)
        ether = Ether(frame)
        ecn = ether[IP].tos & 0x03
        from_switch = ether.src.startswith(SWITCH_MAC_PREFIX)
        if ecn == 0x03:
            marked += 1
            if not from_switch:
                problems.append(f"frame {number}: marked CE by its sender {ether.src}")
            if ether.dst == H2_MAC:
                marked_to_h2 += 1
        elif ecn != 0x02:
            problems.append(f"frame {number}: ECN {ecn:#04b}, expected ECT(0) or CE")
        if from_switch and ether[IP].ttl != 63:
            problems.append(f"frame {number}: TTL {ether[IP].ttl} after one switch, expected 63")
    fields = subprocess.run(["tshark", "-r", str(pcap), "-o", "ip.check_checksum:TRUE", "-T",
                             "fields", "-e", "ip.checksum.status", "-e", "_ws.malformed"],
                            check=True, capture_output=True, text=True).stdout.splitlines()
    for number, line in enumerate(fields, 1):
        status, malformed = (line.split("\t") + [""])[:2]
        if status != "1" or malformed:  # PROTO_CHECKSUM_E_GOOD
            problems.append(f"tshark frame {number}: IPv4 checksum status {status!r}, "
                            f"malformed {malformed!r}")
    stats = json.loads((out / "statistics.json").read_text())
    counted = stats["nodes"]["h2"]["fabric_port"]["ce_marked"]
    if marked == 0:
        problems.append("no frame is marked CE: the RED profile did not act")
    if counted != marked_to_h2:
        problems.append(f"h2 counts {counted} CE-marked frames; {marked_to_h2} reach it marked")
    if problems:
        print("\n".join(problems[:50]))
        sys.exit(1)
    print(f"{roce} RoCEv2 frames, {marked} marked CE ({marked_to_h2} reaching h2, as it counts): "
          f"every ICRC good by scapy and by the masked CRC-32 ({vectors} rxe vectors first), "
          f"forwarded TTL 63, IPv4 checksums good by tshark")


if __name__ == "__main__":
    main(sys.argv[1:])
