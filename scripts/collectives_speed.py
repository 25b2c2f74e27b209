#!/usr/bin/env python3
"""The collectives' simulator speed beside the two-node write_bw, round by
round (scripts/bench): an 8-rank 64 MiB ring AllReduce on a star of
cx5_100g hosts (2 MiB pages) against `rnicsim perf write_bw -s 4096`. Writes
OUT/collectives_speed.json and prints it.

usage: collectives_speed.py RNICSIM CONFIGS_DIR OUT_DIR [ROUNDS]

Each figure is RoCE request packets per wall second of the simulation (the
run's speed.json; the AllReduce's leaves out the wall time of writing the
ranks' inputs and checking their results, which it reports apart). The
ratio is taken round by round, where the two ran within seconds of each
other, before its median, so this shared machine's drift cancels.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def speed(rnicsim, args, work):
    out = Path(tempfile.mkdtemp(dir=work)) / "run"
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    subprocess.run([rnicsim] + args + ["--out", str(out)], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    return json.loads((out / "speed.json").read_text())


def main():
    rnicsim, configs, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    preset = str(configs / "cx5_100g.json")
    allreduce = ["coll", "allreduce", preset, "--set", "topology.preset=star", "--set",
                 "topology.hosts=8", "--set", "pfc.enabled=true", "--set",
                 "host.page_bytes=2097152", "-m", "64M:64M", "-i", "2", "-x", "1"]
    write_bw = ["perf", "write_bw", preset, "-s", "4096", "-n", "400000"]
    result = {"write_bw_4k": [], "allreduce_8_64m": [], "ratio": []}
    with tempfile.TemporaryDirectory() as work:
        for _ in range(rounds):
            w = speed(rnicsim, write_bw, work)["request_packets_per_wall_second"]
            a = speed(rnicsim, allreduce, work)["request_packets_per_wall_second"]
            result["write_bw_4k"].append(w)
            result["allreduce_8_64m"].append(a)
            result["ratio"].append(a / w)
    result["ratio_median"] = statistics.median(result["ratio"])
    text = json.dumps(result, indent=2) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    (out / "collectives_speed.json").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
