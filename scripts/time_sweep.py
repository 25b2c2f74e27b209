#!/usr/bin/env python3
"""Times a sweep with -j 1 against -j N, each run into a fresh folder (so no
point is skipped), rounds alternating, and writes the figures as JSON.

usage: time_sweep.py RNICSIM SWEEP.json WORK_DIR OUT.json [--jobs N] [--rounds R]
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import time


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rnicsim")
    parser.add_argument("sweep")
    parser.add_argument("work")
    parser.add_argument("out")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    seconds = {1: [], args.jobs: []}
    points = None
    for round_number in range(args.rounds):
        for jobs in (1, args.jobs):
            folder = os.path.join(args.work, f"j{jobs}_{round_number}")
            start = time.monotonic()
            subprocess.run([args.rnicsim, "sweep", args.sweep, "--out", folder, "-j", str(jobs)],
                           check=True, stdout=subprocess.DEVNULL)
            seconds[jobs].append(round(time.monotonic() - start, 3))
            with open(os.path.join(folder, "sweep.json")) as f:
                points = json.load(f)["points"]
            shutil.rmtree(folder)
    one, many = statistics.median(seconds[1]), statistics.median(seconds[args.jobs])
    report = {
        "sweep": args.sweep,
        "points": points,
        "command": f"rnicsim sweep {args.sweep} --out DIR -j J (a fresh DIR each run)",
        "machine": {"cpus": os.cpu_count(), "cpu": cpu_model()},
        "rounds": args.rounds,
        "seconds": {f"j{j}": s for j, s in seconds.items()},
        "median_seconds": {"j1": one, f"j{args.jobs}": many},
        "speedup": round(one / many, 3),
    }
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(f"{points} points: -j 1 {one} s, -j {args.jobs} {many} s (medians of {args.rounds}): "
          f"{report['speedup']}x")


if __name__ == "__main__":
    main()
