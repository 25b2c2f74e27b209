#!/usr/bin/env python3
"""Runs `rnicsim perf ... --pcap` and checks the capture with tools that are not ours.

usage: check_perf_pcap.py RNICSIM VECTORS_JSON WORK_DIR NAME PERF_ARGS...
       check_perf_pcap.py RNICSIM VECTORS_JSON WORK_DIR NAME exec EXEC_ARGS...

Runs `RNICSIM perf PERF_ARGS --pcap WORK_DIR/NAME.pcap --out WORK_DIR/NAME` (or
`RNICSIM exec --pcap WORK_DIR/NAME.pcap EXEC_ARGS`: unmodified programs on the
model, whose frames must pass the same checks; exec writes no perf.json, so
the per-node counts of check 0 are not compared there), then:
0. The file: a nanosecond pcap of Ethernet frames, whole (captured = original
   length), in time order, nothing left beside it (no NAME.pcap.partial-*);
   node a's frames number its requests and responses as perf.json counts them,
   and so do node b's (every frame of both wires is there).
1. tshark (Wireshark's dissectors; IPv4 checksum validation on) reads every
   frame as eth:ethertype:ip:udp:infiniband (then data, for a payload) with
   no malformed frame and no
   expert item of error severity.
2. Every ICRC is recomputed outside rnicsim, twice: scapy finds the headers and
   the masks of the RoCEv2 spec are applied to the bytes (IPv4 TOS, TTL and
   header checksum, UDP checksum, BTH byte 4 set to ones; 8 x 0xFF in front
   for the masked LRH), then zlib's CRC-32, stored little-endian; and scapy's
   own BTH.compute_icrc (scapy.contrib.roce). Both must first give the ICRC of
   every IPv4 frame of VECTORS_JSON (Linux rxe's, from real captures), and
   must notice a corrupted PSN.
3. `rnicsim decode` prints one object per frame, each with icrc_ok true, and
   agrees with tshark field by field (golden/compare_with_tshark.py).

Exits 1 listing every problem, 0 with a summary line, 77 (skipped) when an exec
run of Debian's perftest failed only because this machine does not trap RDTSC
(rnicsim exec says so): perftest's calibration of its TSC against the simulated
gettimeofday may then fail ("Correlation coefficient r^2 < 0.9"), a bandwidth test
exits 1, and exec keeps no capture of a failed run. Needs tshark and a python3
that imports scapy (Debian's python3-scapy; scripts/setup installs both).
"""
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

# The reading of rnicsim exec's RDTSC warning that the exec checks share.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "exec"))
from tsc_trap import SKIP, calibration_failed, untrapped_warning  # noqa: E402

from scapy.compat import raw
from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "golden"))
import compare_with_tshark  # noqa: E402

PCAP_MAGIC_NANOSECONDS = 0xA1B23C4D
LINKTYPE_ETHERNET = 1
ROCE_PORT = 4791
NODE_MACS = {"02:00:00:00:00:01": "a", "02:00:00:00:00:02": "b"}  # system/testbed.cpp
EXPERT_ERROR = 0x00800000  # _ws.expert.severity of PI_ERROR
# A frame with a payload ends in Wireshark's "data" dissector.
PROTOCOLS = ("eth:ethertype:ip:udp:infiniband", "eth:ethertype:ip:udp:infiniband:data")


def read_pcap(path, problems):
    """The records as (time_ns, frame)."""
    data = path.read_bytes()
    magic, major, minor, _, _, _, linktype = struct.unpack_from("<IHHiIII", data, 0)
    if magic != PCAP_MAGIC_NANOSECONDS or (major, minor) != (2, 4):
        problems.append(f"{path.name}: magic {magic:#x} version {major}.{minor}, "
                        f"expected a nanosecond pcap 2.4")
    if linktype != LINKTYPE_ETHERNET:
        problems.append(f"{path.name}: link type {linktype}, expected Ethernet (1)")
    records, at = [], 24
    while at < len(data):
        seconds, fraction, captured, original = struct.unpack_from("<IIII", data, at)
        frame = data[at + 16:at + 16 + captured]
        if captured != original or len(frame) != captured:
            problems.append(f"record {len(records) + 1}: {len(frame)} of {original} bytes")
        records.append((seconds * 10**9 + fraction, frame))
        at += 16 + captured
    return records


