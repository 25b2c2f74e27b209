#!/usr/bin/env python3
"""The fabric experiment from the command line: its files agree with each
other and with the model, the same seed gives the same files, and a bad
traffic section exits 2 naming the field and writes nothing.

usage: check_fabric_run.py RNICSIM CONFIGS_DIR WORK_DIR

- A 4-to-1 incast of 32 x 64 KiB WRITEs per sender on a star with PFC
  (configs/fabric_incast.json, 5 hosts): no drop, no retransmission; the
  receiver's switch port within 2% of the line-rate goodput rule and never
  above it; the flows' shares within 10% of fair; pauses sent by the senders'
  switch ports; each flow's bins in throughput.csv add up to its bytes; the
  queues in queues.csv never above the peak ports.csv gives; capture.pcap of
  that port (output.pcap_port) holds exactly the frames ports.csv says it sent.
- Run again: every file but speed.json byte for byte the same.
- Without PFC and with a 256 KiB switch buffer: drops, and the flows'
  retransmissions (flows.csv) add up to the NICs' (statistics.json); every
  byte still arrives (the run checks them).
- Bad traffic sections: exit 2, one line naming the key and the reason, no
  output folder.
"""
import csv
import filecmp
import json
import struct
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

SMALL = ["--set", "topology.hosts=5", "--set", "traffic.bytes=65536",
         "--set", "traffic.messages=32", "--set", "output.plot=false"]


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def pcap_records(path):
    data = Path(path).read_bytes()
    offset, count = 24, 0
    while offset < len(data):
        captured = struct.unpack("<I", data[offset + 8:offset + 12])[0]
        offset += 16 + captured
        count += 1
    return count


def main():
    rnicsim, configs, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    problems = []

    def run(folder, extra):
        r = subprocess.run([rnicsim, "run", str(configs / "fabric_incast.json"), "--out",
                            str(folder)] + SMALL + extra, capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"{folder.name}: exit {r.returncode}: {r.stderr.strip()}")
        return r

    pcap = ["--set", "output.pcap_port=s1:0"]
    first, second = work / "first", work / "second"
    run(first, pcap)
    run(second, pcap)
    if problems:
        sys.exit("\n".join(problems))
    summary = json.loads((first / "summary.json").read_text())
    flows = rows(first / "flows.csv")
    if len(flows) != 4:
        problems.append(f"{len(flows)} flows, not 4")
    if summary["dropped_frames"] != 0 or summary["retransmitted_packets"] != 0:
        problems.append(f"PFC on, yet {summary['dropped_frames']} drops and "
                        f"{summary['retransmitted_packets']} retransmissions")
    receiver = summary["receivers"][0]
    if receiver["node"] != "h1" or not 0.98 <= receiver["payload_over_rule"] <= 1.0:
        problems.append(f"the receiver's port ran at {receiver['payload_over_rule']} of its "
                        "rule, not within 2% (and never above it)")
    shares = summary["shares_while_all_run"]
    if not (shares["least_over_fair"] >= 0.9 and shares["most_over_fair"] <= 1.1):
        problems.append(f"shares {shares} not within 10% of fair")
    ports = {p["port"]: p for p in rows(first / "ports.csv")}
    paused = sum(int(ports[f"s1:{i}"]["pause_frames_sent"]) for i in range(1, 5))
    if paused == 0:
        problems.append("the senders' switch ports sent no pause: the incast did not congest")
    # Each flow's bins: gbps x the bin's length (us) is kbit; they add up to its bytes.
    times = sorted({float(r["time_us"]) for r in rows(first / "throughput.csv")})
    before = dict(zip(times, [0.0] + times[:-1]))
    kbit = defaultdict(float)
    for r in rows(first / "throughput.csv"):
        kbit[int(r["flow"])] += float(r["gbps"]) * (float(r["time_us"]) - before[float(r["time_us"])])
    for f in flows:
        expected = int(f["bytes"]) * int(f["messages"]) * 8 / 1000
        if abs(kbit[int(f["flow"])] - expected) > 1e-6 * expected:
            problems.append(f"flow {f['flow']}'s bins add up to {kbit[int(f['flow'])]} kbit, "
                            f"not its {expected}")
    deepest = max(int(q["bytes"]) for q in rows(first / "queues.csv") if q["port"] == "s1:0")
    if not 0 < deepest <= int(ports["s1:0"]["peak_queue_bytes"]):
        problems.append(f"queues.csv's s1:0 reaches {deepest} B, ports.csv's peak is "
                        f"{ports['s1:0']['peak_queue_bytes']}")
    frames = pcap_records(first / "capture.pcap")
    sent = int(ports["s1:0"]["frames_sent"]) + int(ports["s1:0"]["pause_frames_sent"])
    if frames != sent:
        problems.append(f"capture.pcap of s1:0 holds {frames} frames, ports.csv says {sent}")
    for name in sorted(p.name for p in first.iterdir()):
        if name != "speed.json" and not filecmp.cmp(first / name, second / name, shallow=False):
            problems.append(f"the same seed wrote a different {name}")

    lossy = work / "lossy"
    run(lossy, ["--set", "pfc.enabled=false", "--set", "switch.buffer_bytes=262144",
                "--set", "traffic.qp_timeout=8"])
    if lossy.exists():
        summary = json.loads((lossy / "summary.json").read_text())
        statistics = json.loads((lossy / "statistics.json").read_text())
        nics = sum(n["transport"]["retransmitted_packets"] for n in statistics["nodes"].values())
        per_flow = sum(int(f["retransmitted_packets"]) for f in rows(lossy / "flows.csv"))
        if summary["dropped_frames"] == 0:
            problems.append("PFC off with a 256 KiB buffer dropped nothing")
        if per_flow != nics or nics == 0:
            problems.append(f"the flows' retransmissions add up to {per_flow}, the NICs' to {nics}")

    bad = {
        "unknown node": ('traffic.flows=["h2 h9 write 100"]',
                         'traffic.flows\\[0\\]: destination "h9" is not a node of the topology'),
        "start in the past": ('traffic.flows=["h2 h1 write 100 start_ns=-1"]',
                              "traffic.flows\\[0\\]: start_ns -1 is in the past of the run"),
        "size the verb cannot carry": ('traffic.flows=["h2 h1 read 4294967296"]',
                                       "traffic.flows\\[0\\]: bytes 4294967296: a read carries 1 "
                                       "to 2147483648 bytes"),
        "pcap port": ("output.pcap_port=s1:99",
                      'output.pcap_port: "s1:99" is neither a node nor a switch.s port'),
    }
    import re
    for name, (setting, message) in bad.items():
        folder = work / ("bad_" + name.replace(" ", "_"))
        extra = ["--set", setting]
        if setting.startswith("traffic.flows"):
            extra += ["--set", "traffic.pattern=flows"]
        r = subprocess.run([rnicsim, "run", str(configs / "fabric_incast.json"), "--out",
                            str(folder)] + SMALL + extra, capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1 or not re.search(message, lines[0]):
            problems.append(f"{name}: exit {r.returncode}, {r.stderr.strip()!r}")
        if folder.exists():
            problems.append(f"{name}: {folder} was written")
    if problems:
        sys.exit("\n".join(problems))
    print(f"fabric run: receiver at {receiver['payload_over_rule']:.4f} of its rule, shares "
          f"{shares['least_over_fair']:.3f} to {shares['most_over_fair']:.3f} of fair, {paused} "
          f"pauses, {frames} frames captured; lossy: {summary['dropped_frames']} drops; "
          f"{len(bad)} bad sections refused")


if __name__ == "__main__":
    main()
