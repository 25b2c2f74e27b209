#!/usr/bin/env python3
"""Times 4 KB write_bw with the model's ICRC and parser and with their RTL
twins swapped in (cosim_bench's BM_WriteBwSwap), round after round, and
writes each round's runs and slowdowns, and their min, median and max, as
JSON.

Each round runs the four configurations once each, one process per run, in
an order that turns by one place every round, so that no configuration
always runs right after another. A slowdown is a swapped run's time over
the all-model run of its own round: this machine's speed drifts from
minute to minute, and a ratio of runs seconds apart is what the drift
moves least.

usage: cosim_rounds.py COSIM_BENCH OUT.json [--rounds R]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# (icrc_rtl, parser_rtl): the all-model run first.
CONFIGURATIONS = [(0, 0), (1, 0), (0, 1), (1, 1)]


def name(icrc_rtl, parser_rtl):
    return f"icrc_rtl:{icrc_rtl}/parser_rtl:{parser_rtl}"


def run_once(cosim_bench, configuration, scratch):
    """One BM_WriteBwSwap run in its own process: its wall time in ms."""
    out = os.path.join(scratch, "run.json")
    command = [cosim_bench, f"--benchmark_filter=^BM_WriteBwSwap/{name(*configuration)}/",
               f"--benchmark_out={out}", "--benchmark_out_format=json"]
    # The benchmark's own report and context lines are not wanted here,
    # unless the run fails.
    try:
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    except OSError as error:
        sys.exit(f"cosim_rounds.py: {cosim_bench}: {error.strerror}")
    if done.returncode != 0:
        sys.exit(f"cosim_rounds.py: {' '.join(command)} exited with {done.returncode}:\n"
                 f"{done.stderr}")
    with open(out) as f:
        benchmarks = json.load(f)["benchmarks"]
    if len(benchmarks) != 1 or benchmarks[0]["time_unit"] != "ms":
        sys.exit(f"cosim_rounds.py: {out}: expected one run in ms, got {benchmarks}")
    return benchmarks[0]["real_time"]


def spread(values):
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cosim_bench")
    parser.add_argument("out")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    if args.rounds < 1:
        sys.exit("cosim_rounds.py: --rounds must be at least 1")

    rounds = []
    with tempfile.TemporaryDirectory() as scratch:
        for r in range(args.rounds):
            turn = r % len(CONFIGURATIONS)
            order = CONFIGURATIONS[turn:] + CONFIGURATIONS[:turn]
            ms = {name(*c): run_once(args.cosim_bench, c, scratch) for c in order}
            model = ms[name(0, 0)]
            slowdown = {key: value / model for key, value in ms.items() if key != name(0, 0)}
            rounds.append({"order": [name(*c) for c in order], "ms": ms, "slowdown": slowdown})
            print(f"round {r + 1}: " + ", ".join(
                f"{key} {value:.0f} ms" for key, value in ms.items()) +
                  f"; both swapped in: {slowdown[name(1, 1)]:.2f}x", flush=True)

    summary = {
        "workload": "4 KB write_bw, 20,000 messages, ICRC and parser latency 0 in every run",
        "rounds": len(rounds),
        "ms": {name(*c): spread([r["ms"][name(*c)] for r in rounds]) for c in CONFIGURATIONS},
        "slowdown": {name(*c): spread([r["slowdown"][name(*c)] for r in rounds])
                     for c in CONFIGURATIONS[1:]},
        "each_round": rounds,
    }
    with open(args.out, "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    both = summary["slowdown"][name(1, 1)]
    print(f"both swapped in: {both['min']:.2f}x to {both['max']:.2f}x, "
          f"median {both['median']:.2f}x over {len(rounds)} rounds")


if __name__ == "__main__":
    main()