def headers(frame):
    """scapy's view: where the IP header starts and the packet with its layers."""
    packet = Ether(frame)
    if IP not in packet or UDP not in packet or BTH not in packet:
        return None, packet
    return len(frame) - len(raw(packet[IP])), packet


def icrc_by_masks(frame):
    """The ICRC in wire order: masked pseudo packet (REFERENCE-style), zlib CRC-32."""
    ip_at, packet = headers(frame)
    ip = packet[IP]
    end = ip_at + ip.len  # IP total length, never the frame length (L2 padding)
    covered = bytearray(frame[ip_at:end - 4])
    covered[1] = 0xFF  # TOS: DSCP and ECN
    covered[8] = 0xFF  # TTL
    covered[10:12] = b"\xff\xff"  # header checksum
    udp = ip.ihl * 4
    covered[udp + 6:udp + 8] = b"\xff\xff"  # UDP checksum
    covered[udp + 8 + 4] = 0xFF  # BTH byte 4: FECN, BECN, reserved
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(covered)))


def icrc_by_scapy(frame):
    return bytes(Ether(frame)[BTH].compute_icrc(None))


def icrc_on_wire(frame):
    ip_at, packet = headers(frame)
    end = ip_at + packet[IP].len
    return frame[end - 4:end]


def corrupted(frame):
    """The frame with the low bit of the PSN's last byte flipped: covered by the ICRC."""
    ip_at, packet = headers(frame)
    at = ip_at + packet[IP].ihl * 4 + 8 + 11
    return frame[:at] + bytes([frame[at] ^ 0x01]) + frame[at + 1:]


def check_icrc(where, frame, problems):
    wire = icrc_on_wire(frame)
    for name, compute in (("masked CRC-32", icrc_by_masks), ("scapy", icrc_by_scapy)):
        mine = compute(frame)
        if mine != wire:
            problems.append(f"{where}: ICRC on the wire {wire.hex()}, {name} computes {mine.hex()}")
        elif compute(corrupted(frame)) == wire:
            problems.append(f"{where}: {name} misses a corrupted PSN")


def check_the_checkers(vectors_json, problems):
    """The two ICRC computations against frames other implementations sent."""
    if zlib.crc32(b"123456789") != 0xCBF43926:
        problems.append("zlib.crc32 is not the Ethernet CRC-32")
    checked = 0
    for v in json.loads(Path(vectors_json).read_text()):
        frame = bytes.fromhex(v["frame_hex"])
        if headers(frame)[0] is None:
            continue  # IPv6: scapy 2.5 computes no ICRC there, and our runs are IPv4
        if icrc_on_wire(frame).hex() != v["icrc_wire_hex"]:
            problems.append(f"vector {v['name']}: the ICRC is not where the IP length says")
        check_icrc(f"vector {v['name']}", frame, problems)
        checked += 1
    if checked == 0:
        problems.append(f"{vectors_json}: no IPv4 vector")
    return checked


