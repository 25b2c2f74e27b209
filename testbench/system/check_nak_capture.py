#!/usr/bin/env python3
"""An error run's NAK, as tshark and scapy see it in a capture of the wires.

usage: check_nak_capture.py WRITE_NAK_CAPTURE RNICSIM VECTORS_JSON WORK_DIR

WRITE_NAK_CAPTURE runs a bad-rkey RDMA WRITE between two nodes with a
WireCapture on both wires (system/bad_rkey_write.hpp) and must report a remote
access error. The capture must hold the WRITE ONLY from node a and, from node
b, an ACKNOWLEDGE whose AETH syndrome is 0x62 (NAK, remote access error) for
tshark, with the same checks as rnicsim perf's captures
(cli/check_perf_pcap.py): RoCEv2 for tshark, none malformed, every ICRC
recomputed by scapy and by the masked CRC-32, rnicsim decode agreeing.
"""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
import check_perf_pcap as checks  # noqa: E402

# Node a's WRITE ONLY, then node b's NAK: (eth.src, opcode, syndrome).
EXPECTED = [("02:00:00:00:00:01", "10", ""), ("02:00:00:00:00:02", "17", "0x62")]


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    writer, rnicsim, vectors_json, work = argv[0], argv[1], argv[2], Path(argv[3])
    work.mkdir(parents=True, exist_ok=True)
    pcap = work / "bad_rkey_write.pcap"
    pcap.unlink(missing_ok=True)
    problems = []
    checks.check_the_checkers(vectors_json, problems)
    status = subprocess.run([writer, str(pcap)], check=True, capture_output=True,
                            text=True).stdout.strip()
    if status != "remote access error":
        problems.append(f"the WRITE completed with {status!r}, not a remote access error")
    records = checks.read_pcap(pcap, problems)
    checks.check_tshark(pcap, len(records), problems)
    shown = subprocess.run(
        ["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=\t",
         "-e", "eth.src", "-e", "infiniband.bth.opcode", "-e", "infiniband.aeth.syndrome"],
        check=True, capture_output=True, text=True).stdout.splitlines()
    seen = [tuple((line.split("\t") + ["", "", ""])[:3]) for line in shown]
    seen = [(src, opcode, f"{int(syndrome, 0):#x}" if syndrome else "")
            for src, opcode, syndrome in seen]
    if seen != EXPECTED:
        problems.append(f"tshark shows (source, opcode, syndrome) {seen}, expected {EXPECTED}")
    for number, (_, frame) in enumerate(records, 1):
        checks.check_icrc(f"frame {number}", frame, problems)
    checks.check_decode(rnicsim, pcap, len(records), problems)
    if problems:
        print("\n".join(problems))
        print(f"{len(problems)} problems")
        sys.exit(1)
    print(f"bad-rkey WRITE: {len(records)} frames; tshark shows node b's NAK with AETH "
          f"syndrome 0x62 (remote access error); ICRCs recomputed; rnicsim decode agrees")


if __name__ == "__main__":
    main(sys.argv[1:])
