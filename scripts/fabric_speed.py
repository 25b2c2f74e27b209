#!/usr/bin/env python3
"""The fabric's simulator speed, side by side, round by round (scripts/bench):
the two-node 4 KB write_bw, the 8-to-1 incast of 4 KB WRITEs and a 64-host
permutation of them (rnicsim run configs/fabric_incast.json), and ns-3's
8-to-1 UDP incast (ns3_udp_incast); then the memory the fabric takes per node
and over a long run. Writes OUT/fabric_speed.json.

usage: fabric_speed.py RNICSIM NS3_UDP_INCAST CONFIGS_DIR OUT_DIR [ROUNDS]

Each figure is data packets per wall second of the simulation alone (the
run's speed.json; ns-3: Simulator::Run). The ratios are taken round by round,
where the programs ran within seconds of each other, before their median, so
this shared machine's drift cancels.

Memory: each run's peak resident set (VmHWM, which rnicsim writes to
RNICSIM_PEAK_MEMORY_FILE as it ends). Per node: the slope over permutations
of 4 KB on stars of 8 to 64 hosts (registered memory is 2 x 4 KiB a flow,
nothing beside it). Over a long run: the incast with 10x the messages.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_compare import spread  # scripts/, this script's folder

INCAST = ["--set", "traffic.bytes=4096", "--set", "output.plot=false"]


def rnicsim_run(rnicsim, args, work):
    """Runs rnicsim; returns (speed.json, peak memory in bytes)."""
    folder = Path(tempfile.mkdtemp(dir=work))
    out = folder / "run"
    peak = folder / "peak"
    env = dict(os.environ, RNICSIM_PEAK_MEMORY_FILE=str(peak), SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    subprocess.run([rnicsim] + args + ["--out", str(out)], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    speed = json.loads((out / "speed.json").read_text())
    return speed, int(peak.read_text())


def main():
    rnicsim, ns3, configs, out = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    incast_config = str(configs / "fabric_incast.json")
    runs = {"write_bw_4k": [], "incast_8_to_1": [], "permutation_64": [], "ns3_udp_incast": []}
    with tempfile.TemporaryDirectory() as work:
        for r in range(rounds):
            speed, _ = rnicsim_run(rnicsim, ["perf", "write_bw", "-s", "4096", "-n", "200000", "-m",
                                             "4096", "--set", "nic.ethernet_mtu_bytes=4200"], work)
            runs["write_bw_4k"].append(speed["request_packets_per_wall_second"])
            speed, _ = rnicsim_run(rnicsim, ["run", incast_config] + INCAST +
                                   ["--set", "traffic.messages=25000"], work)
            runs["incast_8_to_1"].append(speed["request_packets_per_wall_second"])
            speed, _ = rnicsim_run(rnicsim, ["run", incast_config] + INCAST +
                                   ["--set", "topology.hosts=64", "--set",
                                    "traffic.pattern=permutation", "--set",
                                    "traffic.messages=3125"], work)
            runs["permutation_64"].append(speed["request_packets_per_wall_second"])
            line = subprocess.run([ns3, "--packets=400000"], check=True, capture_output=True,
                                  text=True).stdout.strip().splitlines()[-1]
            runs["ns3_udp_incast"].append(json.loads(line)["packets_per_wall_second"])
            print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.0f}" for k, v in runs.items()),
                  flush=True)
        ratios = {
            "incast_over_write_bw": [i / w for i, w in zip(runs["incast_8_to_1"], runs["write_bw_4k"])],
            "permutation_over_write_bw": [p / w for p, w in zip(runs["permutation_64"],
                                                                runs["write_bw_4k"])],
            "incast_over_ns3_incast": [i / n for i, n in zip(runs["incast_8_to_1"],
                                                             runs["ns3_udp_incast"])],
        }
        # Memory per node: permutations of one 4 KB WRITE per node on stars.
        memory = []
        for hosts in (8, 16, 32, 64):
            _, peak = rnicsim_run(rnicsim, ["run", incast_config] + INCAST +
                                  ["--set", f"topology.hosts={hosts}", "--set",
                                   "traffic.pattern=permutation", "--set", "traffic.messages=1"],
                                  work)
            memory.append({"nodes": hosts, "peak_bytes": peak})
        n = [m["nodes"] for m in memory]
        b = [m["peak_bytes"] for m in memory]
        mean_n, mean_b = statistics.mean(n), statistics.mean(b)
        slope = (sum((x - mean_n) * (y - mean_b) for x, y in zip(n, b)) /
                 sum((x - mean_n) ** 2 for x in n))
        long_run = []
        for messages in (25000, 250000):
            _, peak = rnicsim_run(rnicsim, ["run", incast_config] + INCAST +
                                  ["--set", f"traffic.messages={messages}"], work)
            long_run.append({"messages_per_sender": messages, "peak_bytes": peak})
    result = {
        "what": "data packets per wall second (ACKs and pauses not counted), the simulation "
                "alone; ratios round by round, then their spread",
        "commands": {
            "write_bw_4k": "rnicsim perf write_bw -s 4096 -n 200000 -m 4096 --set "
                           "nic.ethernet_mtu_bytes=4200",
            "incast_8_to_1": "rnicsim run configs/fabric_incast.json --set traffic.bytes=4096 "
                             "--set traffic.messages=25000",
            "permutation_64": "the same with topology.hosts=64, traffic.pattern=permutation, "
                              "traffic.messages=3125",
            "ns3_udp_incast": "ns3_udp_incast --packets=400000 (8 UDP senders at 1/8 of 100 "
                              "Gbit/s each, 4096 B payloads, a router, 100 Gbit/s links)",
        },
        "rounds": runs,
        "packets_per_wall_second": {k: spread(v) for k, v in runs.items()},
        "ratios": {k: {"spread": spread(v), "rounds": v} for k, v in ratios.items()},
        "memory": {
            "per_node_bytes": slope,
            "stars": memory,
            "long_run": long_run,
        },
    }
    (out / "fabric_speed.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v["spread"]["median"] for k, v in result["ratios"].items()}))
    print(f"memory per node {slope / 2**20:.2f} MiB; long run {long_run}")


if __name__ == "__main__":
    main()
