#!/usr/bin/env python3
"""The memory a fabric node takes, and whether a long run's stays flat.
fabric_speed.py measures it beside the speed rounds; alone, it writes
OUT/fabric_memory.json.

usage: fabric_memory.py RNICSIM CONFIGS_DIR OUT_DIR

Each run's peak resident set (VmHWM, which rnicsim writes to
RNICSIM_PEAK_MEMORY_FILE as it ends). Per node: the least-squares slope over
permutations of one 4 KB WRITE per node on stars of 8 to 64 hosts
(registered memory is 2 x 4 KiB a node, nothing beside it). Over a long run:
the 8-to-1 incast of 4 KB WRITEs with 25,000 and with 250,000 messages per
sender (its time series stream to their files).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

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


def measure(rnicsim, incast_config, work):
    """{"per_node_bytes", "stars", "long_run"}: the memory figures."""
    stars = []
    for hosts in (8, 16, 32, 64):
        _, peak = rnicsim_run(rnicsim, ["run", incast_config] + INCAST +
                              ["--set", f"topology.hosts={hosts}", "--set",
                               "traffic.pattern=permutation", "--set", "traffic.messages=1"], work)
        stars.append({"nodes": hosts, "peak_bytes": peak})
    n = [m["nodes"] for m in stars]
    b = [m["peak_bytes"] for m in stars]
    mean_n, mean_b = statistics.mean(n), statistics.mean(b)
    slope = (sum((x - mean_n) * (y - mean_b) for x, y in zip(n, b)) /
             sum((x - mean_n) ** 2 for x in n))
    long_run = []
    for messages in (25000, 250000):
        _, peak = rnicsim_run(rnicsim, ["run", incast_config] + INCAST +
                              ["--set", f"traffic.messages={messages}"], work)
        long_run.append({"messages_per_sender": messages, "peak_bytes": peak})
    return {"per_node_bytes": slope, "stars": stars, "long_run": long_run}


def main():
    rnicsim, configs, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    with tempfile.TemporaryDirectory() as work:
        memory = measure(rnicsim, str(configs / "fabric_incast.json"), work)
    (out / "fabric_memory.json").write_text(json.dumps(memory, indent=2) + "\n")
    print(f"memory per node {memory['per_node_bytes'] / 2**20:.2f} MiB; "
          f"long run {memory['long_run']}")


if __name__ == "__main__":
    main()
