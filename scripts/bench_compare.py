#!/usr/bin/env python3
"""rnicsim's speed against ns-3's on the same traffic, from scripts/bench's rounds.

usage: bench_compare.py NS3_JSONL RNICSIM_JSONL OUT_FOLDER [NS3_QUEUE_DISC_JSONL]

Each file holds one JSON line per round, in round order, with at least
"packets_per_wall_second"; the rnicsim file may be empty (no rnicsim figure
yet). Writes OUT_FOLDER/ns3_udp_stream.json, and when rnicsim has figures
OUT_FOLDER/rnicsim_write_bw_4k.json and OUT_FOLDER/rnicsim_vs_ns3.json, whose
ratio is taken round by round (both ran within seconds of each other) before
its median, so the machine's drift cancels. Stale rnicsim files are removed when
there is no rnicsim figure, so no old ratio outlives its run.

NS3_QUEUE_DISC_JSONL, when given, holds the rounds of the same ns-3 program
with its default queue disc kept (--queue-disc=true), as a program written the
usual way has it: written to OUT_FOLDER/ns3_udp_stream_queue_disc.json, and
rnicsim's ratio against it is added to rnicsim_vs_ns3.json as context. The
ratio that counts stays the one against the leaner program. Without it (or
with an empty file) that JSON file is removed and no context ratio is written.
Runs that say which program they were ("queue_disc") must be in the right file.
"""
import json
import statistics
import sys
from pathlib import Path


def read_runs(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def spread(values):
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def round_by_round(numerators, denominators):
    """The ratios of two sets of rounds, taken round by round, and their spread."""
    ratios = [n / d for n, d in zip(numerators, denominators)]
    return {"ratio": spread(ratios), "ratios": ratios}


def write(path, document):
    with open(path, "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    ns3, rnicsim, out = read_runs(argv[0]), read_runs(argv[1]), Path(argv[2])
    with_disc = read_runs(argv[3]) if len(argv) == 4 else []
    if not ns3:
        sys.exit("bench_compare.py: no ns-3 run")
    if with_disc and len(with_disc) != len(ns3):
        sys.exit(f"bench_compare.py: {len(with_disc)} queue-disc runs for {len(ns3)} ns-3 runs")
    for runs, kept, name in ((ns3, False, argv[0]), (with_disc, True, argv[3] if with_disc else "")):
        if any(run.get("queue_disc", kept) != kept for run in runs):
            sys.exit(f"bench_compare.py: {name}: a run with queue_disc "
                     f"{'false' if kept else 'true'} (arguments swapped?)")
    disc_file = out / "ns3_udp_stream_queue_disc.json"
    disc_file.unlink(missing_ok=True)  # no stale context outlives its run
    ns3_pps = [run["packets_per_wall_second"] for run in ns3]
    write(out / "ns3_udp_stream.json", {
        "what": "ns-3 " + ns3[0]["ns3_version"] + ": 2 nodes, 100 Gbit/s point-to-point, "
                "UDP at line rate, " + str(ns3[0]["payload_bytes"]) + " B payloads",
        "packets_per_wall_second": spread(ns3_pps),
        "runs": ns3,
    })
    print(f"ns-3: {statistics.median(ns3_pps):.0f} packets per wall second "
          f"(median of {len(ns3)}; {min(ns3_pps):.0f} to {max(ns3_pps):.0f})")
    disc_pps = [run["packets_per_wall_second"] for run in with_disc]
    if with_disc:
        write(disc_file, {
            "what": "the same ns-3 program with each device's default queue disc kept",
            "packets_per_wall_second": spread(disc_pps),
            "runs": with_disc,
        })
        print(f"ns-3 with its default queue disc: {statistics.median(disc_pps):.0f} "
              f"packets per wall second ({min(disc_pps):.0f} to {max(disc_pps):.0f})")

    compared = [out / "rnicsim_write_bw_4k.json", out / "rnicsim_vs_ns3.json"]
    if not rnicsim:
        for path in compared:
            path.unlink(missing_ok=True)
        print("rnicsim: no write_bw figure (scripts/bench, rnicsim_write_bw_4k): no ratio")
        return
    if len(rnicsim) != len(ns3):
        sys.exit(f"bench_compare.py: {len(rnicsim)} rnicsim runs for {len(ns3)} ns-3 runs")
    rnicsim_pps = [run["packets_per_wall_second"] for run in rnicsim]
    write(compared[0], {"packets_per_wall_second": spread(rnicsim_pps), "runs": rnicsim})
    comparison = {
        "what": "rnicsim packets per wall second / ns-3 packets per wall second, round by round",
        **round_by_round(rnicsim_pps, ns3_pps),
    }
    if with_disc:
        comparison["context_against_ns3_with_default_queue_disc"] = round_by_round(
            rnicsim_pps, disc_pps)
    write(compared[1], comparison)
    ratio = comparison["ratio"]
    print(f"rnicsim: {statistics.median(rnicsim_pps):.0f} packets per wall second; "
          f"rnicsim/ns-3 {ratio['median']:.2f} ({ratio['min']:.2f} to {ratio['max']:.2f})")
    if with_disc:
        context = comparison["context_against_ns3_with_default_queue_disc"]["ratio"]
        print(f"rnicsim/ns-3 with its default queue disc (context): {context['median']:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