def run_capture(command, pcap, work, name, problems):
    """Runs a command that writes the capture to pcap, none being there before."""
    for old in [pcap, *work.glob(f"{name}.pcap.partial-*")]:
        old.unlink(missing_ok=True)
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        said = untrapped_warning(done.stderr)
        if said and calibration_failed(done.stderr):
            print(f"SKIP: {' '.join(command)}: exit {done.returncode}, no capture: perftest "
                  "could not calibrate its TSC, which this machine does not trap.\n" + said)
            sys.exit(SKIP)
        sys.exit(f"{' '.join(command)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    left = list(work.glob(f"{name}.pcap.partial-*"))
    if left:
        problems.append(f"staging files left beside the capture: {left}")


def run_perf(rnicsim, work, name, args, problems):
    pcap, out = work / f"{name}.pcap", work / name
    run_capture([rnicsim, "perf", *args, "--pcap", str(pcap), "--out", str(out)], pcap, work,
                name, problems)
    counters = json.loads((out / "perf.json").read_text())["counters"]
    return pcap, counters


def run_exec(rnicsim, work, name, args, problems):
    pcap = work / f"{name}.pcap"
    run_capture([rnicsim, "exec", "--pcap", str(pcap), *args], pcap, work, name, problems)
    return pcap, None


def check_file(records, counters, problems):
    times = [t for t, _ in records]
    if times != sorted(times):
        problems.append("records are not in time order")
    sent = {"a": 0, "b": 0}
    for number, (_, frame) in enumerate(records, 1):
        node = NODE_MACS.get(Ether(frame).src)
        if node is None:
            problems.append(f"frame {number}: from {Ether(frame).src}, not a node's MAC")
        else:
            sent[node] += 1
    for node, count in sent.items():
        if counters is None:
            break
        c = counters[node]
        expected = c["request_packets"] + c["response_packets"]
        if count != expected:
            problems.append(f"node {node} put {count} frames in the capture; perf.json counts "
                            f"{c['request_packets']} requests + {c['response_packets']} responses")
    if sent["a"] == 0 or sent["b"] == 0:
        problems.append(f"frames per node {sent}: both directions must be there")
    return sent


def check_tshark(pcap, count, problems):
    # As in golden/compare_with_tshark.py: no TFTP (UDP port 69) and no
    # RPC-over-RDMA heuristic on SEND payloads, which would hide the ICRC.
    command = ["tshark", "-r", str(pcap), "--disable-protocol", "tftp",
               "--disable-protocol", "rpcordma", "-o", "ip.check_checksum:TRUE",
               "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=;",
               "-e", "frame.number", "-e", "frame.protocols", "-e", "_ws.malformed",
               "-e", "_ws.expert.severity", "-e", "_ws.expert.message"]
    lines = subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()
    if len(lines) != count:
        problems.append(f"tshark reads {len(lines)} frames, the capture holds {count}")
    for line in lines:
        number, protocols, malformed, severities, messages = (line.split("\t") + [""] * 5)[:5]
        if protocols not in PROTOCOLS:
            problems.append(f"tshark frame {number}: {protocols}, expected {PROTOCOLS[0]}")
        if malformed:
            problems.append(f"tshark frame {number}: malformed")
        for severity, message in zip(severities.split(";"), messages.split(";")):
            if severity and int(severity, 0) >= EXPERT_ERROR:
                problems.append(f"tshark frame {number}: expert error: {message}")


def check_decode(rnicsim, pcap, count, problems):
    lines = subprocess.run([rnicsim, "decode", str(pcap)], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    if len(lines) != count:
        problems.append(f"rnicsim decode prints {len(lines)} frames, the capture holds {count}")
    for obj in map(json.loads, lines):
        if obj.get("icrc_ok") is not True:
            problems.append(f"rnicsim decode frame {obj.get('index')}: {obj}")
    compared = compare_with_tshark.compare(rnicsim, pcap, problems)
    if compared != count:
        problems.append(f"rnicsim decode and tshark compared {compared} of {count} frames")


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    rnicsim, vectors_json, work, name, args = argv[0], argv[1], Path(argv[2]), argv[3], argv[4:]
    work.mkdir(parents=True, exist_ok=True)
    problems = []
    vectors = check_the_checkers(vectors_json, problems)
    if args[0] == "exec":
        pcap, counters = run_exec(rnicsim, work, name, args[1:], problems)
    else:
        pcap, counters = run_perf(rnicsim, work, name, args, problems)
    records = read_pcap(pcap, problems)
    sent = check_file(records, counters, problems)
    check_tshark(pcap, len(records), problems)
    for number, (_, frame) in enumerate(records, 1):
        if headers(frame)[0] is None or Ether(frame)[UDP].dport != ROCE_PORT:
            problems.append(f"frame {number}: not RoCEv2 over IPv4 for scapy")
        else:
            check_icrc(f"frame {number}", frame, problems)
    check_decode(rnicsim, pcap, len(records), problems)
    if problems:
        print("\n".join(problems[:200]))
        print(f"{len(problems)} problems")
        sys.exit(1)
    print(f"{'' if args[0] == 'exec' else 'perf '}{' '.join(args)}: {len(records)} frames ({sent['a']} from a, {sent['b']} from "
          f"b): RoCEv2 for tshark, none malformed; every ICRC recomputed by scapy and by the "
          f"masked CRC-32 ({vectors} rxe vectors first); rnicsim decode agrees")


if __name__ == "__main__":
    main(sys.argv[1:])
