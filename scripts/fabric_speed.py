#!/usr/bin/env python3
"""The fabric's simulator speed, side by side, round by round (scripts/bench):
the two-node 4 KB write_bw, the 8-to-1 incast of 4 KB WRITEs and a 64-host
permutation of them (rnicsim run configs/fabric_incast.json), and ns-3's
8-to-1 UDP incast (ns3_udp_incast); then the memory the fabric takes per node
and over a long run (fabric_memory.py). Writes OUT/fabric_speed.json.

usage: fabric_speed.py RNICSIM NS3_UDP_INCAST CONFIGS_DIR OUT_DIR [ROUNDS]

Each figure is data packets per wall second of the simulation alone (the
run's speed.json; ns-3: Simulator::Run). The ratios are taken round by round,
where the programs ran within seconds of each other, before their median, so
this shared machine's drift cancels.

Memory: fabric_memory.py's figures, from the same build.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

# scripts/, this script's folder
from bench_compare import spread
from fabric_memory import INCAST, measure, rnicsim_run


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
        memory = measure(rnicsim, incast_config, work)
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
        "memory": memory,
    }
    (out / "fabric_speed.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v["spread"]["median"] for k, v in result["ratios"].items()}))
    print(f"memory per node {memory['per_node_bytes'] / 2**20:.2f} MiB; "
          f"long run {memory['long_run']}")


if __name__ == "__main__":
    main()
