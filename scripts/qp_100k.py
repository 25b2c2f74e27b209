#!/usr/bin/env python3
"""The simulator at 100,000 QPs, for results/bench/qp_100k.{json,md}.

usage: qp_100k.py RNICSIM CONFIG OUT_FOLDER [ROUNDS]

One run of this script times, alternating over ROUNDS (default 2) rounds so
the machine's hour weighs on every case alike:
  one_qp         write_bw -s 64 -q 1, the one-QP figure
  qps_100k       write_bw -s 64 -q 100000 --threads 8: every QP created,
                 connected and used, round-robin small WRITEs over all of
                 them, on CONFIG as it is (its caches miss: the simulated NIC
                 does more work per packet, DMA reads of contexts and MTT
                 entries)
  qps_100k_fit   the same with the QP, CQ, MPT and MTT caches large enough for
                 every QP, so the figure against one_qp is the simulator's
                 own cost of scale (its data structures), not simulated work
Each figure is from speed.json: set-up wall time (QPs, CQs, MRs,
connections), request packets per wall second after set-up, activations
per request packet; the peak resident memory from the kernel (wait4), and
the simulated host memory the simulator holds (host_memory_bytes). Memory
per QP is the 100k run's less the one-QP run's, over the QPs added; the
host's part is the simulated host memory (rings, CQs, MR buffers, the
NIC's tables in host memory), the rest is the simulator's objects (the
driver's and the NIC's per-QP state).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

QPS = 100000
FIT = ["--set", "transport.qp_cache_entries=131072", "--set", "transport.cq_cache_entries=1024",
       "--set", "translation.mpt_cache_entries=262144", "--set",
       "translation.mtt_cache_entries=1048576"]
# The receive buffer holds every message in flight (100,000 QPs x 5 x a
# 138 B frame is 69 MB), as a lossless link would: with the preset's 4 MiB
# it overflows and the run is go-back-N retransmissions after timeouts. And
# the QP timeout is 2^20 x 4.096 us (4.3 s, -u 20): past the cliff the NIC
# serves about 1 Mpps, so 500,000 messages queue half a second of work,
# longer than the default 67 ms, and the waiting QPs would time out.
LOSSLESS = ["--set", "link.rx_buffer_bytes=134217728", "-u", "20"]
CASES = {
    "one_qp": ["-q", "1", "-n", "400000"] + LOSSLESS,
    "qps_100k": ["-q", str(QPS), "--threads", "8", "-n", "5"] + LOSSLESS,
    "qps_100k_fit": ["-q", str(QPS), "--threads", "8", "-n", "5"] + LOSSLESS + FIT,
}


def peak_rss_mib(rnicsim, config, out, args):
    """Runs rnicsim perf; its peak resident memory from the kernel (wait4)."""
    command = [rnicsim, "perf", "write_bw", config, "-s", "64", "-N", "--out", str(out)] + args
    # The report (100,000 QPs' address lines) is not kept: speed.json has the figures.
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"{' '.join(command)} failed")
    return usage.ru_maxrss / 1024.0


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    rnicsim, config, out = argv[0], argv[1], Path(argv[2])
    rounds = int(argv[3]) if len(argv) == 4 else 2
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="qp_100k_"))  # the runs' folders, not kept
    samples = {name: [] for name in CASES}
    for r in range(rounds):
        for name, args in CASES.items():
            folder = work / f"{name}_{r}"
            rss = peak_rss_mib(rnicsim, config, folder, args)
            speed = json.loads((folder / "speed.json").read_text())
            samples[name].append({"peak_rss_mib": rss, **{k: speed[k] for k in (
                "wall_seconds", "set_up_wall_seconds", "request_packets",
                "request_packets_per_wall_second_after_set_up",
                "activations_per_request_packet")},
                "host_memory_bytes": sum(b["host_memory_bytes"] for b in speed["blocks"].values())})
            print(name, r, json.dumps(samples[name][-1]), flush=True)
    summary = {}
    for name, runs in samples.items():
        summary[name] = {k: statistics.median(run[k] for run in runs) for k in runs[0]}
        summary[name]["args"] = " ".join(CASES[name])
    one = summary["one_qp"]
    for name in ("qps_100k", "qps_100k_fit"):
        s = summary[name]
        s["packets_per_wall_second_vs_one_qp"] = (s["request_packets_per_wall_second_after_set_up"] /
                                                  one["request_packets_per_wall_second_after_set_up"])
        s["ratio_per_round"] = [a["request_packets_per_wall_second_after_set_up"] /
                                b["request_packets_per_wall_second_after_set_up"]
                                for a, b in zip(samples[name], samples["one_qp"])]
        added = QPS - 1
        s["memory_per_qp_bytes"] = (s["peak_rss_mib"] - one["peak_rss_mib"]) * 1048576 / added
        s["host_memory_per_qp_bytes"] = (s["host_memory_bytes"] - one["host_memory_bytes"]) / added
        s["simulator_objects_per_qp_bytes"] = s["memory_per_qp_bytes"] - s["host_memory_per_qp_bytes"]
        s["set_up_us_per_qp"] = s["set_up_wall_seconds"] * 1e6 / QPS
    document = {"config": config, "rounds": rounds, "cases": summary, "samples": samples}
    (out / "qp_100k.json").write_text(json.dumps(document, indent=2) + "\n")
    lines = ["| case | peak memory (MiB) | set-up (s) | request packets | packets per wall second "
             "after set-up | vs one QP (per round) | activations per packet |",
             "|---|---|---|---|---|---|---|"]
    for name, s in summary.items():
        ratio = ("" if name == "one_qp" else
                 f"{s['packets_per_wall_second_vs_one_qp']:.2f} (" +
                 ", ".join(f"{x:.2f}" for x in s["ratio_per_round"]) + ")")
        lines.append(f"| {name} (`{s['args']}`) | {s['peak_rss_mib']:.0f} | "
                     f"{s['set_up_wall_seconds']:.2f} | {s['request_packets']:.0f} | "
                     f"{s['request_packets_per_wall_second_after_set_up']:,.0f} | {ratio} | "
                     f"{s['activations_per_request_packet']:.1f} |")
    lines += ["", "| case | memory per QP (B) | of it simulated host memory (B) | "
              "simulator objects, driver and NIC (B) | set-up per QP (us of wall) |",
              "|---|---|---|---|---|"]
    for name in ("qps_100k", "qps_100k_fit"):
        s = summary[name]
        lines.append(f"| {name} | {s['memory_per_qp_bytes']:.0f} | {s['host_memory_per_qp_bytes']:.0f} | "
                     f"{s['simulator_objects_per_qp_bytes']:.0f} | {s['set_up_us_per_qp']:.1f} |")
    (out / "qp_100k.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
